"""The corpus registry, the held-out split and WikiText detection."""

from __future__ import annotations

import os
import unicodedata

import pytest
from helpers import MAX_EXAMPLES, shared_file
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe.corpora.builtin import BUILTIN_TEXTS, LIGHTHOUSE, LIGHTHOUSE_DIR, lighthouse_name
from bpe.corpora.corpus import (
    CORPORA_ENV_VAR,
    PYTHON_REFERENCE,
    WIKITEXT_NAMES,
    corpus_from_upload,
    find_corpus,
    list_corpora,
    load_corpus,
    read_corpus,
    split_train_heldout,
)
from bpe.corpora.wikitext import CACHE_FOLDER, CLEAN_FILES, is_wikitext_word_level
from bpe.errors import BpeError, CorpusError


@pytest.fixture
def no_env():
    """An environment without BPE_CORPORA, so the machine's own setting cannot leak in."""
    return {}


def names(infos):
    return [info.name for info in infos]


# ==================== Built-in texts


def test_builtins_are_listed_first_in_order(tmp_path, no_env):
    infos = list_corpora(data_dir=tmp_path, env=no_env)
    assert names(infos)[: len(BUILTIN_TEXTS)] == [b.name for b in BUILTIN_TEXTS]
    assert {info.source for info in infos[: len(BUILTIN_TEXTS)]} == {"builtin"}


@pytest.mark.parametrize(
    "name, text",
    [
        ("low lower lowest", "low lower lowest"),
        ("aaabdaaabac", "aaabdaaabac"),
        ("aaaaa", "aaaaa"),
        ("the cat in the hat", "the cat in the hat"),
    ],
)
def test_worked_examples_are_exact(tmp_path, no_env, name, text):
    assert load_corpus(name, data_dir=tmp_path, env=no_env) == text


def test_lighthouse_exists_in_many_scripts_and_is_nfc():
    assert {"en", "fr", "de", "es", "ru", "el", "zh"} <= set(LIGHTHOUSE)
    for builtin in BUILTIN_TEXTS:
        assert unicodedata.is_normalized("NFC", builtin.text), builtin.name
    assert lighthouse_name("fr") == "lighthouse (French)"


def test_lighthouse_texts_are_the_shipped_files_one_paragraph_each():
    # One home for the paragraphs: data/lighthouse/<code>.txt, which the docs' parity command
    # reads as `data/lighthouse/*.txt`; a file there that the app does not list would make the
    # command line and the Languages page compare different languages.
    files = sorted(path.stem for path in LIGHTHOUSE_DIR.glob("*"))
    assert files == sorted(LIGHTHOUSE) and len(files) == 11
    for code, (_, text) in LIGHTHOUSE.items():
        assert text == (LIGHTHOUSE_DIR / f"{code}.txt").read_text(encoding="utf-8")
        assert text.strip() == text and "\n" not in text, code  # one paragraph, as the app shows it


def test_builtin_size_is_utf8_bytes(tmp_path, no_env):
    info = find_corpus(lighthouse_name("ru"), data_dir=tmp_path, env=no_env)
    assert info.size_bytes == len(read_corpus(info).encode("utf-8")) > len(read_corpus(info))
    assert info.language == "ru"


def test_python_reference_is_large_and_listed(tmp_path, no_env):
    info = find_corpus(PYTHON_REFERENCE, data_dir=tmp_path, env=no_env)
    text = read_corpus(info)
    assert info.source == "python-docs"
    assert len(text) > 100_000 and "assert" in text
    assert info.size_bytes == len(text.encode("utf-8"))


# ==================== Files: data/, BPE_CORPORA, the WikiText cache


def test_data_dir_txt_files_are_listed_but_not_cache_or_other_files(tmp_path, no_env):
    (tmp_path / "notes.txt").write_text("some notes\n", encoding="utf-8")
    (tmp_path / "image.png").write_bytes(b"\x89PNG")
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "hidden.txt").write_text("cached\n", encoding="utf-8")
    files = [info for info in list_corpora(data_dir=tmp_path, env=no_env) if info.path is not None]
    assert [(i.name, i.source, i.size_bytes) for i in files] == [("notes.txt", "data-dir", 11)]
    assert load_corpus("notes.txt", data_dir=tmp_path, env=no_env) == "some notes\n"


def test_bpe_corpora_lists_files_and_folders(tmp_path, monkeypatch):
    folder = tmp_path / "corpora"
    folder.mkdir()
    (folder / "b.txt").write_text("bee\n", encoding="utf-8")
    (folder / "a.txt").write_text("ay\n", encoding="utf-8")
    (folder / "skip.md").write_text("not a txt\n", encoding="utf-8")
    single = tmp_path / "single.text"
    single.write_text("one file, any extension\n", encoding="utf-8")
    missing = tmp_path / "missing"
    monkeypatch.setenv(CORPORA_ENV_VAR, os.pathsep.join([str(folder), "", str(single), str(missing)]))
    files = [info for info in list_corpora(data_dir=tmp_path / "no-data") if info.source == "env"]
    assert names(files) == ["a.txt", "b.txt", "single.text"]
    assert load_corpus("single.text", data_dir=tmp_path / "no-data") == "one file, any extension\n"


def test_name_clashes_get_the_folder_name(tmp_path, no_env):
    data, other = tmp_path / "data", tmp_path / "other"
    data.mkdir()
    other.mkdir()
    (data / "text.txt").write_text("from data\n", encoding="utf-8")
    (other / "text.txt").write_text("from other\n", encoding="utf-8")
    env = {CORPORA_ENV_VAR: os.pathsep.join([str(other), str(other / "text.txt")])}
    files = [info for info in list_corpora(data_dir=data, env=env) if info.path is not None]
    assert names(files) == ["text.txt", "text.txt (other)", "text.txt (other 2)"]
    assert len(set(names(list_corpora(data_dir=data, env=env)))) == len(list_corpora(data_dir=data, env=env))
    assert load_corpus("text.txt (other)", data_dir=data, env=env) == "from other\n"


def test_wikitext_cache_is_listed_when_complete(tmp_path, no_env):
    folder = tmp_path / "cache" / CACHE_FOLDER
    folder.mkdir(parents=True)
    for split, file_name in CLEAN_FILES.items():
        (folder / file_name).write_text(f" = {split} = \n", encoding="utf-8")
        listed = [i.name for i in list_corpora(data_dir=tmp_path, env=no_env) if i.source == "wikitext-2-cache"]
        assert listed == ([] if split != "test" else list(WIKITEXT_NAMES.values()))
    assert load_corpus("WikiText-2 validation", data_dir=tmp_path, env=no_env) == " = val = \n"


def test_unknown_name_lists_what_exists(tmp_path, no_env):
    with pytest.raises(CorpusError, match=r"no corpus named 'nope'\. Available: 'low lower lowest', "):
        load_corpus("nope", data_dir=tmp_path, env=no_env)


def test_unreadable_file_error_names_it(tmp_path, no_env):
    (tmp_path / "latin1.txt").write_bytes("caf\u00e9".encode("latin-1"))
    with pytest.raises(CorpusError, match=r"latin1\.txt is not valid UTF-8: byte 0xE9 at byte offset 3"):
        load_corpus("latin1.txt", data_dir=tmp_path, env=no_env)


def test_upload_is_decoded_and_described():
    info, text = corpus_from_upload(b"\xef\xbb\xbfhi\r\n", file_name="notes.txt")
    assert text == "hi\r\n"
    assert (info.name, info.source, info.size_bytes, info.path) == ("upload: notes.txt", "upload", 7, None)
    with pytest.raises(CorpusError, match="has no stored text"):
        read_corpus(info)


# ==================== Held-out split


def test_split_at_nearest_line_boundary():
    text = "".join(f"line {i}\n" for i in range(10))  # 10 lines of 7 characters
    train, heldout = split_train_heldout(text, 0.2)
    assert (train, heldout) == ("".join(f"line {i}\n" for i in range(8)), "line 8\nline 9\n")


def test_split_zero_keeps_everything():
    assert split_train_heldout("low lower lowest", 0) == ("low lower lowest", "")


def test_split_single_line_cuts_after_a_space():
    assert split_train_heldout("low lower lowest", 0.1) == ("low lower ", "lowest")


def test_split_without_whitespace_cuts_at_the_fraction():
    assert split_train_heldout("aaaaaaaaaa", 0.3) == ("aaaaaaa", "aaa")


@pytest.mark.parametrize("fraction", [-0.1, 0.95, 1, float("nan"), "0.1", True])
def test_split_rejects_bad_fractions(fraction):
    with pytest.raises(BpeError, match=r"heldout_fraction=.* out of range; use a number from 0"):
        split_train_heldout("a\nb\n", fraction)


@settings(max_examples=MAX_EXAMPLES)
@given(st.text(alphabet="ab \n", max_size=60), st.floats(min_value=0, max_value=0.9))
def test_split_is_lossless_and_on_a_boundary(text, fraction):
    train, heldout = split_train_heldout(text, fraction)
    assert train + heldout == text
    if heldout and "\n" in text[1:-1]:
        assert train.endswith("\n")


# ==================== WikiText detection


@pytest.mark.parametrize(
    "text, expected",
    [
        (" = Homarus gammarus = \n \n A well @-@ known lobster .\n", True),
        (" = = Range = = \n A <unk> species .\n", True),
        ("= Heading =\nwell-known\n", False),
        (" = Heading = \n plain words only\n", False),
        ("low lower lowest", False),
    ],
    ids=["raw", "word-level", "markdown-ish", "heading-only", "plain"],
)
def test_is_wikitext_word_level(text, expected):
    assert is_wikitext_word_level(text) is expected


@pytest.mark.shared_data
def test_shared_wikitext_is_detected_and_readable(monkeypatch, tmp_path):
    valid = shared_file("wikitext-2/valid.txt")
    monkeypatch.setenv(CORPORA_ENV_VAR, str(valid.parent))
    info = find_corpus("valid.txt", data_dir=tmp_path)
    text = read_corpus(info)
    assert info.source == "env" and info.size_bytes == valid.stat().st_size
    assert is_wikitext_word_level(text)
    assert len(text) > 1_000_000


@pytest.mark.shared_data
def test_shared_plain_text_is_not_wikitext(tmp_path):
    verdict = shared_file("the-verdict.txt")
    text = load_corpus("the-verdict.txt", data_dir=tmp_path, env={CORPORA_ENV_VAR: str(verdict)})
    assert not is_wikitext_word_level(text)
    train, heldout = split_train_heldout(text, 0.1)
    assert train + heldout == text and train.endswith("\n")
