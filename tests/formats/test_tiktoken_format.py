"""tiktoken ranks files: export -> tiktoken loads it (load_tiktoken_bpe) -> identical ids; files in
tiktoken's format -> BPE Lab reads them -> identical ids; bad files -> one-line errors."""

from __future__ import annotations

import base64
import json

import pytest
from format_helpers import refused
from format_texts import MULTILINGUAL_HELD_OUT

from bpe.errors import BpeError, TokenizerFileError
from bpe.formats import NotByteLevelError, export_and_prove, load_tiktoken_file, prove_import, tiktoken_from_bytes
from bpe.formats.export import export_files
from bpe.formats.tiktoken_ranks import WHOLE_TEXT_PATTERN, parse_ranks
from bpe.pretokenize import GPT2_PATTERN, GPT4_PATTERN

tiktoken = pytest.importorskip("tiktoken")
from tiktoken.load import load_tiktoken_bpe  # noqa: E402


@pytest.fixture
def tiktoken_cache(tmp_path, monkeypatch):
    """tiktoken caches every file it reads; keep its cache inside the test's folder."""
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "tiktoken-cache"))


def _ranks_bytes(ranks: dict[bytes, int]) -> bytes:
    """A ranks file exactly as tiktoken's ``dump_tiktoken_bpe`` writes it."""
    return b"".join(
        base64.b64encode(token) + b" " + str(rank).encode() + b"\n"
        for token, rank in sorted(ranks.items(), key=lambda item: item[1])
    )


# ==================== Export, then load with tiktoken


@pytest.mark.parametrize("pretokenizer", [None, "gpt2", "gpt4", "whitespace"])
def test_export_loads_in_tiktoken_with_identical_ids(tmp_path, tiktoken_cache, trained, pretokenizer):
    tokenizer = trained("bytes", pretokenizer)
    path = tmp_path / "lab.tiktoken"
    report = export_and_prove(tokenizer, "tiktoken", path, check_text=MULTILINGUAL_HELD_OUT)
    assert report.proof.identical, report.proof.line
    assert [p.name for p in report.paths] == ["lab.tiktoken", "lab.tiktoken.json"]
    settings = json.loads((tmp_path / "lab.tiktoken.json").read_text(encoding="utf-8"))
    ranks = load_tiktoken_bpe(str(path), expected_hash=settings["mergeable_ranks_sha256"])
    encoding = tiktoken.Encoding(
        settings["name"], pat_str=settings["pat_str"], mergeable_ranks=ranks, special_tokens=settings["special_tokens"]
    )
    assert encoding.n_vocab == tokenizer.vocab_size
    assert encoding.encode_ordinary(MULTILINGUAL_HELD_OUT) == tokenizer.encode(MULTILINGUAL_HELD_OUT)
    assert settings["pat_str"] == {None: WHOLE_TEXT_PATTERN, "gpt2": GPT2_PATTERN, "gpt4": GPT4_PATTERN}.get(
        pretokenizer, settings["pat_str"]
    )


@pytest.mark.shared_data
@pytest.mark.parametrize("pretokenizer", [None, "gpt2"])
def test_export_is_identical_on_wikitext(tmp_path, tiktoken_cache, wiki_trained, wikitext, pretokenizer):
    tokenizer = wiki_trained("bytes", pretokenizer)
    report = export_and_prove(tokenizer, "tiktoken", tmp_path / "lab.tiktoken", check_text=wikitext[1])
    assert report.proof.identical, report.proof.line
    assert not report.lesson.examples, report.lesson.lines()


def test_our_parser_reads_what_tiktoken_reads(tmp_path, tiktoken_cache, trained):
    exported = export_files(trained("bytes", "gpt2"), "tiktoken", name="lab.tiktoken")
    path = tmp_path / "lab.tiktoken"
    path.write_bytes(exported.main_bytes)
    assert parse_ranks(exported.main_bytes) == load_tiktoken_bpe(str(path))


def test_character_tokenizers_are_refused_saying_why(trained):
    message = refused(
        export_files,
        trained("characters", "gpt2"),
        "tiktoken",
        error=NotByteLevelError,
        match="tiktoken works on bytes",
    )
    assert "Train with the byte alphabet" in message and "Hugging Face" in message


# ==================== Files in tiktoken's format, read by BPE Lab


@pytest.mark.shared_data
def test_gpt2_ranks_made_by_tiktoken_encode_identically(tmp_path, tiktoken_cache, wikitext):
    from helpers import shared_file
    from tiktoken.load import data_gym_to_mergeable_bpe_ranks

    ranks = data_gym_to_mergeable_bpe_ranks(str(shared_file("gpt2/vocab.bpe")), str(shared_file("gpt2/encoder.json")))
    path = tmp_path / "r50k.tiktoken"
    path.write_bytes(_ranks_bytes(ranks))
    imported = load_tiktoken_file(path, pattern="r50k", special_tokens={"<|endoftext|>": 50256})
    assert imported.pretokenizer == "gpt2"
    assert imported.encode("hello world<|endoftext|>", allowed_special="all") == [31373, 995, 50256]
    (tmp_path / "r50k.tiktoken.json").write_text(
        json.dumps({"name": "r50k", "pat_str": GPT2_PATTERN, "special_tokens": {"<|endoftext|>": 50256}}),
        encoding="utf-8",
    )
    proof = prove_import(imported, "tiktoken", path, wikitext[1])
    assert proof.identical, proof.line


def test_ranks_without_a_pattern_ask_for_one(tmp_path, trained):
    path = tmp_path / "bare.tiktoken"
    path.write_bytes(export_files(trained("bytes", None), "tiktoken").main_bytes)
    refused(load_tiktoken_file, path, match="holds no split pattern.*give its split pattern", error=TokenizerFileError)
    assert load_tiktoken_file(path, pattern="none").pretokenizer is None
    assert load_tiktoken_file(path, pattern="cl100k").pretokenizer == "gpt4"


def test_settings_beside_the_file_give_the_pattern_and_are_checked(tmp_path, trained):
    exported = export_files(trained("bytes", "gpt4"), "tiktoken", name="lab.tiktoken")
    for name, data in exported.files.items():
        (tmp_path / name).write_bytes(data)
    imported = load_tiktoken_file(tmp_path / "lab.tiktoken")
    assert imported.pretokenizer == "gpt4"
    assert imported.encode(MULTILINGUAL_HELD_OUT) == trained("bytes", "gpt4").encode(MULTILINGUAL_HELD_OUT)
    (tmp_path / "lab.tiktoken").write_bytes(exported.main_bytes + b"IQ== 99999\n")
    refused(
        load_tiktoken_file, tmp_path / "lab.tiktoken", match="belongs to another ranks file", error=TokenizerFileError
    )


@pytest.mark.parametrize(
    "field, value, match",
    [
        ("explicit_n_vocab", "x", r"'explicit_n_vocab' must be a whole number of tokens, not 'x'$"),
        ("explicit_n_vocab", True, r"'explicit_n_vocab' must be a whole number of tokens, not True$"),
        ("explicit_n_vocab", 5, r"its settings give explicit_n_vocab 5, but it holds 600 tokens with ids up to 599 "),
        ("explicit_n_vocab", 10**9, r"explicit_n_vocab 1,000,000,000, but it holds 600 tokens"),
        ("format", "other", r"'format' is 'other', not 'bpe-lab tiktoken settings 1': settings of another kind"),
    ],
)
def test_the_settings_count_of_tokens_and_their_format_are_checked(tmp_path, trained, field, value, match):
    """As ``tiktoken.Encoding`` checks ``explicit_n_vocab`` (the tokens counted, the last id
    one below it), the settings beside a ranks file are refused in one line when it is not
    so, and settings of another format are named as such."""
    exported = export_files(trained("bytes", "gpt4"), "tiktoken", name="lab.tiktoken")
    settings = json.loads(exported.files["lab.tiktoken.json"])
    assert settings["explicit_n_vocab"] == 600 and settings[field] != value
    (tmp_path / "lab.tiktoken").write_bytes(exported.main_bytes)
    (tmp_path / "lab.tiktoken.json").write_text(json.dumps({**settings, field: value}), encoding="utf-8")
    refused(load_tiktoken_file, tmp_path / "lab.tiktoken", match=match, error=TokenizerFileError)


# ==================== Bad files


def _ranks_with(*extra: bytes, drop: int | None = None) -> bytes:
    lines = [base64.b64encode(bytes([value])) + b" " + str(value).encode() for value in range(256) if value != drop]
    return b"\n".join(lines + list(extra)) + b"\n"


BAD_RANKS = {
    "one field": (_ranks_with(b"YWI="), "line 257: expected 'base64-token rank'"),
    "not base64": (_ranks_with(b"!!!! 256"), "line 257: '!!!!' is not base64"),
    "negative rank": (_ranks_with(b"YWI= -1"), "the rank '-1' is not a whole number"),
    "huge rank": (_ranks_with(b"YWI= 99999999999"), "is not a whole number"),
    "duplicate token": (_ranks_with(b"YQ== 256"), "the token 'a' is listed twice"),
    "duplicate rank": (_ranks_with(b"YWI= 5"), "rank 5 is given twice"),
    "missing byte": (_ranks_with(drop=65), "lacks 1 of the 256 single bytes \\(first: 0x41\\)"),
    "empty": (b"\n\n", "holds no tokens"),
    "binary": (b"\x80\x81", "is not valid UTF-8"),
}


@pytest.mark.parametrize("case", list(BAD_RANKS))
def test_bad_ranks_files_get_one_line_errors(case):
    raw, match = BAD_RANKS[case]
    refused(tiktoken_from_bytes, raw, pattern="gpt2", name="up.tiktoken", match=match, error=TokenizerFileError)


def test_patterns_from_visitors_are_checked():
    raw = _ranks_with()
    refused(tiktoken_from_bytes, raw, pattern="(?:a|aa)+$|[\\s\\S]", match="catastrophic", error=TokenizerFileError)
    refused(tiktoken_from_bytes, raw, pattern="[a-z]+", match="skips characters", error=TokenizerFileError)
    refused(tiktoken_from_bytes, raw, pattern="[", match="does not compile", error=TokenizerFileError)
    refused(
        tiktoken_from_bytes,
        raw,
        pattern="gpt2",
        special_tokens={"<s>": 3},
        match="which an ordinary token",
        error=TokenizerFileError,
    )


def test_a_crafted_file_encodes_by_rank_of_the_concatenation():
    raw = _ranks_with(b"YW4= 256", b"bmQ= 257", b"YW5k 258")  # 'an', 'nd', 'and'
    tokenizer = tiktoken_from_bytes(raw, pattern="gpt2")
    encoding = tiktoken.Encoding("t", pat_str=GPT2_PATTERN, mergeable_ranks=parse_ranks(raw), special_tokens={})
    for text in ("and", "band", "nd and", "a n d", "anand"):
        assert tokenizer.encode(text) == encoding.encode_ordinary(text), text
    # merges recovered as minbpe does: 'and' is built from its bytes by lower ranks as 'an' + 'd'
    assert tokenizer.merges == [(b"a", b"n"), (b"n", b"d"), (b"an", b"d")]


def test_decode_rejects_unknown_ids():
    tokenizer = tiktoken_from_bytes(_ranks_with(), pattern="gpt2")
    with pytest.raises(BpeError, match="unknown token id 999"):
        tokenizer.decode([999])


@pytest.mark.parametrize(
    "ids, message",
    [
        (None, r"got None \(a NoneType\)"),
        ([97.0], r"^token id 97.0 \(a float, at position 0\) is not a whole number"),
        ([97, True], r"^token id True \(a bool, at position 1\) is not a whole number"),
    ],
)
def test_decode_refuses_floats_bools_and_non_lists(ids, message):
    # an imported tokenizer's ids are looked up in a dict, where 97.0 and True find 97 and 1
    tokenizer = tiktoken_from_bytes(_ranks_with(), pattern="gpt2")
    assert tokenizer.decode([97]) == "a"
    with pytest.raises(BpeError, match=message):
        tokenizer.decode(ids)
    with pytest.raises(BpeError, match=message):
        tokenizer.decode_bytes(ids)


def test_a_pattern_tiktoken_cannot_compile_is_refused_before_anything_is_written(tmp_path):
    pytest.importorskip("tiktoken")
    from bpe import BPETokenizer
    from bpe.formats import export_files
    from bpe.formats.roundtrip import export_and_prove

    tokenizer = BPETokenizer.train("ab ab ab", 260, alphabet="bytes", pretokenizer=r"\X")
    with pytest.raises(BpeError, match=r"tiktoken cannot run the split pattern '\\\\X' .*Invalid escape"):
        export_files(tokenizer, "tiktoken")
    with pytest.raises(BpeError, match="no tiktoken file is made"):
        export_and_prove(tokenizer, "tiktoken", tmp_path / "graphemes.tiktoken")
    assert list(tmp_path.iterdir()) == []
