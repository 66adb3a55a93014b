"""Turn bytes from a file or an upload into corpus text, or say exactly why not.

BPE counts characters, so what reaches the trainer must be the text exactly as written:
UTF-8 only (no guessing at legacy encodings), a leading byte-order mark dropped (it is
an encoding marker, not text), and line endings left alone. A file saved on Windows
keeps its `\\r\\n`, and `\\r` then shows up as a symbol of its own, which is a true
fact about that file. Unicode normalisation (NFC) changes the text, so it happens only
when the caller asks.

Everything that goes wrong raises `CorpusError` with the file name, the byte offset
(and line) of the first bad byte, or the size and the limit, and what to do next: the
reading itself is `bpe.io.untrusted`'s, as for every file from a stranger.
"""

from __future__ import annotations

import os
import unicodedata

from bpe.errors import BpeError, CorpusError
from bpe.io.untrusted import UTF8_BOM, check_size, decode_utf8, line_of, read_file_bytes

DEFAULT_MAX_BYTES = 50_000_000  # 50 MB: ~10x WikiText-2's training split, still quick to read
NORMALIZATIONS = (None, "NFC")
SIZE_HINT = "Use a smaller file (cut it to the part you need)."
# Why an empty file is refused, unless its reader says what else it was read for.
NO_TEXT_TO_TRAIN_ON = "there is no text to train on"
UTF8_HINT = "Save the file as UTF-8 (most editors offer this under 'Save as' / 'Encoding') and try again."


def decode_text_bytes(
    data: bytes,
    *,
    name: str,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    normalize: str | None = None,
    if_empty: str | None = NO_TEXT_TO_TRAIN_ON,
) -> str:
    """Decode an upload (or a file's bytes) as corpus text (`bpe.io.untrusted.decode_utf8`,
    and no NUL byte, and some text).

    `name` is only used in error messages, so pass what the user will recognise (the
    uploaded file's name). `max_bytes=None` lifts the size limit. `if_empty` says why an
    empty file is refused, for what the text is read for ("there are no ids to decode");
    None: an empty file is the empty text (encoding it gives no ids, as ``encode --text ""``).

    >>> decode_text_bytes(b"\\xef\\xbb\\xbflow\\r\\nlower", name="a.txt")
    'low\\r\\nlower'
    """
    _check_normalize(normalize)
    check_size(len(data), name=name, max_bytes=max_bytes, error=CorpusError, hint=SIZE_HINT)
    start = len(UTF8_BOM) if data.startswith(UTF8_BOM) else 0
    if len(data) == start and if_empty is not None:
        what = "only a byte-order mark" if start else "empty (0 bytes)"
        raise CorpusError(f"{name} is {what}: {if_empty}. Choose a file with some text in it.")
    nul = data.find(b"\x00", start)
    if nul != -1:
        decode_utf8(memoryview(data)[:nul], name=name, error=CorpusError, hint=UTF8_HINT)  # a bad byte before it first
        raise CorpusError(
            f"{name} looks binary, not text: it holds a NUL byte at byte offset {nul} "
            f"({line_of(data, nul)}). Choose a plain-text (.txt) file saved as UTF-8."
        )
    text = decode_utf8(data, name=name, error=CorpusError, hint=UTF8_HINT)
    if normalize is not None:
        text = unicodedata.normalize(normalize, text)
    return text


def read_text_file(
    path: str | os.PathLike[str],
    *,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    normalize: str | None = None,
    name: str | None = None,
    if_empty: str | None = NO_TEXT_TO_TRAIN_ON,
) -> str:
    """Read a UTF-8 text file as corpus text, with the same rules as `decode_text_bytes`.

    The file is read as every stranger's file is (`bpe.io.untrusted.read_file_bytes`): the
    size is checked from `stat` before reading, so a multi-gigabyte file is refused
    without being loaded, and a FIFO or a device is refused instead of blocking. Messages
    name the file by ``name`` when given (the app passes the corpus name, so a visitor
    never sees a server path), else by its path.
    """
    _check_normalize(normalize)
    data = read_file_bytes(
        path, what="the text file", name=name, max_bytes=max_bytes, error=CorpusError, hint=SIZE_HINT
    )
    shown = str(path) if name is None else name
    return decode_text_bytes(data, name=shown, max_bytes=max_bytes, normalize=normalize, if_empty=if_empty)


def _check_normalize(normalize: str | None) -> None:
    if normalize not in NORMALIZATIONS:
        raise BpeError(f"normalize={normalize!r} is not supported; use None (keep the text as is) or 'NFC'.")
