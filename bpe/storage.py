"""Tokenizer files: the format alone. Parse to plain validated data, fingerprint, write atomically.

The tutorial's format, kept byte-compatible::

    {"type": "character_bpe", "base_tokens": [...], "merges": [[a, b], ...],
     "vocab_size": N, "fingerprint": sha256(compact JSON of base_tokens and merges)}

Byte-level tokenizers use ``"type": "byte_bpe"`` and spell each byte token as GPT-2's
files do ('Ġthe'), so the file stays readable text. A pre-tokenizer, when there is one,
is stored under ``"pretokenizer"`` and is part of the fingerprint; without one the
fingerprint is exactly the tutorial's. So is the tie rule training used (``"tie_rule"``),
written and fingerprinted only when it is not the default (first occurrence): files of
the tutorial's rule keep the tutorial's exact bytes and fingerprint. Special tokens
(``"special_tokens": ["<|endoftext|>"]``, as text in both alphabets) likewise: written and
fingerprinted only when there are any; they take the first ids (`bpe.specials`), and
``vocab_size`` counts them.

This module knows nothing of the tokenizer class: it turns bytes into a checked
`TokenizerData` and back. `bpe.tokenizer.BPETokenizer` builds itself from that data.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass

from bpe.alphabet import BYTES, CHARACTERS, from_gpt2_spelling, gpt2_spelling
from bpe.errors import BpeError, TokenizerFileError
from bpe.io.budget import MAX_TOTAL_TOKEN_BYTES, check_json_values, check_token_lengths
from bpe.io.files import atomic_write_bytes
from bpe.io.jsonfile import load_json
from bpe.io.untrusted import read_file_bytes
from bpe.pretokenize import check_pretokenizer
from bpe.specials import check_special_tokens
from bpe.steps import DEFAULT_TIE_RULE, TIE_RULES
from bpe.text import shown_value

FILE_TYPES = {CHARACTERS: "character_bpe", BYTES: "byte_bpe"}
ALPHABET_OF_TYPE = {kind: alphabet for alphabet, kind in FILE_TYPES.items()}
REQUIRED_KEYS = ("type", "base_tokens", "merges", "vocab_size", "fingerprint")


@dataclass(frozen=True)
class TokenizerData:
    """What a tokenizer file holds, checked: tokens are str (characters) or bytes (bytes)."""

    alphabet: str
    base_tokens: tuple
    merges: tuple  # ((left, right), ...) in learned order
    pretokenizer: str | None = None
    tie_rule: str = DEFAULT_TIE_RULE  # how training broke ties (`bpe.steps.TIE_RULES`): provenance only
    special_tokens: tuple[str, ...] = ()  # one token each, the first ids (`bpe.specials`)

    def vocab_size(self) -> int:
        """How many distinct tokens the merges build (a merge that re-creates a token adds
        none), and the special tokens."""
        return len(set(self.base_tokens).union(left + right for left, right in self.merges)) + len(self.special_tokens)


# ==================== Fingerprint


def _spelled(data: TokenizerData) -> tuple[list[str], list[list[str]]]:
    """The tokens as the file writes them: byte tokens in GPT-2's spelling."""
    if data.alphabet == BYTES:
        return (
            [gpt2_spelling(t) for t in data.base_tokens],
            [[gpt2_spelling(a), gpt2_spelling(b)] for a, b in data.merges],
        )
    return list(data.base_tokens), [[a, b] for a, b in data.merges]


def _fingerprint_of_spelled(
    base_tokens: list,
    merges: list,
    pretokenizer: str | None,
    tie_rule: str = DEFAULT_TIE_RULE,
    special_tokens: tuple[str, ...] = (),
) -> str:
    payload: dict = {"base_tokens": base_tokens, "merges": merges}
    if pretokenizer is not None:
        payload["pretokenizer"] = pretokenizer
    if tie_rule != DEFAULT_TIE_RULE:  # only then: the tutorial's files keep their fingerprint
        payload["tie_rule"] = tie_rule
    if special_tokens:  # likewise
        payload["special_tokens"] = list(special_tokens)
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def fingerprint_of(data: TokenizerData) -> str:
    """sha256 of the compact JSON of the (spelled) base tokens and merges (and the pre-tokenizer,
    if any, and the tie rule, if not the default)."""
    base_tokens, merges = _spelled(data)
    return _fingerprint_of_spelled(base_tokens, merges, data.pretokenizer, data.tie_rule, data.special_tokens)


# ==================== Writing


def to_json_dict(data: TokenizerData) -> dict:
    base_tokens, merges = _spelled(data)
    out = {
        "type": FILE_TYPES[data.alphabet],
        "base_tokens": base_tokens,
        "merges": merges,
        "vocab_size": data.vocab_size(),
    }
    if data.pretokenizer is not None:
        out["pretokenizer"] = data.pretokenizer
    if data.tie_rule != DEFAULT_TIE_RULE:
        out["tie_rule"] = data.tie_rule
    if data.special_tokens:
        out["special_tokens"] = list(data.special_tokens)
    out["fingerprint"] = _fingerprint_of_spelled(
        base_tokens, merges, data.pretokenizer, data.tie_rule, data.special_tokens
    )
    return out


def to_json_text(data: TokenizerData) -> str:
    return json.dumps(to_json_dict(data), ensure_ascii=False, indent=2) + "\n"


def write_tokenizer_file(path: str | os.PathLike[str], data: TokenizerData) -> None:
    """Write the file whole through a temporary name: a failed save leaves the old file as it was."""
    atomic_write_bytes(path, to_json_text(data).encode("utf-8"))


# ==================== Reading


def read_tokenizer_file(path: str | os.PathLike[str]) -> TokenizerData:
    raw = read_file_bytes(path, what="tokenizer file", name=repr(str(path)), error=TokenizerFileError)
    return parse_tokenizer_json(raw, name=str(path))


# What a server accepts from a visitor (`parse_tokenizer_json(raw, max_bytes=..., max_merges=...)`):
# GPT-2's 50,000 merges fit; a file ten times as long would hold ten times the server
# memory for its session (docs/speed.md has what a loaded merge costs).
UPLOAD_MAX_BYTES = 5_000_000
UPLOAD_MAX_MERGES = 60_000


def parse_tokenizer_json(
    raw: bytes, *, name: str = "tokenizer file", max_bytes: int | None = None, max_merges: int | None = None
) -> TokenizerData:
    """Parse and validate a tokenizer file's bytes; the fingerprint must match the content.

    ``max_bytes`` and ``max_merges`` bound what a file may hold (an upload: see
    `UPLOAD_MAX_BYTES`, `UPLOAD_MAX_MERGES`); both are checked before anything is built,
    as are the JSON's values and its tokens' total length (`bpe.io.budget`; the tokens of an
    upload may hold at most ``max_bytes`` characters in all).
    """
    if max_bytes is not None and len(raw) > max_bytes:
        raise TokenizerFileError(
            f"{name} is {len(raw):,} bytes; the most this server accepts is {max_bytes:,} "
            "bytes (a tokenizer of about 60,000 merges)"
        )
    check_json_values(raw, name=name)
    data = load_json(raw, name=name)
    merges = data.get("merges") if isinstance(data, dict) else None
    if max_merges is not None and isinstance(merges, list) and len(merges) > max_merges:
        raise TokenizerFileError(f"{name} has {len(merges):,} merges; the most this server accepts is {max_merges:,}")
    max_token_bytes = MAX_TOTAL_TOKEN_BYTES if max_bytes is None else max_bytes
    return tokenizer_data_from_dict(data, name=name, max_token_bytes=max_token_bytes)


def tokenizer_data_from_dict(
    data, *, name: str = "tokenizer file", max_token_bytes: int = MAX_TOTAL_TOKEN_BYTES
) -> TokenizerData:
    """Check a parsed file's shape, types and fingerprint; return its `TokenizerData`.

    The merges spell every token out, so their total length (at most ``max_token_bytes``
    characters, `bpe.io.budget`) is what the tokenizer will hold; no single token is bounded
    on its own, since training on repetitive text may learn long ones."""
    alphabet, base_tokens, merges = _shape(data, name)
    check_token_lengths(
        (len(left) + len(right) for left, right in merges),
        name=name,
        max_total=max_token_bytes,
        max_length=None,
        where=lambda index: f"merge {index + 1:,}",
        unit="characters",
    )
    pretokenizer = data.get("pretokenizer")
    if pretokenizer is not None and not isinstance(pretokenizer, str):
        raise TokenizerFileError(f"{name}: pretokenizer must be a string, got {str(pretokenizer)[:60]}")
    try:  # before anything runs it: a custom pattern from a file is a stranger's program
        check_pretokenizer(pretokenizer)
    except BpeError as error:
        raise TokenizerFileError(f"{name}: {error}") from None
    tie_rule = data.get("tie_rule", DEFAULT_TIE_RULE)
    if tie_rule not in TIE_RULES:  # `in` on a tuple of str: safe for any JSON value
        raise TokenizerFileError(f"{name}: tie_rule {str(tie_rule)[:60]!r} is not one of {', '.join(TIE_RULES)}")
    special_tokens = data.get("special_tokens", [])
    if not isinstance(special_tokens, list):
        raise TokenizerFileError(f"{name}: special_tokens must be a list of strings, got {str(special_tokens)[:60]}")
    try:  # a count and lengths bounded by `bpe.specials`, before anything is built from them
        special_tokens = check_special_tokens(special_tokens)
    except BpeError as error:
        raise TokenizerFileError(f"{name}: {error}") from None
    expected = _fingerprint_of_spelled(base_tokens, merges, pretokenizer, tie_rule, special_tokens)
    if data["fingerprint"] != expected:
        raise TokenizerFileError(
            f"{name} fails its fingerprint check: the file says {str(data['fingerprint'])[:16]}..., its "
            f"content hashes to {expected[:16]}... (the file was edited or damaged)"
        )
    try:
        parsed = _unspelled(alphabet, base_tokens, merges, pretokenizer, tie_rule, special_tokens)
    except BpeError as error:
        raise TokenizerFileError(f"{name}: {error}") from None
    _check_merges_build(parsed, name)
    if type(data["vocab_size"]) is not int or data["vocab_size"] != parsed.vocab_size():  # 3e2 and true are no count
        raise TokenizerFileError(
            f"{name} says vocab_size={shown_value(data['vocab_size'])}, but its merges build {parsed.vocab_size()} tokens"
        )
    return parsed


def _shape(data, name: str) -> tuple[str, list, list]:
    """``(alphabet, base_tokens, merges)`` once the file is an object with every required key,
    a type BPE Lab writes, a list of strings and a list of ``[left, right]`` string pairs."""
    if not isinstance(data, dict):
        raise TokenizerFileError(
            f"{name} holds a JSON {type(data).__name__}, not an object with the keys {', '.join(REQUIRED_KEYS)}"
        )
    missing = [key for key in REQUIRED_KEYS if key not in data]
    if missing:
        raise TokenizerFileError(
            f"{name} is missing {'the key' if len(missing) == 1 else 'the keys'} {', '.join(missing)}"
        )
    alphabet = ALPHABET_OF_TYPE.get(data["type"]) if isinstance(data["type"], str) else None
    if alphabet is None:
        raise TokenizerFileError(
            f"{name} has type {str(data['type'])[:40]!r}; expected one of "
            f"{', '.join(repr(t) for t in ALPHABET_OF_TYPE)}"
        )
    base_tokens, merges = data["base_tokens"], data["merges"]
    if not isinstance(base_tokens, list) or not all(isinstance(t, str) for t in base_tokens):
        raise TokenizerFileError(f"{name}: base_tokens must be a list of strings")
    if not isinstance(merges, list) or not all(_is_spelled_pair(m) for m in merges):
        bad = (
            next((i for i, m in enumerate(merges, 1) if not _is_spelled_pair(m)), None)
            if isinstance(merges, list)
            else None
        )
        where = f" (merge {bad} is {str(merges[bad - 1])[:60]})" if bad else ""
        raise TokenizerFileError(f"{name}: merges must be a list of [left, right] string pairs{where}")
    return alphabet, base_tokens, merges


def _check_merges_build(data: TokenizerData, name: str) -> None:
    """Each merge joins two tokens that exist by then: base tokens or earlier merge results."""
    known = set(data.base_tokens)
    for number, (left, right) in enumerate(data.merges, start=1):
        for part in (left, right):
            if part not in known:
                raise TokenizerFileError(
                    f"{name}: merge {number} {(left, right)!r} uses {part!r}, which is neither "
                    "a base token nor the result of an earlier merge"
                )
        known.add(left + right)


def _is_spelled_pair(merge) -> bool:
    return isinstance(merge, list) and len(merge) == 2 and all(isinstance(t, str) for t in merge)


def _unspelled(
    alphabet: str,
    base_tokens: list[str],
    merges: list[list[str]],
    pretokenizer: str | None,
    tie_rule: str,
    special_tokens: tuple[str, ...],
) -> TokenizerData:
    if alphabet == BYTES:
        return TokenizerData(
            BYTES,
            tuple(from_gpt2_spelling(t) for t in base_tokens),
            tuple((from_gpt2_spelling(a), from_gpt2_spelling(b)) for a, b in merges),
            pretokenizer,
            tie_rule,
            special_tokens,
        )
    return TokenizerData(
        CHARACTERS, tuple(base_tokens), tuple((a, b) for a, b in merges), pretokenizer, tie_rule, special_tokens
    )
