"""The parts every format shares: patterns spelled for Oniguruma, escaping tokens for display,
telling formats apart, the proof's report, light imports, and no traceback on any input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import regex
from format_helpers import refused
from format_texts import MULTILINGUAL_HELD_OUT
from helpers import MAX_EXAMPLES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe.errors import BpeError, TokenizerFileError
from bpe.formats import (
    HOSTILE_TEXTS,
    detect_format,
    escape_token,
    export_and_prove,
    export_files,
    hf_from_bytes,
    load_any,
    minbpe_from_bytes,
    pretrained_from_bytes,
    tiktoken_from_bytes,
)
from bpe.formats.patterns import from_oniguruma, resolve_pattern, to_oniguruma
from bpe.formats.roundtrip import proof_texts
from bpe.pretokenize import NAMED_PATTERNS
from bpe.tokenizer import BPETokenizer

# ==================== Patterns


@pytest.mark.parametrize("name", list(NAMED_PATTERNS))
def test_named_patterns_chunk_the_same_in_oniguruma(name):
    tokenizers = pytest.importorskip("tokenizers")
    pattern = NAMED_PATTERNS[name]
    split = tokenizers.pre_tokenizers.Split(tokenizers.Regex(to_oniguruma(pattern)), behavior="isolated")
    for label, text in HOSTILE_TEXTS + (("multilingual", MULTILINGUAL_HELD_OUT),):
        ours = regex.findall(pattern, text)
        theirs = [piece for piece, _ in split.pre_tokenize_str(text)]
        assert ours == theirs, (name, label)


# \w and \b differ between the engines on these: ZWNJ/ZWJ inside Persian and Hindi words
# are word characters to `regex` only; superscripts and fractions to Oniguruma only.
WORD_EDGE_TEXTS = (
    "İstanbul ıI ß SS ſ \u212a KB",
    "T² x³ ½ ¼ ¹",
    "می\u200cخواهم خانه\u200cها",
    "क्\u200dष a\u200db",
    "it's_9 é-e [a&&b]\nx. y",
)
CUSTOM_PATTERNS = (
    r"\w+|\W",
    r"\b\w+\b|\B.|[\s\S]",
    r" ?[\w']+|[^\w\s]+|\s+",
    r"\w+(?=\W)|[\W\d]+|[\s\S]",
    r"(?i:[a-h]+)|(?s:.)",
    r"(?m:^\w+$)|[[&]+|[\s\S]",
    r"\w{1,3}+|\s++|.|\n",
    r"(?i:[b-h]+|k|'s|'ll)|\x41+|[\s\S]",
)


@pytest.mark.parametrize("pattern", CUSTOM_PATTERNS)
def test_custom_patterns_chunk_the_same_in_oniguruma_on_word_edges(pattern):
    tokenizers = pytest.importorskip("tokenizers")
    split = tokenizers.pre_tokenizers.Split(tokenizers.Regex(to_oniguruma(pattern)), behavior="isolated")
    for text in WORD_EDGE_TEXTS + tuple(text for _, text in HOSTILE_TEXTS):
        ours = regex.findall(pattern, text)
        theirs = [piece for piece, _ in split.pre_tokenize_str(text)]
        assert ours == theirs, (pattern, text)


@pytest.mark.parametrize("pattern", [r"\w+|\W", r"\b\w+|\B\W|[\s\S]", r"[\w']+|[^\w]+"])
def test_oniguruma_patterns_read_as_oniguruma_matches_them(pattern):
    tokenizers = pytest.importorskip("tokenizers")
    split = tokenizers.pre_tokenizers.Split(tokenizers.Regex(pattern), behavior="isolated")
    ours = regex.compile(from_oniguruma(pattern))
    for text in WORD_EDGE_TEXTS:
        assert ours.findall(text) == [piece for piece, _ in split.pre_tokenize_str(text)], (pattern, text)


@pytest.mark.parametrize(
    "pattern, what",
    [
        (r"\X|\s", "X' means something else"),
        (r"\N{LATIN SMALL LETTER A}|[\s\S]", "means something else"),
        (r"[[:alpha:]]+|[\s\S]", "the POSIX class"),
        (r"\h+|[\s\S]", "means something else"),
    ],
)
def test_patterns_without_an_exact_oniguruma_spelling_are_not_exported(pattern, what):
    tokenizer = BPETokenizer.train("ab ab ab", 5, pretokenizer=pattern)
    refused(export_files, tokenizer, "hf", match=f"cannot be spelled for Oniguruma .*{what}")


@pytest.mark.parametrize(
    "pattern, what",
    [
        (r"(?i:[a-z]+)|[\s\S]", "the range a-z"),  # regex: İ matches i
        (r"(?i:i)|[\s\S]", "'i'"),
        (r"(?i:ß)|[\s\S]", "'ß'"),  # Oniguruma: matches "ss"
        (r"(?i:\p{Lu})|[\s\S]", "p{Lu}"),  # regex: folds the class, matches lower case
        (r"(?i)\w+|[\s\S]", "w'"),
    ],
)
def test_case_insensitive_parts_the_engines_fold_differently_are_refused_both_ways(pattern, what):
    refused(to_oniguruma, pattern, match=f"case-insensitive .* of .*{what}")
    refused(from_oniguruma, pattern, match="case-insensitive")


def test_oniguruma_classes_python_reads_otherwise_are_refused_on_import():
    for pattern, what in ((r"[a[b]]", "nested class"), (r"[a&&b]", "intersection"), (r"[\W\d]", "\\\\W inside")):
        refused(from_oniguruma, pattern, match=f"cannot be read from Oniguruma .*{what}")


def test_translation_rewrites_only_what_differs():
    assert to_oniguruma(r"\p{N}{1,3}+") == r"(?>\p{N}{1,3})"
    assert from_oniguruma(r"\p{N}{1,3}+") == r"(?:\p{N}{1,3})+"
    assert to_oniguruma(r"^a$") == r"\Aa(?=\n?\z)"
    assert from_oniguruma(r"^a\Z") == r"(?m:^)a(?=\n?\Z)"
    assert to_oniguruma(r"[$^]{2}\p{L}++(?i:x)") == r"[$^]{2}\p{L}++(?i:x)"
    assert resolve_pattern("cl100k") == NAMED_PATTERNS["gpt4"] and resolve_pattern("none") is None


# ==================== Escaping


def test_tokens_are_escaped_for_display():
    assert escape_token("a\nb\t\x1b[0m\u200b") == "a\\nb\\t\\x1b[0m\\u200b"
    assert escape_token(b"caf\xc3\xa9 \xe2\x82") == "café \\xe2\\x82"  # a cut character shows its bytes
    assert escape_token("\\") == "\\\\" and escape_token("x" * 100, limit=5) == "xxxxx…"
    assert escape_token("\U000e0001") == "\\U000e0001"


# ==================== Telling formats apart, loading any


def test_formats_are_detected_by_content(trained, tmp_path):
    tokenizer = trained("bytes", "gpt2")
    for fmt in ("hf", "tiktoken", "minbpe"):
        exported = export_files(tokenizer, fmt)
        assert detect_format(exported.main_bytes, "upload.bin") == fmt
    path = tmp_path / "lab.json"
    tokenizer.save(path)
    assert detect_format(path.read_bytes()) == "lab"
    refused(detect_format, b"hello", "notes.txt", match="not a tokenizer file BPE Lab knows", error=TokenizerFileError)


def test_uploads_and_paths_load_every_format(trained, tmp_path):
    tokenizer = trained("bytes", "gpt4")
    ids = tokenizer.encode(MULTILINGUAL_HELD_OUT)
    for fmt in ("hf", "tiktoken", "minbpe"):
        exported = export_files(tokenizer, fmt)
        upload = pretrained_from_bytes(
            exported.main_bytes, exported.main_name, pattern="gpt4" if fmt == "tiktoken" else None
        )
        assert upload.encode(MULTILINGUAL_HELD_OUT) == ids, fmt
        assert upload.source_format == fmt and upload.pretokenizer == "gpt4"
        for name, data in exported.files.items():
            (tmp_path / name).write_bytes(data)
        assert load_any(tmp_path / exported.main_name).encode(MULTILINGUAL_HELD_OUT) == ids
    tokenizer.save(tmp_path / "lab.json")
    assert load_any(tmp_path / "lab.json") == tokenizer
    refused(
        pretrained_from_bytes,
        (tmp_path / "lab.json").read_bytes(),
        "lab.json",
        match="is a BPE Lab tokenizer",
        error=TokenizerFileError,
    )
    refused(
        pretrained_from_bytes,
        export_files(tokenizer, "tiktoken").main_bytes,
        "x.tiktoken",
        match="holds no split pattern",
        error=TokenizerFileError,
    )


def test_imported_tokenizers_answer_like_the_gpt2_tokenizer(trained):
    imported = hf_from_bytes(export_files(trained("bytes", "gpt2"), "hf").main_bytes)
    ids = imported.encode("hello wörld")
    assert imported.decode(ids) == "hello wörld" and imported.decode_bytes(ids) == "hello wörld".encode()
    assert b"".join(imported.encode_tokens("hello wörld")) == "hello wörld".encode()
    assert sum(imported.encode_with_chunks("hello wörld"), []) == ids
    assert imported.tokens[:3] == [b"\x00", b"\x01", b"\x02"] and len(imported.fingerprint()) == 64
    lab = BPETokenizer(
        imported.base_tokens, imported.merges, alphabet=imported.alphabet, pretokenizer=imported.pretokenizer
    )
    assert lab == trained("bytes", "gpt2")
    with pytest.raises(BpeError, match="encode takes a str"):
        imported.encode(b"bytes")
    with pytest.raises(BpeError, match="lone surrogate"):
        imported.encode("\ud800")


# ==================== The proof's report


def test_character_proofs_leave_out_what_the_alphabet_lacks(trained):
    tokenizer = trained("characters", None)
    texts, left_out = proof_texts(tokenizer, "abc\u2603")
    assert left_out >= 1 and all(ch in tokenizer.stoi for _, text in texts for ch in text)


def test_export_report_lines(trained, tmp_path):
    report = export_and_prove(
        trained("characters", "gpt2"), "hf", tmp_path / "out" / "tokenizer.json", check_text=MULTILINGUAL_HELD_OUT
    )
    lines = report.lines()
    assert lines[0] == f"wrote {tmp_path / 'out' / 'tokenizer.json'}"
    assert lines[-1].startswith("identical ids on ") and "with tokenizers " in lines[-1]
    assert "characters outside the alphabet left out" in lines[-1]


def test_a_missing_library_is_a_clear_error(trained, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "tokenizers", None)  # import fails as if not installed
    message = refused(
        export_and_prove,
        trained("bytes", None),
        "hf",
        tmp_path / "t.json",
        check_text="x",
        match="tokenizers package is not installed",
    )
    assert "pip install tokenizers" in message
    assert (tmp_path / "t.json").is_file()  # the export itself was written


def test_outputs_that_are_folders_are_refused(trained, tmp_path):
    refused(export_and_prove, trained("bytes", None), "hf", tmp_path, prove=False, match="it is a folder")


def test_importing_formats_loads_no_heavy_or_optional_package():
    code = (
        "import sys, bpe.formats; "
        "bad = [m for m in ('tokenizers', 'tiktoken', 'streamlit', 'plotly', 'pandas', 'torch') if m in sys.modules]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# ==================== No input makes a traceback


def _json_values():
    leaves = st.one_of(st.none(), st.booleans(), st.integers(-5, 300), st.floats(allow_nan=False), st.text(max_size=6))
    return st.recursive(
        leaves,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
        max_leaves=20,
    )


@settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    model=st.dictionaries(
        st.sampled_from(
            ["type", "vocab", "merges", "unk_token", "dropout", "ignore_merges", "fuse_unk", "byte_fallback"]
        ),
        _json_values(),
        max_size=6,
    ),
    pre=_json_values(),
    added=_json_values(),
)
def test_any_json_is_a_tokenizer_or_a_clear_error(model, pre, added):
    raw = json.dumps({"model": model, "pre_tokenizer": pre, "added_tokens": added}).encode()
    try:
        tokenizer = hf_from_bytes(raw, name="fuzz.json")
    except BpeError as error:
        assert "\n" not in str(error)
        return
    try:
        tokenizer.encode("ab a b")
    except BpeError:
        pass


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(raw=st.binary(max_size=200), lines=st.lists(st.text(alphabet="0123456789 -\n<>|a", max_size=12), max_size=8))
def test_any_bytes_are_a_tokenizer_or_a_clear_error(raw, lines):
    for data in (raw, ("minbpe v1\n\n" + "\n".join(lines)).encode()):
        for load in (
            lambda d: minbpe_from_bytes(d),
            lambda d: tiktoken_from_bytes(d, pattern="gpt2"),
            lambda d: pretrained_from_bytes(d, "x", pattern="gpt2"),
        ):
            try:
                tokenizer = load(data)
            except BpeError as error:
                assert "\n" not in str(error)
                continue
            tokenizer.encode("aa 11")


def test_lab_tokenizers_round_trip_through_every_format(tmp_path):
    """A small hand-made tokenizer: both alphabets, each format that holds them."""
    chars = BPETokenizer.train("low lower lowest newer wider " * 20, target_vocab_size=40, pretokenizer="gpt2")
    report = export_and_prove(chars, "hf", tmp_path / "c.json", check_text="lowest newest wide")
    assert report.proof is not None and report.proof.identical, report.proof.line


@pytest.mark.parametrize("fmt", ["hf", "tiktoken", "minbpe"])
def test_imported_tokenizers_cut_to_their_first_merges_like_the_lab(trained, fmt):
    from bpe.tokenizer import Tokenizer

    lab = trained("bytes", "gpt2")
    exported = export_files(lab, fmt)
    imported = pretrained_from_bytes(exported.main_bytes, exported.main_name, pattern="gpt2")
    assert isinstance(imported, Tokenizer)  # the protocol every page takes
    for count in (0, 7, 100, len(lab.merges) + 5):
        shorter = imported.with_merges(count)
        kept = min(count, len(lab.merges))  # as GPT-2's with_merges, more than there are keeps them all
        assert shorter.encode(MULTILINGUAL_HELD_OUT) == lab.with_merges(kept).encode(MULTILINGUAL_HELD_OUT), count
        assert len(shorter.merges) == min(count, len(lab.merges))
    refused(imported.with_merges, -1, match="must be a whole number")


def test_an_export_written_from_its_files_is_proved_by_each_library(trained, tmp_path, monkeypatch):
    from bpe.formats import export_files, prove_file

    pytest.importorskip("tiktoken")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    tokenizer = trained("bytes", "whitespace")
    for fmt in ("hf", "tiktoken", "minbpe"):
        exported = export_files(tokenizer, fmt)
        for name, data in exported.files.items():
            (tmp_path / name).write_bytes(data)
        proof = prove_file(tokenizer, fmt, tmp_path / exported.main_name, MULTILINGUAL_HELD_OUT)
        assert proof.identical and proof.line.startswith("identical ids on "), proof.line


@pytest.mark.parametrize("fmt", ["hf", "tiktoken", "minbpe"])
def test_a_token_longer_than_any_reader_takes_is_not_exported(fmt):
    """Issue 41: the token-length bound of bpe.io.budget holds for every source of merges,
    exports included: a byte-level run on repetitive text learns a token of 8,192 bytes,
    which BPE Lab's import (and its bound) would refuse; no such file is made."""
    from bpe import train_run
    from bpe.errors import BpeError
    from bpe.formats.export import export_files

    tokenizer = train_run("a" * 20_000, target_vocab_size=270, alphabet="bytes").tokenizer()
    with pytest.raises(BpeError, match="this tokenizer: its token 268 makes a token of 8,192 bytes; the longest"):
        export_files(tokenizer, fmt)
