"""The exports' and imports' fine print, checked against the real libraries.

- A SentencePiece ``.model`` is named as one and refused (it is not a minbpe file that is
  "not UTF-8"). ``data/tiny_sentencepiece.model`` is a real one, made by
  ``sentencepiece 0.2.0``: ``SentencePieceTrainer.train(..., vocab_size=60,
  model_type="bpe", normalization_rule_name="identity")`` on the-verdict.txt's lines.
- Hugging Face's ``Whitespace`` and ``WhitespaceSplit`` pre-tokenizers (the quicktour's)
  are read, and give the ids ``tokenizers`` gives, whitespace dropped as it drops it.
- A character-level export has no unknown token: Hugging Face drops characters outside
  the alphabet where the lab refuses them, and the export and its proof say so.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bpe import BPETokenizer
from bpe.errors import TokenizerFileError, UnknownSymbolsError
from bpe.formats import detect_format, export_and_prove, hf_from_bytes, load_any, load_upload, minbpe_from_bytes
from bpe.formats.roundtrip import HF_NO_UNKNOWN_TOKEN, HOSTILE_TEXTS, prove_import

SENTENCEPIECE = Path(__file__).parent / "data" / "tiny_sentencepiece.model"
NAMED = re.escape("is a SentencePiece model (a protobuf file, not text), which BPE Lab does not read")


# ==================== SentencePiece


def test_a_sentencepiece_model_is_named_and_refused_by_every_door(tmp_path, capsys):
    raw = SENTENCEPIECE.read_bytes()
    assert raw.startswith(b"\n\x0e\n\x05<unk>")  # what every SentencePiece model opens with: its first piece
    for load in (
        lambda: load_any(SENTENCEPIECE),
        lambda: load_upload(raw, "spm.model"),
        lambda: minbpe_from_bytes(raw, name="spm.model"),
        lambda: detect_format(raw, "tokenizer.model"),
        lambda: load_upload(raw[:12], "cut.model"),  # cut short after its first piece
    ):
        with pytest.raises(TokenizerFileError, match=NAMED):
            load()
    from bpe.cli.main import main

    assert main(["inspect", "--tokenizer", str(SENTENCEPIECE)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and re.search(NAMED, err)


@pytest.mark.parametrize(
    "raw",
    [b"\n\nminbpe v1\n", b"\n\x05hello\n", b"\n\x0e\n\x05\xff\xfe\x00\x00\x00\x15", b"\n"],
    ids=["blank lines", "text after a line feed", "not UTF-8 inside", "one line feed"],
)
def test_text_that_opens_with_line_feeds_is_not_taken_for_sentencepiece(raw):
    with pytest.raises(TokenizerFileError) as refused:
        load_upload(raw, "x.model")
    assert "SentencePiece" not in str(refused.value)


# ==================== Hugging Face's Whitespace pre-tokenizers


def library_tokenizer(kind: str, after: str | None, text: str, tmp_path) -> Path:
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    pre = getattr(pre_tokenizers, kind)()
    alphabet = sorted({char for _label, value in HOSTILE_TEXTS for char in value} | set(text))
    if after is not None:
        byte_level = pre_tokenizers.ByteLevel(add_prefix_space=after == "prefix space", use_regex=False)
        pre = pre_tokenizers.Sequence([pre, byte_level])
        alphabet = pre_tokenizers.ByteLevel.alphabet()
    tokenizer.pre_tokenizer = pre
    tokenizer.train_from_iterator([text], trainers.BpeTrainer(vocab_size=400, initial_alphabet=alphabet))
    path = tmp_path / f"{kind}.json"
    tokenizer.save(str(path))
    assert tokenizers.__version__
    return path


TEXT = "It's a test, a TEST: tests—test² and café naïve ‌zwnj‍ ٣ 中文 tab\there\n" * 40


@pytest.mark.parametrize("kind", ["Whitespace", "WhitespaceSplit"])
@pytest.mark.parametrize("after", [None, "ByteLevel", "prefix space"])
def test_whitespace_pre_tokenizers_give_the_librarys_ids(kind, after, tmp_path):
    path = library_tokenizer(kind, after, TEXT, tmp_path)
    ours = hf_from_bytes(path.read_bytes(), name="quicktour.json")
    proof = prove_import(ours, "hf", path, TEXT)
    assert proof.identical, proof.line
    assert proof.characters > len(TEXT)  # the hostile texts too
    assert any("drops whitespace" in note for note in ours.notes)
    decoded = ours.decode(ours.encode("a b\tc"))  # the whitespace is gone (a prefix space is its own)
    assert decoded == (" a b c" if after == "prefix space" else "abc")


# ==================== A character-level export has no unknown token


def test_a_character_export_says_hugging_face_drops_what_the_lab_refuses(tmp_path):
    pytest.importorskip("tokenizers")
    from tokenizers import Tokenizer

    tokenizer = BPETokenizer.train("a cafe ok, a cafe ok " * 20, 30)
    report = export_and_prove(tokenizer, "hf", tmp_path / "char.json")
    assert report.proof.identical and HF_NO_UNKNOWN_TOKEN in report.proof.line
    assert any("Note: the file has no unknown token" in line for line in report.lines())
    # what the note says, as the library does it: the characters are gone from the ids
    tokenizer = BPETokenizer.train("a caf ok, a caf ok " * 20, 30)
    export_and_prove(tokenizer, "hf", tmp_path / "char.json", prove=False)
    library = Tokenizer.from_file(str(tmp_path / "char.json"))
    assert library.decode(library.encode("café 𝔘 ok").ids) == "caf  ok"
    with pytest.raises(UnknownSymbolsError):
        tokenizer.encode("café 𝔘 ok")
    unproved = export_and_prove(tokenizer, "hf", tmp_path / "again.json", prove=False)
    assert f"note: {HF_NO_UNKNOWN_TOKEN}" in unproved.lines()
    byte_level = BPETokenizer.train("a caf ok " * 20, 260, alphabet="bytes")
    assert "no unknown token" not in " ".join(export_and_prove(byte_level, "hf", tmp_path / "b.json").lines())
