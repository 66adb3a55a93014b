"""The one reader of a stranger's bytes (`bpe.io.untrusted`): every door gives the same
bounds and the same one-line errors, and text that cannot be UTF-8 is refused at the door."""

from __future__ import annotations

import json
import os

import pytest

from bpe import BPETokenizer
from bpe.analysis.lesson import LessonError, parse_lesson
from bpe.corpora.textfile import decode_text_bytes, read_text_file
from bpe.errors import BpeError, CorpusError, TokenizerFileError
from bpe.formats import hf_from_bytes, minbpe_from_bytes, tiktoken_from_bytes
from bpe.io.untrusted import read_file_bytes

BAD = b"ab\ncd\xffef"  # 0xFF at byte offset 5: line 2, its third byte
MINBPE_HEADER = b"minbpe v1\n"  # one line more before the bad byte


@pytest.mark.parametrize(
    "door, error, raw, where",
    [
        (lambda raw: decode_text_bytes(raw, name="x"), CorpusError, BAD, "5 (line 2"),
        (lambda raw: BPETokenizer.from_json_bytes(raw, name="x"), TokenizerFileError, BAD, "5 (line 2"),
        (lambda raw: parse_lesson(raw, name="x", max_bytes=1000), LessonError, BAD, "5 (line 2"),
        (lambda raw: hf_from_bytes(raw, name="x"), TokenizerFileError, BAD, "5 (line 2"),
        (lambda raw: tiktoken_from_bytes(raw, name="x", pattern="gpt2"), TokenizerFileError, BAD, "5 (line 2"),
        (lambda raw: minbpe_from_bytes(raw, name="x"), TokenizerFileError, MINBPE_HEADER + BAD, "15 (line 3"),
    ],
)
def test_every_door_words_a_bad_byte_the_same_way(door, error, raw, where):
    with pytest.raises(error) as caught:
        door(raw)
    message = str(caught.value)
    assert "\n" not in message
    assert f"x is not valid UTF-8: byte 0xFF at byte offset {where}, byte 3 of that line) cannot be decoded" in message


def test_a_fifo_is_refused_instead_of_blocking(tmp_path):
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    with pytest.raises(CorpusError, match="pipe.txt: it is not a regular file"):
        read_text_file(fifo)  # blocked forever before: open() waits for a writer
    with pytest.raises(TokenizerFileError, match="not a regular file"):
        BPETokenizer.from_file(fifo)
    with pytest.raises(BpeError, match="it is a folder"):
        read_file_bytes(tmp_path)


def test_the_size_is_checked_before_reading(tmp_path):
    sparse = tmp_path / "big.json"
    with open(sparse, "wb") as file:
        file.truncate(70_000_000)  # no disk used; a read of it would take 70 MB of memory
    with pytest.raises(TokenizerFileError, match=r"is 70,000,000 bytes \(70.0 MB\), over the limit of 67,108,864"):
        BPETokenizer.from_file(sparse)


# ==================== Lone surrogates: JSON can spell them, nothing can encode them

LONE = "ab\\ud800cd"  # as written in a JSON file: a high surrogate with no low one after it


def lab_file_with_token(token: str) -> bytes:
    import hashlib

    base, merges = ["a", "b", "c", "d", token], []
    payload = {"base_tokens": base, "merges": merges}
    fingerprint = hashlib.sha256(
        json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
    ).hexdigest()
    body = {"type": "character_bpe", "base_tokens": base, "merges": merges, "vocab_size": 5, "fingerprint": fingerprint}
    return json.dumps(body).encode()


def test_a_lone_surrogate_in_a_lesson_file_is_one_line():
    raw = b'{"format": "bpe-lab-lesson", "version": 1, "page": "' + LONE.encode() + b'"}'
    with pytest.raises(
        LessonError, match=r"holds the text 'ab\\ud800cd', whose '\\ud800' at character 2 is a lone surrogate"
    ):
        parse_lesson(raw, name="The lesson file", max_bytes=10_000)


def test_a_hugging_face_file_with_lone_surrogate_tokens_is_refused_not_crashing_on_decode():
    data = {
        "version": "1.0",
        "added_tokens": [],
        "normalizer": None,
        "pre_tokenizer": None,
        "post_processor": None,
        "decoder": None,
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "vocab": {"a": 0, "\udc80": 1}, "merges": []},
    }
    raw = json.dumps(data).encode()  # json writes the lone surrogate as the escape \udc80
    assert b"\\udc80" in raw
    with pytest.raises(TokenizerFileError, match="lone surrogate"):
        hf_from_bytes(raw, name="surrogates.json")


def test_a_lab_file_with_a_lone_surrogate_token_is_refused():
    with pytest.raises(TokenizerFileError, match="lone surrogate"):
        BPETokenizer.from_json_bytes(lab_file_with_token("\ud800"), name="lab.json")


def test_surrogate_pairs_are_characters_and_pass():
    raw = json.dumps({"text": "😀 and \U0001d518"}).encode()  # written as \ud83d\ude00 pairs
    assert b"\\ud83d\\ude00" in raw
    from bpe.io.jsonfile import load_json

    assert load_json(raw, name="ok.json") == {"text": "😀 and \U0001d518"}
