"""Split patterns that come from files: checked before use, and spelled for each library.

A tokenizer file from elsewhere may carry any regex. Before BPE Lab runs one on a
visitor's text, `check_pattern` makes sure it is a plain string of sensible length that
compiles, has no capturing groups (they change what ``findall`` returns), covers the
text it splits (a pattern that skips characters would lose text) and does not take
exponential time on a set of hostile probe strings (runs of one character, with and
without a closing mismatch), each probe under a time limit. The check cannot prove a
pattern safe on every text; it refuses the usual catastrophic-backtracking shapes.

Hugging Face `tokenizers` runs patterns with Oniguruma (Ruby syntax), not Python's
`regex`; three spellings differ and are translated both ways (`to_oniguruma`,
`from_oniguruma`):

- ``X{1,3}+`` is possessive in Python, but in Ruby it means ``(?:X{1,3})+``;
- ``^`` and ``$`` are line anchors in Ruby, string anchors in Python (without flags);
- ``\\Z`` is the very end in Python, end-or-before-a-final-newline in Ruby (Ruby's
  very end is ``\\z``).
"""
from __future__ import annotations

import time

from bpe.errors import TokenizerFileError
from bpe.pretokenize import NAMED_PATTERNS, pattern_for

MAX_PATTERN_LENGTH = 2000
PROBE_TIMEOUT_S = 0.25
ALL_PROBES_S = 4.0  # all probes together
# GPT-2's pattern as OpenAI first released it (and as Hugging Face's ByteLevel runs it);
# tiktoken's r50k form in `bpe.pretokenize.GPT2_PATTERN` chunks text the same way.
GPT2_ORIGINAL_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
# Names a visitor may type for the published patterns.
PATTERN_ALIASES = {"r50k": "gpt2", "gpt-2": "gpt2", "cl100k": "gpt4", "cl100k_base": "gpt4", "gpt-4": "gpt4"}


def _probes() -> list[str]:
    pieces = ["a", "A", "é", "中", "1", " ", "\n", "\t", "'", "!", "_", "a ", " a", "a1", "1 ", "\r\n", "😀", "\u200b"]
    probes = []
    for piece in pieces:
        for tail in ("", "!", "\x00", " a"):
            probes.append(piece * 28 + tail)  # short: exponential backtracking shows at ~25 repeats
    probes.append("a" * 5000 + "!")  # long: quadratic behaviour
    probes.append(" " * 5000 + "a")
    probes.append("Hello world, it's 2024!\n\n  Ça va? 中文 123456 \t\r\n'S")
    return probes


PROBES = _probes()


def check_pattern(pattern, *, name: str = "the file") -> str:
    """``pattern`` if it is safe to split visitors' text with (see the module docstring);
    otherwise `TokenizerFileError` naming the file and the reason."""
    import regex

    if not isinstance(pattern, str):
        raise TokenizerFileError(f"{name}: the split pattern must be text, got {type(pattern).__name__}")
    if not pattern:
        raise TokenizerFileError(f"{name}: the split pattern is empty")
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise TokenizerFileError(f"{name}: the split pattern is {len(pattern):,} characters long; "
                                 f"the most BPE Lab accepts is {MAX_PATTERN_LENGTH:,}")
    if "\x00" in pattern:
        raise TokenizerFileError(f"{name}: the split pattern holds a NUL character")
    try:
        compiled = regex.compile(pattern)
    except (regex.error, OverflowError, RecursionError, ValueError) as error:
        raise TokenizerFileError(f"{name}: the split pattern does not compile: {error}") from None
    if compiled.groups:
        raise TokenizerFileError(f"{name}: the split pattern has capturing groups ( ... ); write them as "
                                 "(?: ... ) so that each match is one whole chunk")
    started = time.perf_counter()
    for probe in PROBES:
        try:
            chunks = compiled.findall(probe, timeout=PROBE_TIMEOUT_S)
        except TimeoutError:
            raise TokenizerFileError(
                f"{name}: the split pattern takes too long on a run of {probe[:1]!r} (catastrophic "
                "backtracking); BPE Lab will not run it on your text") from None
        if sum(map(len, chunks)) != len(probe):
            raise TokenizerFileError(
                f"{name}: the split pattern skips characters of {probe[:12]!r}...; every character "
                "must land in some chunk (add an alternative such as |\\s+|. that matches the rest)")
        if time.perf_counter() - started > ALL_PROBES_S:
            raise TokenizerFileError(f"{name}: the split pattern is too slow on ordinary text")
    return pattern


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


def pattern_of(pretokenizer: str | None) -> str | None:
    """The regex of a lab pre-tokenizer setting (``None`` for none)."""
    return pattern_for(pretokenizer)


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
    i = 0
    n = len(pattern)
    while i < n:
        char = pattern[i]
        if char == "\\":
            end = _escape_end(pattern, i)
            atom = pattern[i:end]
            if atom == "\\Z":
                atom = "\\z" if to_ruby else "(?=\\n?\\Z)"
            elif atom == "\\z" and not to_ruby:
                atom = "\\Z"
            atoms[-1].append(atom)
            i = end
        elif char == "[":
            end = _class_end(pattern, i)
            atoms[-1].append(pattern[i:end])
            i = end
        elif char == "(":
            end = i + 1
            if pattern.startswith("(?", i):  # keep the group's opening as written: (?:  (?i:  (?=  (?!  (?>
                end = i + 2
                while end < n and pattern[end] not in ":)=!>" and not pattern.startswith("<=", end) \
                        and not pattern.startswith("<!", end):
                    end += 1
                if pattern.startswith("<=", end) or pattern.startswith("<!", end):
                    end += 2
                elif end < n and pattern[end] != ")":
                    end += 1
            atoms.append([pattern[i:end]])
            i = end
        elif char == ")":
            group = "".join(atoms.pop()) + ")"
            if not atoms:  # unbalanced: leave the rest as it is; the compile step reports it
                return pattern
            atoms[-1].append(group)
            i += 1
        elif char == "{" and _interval_end(pattern, i) and atoms[-1]:
            end = _interval_end(pattern, i)
            quantifier = pattern[i:end]
            if end < n and pattern[end] == "+":
                previous = atoms[-1].pop()
                if to_ruby:  # Python's possessive interval is an atomic group in Ruby
                    atoms[-1].append(f"(?>{previous}{quantifier})")
                else:  # Ruby's X{m,n}+ repeats the interval one or more times
                    atoms[-1].append(f"(?:{previous}{quantifier})+")
                i = end + 1
            else:
                atoms[-1][-1] += quantifier
                i = end
        elif char == "^":
            atoms[-1].append("\\A" if to_ruby else "(?m:^)")
            i += 1
        elif char == "$":
            atoms[-1].append("(?=\\n?\\z)" if to_ruby else "(?m:$)")
            i += 1
        elif char in "*+?" and atoms[-1]:
            atoms[-1][-1] += char  # a quantifier (or a possessive/lazy mark) stays on its atom
            i += 1
        else:
            atoms[-1].append(char)
            i += 1
    if len(atoms) != 1:
        return pattern
    return "".join(atoms[0])


def _escape_end(pattern: str, start: int) -> int:
    """End of the escape at ``start`` (``\\p{L}``, ``\\x{41}``, ``\\N{...}``, ``\\n``...)."""
    end = start + 2
    if end <= len(pattern) and pattern[start + 1:start + 2] in ("p", "P", "x", "N", "u", "U") \
            and pattern[end:end + 1] == "{":
        close = pattern.find("}", end)
        return len(pattern) if close < 0 else close + 1
    return min(end, len(pattern))


def _class_end(pattern: str, start: int) -> int:
    """End of the character class opening at ``start`` (nested classes and escapes allowed)."""
    depth = 0
    i = start
    n = len(pattern)
    while i < n:
        char = pattern[i]
        if char == "\\":
            i = _escape_end(pattern, i)
            continue
        if char == "[":
            depth += 1
            i += 1
            if pattern.startswith("^", i):
                i += 1
            if pattern.startswith("]", i):  # a leading ] is a literal
                i += 1
            continue
        if char == "]":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def _interval_end(pattern: str, start: int) -> int | None:
    """End of ``{n}``, ``{n,}`` or ``{n,m}`` at ``start``, or None when it is a literal brace."""
    close = pattern.find("}", start)
    if close < 0:
        return None
    body = pattern[start + 1:close]
    parts = body.split(",")
    if len(parts) > 2 or not parts[0].isdigit() or (len(parts) == 2 and parts[1] and not parts[1].isdigit()):
        return None
    return close + 1
