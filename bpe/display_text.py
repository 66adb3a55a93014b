"""Token text for terminals and tables: whitespace made visible, bytes made readable.

The HTML side (coloured, escaped spans) is `bpe.display`; this module is plain text only.
"""
from __future__ import annotations

VISIBLE_WHITESPACE = {" ": "·", "\n": "↵", "\t": "→", "\r": "␍"}


def printable(token) -> str:
    """A token as a person can read it: 'the cat' -> 'the·cat', b'\\xe2' -> '<0xE2>'."""
    if isinstance(token, bytes):
        text = readable_bytes(token)
    else:
        text = token
    return "".join(VISIBLE_WHITESPACE.get(ch, ch) for ch in text)


def readable_bytes(token: bytes) -> str:
    """Decoded UTF-8 where it is valid; each byte of a partial character as '<0xE2>'."""
    out = []
    i = 0
    while i < len(token):
        for end in range(min(len(token), i + 4), i, -1):
            try:
                out.append(token[i:end].decode("utf-8"))
                i = end
                break
            except UnicodeDecodeError:
                continue
        else:
            out.append(f"<0x{token[i]:02X}>")
            i += 1
    return "".join(out)
