"""Regex syntax read without compiling it: one scanner for every reader of a pattern.

A split pattern is read twice before anything runs it: the safety check
(`bpe.pattern_safety.pattern_cost`) sizes what the compiler would expand, and the export to
Hugging Face (`bpe.formats.patterns.to_oniguruma`) respells it for Oniguruma. Both must
read the pattern as the `regex` package reads it (version 0, its default), or a pattern
can mean one thing to the check and another to the compiler: in ``[[](?:x{3000}){3000}``
the ``[`` inside the class is a literal, and a reader that took it for a nested class
would skip the 9,000,000-character repeat after it.

`pieces` cuts a pattern into its syntactic pieces, in order; joined, they give the
pattern back:

    >>> [p.text for p in pieces(r"(?i:a|\\p{L}{1,3}+)[^]\\]]*$")]
    ['(?i:', 'a', '|', '\\\\p{L}', '{1,3}+', ')', '[^]\\\\]]', '*', '$']
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ESCAPE = "escape"  # \w  \p{L}  \x41  \N{SPACE}
CLASS = "class"  # [...], read whole
OPEN = "open"  # ( (?: (?i: (?= (?! (?<= (?<! (?> (?| (?P<name> (?<name>
CLOSE = "close"  # )
FLAGS = "flags"  # (?i) (?-m): flags turned on or off from here on
COMMENT = "comment"  # (?#...)
OTHER = "other"  # (?R) (?1) (?&name) (?P=name) (?(1)...: recursion, references, conditions
INTERVAL = "interval"  # {n} {m,n} {m,} {,n}, with a lazy ? or possessive + mark
FUZZY = "fuzzy"  # {e<=2} {i} {1<=e<=3} {2i+1d<=3}: `regex`'s fuzzy matching; literal text elsewhere
REPEAT = "repeat"  # * + ?, with a lazy ? or possessive + mark
ANCHOR = "anchor"  # ^ $
BAR = "bar"  # |
LITERAL = "literal"  # any other character, "." included

QUANTIFIABLE = frozenset({ESCAPE, CLASS, CLOSE, LITERAL})
# Escapes whose argument is braced (\p{L}, \N{SPACE}, \x{41}, \u{...} is an error anyway);
# \p and \P also take one letter unbraced (\pL).
_BRACED = frozenset("pPNxuUgk")
_HEX_DIGITS = {"x": 2, "u": 4, "U": 8}
_INTERVAL = re.compile(r"\{(\d*)(,?)(\d*)\}([?+]?)")
# A fuzzy constraint after an atom: error kinds (i d s e), counts and <, <=, +, commas, and a
# ":" test. `regex` matches "x{e<=1}" against "y"; Oniguruma and Rust read the braces as text.
_FUZZY = re.compile(r"\{(?=[^{}]*[ides])[0-9ides][0-9ides<=+,\s]*(?::[^{}]*)?\}")
# The group openings and inline flags of `regex` (its flag letters: a b e f i L m p r s u
# V0 V1 w x); any other "(?" is a piece of kind OTHER.
_GROUP = re.compile(
    r"\((?:\?(?:"
    r"(?P<named>P?<[A-Za-z_]\w*>)"
    r"|(?P<kind><=|<!|[:=!>|])"
    r"|(?P<on>(?:[abefimprsuwxL]|V[01])*)(?:-(?P<off>(?:[abefimprsuwxL]|V[01])*))?(?P<end>[:)])"
    r"))?"
)


@dataclass(frozen=True)
class Piece:
    kind: str
    text: str
    start: int
    flags_on: str = ""  # OPEN and FLAGS: the inline flags turned on ...
    flags_off: str = ""  # ... and off
    low: int = 0  # INTERVAL: the repeat counts (high None for open)
    high: int | None = None

    @property
    def mark(self) -> str:
        """A quantifier's mode: ``"?"`` lazy, ``"+"`` possessive, ``""`` greedy."""
        if self.kind in (REPEAT, INTERVAL) and len(self.text) > 1 and self.text[-1] in "?+":
            return self.text[-1]
        return ""


def pieces(pattern: str) -> list[Piece]:
    """``pattern`` cut into its pieces (see the module's docstring); never raises. What
    does not parse (an unclosed class, a stray ``\\`` at the end) is still a piece, and
    compiling the pattern reports it."""
    found: list[Piece] = []
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "\\":
            end = escape_end(pattern, i)
            found.append(Piece(ESCAPE, pattern[i:end], i))
        elif char == "[":
            end = class_end(pattern, i)
            found.append(Piece(CLASS, pattern[i:end], i))
        elif char == "(":
            end, piece = _group(pattern, i)
            found.append(piece)
        elif char == ")":
            end = i + 1
            found.append(Piece(CLOSE, ")", i))
        elif char in "*+?" and found and found[-1].kind in QUANTIFIABLE:
            end = i + 1 + (i + 1 < n and pattern[i + 1] in "?+")
            found.append(Piece(REPEAT, pattern[i:end], i))
        elif char == "{" and found and found[-1].kind in QUANTIFIABLE and (interval := _interval(pattern, i)):
            end, piece = interval
            found.append(piece)
        elif char == "{" and found and found[-1].kind in QUANTIFIABLE and (fuzzy := _FUZZY.match(pattern, i)):
            end = fuzzy.end()
            found.append(Piece(FUZZY, fuzzy.group(), i))
        elif char in "^$":
            end = i + 1
            found.append(Piece(ANCHOR, char, i))
        elif char == "|":
            end = i + 1
            found.append(Piece(BAR, char, i))
        else:
            end = i + 1
            found.append(Piece(LITERAL, char, i))
        i = end
    return found


def escape_end(pattern: str, i: int) -> int:
    """The index after the escape starting at ``pattern[i] == '\\'``: one character, or
    a braced argument as in ``\\p{L}``, ``\\N{SPACE}``, ``\\x{41}``, or ``\\pL``, or the hex
    digits of ``\\x41``, ``\\u00e9``, ``\\U0001f600``."""
    letter = pattern[i + 1 : i + 2]
    if letter in _BRACED and pattern.startswith("{", i + 2):
        end = pattern.find("}", i + 2)
        return len(pattern) if end < 0 else end + 1
    if letter in ("p", "P") and pattern[i + 2 : i + 3].isalpha():
        return i + 3
    digits = _HEX_DIGITS.get(letter)
    if digits:  # \x41, \u00e9, \U0001f600: the code point is part of the escape
        end = i + 2
        while end < min(len(pattern), i + 2 + digits) and pattern[end] in "0123456789abcdefABCDEF":
            end += 1
        return end
    return min(i + 2, len(pattern))


def class_end(pattern: str, i: int) -> int:
    """The index after the character class starting at ``pattern[i] == '['``, as the
    `regex` package (version 0) reads it: a leading ``]`` (after an optional ``^``) is a
    literal, escapes and POSIX classes (``[:alpha:]``) are skipped over, and any other
    ``[`` inside is a literal too (sets do not nest in version 0)."""
    j, n = i + 1, len(pattern)
    if pattern.startswith("^", j):
        j += 1
    if pattern.startswith("]", j):
        j += 1
    while j < n:
        char = pattern[j]
        if char == "\\":
            j = escape_end(pattern, j)
            continue
        if char == "[" and pattern.startswith("[:", j):
            close = pattern.find(":]", j + 2)
            if close >= 0 and re.fullmatch(r"\^?\w+", pattern[j + 2 : close]):
                j = close + 2
                continue
        if char == "]":
            return j + 1
        j += 1
    return n


def class_members(text: str) -> list[str]:
    """The parts of a class's text between its brackets: escapes, POSIX classes and single
    characters (``-`` of a range is a part of its own). ``[^a\\w]`` -> ``['a', '\\w']``."""
    body = text[1:-1] if text.endswith("]") and len(text) > 1 else text[1:]
    if body.startswith("^"):
        body = body[1:]
    parts, j = [], 0
    while j < len(body):
        if body[j] == "\\":
            end = escape_end(body, j)
        elif body.startswith("[:", j) and (close := body.find(":]", j + 2)) >= 0:
            end = close + 2
        else:
            end = j + 1
        parts.append(body[j:end])
        j = end
    return parts


def _group(pattern: str, i: int) -> tuple[int, Piece]:
    if pattern.startswith("(?#", i):  # a comment runs to the next ")"
        close = pattern.find(")", i)
        end = len(pattern) if close < 0 else close + 1
        return end, Piece(COMMENT, pattern[i:end], i)
    found = _GROUP.match(pattern, i)
    if found is None or (pattern.startswith("(?", i) and found.end() == i + 1):
        # (?R), (?1), (?&name), (?P=name), (?(...): one piece up to its ")" (a condition's
        # own group is left to the compiler, which reads it)
        close = pattern.find(")", i)
        end = len(pattern) if close < 0 else close + 1
        return end, Piece(OTHER, pattern[i:end], i)
    text = found.group()
    if found.group("end") == ")":
        return found.end(), Piece(FLAGS, text, i, found.group("on") or "", found.group("off") or "")
    on, off = (found.group("on") or "", found.group("off") or "") if found.group("end") else ("", "")
    return found.end(), Piece(OPEN, text, i, on, off)


def _interval(pattern: str, i: int) -> tuple[int, Piece] | None:
    """``{n}``, ``{m,n}``, ``{m,}``, ``{,n}`` and ``{,}`` at ``i`` (as `regex` reads them:
    a missing low count is 0), or None when the brace is a literal."""
    found = _INTERVAL.match(pattern, i)
    if found is None:
        return None
    low, comma, high, _mark = found.groups()
    if not comma and not low:
        return None  # "{}" is a literal
    count_low = int(low) if low else 0
    count_high = (int(high) if high else None) if comma else count_low
    return found.end(), Piece(INTERVAL, found.group(), i, low=count_low, high=count_high)
