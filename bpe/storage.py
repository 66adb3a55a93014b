"""Tokenizer files: JSON with a SHA-256 fingerprint, written atomically.

The tutorial's format, kept byte-compatible::

    {"type": "character_bpe", "base_tokens": [...], "merges": [[a, b], ...],
     "vocab_size": N, "fingerprint": sha256(compact JSON of base_tokens and merges)}

Byte-level tokenizers use ``"type": "byte_bpe"`` and spell each byte token as GPT-2's
files do ('Ġthe'), so the file stays readable text. A pre-tokenizer, when there is one,
is stored under ``"pretokenizer"`` and is part of the fingerprint; without one the
fingerprint is exactly the tutorial's.

Writes go to ``<path>.<uuid>.tmp`` and are moved into place with `os.replace`: a
failed save leaves the old file as it was.
"""
from __future__ import annotations

import hashlib
import json
import os
import uuid
from pathlib import Path

from .alphabet import BYTES, CHARACTERS, from_gpt2_spelling, gpt2_spelling
from .errors import BpeError, TokenizerFileError

FILE_TYPES = {CHARACTERS: "character_bpe", BYTES: "byte_bpe"}
ALPHABET_OF_TYPE = {kind: alphabet for alphabet, kind in FILE_TYPES.items()}
REQUIRED_KEYS = ("type", "base_tokens", "merges", "vocab_size", "fingerprint")


def _spelled(tokenizer) -> tuple[list[str], list[list[str]]]:
    if tokenizer.alphabet == BYTES:
        return ([gpt2_spelling(t) for t in tokenizer.base_tokens],
                [[gpt2_spelling(a), gpt2_spelling(b)] for a, b in tokenizer.merges])
    return list(tokenizer.base_tokens), [[a, b] for a, b in tokenizer.merges]


def fingerprint_of(base_tokens: list, merges: list, pretokenizer: str | None = None) -> str:
    """sha256 of the compact JSON of the (spelled) base tokens and merges."""
    payload: dict = {"base_tokens": base_tokens, "merges": merges}
    if pretokenizer is not None:
        payload["pretokenizer"] = pretokenizer
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def fingerprint(tokenizer) -> str:
    base_tokens, merges = _spelled(tokenizer)
    return fingerprint_of(base_tokens, merges, tokenizer.pretokenizer)


def to_json_dict(tokenizer) -> dict:
    base_tokens, merges = _spelled(tokenizer)
    data = {"type": FILE_TYPES[tokenizer.alphabet], "base_tokens": base_tokens, "merges": merges,
            "vocab_size": tokenizer.vocab_size}
    if tokenizer.pretokenizer is not None:
        data["pretokenizer"] = tokenizer.pretokenizer
    data["fingerprint"] = fingerprint_of(base_tokens, merges, tokenizer.pretokenizer)
    return data


def to_json_text(tokenizer) -> str:
    return json.dumps(to_json_dict(tokenizer), ensure_ascii=False, indent=2) + "\n"


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temp file beside it; the old file survives a failure."""
    target = Path(path)
    if target.is_dir():
        raise BpeError(f"cannot write {str(target)!r}: it is a folder")
    temp = target.with_name(f"{target.name}.{uuid.uuid4().hex}.tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(temp, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, target)
    except OSError as error:
        raise BpeError(f"cannot write {str(target)!r}: {error.strerror or error}") from None
    finally:
        if temp.exists():
            temp.unlink()


def save_tokenizer(tokenizer, path: str | Path) -> None:
    atomic_write_bytes(path, to_json_text(tokenizer).encode("utf-8"))


def load_tokenizer(path: str | Path):
    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        raise TokenizerFileError(f"cannot read tokenizer file {str(path)!r}: {error.strerror or error}") from None
    return tokenizer_from_json_bytes(raw, name=str(path))


def tokenizer_from_json_bytes(raw: bytes, *, name: str = "tokenizer file"):
    """Parse and validate a tokenizer file's bytes; the fingerprint must match the content."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise TokenizerFileError(f"{name} is not UTF-8 text (bad byte at offset {error.start})") from None
    except json.JSONDecodeError as error:
        raise TokenizerFileError(f"{name} is not valid JSON: {error.msg} at line {error.lineno}, "
                                 f"column {error.colno}") from None
    return tokenizer_from_json_dict(data, name=name)


def tokenizer_from_json_dict(data, *, name: str = "tokenizer file"):
    from .tokenizer import BPETokenizer

    if not isinstance(data, dict):
        raise TokenizerFileError(f"{name} holds a JSON {type(data).__name__}, not an object with "
                                 f"the keys {', '.join(REQUIRED_KEYS)}")
    missing = [key for key in REQUIRED_KEYS if key not in data]
    if missing:
        raise TokenizerFileError(f"{name} is missing the key(s) {', '.join(missing)}")
    alphabet = ALPHABET_OF_TYPE.get(data["type"])
    if alphabet is None:
        raise TokenizerFileError(f"{name} has type {data['type']!r}; expected one of "
                                 f"{', '.join(repr(t) for t in ALPHABET_OF_TYPE)}")
    base_tokens, merges = data["base_tokens"], data["merges"]
    if not isinstance(base_tokens, list) or not all(isinstance(t, str) for t in base_tokens):
        raise TokenizerFileError(f"{name}: base_tokens must be a list of strings")
    if not isinstance(merges, list) or not all(
            isinstance(m, list) and len(m) == 2 and all(isinstance(t, str) for t in m) for m in merges):
        bad = next((i for i, m in enumerate(merges, 1) if not (isinstance(m, list) and len(m) == 2 and
                    all(isinstance(t, str) for t in m))), None) if isinstance(merges, list) else None
        where = f" (merge {bad} is {merges[bad - 1]!r})" if bad else ""
        raise TokenizerFileError(f"{name}: merges must be a list of [left, right] string pairs{where}")
    pretokenizer = data.get("pretokenizer")
    if pretokenizer is not None and not isinstance(pretokenizer, str):
        raise TokenizerFileError(f"{name}: pretokenizer must be a string, got {pretokenizer!r}")
    expected = fingerprint_of(base_tokens, merges, pretokenizer)
    if data["fingerprint"] != expected:
        raise TokenizerFileError(
            f"{name} fails its fingerprint check: the file says {str(data['fingerprint'])[:16]}..., its "
            f"content hashes to {expected[:16]}... (the file was edited or damaged)")
    try:
        if alphabet == BYTES:
            tokenizer = BPETokenizer([from_gpt2_spelling(t) for t in base_tokens],
                                     [(from_gpt2_spelling(a), from_gpt2_spelling(b)) for a, b in merges],
                                     alphabet=BYTES, pretokenizer=pretokenizer)
        else:
            tokenizer = BPETokenizer(base_tokens, merges, pretokenizer=pretokenizer)
    except BpeError as error:
        raise TokenizerFileError(f"{name}: {error}") from None
    if data["vocab_size"] != tokenizer.vocab_size:
        raise TokenizerFileError(f"{name} says vocab_size={data['vocab_size']!r}, but its merges build "
                                 f"{tokenizer.vocab_size} tokens")
    return tokenizer
