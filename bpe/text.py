"""Tokens spelled as plain text: visible whitespace, partial bytes, GPT-2's spelling.

The core spells tokens as text; the app turns that text into HTML and charts (in its UI
package beside the pages). A byte-level tokenizer may learn a token that holds only part
of a character: 'é' is two bytes (C3 A9), and b'\\xc3' alone is a valid token. Such a
token has no text of its own, so it is shown as ``<0xC3>``; everything that does decode
is shown as text.

    readable_token(b' caf\\xc3\\xa9')          -> ' café'
    readable_token(b'\\xe2\\x80')               -> '<0xE2><0x80>'   (2 of the 3 bytes of '—')
    readable_token(b' the', gpt2_spelling=True) -> 'Ġthe'          (how OpenAI's files spell it)
    printable(" the\\n")                        -> '·the↵'          (whitespace made visible)
    printable("\\u202eyap")                     -> '⟨RLO⟩yap'       (bidi controls as marks)
    bidi_marked("a b\\u202e")                   -> 'a b⟨RLO⟩'       (a passage: only the controls)
    shown_name("x\\u202etxt")                   -> 'x⟨RLO⟩txt'      (a name from someone else)
    shown_value([1.5] * 99)                    -> '[1.5, 1.5, ...'  (a value given, for a message)
"""

from __future__ import annotations

from bpe.alphabet import gpt2_spelling as _gpt2_spelling

# surrogateescape turns each undecodable byte 0xXY into the lone surrogate U+DCXY.
_ESCAPED_LOW, _ESCAPED_HIGH = 0xDC80, 0xDCFF


def readable_token(token: bytes | str, *, gpt2_spelling: bool = False) -> str:
    """A token as text: str unchanged; bytes decoded, partial characters as ``<0xE2>``.

    ``gpt2_spelling=True`` spells bytes with GPT-2's byte-to-unicode table instead (a space
    is 'Ġ', a newline 'Ċ'): one printable character per byte, as in ``vocab.bpe``.
    """
    if isinstance(token, str):
        return token
    if not isinstance(token, (bytes, bytearray)):
        raise TypeError(f"readable_token takes bytes or str, got {type(token).__name__} {token!r}")
    if gpt2_spelling:
        return _gpt2_spelling(bytes(token))
    text = bytes(token).decode("utf-8", errors="surrogateescape")
    if text.isascii() or not any(_ESCAPED_LOW <= ord(ch) <= _ESCAPED_HIGH for ch in text):
        return text
    return "".join(f"<0x{ord(ch) - 0xDC00:02X}>" if _ESCAPED_LOW <= ord(ch) <= _ESCAPED_HIGH else ch for ch in text)


def is_complete_utf8(token: bytes | str) -> bool:
    """True when ``token`` is whole characters (always for str): b'\\xc3\\xa9' yes, b'\\xc3' no."""
    if isinstance(token, str):
        return True
    try:
        token.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def hex_bytes(token: bytes | str) -> str:
    """The token's UTF-8 bytes in hex, for tooltips: b' \\xc3\\xa9' -> '20 C3 A9'."""
    data = token.encode("utf-8") if isinstance(token, str) else token
    return " ".join(f"{value:02X}" for value in data)


VISIBLE_WHITESPACE = {" ": "·", "\n": "↵", "\t": "→", "\r": "␍"}
# The Unicode Bidi_Control characters, by their standard abbreviations. Each reorders the
# text around it where it is shown ("\u202eecila ot 999 yap" reads "pay 999 to alice"),
# and the reordering leaks across the spans a page puts tokens in: shown as marks, they
# stay in their token and change nothing else.
VISIBLE_BIDI = {
    "\u061c": "⟨ALM⟩",
    "\u200e": "⟨LRM⟩",
    "\u200f": "⟨RLM⟩",
    "\u202a": "⟨LRE⟩",
    "\u202b": "⟨RLE⟩",
    "\u202c": "⟨PDF⟩",
    "\u202d": "⟨LRO⟩",
    "\u202e": "⟨RLO⟩",
    "\u2066": "⟨LRI⟩",
    "\u2067": "⟨RLI⟩",
    "\u2068": "⟨FSI⟩",
    "\u2069": "⟨PDI⟩",
}
_VISIBLE = str.maketrans({**VISIBLE_WHITESPACE, **VISIBLE_BIDI})
_BIDI_MARKED = str.maketrans(VISIBLE_BIDI)
MAX_SHOWN_NAME = 200  # characters of a name someone else chose that a page shows


def printable(token: str | bytes) -> str:
    """A token's text with whitespace made visible (space ·, newline ↵, tab →, CR ␍) and
    bidirectional controls shown as marks (U+202E as ⟨RLO⟩), so no token reorders what
    is shown around it."""
    return readable_token(token).translate(_VISIBLE)


def bidi_marked(text: str) -> str:
    """``text`` with only its bidirectional controls shown as marks (U+202E as ⟨RLO⟩): for a
    passage shown as text, whose spaces and line breaks are its layout."""
    return text.translate(_BIDI_MARKED)


def shown_name(name: str) -> str:
    """A name someone else chose (an uploaded file's, a lesson's, a run file's) as the pages
    show it: bidirectional controls as marks, and any other character that does not print
    (a newline, U+200B ZERO WIDTH SPACE) as its escape, so a name can neither reorder the
    text around it nor pass for another ("Tiny\\u200bShakespeare" for "Tiny Shakespeare"):
    ``"notes\\u202etxt.exe"`` is shown ``notes⟨RLO⟩txt.exe``, a newline as ``\\n``. A name
    longer than `MAX_SHOWN_NAME` characters is cut, ending in "…" (a lesson may name its
    text with a megabyte).
    """
    marked = bidi_marked(name)
    if not marked.isprintable():
        marked = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in marked)
    return marked if len(marked) <= MAX_SHOWN_NAME else marked[: MAX_SHOWN_NAME - 1] + "…"


def shown_value(value, limit: int = 60) -> str:
    """A value someone gave (a setting, a lesson's page, a token id), as a message shows it:
    its repr with bidirectional controls as marks, cut at ``limit`` characters (a lesson's
    version may be a megabyte of text). A whole number of more than about 57 digits is
    named by its size instead: cut, its digits would mislead, and past 4,300 Python
    refuses to write it out at all."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value).bit_length() > 192:
        return f"{'-' if value < 0 else ''}<a number of about {abs(value).bit_length() * 30103 // 100000:,} digits>"
    text = bidi_marked(repr(value))
    return text if len(text) <= limit else text[: limit - 3] + "..."


def pair_label(pair: tuple) -> str:
    """``('t', 'h')`` as ``t + h`` in printable text (not escaped)."""
    return f"{printable(pair[0])} + {printable(pair[1])}"


def token_characters(token: str | bytes) -> int:
    """How many characters of the decoded text a token accounts for.

    A str token: its length. A bytes token (byte-level BPE) may hold part of a character;
    it counts the characters whose *first* byte it holds (UTF-8 continuation bytes
    0x80-0xBF count 0), so the counts of a token sequence add up to exactly the characters
    of the text. Example: "é" is b"\\xc3\\xa9"; tokens b"\\xc3" and b"\\xa9" count 1 and 0.
    """
    if isinstance(token, bytes):
        return sum(1 for value in token if not 0x80 <= value <= 0xBF)
    return len(token)
