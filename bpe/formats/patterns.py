"""Split patterns that come from files: checked before use, and spelled for each library.

A tokenizer file from elsewhere may carry any regex. `check_pattern` runs it through the
project's safe-pattern check (`bpe.pattern_safety.check_safe_pattern`: length, nesting,
compile cost, no capturing group, no empty match, covers probe strings, no catastrophic
backtracking on them) and reports a refusal as a `TokenizerFileError` naming the file.

Hugging Face `tokenizers` runs patterns with Oniguruma (Ruby syntax), not Python's
`regex`. Both directions (`to_oniguruma`, `from_oniguruma`) read the pattern with
`bpe.regex_syntax` and respell what differs:

- ``X{1,3}+`` is possessive in Python, but in Ruby it means ``(?:X{1,3})+``;
- ``^`` and ``$`` are line anchors in Ruby, string anchors in Python (without flags);
- ``\\Z`` is the very end in Python, end-or-before-a-final-newline in Ruby (Ruby's
  very end is ``\\z``);
- ``\\w``, ``\\W``, ``\\b``, ``\\B`` hold other characters (`PYTHON_WORD`, `ONIGURUMA_WORD`):
  written out as explicit classes;
- the flag ``s`` (dot matches a line break) is Ruby's ``m``; Ruby nests classes and reads
  ``&&`` in them as an intersection, so a ``[`` or ``&`` in a Python class is escaped.

What has no exact spelling in the other engine (``\\X``, ``\\N{...}``, ``\\h``, POSIX
classes, references) is refused with a `PatternError`, so no file matches other text than
the lab does.
"""

from __future__ import annotations

from bpe.errors import PatternError, TokenizerFileError
from bpe.pattern_safety import check_safe_pattern
from bpe.pretokenize import NAMED_PATTERNS
from bpe.regex_syntax import (
    ANCHOR,
    CLASS,
    CLOSE,
    COMMENT,
    ESCAPE,
    FLAGS,
    INTERVAL,
    LITERAL,
    OPEN,
    OTHER,
    REPEAT,
    class_members,
    pieces,
)

# GPT-2's pattern as OpenAI first released it (and as Hugging Face's ByteLevel runs it);
# tiktoken's r50k form in `bpe.pretokenize.GPT2_PATTERN` chunks text the same way.
GPT2_ORIGINAL_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
# Names a visitor may type for the published patterns.
PATTERN_ALIASES = {"r50k": "gpt2", "gpt-2": "gpt2", "cl100k": "gpt4", "cl100k_base": "gpt4", "gpt-4": "gpt4"}


def check_pattern(pattern, *, name: str = "the file") -> str:
    """``pattern`` if the project's safe-pattern check accepts it; otherwise
    `TokenizerFileError` naming the file and the reason. Named patterns pass as they are."""
    if isinstance(pattern, str) and pattern in NAMED_PATTERNS.values():
        return pattern
    try:
        return check_safe_pattern(pattern)
    except PatternError as error:
        raise TokenizerFileError(f"{name}: {error}") from None


def resolve_pattern(pattern: str | None, *, name: str = "the pattern") -> str | None:
    """A pattern given by a visitor: ``None``/``"none"``, a name (gpt2, gpt4, whitespace, r50k,
    cl100k) or a regex (checked). Returns the regex, or ``None`` for no split."""
    if pattern is None or pattern == "" or pattern == "none":
        return None
    if not isinstance(pattern, str):
        raise TokenizerFileError(f"{name}: a split pattern must be text, got {type(pattern).__name__}")
    key = PATTERN_ALIASES.get(pattern.lower(), pattern.lower())
    if key in NAMED_PATTERNS:
        return NAMED_PATTERNS[key]
    return check_pattern(pattern, name=name)


def pretokenizer_for(pattern: str | None) -> str | None:
    """The lab's pre-tokenizer setting for a regex: its name when it is a published one
    (so pages show "gpt4", not the regex), else the regex itself; ``None`` for no split."""
    if pattern is None:
        return None
    for key, known in NAMED_PATTERNS.items():
        if pattern == known:
            return key
    if pattern == GPT2_ORIGINAL_PATTERN:
        return "gpt2"
    return pattern


# ====================
# Python `regex` <-> Oniguruma (Ruby syntax)


def to_oniguruma(pattern: str) -> str:
    """``pattern`` (Python `regex`) spelled so that Oniguruma matches the same chunks."""
    return _translate(pattern, to_ruby=True)


def from_oniguruma(pattern: str) -> str:
    """``pattern`` (Oniguruma, from a tokenizer.json) spelled for Python's `regex`."""
    return _translate(pattern, to_ruby=False)


# What \w holds in each engine, measured over every code point with the real libraries:
# `regex` follows Unicode's word characters (UTS #18, Join_Control included: U+200C and
# U+200D inside Persian and Hindi words); Oniguruma leaves those two out and, outside a
# class only, counts ² ³ ¹ ¼ ½ ¾ in (its [\w] does not). So \w, \W, \b and \B are written
# out as explicit classes both ways.
PYTHON_WORD = r"\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}"
ONIGURUMA_CLASS_WORD = r"\p{Alphabetic}\p{M}\p{Nd}\p{Pc}"
ONIGURUMA_WORD = ONIGURUMA_CLASS_WORD + r"\u00B2\u00B3\u00B9\u00BC\u00BD\u00BE"
# Escapes both engines read alike (\s and \d: the same characters in both) ...
_SAME_ESCAPES = frozenset("sSdDnrtfvaAz")
# ... and the inline flags: Python's s (dot matches a line break) is Ruby's m; Python's m
# (line anchors) has no Ruby flag, since Ruby's ^ and $ are always line anchors.
_FLAGS_TO_RUBY = {"i": "i", "s": "m", "m": ""}
_FLAGS_FROM_RUBY = {"i": "i", "m": "s"}


def _word_class(members: str, *, negated: bool = False) -> str:
    return f"[{'^' if negated else ''}{members}]"


def _boundary(members: str, *, inside: bool) -> str:
    word = _word_class(members)
    if inside:  # \B: word on both sides, or on neither
        return f"(?:(?<={word})(?={word})|(?<!{word})(?!{word}))"
    return f"(?:(?<={word})(?!{word})|(?<!{word})(?={word}))"


def _refuse(pattern: str, what: str, to_ruby: bool) -> PatternError:
    direction = "spelled for Oniguruma (Hugging Face)" if to_ruby else "read from Oniguruma (Hugging Face)"
    return PatternError(f"the split pattern {pattern[:60]!r} cannot be {direction} exactly: {what}")


def _escape(pattern: str, text: str, *, to_ruby: bool, in_class: bool) -> str:
    """One escape respelled for the other engine; `PatternError` for one it cannot match
    exactly there (\\X, \\N{...}, \\h, \\R, \\K, back-references ...)."""
    letter = text[1:2]
    word = PYTHON_WORD if to_ruby else ONIGURUMA_WORD
    if letter == "w" and in_class:
        return word if to_ruby else ONIGURUMA_CLASS_WORD
    if letter == "w":
        return _word_class(word)
    if letter == "W":
        if in_class and not to_ruby:
            raise _refuse(pattern, "\\W inside a class [...] (Python's regex has no nested classes)", to_ruby)
        return _word_class(word, negated=True)
    if letter in ("b", "B") and not in_class:
        return _boundary(word, inside=letter == "B")
    if letter == "Z" and not in_class:
        return "\\z" if to_ruby else "(?=\\n?\\Z)"
    if letter == "z" and not to_ruby and not in_class:
        return "\\Z"
    if letter in ("p", "P"):
        return text if text[2:3] == "{" else f"\\{letter}{{{text[2:]}}}"  # \pL -> \p{L}
    if letter in ("x", "u") or letter in _SAME_ESCAPES or (letter and not letter.isalnum()):
        return text
    raise _refuse(pattern, f"{text!r} means something else, or nothing, in the other engine", to_ruby)


def _class(pattern: str, text: str, *, to_ruby: bool) -> str:
    """A character class respelled member by member."""
    negated = text.startswith("[^")
    out = []
    for member in class_members(text):
        if member.startswith("[:"):
            raise _refuse(pattern, f"the POSIX class {member!r}", to_ruby)
        if member.startswith("\\"):
            out.append(_escape(pattern, member, to_ruby=to_ruby, in_class=True))
        elif member in "[&" and to_ruby:
            out.append("\\" + member)  # Ruby nests classes and reads && as an intersection
        elif member == "[" and not to_ruby:
            raise _refuse(pattern, "a nested class or '[' inside a class", to_ruby)
        elif member == "&" and not to_ruby and "&&" in text:
            raise _refuse(pattern, "a class intersection (&&)", to_ruby)
        else:
            out.append(member)
    return "[" + ("^" if negated else "") + "".join(out) + "]"


def _flags(pattern: str, piece, *, to_ruby: bool) -> tuple[str, str]:
    """The inline flags of an opening or a flags group, respelled (on, off)."""
    table = _FLAGS_TO_RUBY if to_ruby else _FLAGS_FROM_RUBY
    spelled = []
    for letters in (piece.flags_on, piece.flags_off):
        unknown = [flag for flag in letters if flag not in table]
        if unknown:
            raise _refuse(pattern, f"the inline flag {unknown[0]} in {piece.text!r}", to_ruby)
        spelled.append("".join(table[flag] for flag in letters))
    return spelled[0], spelled[1]


def _turned(state: bool, flag: str, piece) -> bool:
    """A flag's state after a group opening or flags piece turns it on or off."""
    return flag in piece.flags_on or (state and flag not in piece.flags_off)


# Case-insensitive matching agrees between the engines only on ASCII letters other than
# i and I: `regex` also matches İ (U+0130) for i and ı (U+0131) for I, folds \p{...}
# classes (so (?i:\p{Lu}) matches lower case too), and Oniguruma folds fully (its (?i:ß)
# matches "ss"). Inside (?i) only what both read alike is translated.
_CASELESS_SAFE = frozenset(map(chr, range(128))) - {"i", "I"}


def _check_caseless(pattern: str, piece, *, to_ruby: bool) -> None:
    what = None
    if piece.kind == LITERAL and piece.text not in _CASELESS_SAFE:
        what = repr(piece.text)
    elif piece.kind == ESCAPE and not _caseless_escape(piece.text):
        what = repr(piece.text)
    elif piece.kind == CLASS:
        members = class_members(piece.text)
        for index, member in enumerate(members):
            if member == "-" and 0 < index < len(members) - 1:
                low, high = _code(members[index - 1]), _code(members[index + 1])
                if low is None or high is None or high > 127 or low <= ord("I") <= high or low <= ord("i") <= high:
                    what = f"the range {members[index - 1]}-{members[index + 1]} in {piece.text!r}"
            elif not (member in _CASELESS_SAFE or (member.startswith("\\") and _caseless_escape(member))):
                what = f"{member!r} in {piece.text!r}"
            if what:
                break
    if what:
        raise _refuse(
            pattern,
            f"case-insensitive (?i) matching of {what} differs between the engines (regex also matches "
            "İ for i and ı for I and folds \\p{...} classes; Oniguruma folds ß to ss)",
            to_ruby,
        )


def _code(member: str) -> int | None:
    """The code point of one class member (a character or an escape of one), else None."""
    if len(member) == 1:
        return ord(member)
    if member.startswith(("\\x", "\\u")):
        digits = member[2:].strip("{}")
        return int(digits, 16) if digits and all(c in "0123456789abcdefABCDEF" for c in digits) else None
    if len(member) == 2 and member[0] == "\\" and not member[1].isalnum():
        return ord(member[1])
    return {"\\n": 10, "\\r": 13, "\\t": 9, "\\f": 12, "\\v": 11}.get(member)


def _caseless_escape(text: str) -> bool:
    """An escape that (?i) leaves alone in both engines: \\s \\d and the like, or one
    ASCII character other than i and I."""
    if text[1:2] in ("s", "S", "d", "D", "A", "z", "Z"):
        return True
    code = _code(text)
    return code is not None and chr(code) in _CASELESS_SAFE


def _translate(pattern: str, *, to_ruby: bool) -> str:
    atoms: list[list[str]] = [[]]  # one list of atoms per open group
    multiline = [False]  # Python's m flag, per open group (for ^ and $ in Ruby)
    ignorecase = [False]  # the i flag, per open group
    for piece in pieces(pattern):
        kind, text = piece.kind, piece.text
        if ignorecase[-1]:
            _check_caseless(pattern, piece, to_ruby=to_ruby)
        if kind == ESCAPE:
            atoms[-1].append(_escape(pattern, text, to_ruby=to_ruby, in_class=False))
        elif kind == CLASS:
            atoms[-1].append(_class(pattern, text, to_ruby=to_ruby))
        elif kind == OPEN:
            line, caseless = multiline[-1], ignorecase[-1]
            if piece.flags_on or piece.flags_off:
                line = _turned(line, "m", piece)
                caseless = _turned(caseless, "i", piece)
                on, off = _flags(pattern, piece, to_ruby=to_ruby)
                text = f"(?{on}{'-' + off if off else ''}:"
            atoms.append([text])
            multiline.append(line)
            ignorecase.append(caseless)
        elif kind == FLAGS:
            multiline[-1] = _turned(multiline[-1], "m", piece)
            ignorecase[-1] = _turned(ignorecase[-1], "i", piece)
            on, off = _flags(pattern, piece, to_ruby=to_ruby)
            if on or off:
                atoms[-1].append(f"(?{on}{'-' + off if off else ''})")
        elif kind == CLOSE:
            group = "".join(atoms.pop()) + ")"
            multiline.pop()
            ignorecase.pop()
            if not atoms:  # unbalanced: leave the pattern as it is; the compile step reports it
                return pattern
            atoms[-1].append(group)
        elif kind == INTERVAL:
            quantifier = text[:-1] if piece.mark else text
            if piece.mark == "+":
                previous = atoms[-1].pop()
                if to_ruby:  # Python's possessive interval is an atomic group in Ruby
                    atoms[-1].append(f"(?>{previous}{quantifier})")
                else:  # Ruby's X{m,n}+ repeats the interval one or more times
                    atoms[-1].append(f"(?:{previous}{quantifier})+")
            else:
                atoms[-1][-1] += text
        elif kind == ANCHOR and not to_ruby:
            atoms[-1].append("(?m:^)" if text == "^" else "(?m:$)")
        elif kind == ANCHOR:
            line = multiline[-1]
            atoms[-1].append(("^" if line else "\\A") if text == "^" else ("$" if line else "(?=\\n?\\z)"))
        elif kind == REPEAT:
            atoms[-1][-1] += text  # a quantifier (with its possessive or lazy mark) stays on its atom
        elif kind == OTHER:
            raise _refuse(pattern, f"{text!r} (recursion, a reference or a condition)", to_ruby)
        elif kind != COMMENT:
            atoms[-1].append(text)
    if len(atoms) != 1:
        return pattern
    return "".join(atoms[0])
