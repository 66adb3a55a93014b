"""Tokenizer files: the tutorial's format, fingerprints, atomic writes, tampering refused."""

import hashlib
import json
import os

import pytest

from bpe import BpeError, BPETokenizer, TokenizerFileError


def tutorial_save(base_tokens, merges, path):
    """A test-local copy of the tutorial's save format (what its script writes)."""
    fingerprint = hashlib.sha256(
        json.dumps({"base_tokens": base_tokens, "merges": merges}, ensure_ascii=False, separators=(",", ":")).encode(
            "utf-8"
        )
    ).hexdigest()
    vocab = list(base_tokens)
    for a, b in merges:
        if a + b not in vocab:
            vocab.append(a + b)
    payload = {
        "type": "character_bpe",
        "base_tokens": base_tokens,
        "merges": merges,
        "vocab_size": len(vocab),
        "fingerprint": fingerprint,
    }
    path.write_text(json.dumps(payload, ensure_ascii=False, indent=2), encoding="utf-8")
    return fingerprint


@pytest.fixture
def tok():
    return BPETokenizer.train("naïve café — low lower lowest\n" * 3, 40)


def test_tutorial_file_loads_with_the_same_fingerprint(tmp_path):
    base = [" ", "e", "l", "o", "r", "s", "t", "w", "é"]
    merges = [["l", "o"], ["lo", "w"], [" ", "low"]]
    expected = tutorial_save(base, merges, tmp_path / "tutorial.json")
    tok = BPETokenizer.from_file(tmp_path / "tutorial.json")
    assert tok.fingerprint() == expected
    assert tok.merges == [("l", "o"), ("lo", "w"), (" ", "low")]
    assert tok.vocab_size == 12


def test_our_file_is_the_tutorial_format(tok, tmp_path):
    tok.save(tmp_path / "ours.json")
    data = json.loads((tmp_path / "ours.json").read_text(encoding="utf-8"))
    assert list(data) == ["type", "base_tokens", "merges", "vocab_size", "fingerprint"]
    assert data["type"] == "character_bpe" and data["vocab_size"] == tok.vocab_size
    expected = tutorial_save(data["base_tokens"], data["merges"], tmp_path / "again.json")
    assert data["fingerprint"] == expected == tok.fingerprint()
    assert "é" in (tmp_path / "ours.json").read_text(encoding="utf-8")  # ensure_ascii=False


def test_save_load_round_trip(tok, tmp_path):
    tok.save(tmp_path / "t.json")
    again = BPETokenizer.from_file(tmp_path / "t.json")
    assert again == tok and again.fingerprint() == tok.fingerprint()
    assert not [p for p in tmp_path.iterdir() if p.suffix == ".tmp"]


def edited(tmp_path, tok, change):
    tok.save(tmp_path / "t.json")
    data = json.loads((tmp_path / "t.json").read_text(encoding="utf-8"))
    change(data)
    (tmp_path / "bad.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return tmp_path / "bad.json"


def refingerprint(data):
    data["fingerprint"] = hashlib.sha256(
        json.dumps(
            {"base_tokens": data["base_tokens"], "merges": data["merges"]}, ensure_ascii=False, separators=(",", ":")
        ).encode()
    ).hexdigest()


@pytest.mark.parametrize(
    "change,message",
    [
        (lambda d: d.pop("merges"), r"missing the key merges"),
        (lambda d: d.update(type="wordpiece"), r"has type 'wordpiece'; expected one of 'character_bpe', 'byte_bpe'"),
        (
            lambda d: d["merges"].append(["l"]),
            r"merges must be a list of \[left, right\] string pairs \(merge \d+ is \['l'\]\)",
        ),
        (lambda d: d["merges"][0].reverse(), r"fails its fingerprint check"),
        (lambda d: (d["merges"].append(["q", "z"]), refingerprint(d)), r"uses 'q', which is neither a base token"),
        (lambda d: d.update(vocab_size=7), r"says vocab_size=7, but its merges build"),
        # found by probing: 3e2 (a float) and true passed as 300 and 1, since they compare equal
        (lambda d: d.update(vocab_size=float(d["vocab_size"])), r"says vocab_size=\d+\.0, but its merges build"),
        (lambda d: d.update(vocab_size=str(d["vocab_size"])), r"says vocab_size='\d+', but its merges build"),
    ],
)
def test_bad_files_are_refused_with_the_reason(tok, tmp_path, change, message):
    with pytest.raises(TokenizerFileError, match=message):
        BPETokenizer.from_file(edited(tmp_path, tok, change))


def test_malformed_json_and_non_utf8(tmp_path):
    (tmp_path / "a.json").write_text('{"type": "character_bpe", ', encoding="utf-8")
    with pytest.raises(TokenizerFileError, match=r"is not valid JSON: .* line 1"):
        BPETokenizer.from_file(tmp_path / "a.json")
    (tmp_path / "b.json").write_bytes(b'{"type": "\xff"}')
    with pytest.raises(
        TokenizerFileError, match=r"is not valid UTF-8: byte 0xFF at byte offset 10 \(line 1, byte 11 of that line\)"
    ):
        BPETokenizer.from_file(tmp_path / "b.json")
    (tmp_path / "c.json").write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(TokenizerFileError, match="holds a JSON list"):
        BPETokenizer.from_file(tmp_path / "c.json")
    with pytest.raises(TokenizerFileError, match="cannot read tokenizer file"):
        BPETokenizer.from_file(tmp_path / "missing.json")


@pytest.mark.parametrize(
    "raw, message",
    [
        (
            b'{"vocab_size": ' + b"9" * 5_000 + b"}",
            r"d.json holds a number 5,000 digits long; the numbers in a tokenizer file have at most 4,300$",
        ),
        (b'{"merges": [], "merges": [["a", "b"]]}', r"d.json: the key 'merges' appears twice in one object"),
        (b"[" * 100_000, r"d.json is JSON nested too deeply to be a tokenizer file"),
    ],
    ids=["huge-integer", "key-twice", "deep"],
)
def test_hostile_json_is_one_line(tmp_path, raw, message):
    # Read through bpe.io.jsonfile, as every tokenizer and encoder.json file is: a huge integer
    # used to escape as a plain ValueError (then came with Python's advice to call
    # sys.set_int_max_str_digits()), and a key given twice kept its last value.
    (tmp_path / "d.json").write_bytes(raw)
    with pytest.raises(TokenizerFileError, match=message):
        BPETokenizer.from_file(tmp_path / "d.json")


def test_unwritable_path_is_an_error_and_the_old_file_survives(tok, tmp_path, monkeypatch):
    target = tmp_path / "t.json"
    BPETokenizer.train("abab", 3).save(target)
    before = target.read_bytes()

    def disk_full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(BpeError, match="No space left on device"):
        tok.save(target)
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["t.json"]  # no temp file left behind
    monkeypatch.undo()
    (tmp_path / "file").write_text("x")
    with pytest.raises(BpeError, match="cannot write"):
        tok.save(tmp_path / "file" / "t.json")
    with pytest.raises(BpeError, match="it is a folder"):
        tok.save(tmp_path)


def test_byte_and_pretokenized_files_round_trip(tmp_path):
    tok = BPETokenizer.train("héllo wörld 😀 héllo wörld", 270, alphabet="bytes", pretokenizer="gpt2")
    tok.save(tmp_path / "b.json")
    data = json.loads((tmp_path / "b.json").read_text(encoding="utf-8"))
    assert data["type"] == "byte_bpe" and data["pretokenizer"] == "gpt2"
    assert data["base_tokens"][32] == "Ġ"  # GPT-2's spelling of a space
    again = BPETokenizer.from_file(tmp_path / "b.json")
    assert again == tok and again.encode("wörld 😀") == tok.encode("wörld 😀")
    data["pretokenizer"] = "gpt4"  # changing the split changes the tokenizer: the fingerprint knows
    (tmp_path / "c.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(TokenizerFileError, match="fingerprint"):
        BPETokenizer.from_file(tmp_path / "c.json")
