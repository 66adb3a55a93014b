"""Split patterns that come from files: checked before use, and spelled for each library.

A tokenizer file from elsewhere may carry any regex. `check_pattern` runs it through the
project's safe-pattern check (`bpe.pretokenize.check_safe_pattern`: length, nesting,
compile cost, no capturing group, no empty match, covers probe strings, no catastrophic
backtracking on them) and reports a refusal as a `TokenizerFileError` naming the file.

Hugging Face `tokenizers` runs patterns with Oniguruma (Ruby syntax), not Python's
`regex`; three spellings differ and are translated both ways (`to_oniguruma`,
`from_oniguruma`):

- ``X{1,3}+`` is possessive in Python, but in Ruby it means ``(?:X{1,3})+``;
- ``^`` and ``$`` are line anchors in Ruby, string anchors in Python (without flags);
- ``\\Z`` is the very end in Python, end-or-before-a-final-newline in Ruby (Ruby's
  very end is ``\\z``).
"""

from __future__ import annotations

from bpe.errors import PatternError, TokenizerFileError
from bpe.pretokenize import NAMED_PATTERNS, check_safe_pattern
from bpe.regex_syntax import ANCHOR, CLOSE, COMMENT, ESCAPE, INTERVAL, OPEN, REPEAT, pieces

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


def _translate(pattern: str, *, to_ruby: bool) -> str:
    atoms: list[list[str]] = [[]]  # one list of atoms per open group
    for piece in pieces(pattern):
        kind, text = piece.kind, piece.text
        if kind == ESCAPE:
            if text == "\\Z":
                text = "\\z" if to_ruby else "(?=\\n?\\Z)"
            elif text == "\\z" and not to_ruby:
                text = "\\Z"
            atoms[-1].append(text)
        elif kind == OPEN:
            atoms.append([text])  # the group's opening as written: (?:  (?i:  (?=  (?!  (?>
        elif kind == CLOSE:
            group = "".join(atoms.pop()) + ")"
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
        elif kind == ANCHOR and text == "^":
            atoms[-1].append("\\A" if to_ruby else "(?m:^)")
        elif kind == ANCHOR:
            atoms[-1].append("(?=\\n?\\z)" if to_ruby else "(?m:$)")
        elif kind == REPEAT:
            atoms[-1][-1] += text  # a quantifier (with its possessive or lazy mark) stays on its atom
        elif kind != COMMENT:
            atoms[-1].append(text)
    if len(atoms) != 1:
        return pattern
    return "".join(atoms[0])
