"""Special tokens in every export and import: Hugging Face ``added_tokens`` (special), the
tiktoken bundle's ``special_tokens``, minbpe's special lines. The proof encodes a text that
holds them, each library recognizing them, and importing the file gives them back."""

from __future__ import annotations

import json

import pytest
from format_texts import MULTILINGUAL_TRAIN

from bpe.formats import export_and_prove, export_files, load_any
from bpe.formats.export import file_ids
from bpe.formats.merges_vs_ranks import merges_vs_ranks
from bpe.tokenizer import BPETokenizer

EOT, PAD = "<|endoftext|>", "<|pad|>"
TEXT = "".join(f"{line}{EOT}" for line in MULTILINGUAL_TRAIN.splitlines() if line) * 3
FILE_NAMES = {"hf": "tokenizer.json", "tiktoken": "lab.tiktoken", "minbpe": "lab.model"}


@pytest.fixture(scope="module")
def with_specials():
    return BPETokenizer.train(TEXT, 420, alphabet="bytes", pretokenizer="gpt2", special_tokens=[EOT, PAD])


@pytest.mark.parametrize("fmt", ["hf", "tiktoken", "minbpe"])
def test_the_export_proves_identical_ids_on_text_with_special_tokens(with_specials, fmt, tmp_path):
    report = export_and_prove(with_specials, fmt, tmp_path / FILE_NAMES[fmt], check_text=TEXT[:4000])
    assert report.proof.identical, report.proof.line
    # the held-out text and the proof's own text of special tokens both hold them
    assert report.proof.texts == 20 and TEXT[:4000].count(EOT) > 10
    imported = load_any(tmp_path / FILE_NAMES[fmt])
    to_file = file_ids(with_specials, fmt)
    assert imported.special_tokens == {EOT: to_file(0), PAD: to_file(1)}
    ids = imported.encode(f"a cat{EOT}{PAD}", allowed_special="all")
    assert ids[-2:] == [to_file(0), to_file(1)]
    assert [to_file(i) for i in with_specials.encode(TEXT[:2000])] == imported.encode(
        TEXT[:2000], allowed_special="all"
    )


def test_hugging_face_holds_them_as_added_special_tokens(with_specials):
    data = json.loads(export_files(with_specials, "hf").main_bytes)
    assert [(t["content"], t["id"], t["special"]) for t in data["added_tokens"]] == [(EOT, 0, True), (PAD, 1, True)]
    assert data["model"]["vocab"][EOT] == 0
    tokenizers = pytest.importorskip("tokenizers")
    loaded = tokenizers.Tokenizer.from_str(json.dumps(data))
    assert loaded.token_to_id(EOT) == 0 and loaded.encode(f"x{EOT}y", add_special_tokens=False).ids[1] == 0


@pytest.mark.parametrize("fmt, matched", [("hf", True), ("tiktoken", False), ("minbpe", False)])
def test_each_file_matches_them_in_a_text_as_its_library_does_unless_told(with_specials, fmt, matched, tmp_path):
    """Hugging Face cuts its added tokens out of any text: a tokenizer.json read here gives
    "a cat<|endoftext|>" the lab's ids, the special token one id. tiktoken's and minbpe's
    ``encode`` match none unless allowed (tiktoken's default raises; here the text is plain
    text, as in ``encode_ordinary``); ``allowed_special`` decides for every file."""
    export_and_prove(with_specials, fmt, tmp_path / FILE_NAMES[fmt], prove=False)
    imported = load_any(tmp_path / FILE_NAMES[fmt])
    to_file = file_ids(with_specials, fmt)
    text = f"a cat{EOT}"
    as_special = [to_file(i) for i in with_specials.encode(text)]
    as_text = imported.encode(text, allowed_special=set())
    assert as_special[-1] == to_file(0) and len(as_text) > len(as_special)
    assert imported.encode(text) == (as_special if matched else as_text)
    assert imported.encode(text, allowed_special="all") == as_special
    if fmt == "hf":
        tokenizers = pytest.importorskip("tokenizers")
        loaded = tokenizers.Tokenizer.from_file(str(tmp_path / FILE_NAMES[fmt]))
        assert loaded.encode(text, add_special_tokens=False).ids == as_special


def test_tiktoken_keeps_them_apart_from_the_ranks(with_specials):
    files = export_files(with_specials, "tiktoken")
    settings = json.loads(files.files["bpe_lab.tiktoken.json"])
    assert settings["special_tokens"] == {EOT: 0, PAD: 1} and settings["explicit_n_vocab"] == 420
    assert b"PHxlbmRvZnRleHR8Pg==" not in files.main_bytes  # base64 of <|endoftext|>: not a mergeable rank


def test_minbpe_numbers_them_after_its_merges(with_specials):
    """minbpe fixes the bytes at ids 0-255: the one file whose ids are the lab's moved down
    by the special tokens' number, those coming after the merges (`file_ids`)."""
    lines = export_files(with_specials, "minbpe").main_bytes.decode().splitlines()
    assert lines[2:5] == ["2", f"{EOT} 418", f"{PAD} 419"]
    first_merge = with_specials.merges[0]
    assert lines[5] == f"{with_specials.stoi[first_merge[0]] - 2} {with_specials.stoi[first_merge[1]] - 2}"


@pytest.mark.parametrize("fmt", ["hf", "tiktoken", "minbpe"])
def test_no_special_token_is_an_example_of_merges_against_ranks(with_specials, fmt):
    found = merges_vs_ranks(with_specials, fmt, sample_text=TEXT[:3000])
    assert all(EOT not in example.text for example in found.examples)


def test_a_character_tokenizer_with_special_tokens_exports_to_hugging_face(tmp_path):
    tok = BPETokenizer.train(TEXT, 500, pretokenizer="whitespace", special_tokens=[EOT])
    report = export_and_prove(tok, "hf", tmp_path / "tokenizer.json", check_text=TEXT[:3000])
    assert report.proof.identical, report.proof.line
    assert load_any(tmp_path / "tokenizer.json").special_tokens == {EOT: 0}
