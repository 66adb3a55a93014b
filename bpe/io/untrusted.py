"""Bytes nobody vouches for, read one way: files and uploads from strangers.

Every door that takes a stranger's text or file (corpora, tokenizer files of every format,
GPT-2's files, lesson files) reads it here, so each gets the same bounds and the same
one-line errors:

- a size cap checked before reading (from ``stat``), and again on the bytes read, which
  stop one byte past the cap should the file grow meanwhile;
- regular files only: a folder, a FIFO or a device is refused instead of blocking;
- UTF-8 only (no guessing at legacy encodings), a leading byte-order mark dropped;
  a bad byte is named with its offset and line.

The error type is the door's (`CorpusError`, `TokenizerFileError` ...), so each caller
still catches what it always caught.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from typing import BinaryIO

from bpe.errors import BpeError

MAX_FILE_BYTES = 64 * 1024 * 1024  # what BPE Lab reads of a tokenizer file (a 256k-token one: ~20 MB)
UTF8_BOM = b"\xef\xbb\xbf"


def read_file_bytes(
    path: str | os.PathLike[str],
    *,
    what: str = "file",
    name: str | None = None,
    max_bytes: int | None = MAX_FILE_BYTES,
    error: type[BpeError] = BpeError,
    hint: str = "",
) -> bytes:
    """The bytes of the regular file at ``path``, at most ``max_bytes`` (None: no cap), or
    ``error`` in one line. ``name`` is how messages call the file (default: its path);
    ``what`` says what it should be ("tokenizer file"); ``hint`` ends a size refusal."""
    name = str(path) if name is None else name
    with open_regular_file(path, what=what, name=name, max_bytes=max_bytes, error=error, hint=hint) as handle:
        size = os.fstat(handle.fileno()).st_size
        try:
            # Sized by stat, not by the limit (a small file gets no 64 MB buffer); a file that
            # grew since is read on, up to one byte past the limit.
            raw = handle.read(size + 1)
            if len(raw) > size:
                raw += handle.read() if max_bytes is None else handle.read(max(0, max_bytes + 1 - len(raw)))
        except OSError as failure:
            raise error(f"cannot read {what} {_shown(name)}: {failure.strerror or type(failure).__name__}") from None
    check_size(len(raw), name=name, max_bytes=max_bytes, error=error, hint=hint)
    return raw


@contextmanager
def open_regular_file(
    path: str | os.PathLike[str],
    *,
    what: str = "file",
    name: str | None = None,
    max_bytes: int | None = MAX_FILE_BYTES,
    error: type[BpeError] = BpeError,
    hint: str = "",
) -> Iterator[BinaryIO]:
    """The regular file at ``path`` open for reading, once its size (from ``fstat``) is
    within ``max_bytes``; else ``error`` in one line. For readers that take a file rather
    than its bytes (Parquet, a checkpoint, a run file's header): the same refusals as
    `read_file_bytes`. The caller's reads past the size it saw are its own to bound."""
    name = str(path) if name is None else name
    shown = _shown(name)
    try:
        # Non-blocking open: a FIFO opens at once (and is refused below) instead of waiting
        # for a writer; checked on the open file, so nothing can swap the path in between.
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        try:
            handle = open(descriptor, "rb")  # a folder opens with os.open, not here
        except BaseException:
            os.close(descriptor)
            raise
    except FileNotFoundError:
        raise error(f"cannot read {what} {shown}: it does not exist") from None
    except IsADirectoryError:
        raise error(f"cannot read {what} {shown}: it is a folder, not a file") from None
    except OSError as failure:
        raise error(f"cannot read {what} {shown}: {failure.strerror or type(failure).__name__}") from None
    with handle:
        info = os.fstat(handle.fileno())
        if stat.S_ISDIR(info.st_mode):
            raise error(f"cannot read {what} {shown}: it is a folder, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise error(f"cannot read {what} {shown}: it is not a regular file (a device, pipe or socket)")
        check_size(info.st_size, name=name, max_bytes=max_bytes, error=error, hint=hint)
        yield handle


def check_size(
    size: int, *, name: str, max_bytes: int | None, error: type[BpeError] = BpeError, hint: str = ""
) -> None:
    """``error`` when ``size`` bytes are over ``max_bytes`` (None: no cap)."""
    if max_bytes is not None and size > max_bytes:
        raise error(f"{_shown(name)} is {_bytes(size)}, over the limit of {_bytes(max_bytes)}{_hint(hint)}")


def decode_utf8(
    raw: bytes,
    *,
    name: str,
    max_bytes: int | None = None,
    error: type[BpeError] = BpeError,
    hint: str = "",
) -> str:
    """``raw`` as UTF-8 text, a leading byte-order mark dropped; ``error`` in one line when
    it is over ``max_bytes`` or not UTF-8 (naming the first bad byte, its offset and line).

    >>> decode_utf8(b"\\xef\\xbb\\xbflow\\r\\nlower", name="a.txt")
    'low\\r\\nlower'
    """
    if not isinstance(raw, (bytes, bytearray, memoryview)):
        raise error(f"{_shown(name)}: expected the file's bytes, got {type(raw).__name__}")
    check_size(len(raw), name=name, max_bytes=max_bytes, error=error)
    start = len(UTF8_BOM) if bytes(raw[:3]) == UTF8_BOM else 0
    try:
        return str(memoryview(raw)[start:], "utf-8")
    except UnicodeDecodeError as bad:
        raise error(not_utf8_message(bytes(raw), start + bad.start, name=name) + _hint(hint)) from None


def not_utf8_message(data: bytes, offset: int, *, name: str) -> str:
    """The one wording of a bad byte: ``a.txt is not valid UTF-8: byte 0xE9 at byte offset
    3 (line 1, byte 4 of that line) cannot be decoded``."""
    return (
        f"{_shown(name)} is not valid UTF-8: byte 0x{data[offset]:02X} at byte offset {offset:,} "
        f"({line_of(data, offset)}) cannot be decoded"
    )


def line_of(data: bytes, offset: int) -> str:
    """Where a byte offset is, for people: 'line 3, byte 7 of that line' (counted from 1)."""
    line = data.count(b"\n", 0, offset) + 1
    column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return f"line {line:,}, byte {column:,} of that line"


def _bytes(size: int) -> str:
    return f"{size:,} bytes" + (f" ({size / 1e6:.1f} MB)" if size >= 1_000_000 else "")


def _hint(hint: str) -> str:
    return f". {hint}" if hint else ""


def _shown(name: str) -> str:
    """A name as it can appear in a one-line message (a stranger's file name may hold anything)."""
    return name if name.isprintable() else repr(name)
