"""Reading corpus text from files and uploads: UTF-8 only, exact, with errors that point."""

from __future__ import annotations

import os
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe.corpora.textfile import DEFAULT_MAX_BYTES, UTF8_BOM, decode_text_bytes, read_text_file
from bpe.errors import BpeError, CorpusError

MAX_EXAMPLES = int(os.environ.get("BPE_MAX_EXAMPLES", "100"))

# Any text a file can hold: no NUL (that reads as binary) and no leading U+FEFF (a BOM).
texts = st.text(min_size=1).filter(lambda s: "\x00" not in s and not s.startswith("\ufeff"))


# ==================== What is kept exactly


def test_reads_utf8_file_exactly(tmp_path):
    path = tmp_path / "low.txt"
    path.write_bytes("low lower lowest — naïve 🙂\n".encode())
    assert read_text_file(path) == "low lower lowest — naïve 🙂\n"


def test_crlf_line_endings_are_kept(tmp_path):
    path = tmp_path / "windows.txt"
    path.write_bytes(b"low\r\nlower\r\nlowest\r\n")
    assert read_text_file(path) == "low\r\nlower\r\nlowest\r\n"


def test_bom_is_stripped(tmp_path):
    path = tmp_path / "bom.txt"
    path.write_bytes(UTF8_BOM + "héllo\n".encode())
    assert read_text_file(path) == "héllo\n"


def test_nfc_only_when_asked():
    decomposed = "Cafe\u0301"  # 'e' + combining acute accent: two code points
    data = decomposed.encode("utf-8")
    assert decode_text_bytes(data, name="cafe.txt") == decomposed
    assert decode_text_bytes(data, name="cafe.txt", normalize="NFC") == "Caf\u00e9"


@settings(max_examples=MAX_EXAMPLES)
@given(texts)
def test_decode_round_trips_any_text(text):
    assert decode_text_bytes(text.encode("utf-8"), name="t.txt", max_bytes=None) == text
    assert decode_text_bytes(UTF8_BOM + text.encode("utf-8"), name="t.txt", max_bytes=None) == text


@settings(max_examples=MAX_EXAMPLES)
@given(texts)
def test_nfc_matches_unicodedata(text):
    got = decode_text_bytes(text.encode("utf-8"), name="t.txt", max_bytes=None, normalize="NFC")
    assert got == unicodedata.normalize("NFC", text)


# ==================== What is refused, and how the message points at it


def test_non_utf8_names_file_and_byte_offset(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes("ok line\ncaf\u00e9 au lait\n".encode("latin-1"))  # 0xE9 at offset 11
    message = r"latin1\.txt is not valid UTF-8: byte 0xE9 at byte offset 11 \(line 2, byte 4 of that line\)"
    with pytest.raises(CorpusError, match=message):
        read_text_file(path)


def test_non_utf8_offset_counts_the_bom():
    with pytest.raises(CorpusError, match="byte 0xFF at byte offset 5"):
        decode_text_bytes(UTF8_BOM + b"ab\xff", name="up.txt")


def test_truncated_multibyte_character_is_refused():
    with pytest.raises(CorpusError, match="byte 0xC3 at byte offset 3"):
        decode_text_bytes(b"abc\xc3", name="cut.txt")


@pytest.mark.parametrize("data", [b"", UTF8_BOM], ids=["zero-bytes", "only-bom"])
def test_empty_is_refused(data):
    with pytest.raises(CorpusError, match="empty.txt is .*no text to train on"):
        decode_text_bytes(data, name="empty.txt")


def test_empty_file_is_refused(tmp_path):
    path = tmp_path / "empty.txt"
    path.write_bytes(b"")
    with pytest.raises(CorpusError, match="empty"):
        read_text_file(path)


def test_binary_is_refused_with_nul_offset():
    data = b"PK\x03\x04" + b"\x00" * 10 + b"\xff\xfe"
    with pytest.raises(CorpusError, match=r"archive.zip looks binary.*NUL byte at byte offset 4"):
        decode_text_bytes(data, name="archive.zip")


def test_invalid_byte_before_nul_is_reported_as_not_utf8():
    with pytest.raises(CorpusError, match="not valid UTF-8: byte 0xFF at byte offset 1"):
        decode_text_bytes(b"a\xff\x00", name="x.bin")


def test_over_limit_names_size_and_limit(tmp_path):
    path = tmp_path / "huge.txt"
    path.write_bytes(b"a" * 1001)
    with pytest.raises(
        CorpusError, match=r"huge\.txt is 1,001 bytes, over the limit of 1,000 bytes\. Use a smaller file"
    ):
        read_text_file(path, max_bytes=1000)
    assert read_text_file(path, max_bytes=1001) == "a" * 1001
    assert read_text_file(path, max_bytes=None) == "a" * 1001


def test_default_limit_refuses_a_sparse_huge_file_without_reading_it(tmp_path):
    path = tmp_path / "sparse.txt"
    with path.open("wb") as file:
        file.truncate(DEFAULT_MAX_BYTES + 1)  # sparse: no disk used, nothing to read
    with pytest.raises(CorpusError, match="over the limit of 50,000,000 bytes"):
        read_text_file(path)


def test_upload_over_limit():
    with pytest.raises(CorpusError, match=r"big\.txt is 11 bytes"):
        decode_text_bytes(b"hello world", name="big.txt", max_bytes=10)


def test_missing_file_names_path(tmp_path):
    with pytest.raises(CorpusError, match=r"cannot read the text file .*nope\.txt: it does not exist"):
        read_text_file(tmp_path / "nope.txt")


def test_unknown_normalization_is_refused():
    with pytest.raises(BpeError, match=r"normalize='NFKC' is not supported"):
        decode_text_bytes(b"abc", name="a.txt", normalize="NFKC")
