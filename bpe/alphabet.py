"""Alphabets: what the base tokens of a tokenizer are.

Two alphabets, as in the tutorial and in GPT-2:

- ``"characters"``: Unicode characters. The base tokens are ``sorted(set(text))``
  unless given; tokens are ``str``.
- ``"bytes"``: the 256 byte values. Any text is covered; tokens are ``bytes``.

GPT-2's ``bytes_to_unicode`` table lives here too: OpenAI's files spell byte tokens
with it (a space is ``Ġ``), and the app offers it as a way to display byte tokens.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from bpe.errors import BpeError, UnknownSymbolsError
from bpe.wording import counted

Token = str | bytes

CHARACTERS = "characters"
BYTES = "bytes"
ALPHABETS = (CHARACTERS, BYTES)


def check_alphabet(alphabet: str) -> str:
    if alphabet not in ALPHABETS:
        raise BpeError(f"unknown alphabet {alphabet!r}: choose one of {', '.join(ALPHABETS)}")
    return alphabet


def default_base_tokens(text: str, alphabet: str = CHARACTERS) -> list[Token]:
    """The tutorial's base vocabulary: every distinct character, sorted; or all 256 bytes."""
    if check_alphabet(alphabet) == BYTES:
        return [bytes([value]) for value in range(256)]
    return sorted(set(text))


def symbols_of(text: str, alphabet: str) -> Sequence[Token]:
    """The base symbols a piece of text is made of, before any merge."""
    if alphabet == BYTES:
        return [bytes([value]) for value in text.encode("utf-8")]
    return text


def symbol_count(text: str, alphabet: str) -> int:
    """How many base symbols ``text`` is, without building them: characters or UTF-8 bytes
    (a megabyte's slice encoded at a time, never a copy of a whole text)."""
    if alphabet != BYTES or text.isascii():
        return len(text)
    step = 1 << 20
    return sum(len(text[start : start + step].encode("utf-8")) for start in range(0, len(text), step))


def require_unicode(text: str, what: str = "text") -> None:
    """Refuse lone surrogates (``'\\ud800'``): they are not characters and have no UTF-8
    form, so no byte-level tokenizer can encode them and no file can hold them. They come
    from text decoded with ``errors='surrogateescape'``, such as a command-line argument
    that was not UTF-8. (Encoded a megabyte's slice at a time: a text of 64 M characters is
    never copied whole, and encoding is ten times as fast as searching for a surrogate.)"""
    if text.isascii():
        return
    step = 1 << 20
    for start in range(0, len(text), step):
        try:
            text[start : start + step].encode("utf-8")
        except UnicodeEncodeError as error:
            at = start + error.start
            raise BpeError(
                f"{what} holds {text[at]!r} at character {at:,}: a lone surrogate, not a "
                "Unicode character (it has no UTF-8 form); give UTF-8 text"
            ) from None


def check_base_tokens(base_tokens: Sequence[Token], alphabet: str) -> list[Token]:
    """Base tokens must be distinct single symbols of the alphabet."""
    tokens = list(base_tokens)
    if not tokens:
        raise BpeError("base_tokens is empty: a tokenizer needs at least one base token")
    kind = bytes if alphabet == BYTES else str
    for token in tokens:
        if not isinstance(token, kind) or len(token) != 1:
            what = "single bytes" if alphabet == BYTES else "single characters"
            raise BpeError(f"base token {token!r} is not one of the {what} the {alphabet} alphabet is made of")
    if kind is str:
        require_unicode("".join(tokens), "base_tokens")
    seen: set = set()
    duplicates = sorted({t for t in tokens if t in seen or seen.add(t)})  # type: ignore[func-returns-value]
    if duplicates:
        raise BpeError(f"base_tokens lists {duplicates!r} more than once")
    return tokens


def missing_symbols(text: str, known: set) -> list[str]:
    """Characters of ``text`` that ``known`` lacks, sorted (for error messages)."""
    return sorted(set(text) - known)


def require_covered(text: str, known: set, what: str = "text") -> None:
    """Raise `UnknownSymbolsError` naming every character of ``text`` outside ``known``."""
    missing = missing_symbols(text, known)
    if missing:
        shown = ", ".join(repr(ch) for ch in missing[:20])
        more = f" and {len(missing) - 20} more" if len(missing) > 20 else ""
        raise UnknownSymbolsError(
            f"{what} has {counted(len(missing), 'character')} outside the tokenizer's alphabet: {shown}{more}",
            missing,
        )


@lru_cache(maxsize=1)
def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's reversible map from byte values to printable characters.

    Printable Latin-1 bytes map to themselves; the rest (control bytes, space, ...) are
    shifted to code points from 256 on, so a space becomes 'Ġ' (U+0120) and a newline 'Ċ'.
    """
    printable = (
        list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    )
    codes = printable[:]
    shift = 0
    for value in range(256):
        if value not in printable:
            printable.append(value)
            codes.append(256 + shift)
            shift += 1
    return {value: chr(code) for value, code in zip(printable, codes)}


@lru_cache(maxsize=1)
def unicode_to_bytes() -> dict[str, int]:
    return {char: value for value, char in bytes_to_unicode().items()}


def gpt2_spelling(token: bytes) -> str:
    """A byte token as OpenAI's files spell it: b' the' -> 'Ġthe'."""
    table = bytes_to_unicode()
    return "".join(table[value] for value in token)


def from_gpt2_spelling(spelled: str) -> bytes:
    """Inverse of `gpt2_spelling`; names the first character outside the table."""
    table = unicode_to_bytes()
    try:
        return bytes(table[char] for char in spelled)
    except KeyError as error:
        raise BpeError(f"{spelled!r} holds {error.args[0]!r}, which is not in GPT-2's byte-to-unicode table") from None
