"""Reading other libraries' tokenizer files safely, showing tokens safely.

Files from elsewhere are untrusted: they may be huge, cut short, nested a million levels
deep, or hold tokens with control characters. Everything here turns those into one-line
`TokenizerFileError` messages that name the file and the problem; nothing lets a
traceback through. `escape_token` is how a token from a file is shown in any message.
"""

from __future__ import annotations

import os
import stat

from bpe import jsonfile
from bpe.budget import check_json_values
from bpe.errors import TokenizerFileError
from bpe.jsonfile import decode_utf8

# Real pretrained tokenizer files are a few MB (cl100k_base.tiktoken: 1.7 MB; a 256k-token
# tokenizer.json: ~20 MB). Anything far larger is refused before it is read.
MAX_FILE_BYTES = 64 * 1024 * 1024
# Vocabularies and merge lists past this are not tokenizers anyone trains (Gemma: 262k).
MAX_TOKENS = 1_000_000


def read_limited(path: str | os.PathLike[str], *, what: str, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most ``max_bytes``, or `TokenizerFileError`."""
    name = str(path)
    try:
        info = os.stat(name)
    except FileNotFoundError:
        raise TokenizerFileError(f"cannot read {what} {name!r}: it does not exist") from None
    except OSError as error:
        raise TokenizerFileError(f"cannot read {what} {name!r}: {error.strerror or error}") from None
    if stat.S_ISDIR(info.st_mode):
        raise TokenizerFileError(f"{what} {name!r} is a folder, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise TokenizerFileError(f"{what} {name!r} is not a regular file (a device, pipe or socket)")
    if info.st_size > max_bytes:
        raise TokenizerFileError(f"{what} {name!r} is {info.st_size:,} bytes; the most BPE Lab reads is {max_bytes:,}")
    try:
        with open(name, "rb") as handle:
            # Sized by stat, not by the limit (a small file gets no 64 MB buffer); a file that
            # grew since is read on, up to one byte past the limit.
            raw = handle.read(info.st_size + 1)
            if len(raw) > info.st_size:
                raw += handle.read(max_bytes + 1 - len(raw))
    except OSError as error:
        raise TokenizerFileError(f"cannot read {what} {name!r}: {error.strerror or error}") from None
    check_size(raw, name=name, max_bytes=max_bytes)
    return raw


def check_size(raw: bytes, *, name: str, max_bytes: int = MAX_FILE_BYTES) -> None:
    """Uploads arrive as bytes: the same size limit as for files on disk."""
    if not isinstance(raw, (bytes, bytearray)):
        raise TokenizerFileError(f"{name}: expected the file's bytes, got {type(raw).__name__}")
    if len(raw) > max_bytes:
        raise TokenizerFileError(f"{name} is over {max_bytes:,} bytes; the most BPE Lab reads is {max_bytes:,}")


def decode_text(raw: bytes, *, name: str) -> str:
    """UTF-8 text of at most `MAX_FILE_BYTES` (a leading byte-order mark is dropped)."""
    check_size(raw, name=name)
    return decode_utf8(raw, name=name)


def load_json(raw: bytes, *, name: str):
    """A file's JSON value, at most `MAX_FILE_BYTES` and `bpe.budget.MAX_JSON_VALUES` values
    (`bpe.jsonfile.load_json` says the rest)."""
    check_size(raw, name=name)
    check_json_values(raw, name=name)
    return jsonfile.load_json(raw, name=name)


# ====================
# Showing tokens


_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\"}


def escape_token(token, *, limit: int = 60) -> str:
    """A token as safe, visible text: control, format and other invisible characters become
    escapes (``\\n``, ``\\u200b``), a backslash is doubled, bytes that are not UTF-8 show as
    ``\\xNN``; more than ``limit`` characters are cut with an ellipsis. Never raises."""
    if isinstance(token, (bytes, bytearray)):
        text = bytes(token).decode("utf-8", errors="surrogateescape")
    else:
        text = str(token)
    out = []
    for char in text[:limit]:
        code = ord(char)
        if char in _NAMED_ESCAPES:
            out.append(_NAMED_ESCAPES[char])
        elif 0xDC80 <= code <= 0xDCFF and isinstance(token, (bytes, bytearray)):
            out.append(f"\\x{code - 0xDC00:02x}")  # a byte that is not part of a UTF-8 character
        elif char == " " or char.isprintable():
            out.append(char)
        elif code <= 0xFF:
            out.append(f"\\x{code:02x}")
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    if len(text) > limit:
        out.append("…")
    return "".join(out)


def quoted(token, *, limit: int = 60) -> str:
    """`escape_token` between single quotes, for messages: ``'Ġthe'`` shows as ``' the'``."""
    return "'" + escape_token(token, limit=limit) + "'"
