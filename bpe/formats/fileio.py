"""Reading other libraries' tokenizer files safely, showing tokens safely.

Files from elsewhere are untrusted: they may be huge, cut short, nested a million levels
deep, or hold tokens with control characters. Everything here turns those into one-line
`TokenizerFileError` messages that name the file and the problem; nothing lets a
traceback through. `escape_token` is how a token from a file is shown in any message.
"""

from __future__ import annotations

import os

from bpe.errors import TokenizerFileError
from bpe.io import jsonfile, untrusted
from bpe.io.budget import check_json_values
from bpe.io.untrusted import MAX_FILE_BYTES, decode_utf8, read_file_bytes
from bpe.training import MAX_VOCAB_SIZE

# Real pretrained tokenizer files are a few MB (cl100k_base.tiktoken: 1.7 MB; a 256k-token
# tokenizer.json: ~20 MB): `MAX_FILE_BYTES` refuses anything far larger before it is read.
# Vocabularies and merge lists past training's own bound are not tokenizers anyone trains.
MAX_TOKENS = MAX_VOCAB_SIZE


def read_limited(path: str | os.PathLike[str], *, what: str, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most ``max_bytes``, or `TokenizerFileError`
    (`bpe.io.untrusted.read_file_bytes`)."""
    return read_file_bytes(path, what=what, name=repr(str(path)), max_bytes=max_bytes, error=TokenizerFileError)


def check_size(raw: bytes, *, name: str, max_bytes: int = MAX_FILE_BYTES) -> None:
    """Uploads arrive as bytes: the same size limit as for files on disk."""
    if not isinstance(raw, (bytes, bytearray)):
        raise TokenizerFileError(f"{name}: expected the file's bytes, got {type(raw).__name__}")
    untrusted.check_size(len(raw), name=name, max_bytes=max_bytes, error=TokenizerFileError)


def decode_text(raw: bytes, *, name: str) -> str:
    """UTF-8 text of at most `MAX_FILE_BYTES` (a leading byte-order mark is dropped)."""
    check_size(raw, name=name)
    return decode_utf8(raw, name=name, error=TokenizerFileError)


def load_json(raw: bytes, *, name: str):
    """A file's JSON value, at most `MAX_FILE_BYTES` and `bpe.io.budget.MAX_JSON_VALUES` values
    (`bpe.io.jsonfile.load_json` says the rest)."""
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
