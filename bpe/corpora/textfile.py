"""Turn bytes from a file or an upload into corpus text, or say exactly why not.

BPE counts characters, so what reaches the trainer must be the text exactly as written:
UTF-8 only (no guessing at legacy encodings), a leading byte-order mark dropped (it is
an encoding marker, not text), and line endings left alone. A file saved on Windows
keeps its `\\r\\n`, and `\\r` then shows up as a symbol of its own, which is a true
fact about that file. Unicode normalisation (NFC) changes the text, so it happens only
when the caller asks.

Everything that goes wrong raises `CorpusError` with the file name, the byte offset
(and line) of the first bad byte, or the size and the limit, and what to do next.
"""

from __future__ import annotations

import os
import stat
import unicodedata
from pathlib import Path

from bpe.errors import BpeError, CorpusError

DEFAULT_MAX_BYTES = 50_000_000  # 50 MB: ~10x WikiText-2's training split, still quick to read
UTF8_BOM = b"\xef\xbb\xbf"
NORMALIZATIONS = (None, "NFC")


def decode_text_bytes(
    data: bytes,
    *,
    name: str,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    normalize: str | None = None,
) -> str:
    """Decode an upload (or a file's bytes) as corpus text.

    `name` is only used in error messages, so pass what the user will recognise (the
    uploaded file's name). `max_bytes=None` lifts the size limit.

    >>> decode_text_bytes(b"\\xef\\xbb\\xbflow\\r\\nlower", name="a.txt")
    'low\\r\\nlower'
    """
    _check_normalize(normalize)
    _check_size(len(data), name=name, max_bytes=max_bytes)
    start = len(UTF8_BOM) if data.startswith(UTF8_BOM) else 0
    body = memoryview(data)[start:]
    if len(body) == 0:
        what = "only a byte-order mark" if start else "empty (0 bytes)"
        raise CorpusError(f"{name} is {what}: there is no text to train on. Choose a file with some text in it.")
    try:
        text = str(body, "utf-8")
    except UnicodeDecodeError as error:
        bad = start + error.start
    else:
        bad = None
    nul = data.find(b"\x00", start)
    if nul != -1 and (bad is None or nul < bad):
        raise CorpusError(
            f"{name} looks binary, not text: it holds a NUL byte at byte offset {nul} "
            f"({_line_of(data, nul)}). Choose a plain-text (.txt) file saved as UTF-8."
        )
    if bad is not None:
        raise CorpusError(
            f"{name} is not valid UTF-8: byte 0x{data[bad]:02X} at byte offset {bad} "
            f"({_line_of(data, bad)}) cannot be decoded. Save the file as UTF-8 "
            "(most editors offer this under 'Save as' / 'Encoding') and try again."
        )
    if normalize is not None:
        text = unicodedata.normalize(normalize, text)
    return text


def read_text_file(
    path: str | os.PathLike[str],
    *,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    normalize: str | None = None,
    name: str | None = None,
) -> str:
    """Read a UTF-8 text file as corpus text, with the same rules as `decode_text_bytes`.

    The size is checked from `stat` before reading, so a multi-gigabyte file is refused
    without being loaded; the read itself stops one byte past the limit in case the file
    grows meanwhile. Messages name the file by ``name`` when given (the app passes the
    corpus name, so a visitor never sees a server path), else by its path.
    """
    _check_normalize(normalize)
    path = Path(path)
    name = str(path) if name is None else name
    try:
        # Non-blocking open: a pipe (FIFO) without a writer would block open() forever;
        # opened so, it is found by fstat below and refused like a device or a socket.
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        with open(descriptor, "rb") as file:  # binary: line endings stay exactly as written
            found = os.fstat(file.fileno())
            _check_regular(found.st_mode, name=name)
            _check_size(found.st_size, name=name, max_bytes=max_bytes)
            data = file.read() if max_bytes is None else file.read(max_bytes + 1)
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise CorpusError(f"cannot read {name}: {reason}. Check that the file exists and is readable.") from None
    return decode_text_bytes(data, name=name, max_bytes=max_bytes, normalize=normalize)


def _check_regular(mode: int, *, name: str) -> None:
    if not stat.S_ISREG(mode):  # (a folder is refused by open already: "Is a directory")
        raise CorpusError(
            f"{name} is not a regular file (a pipe, device or socket), so it has no end to read to. "
            "Choose a text file saved on disk."
        )


def _check_size(size: int, *, name: str, max_bytes: int | None) -> None:
    if max_bytes is not None and size > max_bytes:
        raise CorpusError(
            f"{name} is {size:,} bytes ({size / 1e6:.1f} MB), over the limit of {max_bytes:,} bytes "
            f"({max_bytes / 1e6:.1f} MB). Use a smaller file (cut it to the part you need)."
        )


def _check_normalize(normalize: str | None) -> None:
    if normalize not in NORMALIZATIONS:
        raise BpeError(f"normalize={normalize!r} is not supported; use None (keep the text as is) or 'NFC'.")


def _line_of(data: bytes, offset: int) -> str:
    """Where a byte offset is, for people: 'line 3, byte 7 of that line' (counted from 1)."""
    line = data.count(b"\n", 0, offset) + 1
    column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return f"line {line}, byte {column} of that line"
