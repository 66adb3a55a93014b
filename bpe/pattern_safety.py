r"""Custom split patterns: safe by construction, or refused before they run.

A pattern can come from a stranger (a tokenizer file someone uploads), and a regex is a
program: ``(?:x{65535}){65535}`` makes the compiler build a 4-billion-character string,
``(?:a|aa)+$`` takes exponential time, a capturing group changes what ``findall``
returns. The fingerprint does not help (anyone can compute it). So a custom pattern is
checked before it is compiled (length, nesting, and how much its fixed repeats make the
compiler expand), then on probe strings under a time limit, and every later run has a
time limit that grows with the text (`pattern_seconds`)::

    check_safe_pattern(r"\w+|\s+|[^\w\s]+")   # returned as it is: it may run
    check_safe_pattern(r"(\w+)|\s")             # PatternError: a capturing group ( ... )

The named patterns of `bpe.pretokenize` are ours and run without these limits. The
pattern's syntax is read by `bpe.regex_syntax`, as the export to other libraries reads it.
"""

from __future__ import annotations

import re
from functools import lru_cache

from bpe.errors import PatternError
from bpe.regex_syntax import BAR, CLASS, CLOSE, ESCAPE, FLAGS, FUZZY, INTERVAL, LITERAL, OPEN, OTHER, REPEAT, pieces

MAX_PATTERN_CHARS = 2_000
MAX_PATTERN_NESTING = 32
# What the compiler expands: every atom counted once per repeat of it and of each group
# around it (`x{300}` counts 300, `(?:x{300}){300}` 90,000). The published patterns cost < 100.
MAX_PATTERN_COST = 10_000
PROBE_SECONDS = 0.1  # each probe string; a linear pattern needs microseconds
PATTERN_SECONDS = 1.0  # the time limit of one run of a custom pattern: this much ...
PATTERN_SECONDS_PER_MILLION_CHARS = 5.0  # ... plus this per million characters of text


def check_safe_pattern(pattern) -> str:
    """``pattern`` when BPE Lab may run it on a visitor's text; else `PatternError` saying why.

    Safe by construction means: text of at most `MAX_PATTERN_CHARS`, groups nested at most
    `MAX_PATTERN_NESTING` deep, a compile cost (`pattern_cost`) of at most
    `MAX_PATTERN_COST`, inline flags only from `SAFE_FLAGS` (no reverse matching), all
    checked *before* compiling; then it compiles, has no capturing group, never matches
    empty text, gives chunks that join to each probe string, and runs on each in under `PROBE_SECONDS` (runs of 40 of one character catch exponential
    backtracking: `(?:a|aa)+$` needs minutes there). No finite check proves a regex fast
    on every text, so `split` also runs custom patterns under a time limit.
    """
    compiled_custom(pattern)
    return pattern


def _checked_text(pattern) -> str:
    if not isinstance(pattern, str):
        raise PatternError(f"a pre-tokenizer pattern must be text, got {type(pattern).__name__}")
    if not pattern:
        raise PatternError("the pre-tokenizer pattern is empty; use None (or 'none') for no split")
    if not pattern.isascii():
        try:
            pattern.encode("utf-8")
        except UnicodeEncodeError as error:  # a lone surrogate: a byte the command line could not decode
            raise PatternError(
                f"the pre-tokenizer pattern holds {pattern[error.start]!r} at character {error.start}, "
                "which is not text (not UTF-8); a tokenizer file could not hold it"
            ) from None
    if len(pattern) > MAX_PATTERN_CHARS:
        raise PatternError(
            f"the pre-tokenizer pattern {shown_pattern(pattern)} is {len(pattern):,} characters long; "
            f"the most BPE Lab runs is {MAX_PATTERN_CHARS:,}"
        )
    cost = pattern_cost(pattern)
    if cost > MAX_PATTERN_COST:
        raise PatternError(
            f"the pre-tokenizer pattern {shown_pattern(pattern)} repeats too much to compile safely: its "
            f"fixed repeat counts multiply to {cost:,} (the limit is {MAX_PATTERN_COST:,}); "
            "use open repeats such as + or * instead of large {n}"
        )
    _check_constructs(pattern)
    if _can_match_empty(pattern):
        raise PatternError(
            f"the pre-tokenizer pattern {shown_pattern(pattern)} can match empty text (an alternative made "
            "only of lookarounds, anchors or optional parts); every chunk must hold at least one character"
        )
    return pattern


# Inline flags that keep what a chunk is made of and the order chunks come in. Every other
# flag of `regex` changes one or the other: (?r) matches from the end, so the chunks of
# "hello world" come out as "world", " ", "hello" and decoding gives "world hello".
SAFE_FLAGS = ("i", "m", "s")
_FLAG_MEANINGS = {
    "a": "ASCII-only classes",
    "b": "best fuzzy match",
    "e": "enhanced fuzzy match",
    "f": "full case folding",
    "L": "classes by locale",
    "p": "POSIX leftmost-longest matching",
    "r": "reverse: matches from the end, so the chunks come out in reverse order",
    "u": "Unicode classes",
    "w": "Unicode word boundaries",
    "V0": "regex version 0 syntax",
    "V1": "regex version 1 syntax: nested sets, other case folding",
}


def _check_constructs(pattern: str) -> None:
    """Refuse inline flags other than `SAFE_FLAGS`, flags set in the middle (where `regex`
    and Oniguruma scope them differently), fuzzy matching, and recursion, references and
    conditions."""
    for index, piece in enumerate(pieces(pattern)):
        if piece.kind in (OPEN, FLAGS):
            for flag in re.findall(r"V[01]|.", piece.flags_on + piece.flags_off):
                if flag != "x" and flag not in SAFE_FLAGS:  # x (verbose) is refused by pattern_cost
                    raise PatternError(
                        f"the pre-tokenizer pattern {shown_pattern(pattern)} sets the inline flag {flag} "
                        f"({_FLAG_MEANINGS[flag]}) in {piece.text!r}; BPE Lab runs only the flags "
                        f"{', '.join(SAFE_FLAGS)}, which keep what a chunk holds and the order of chunks"
                    )
        if piece.kind == FLAGS and index:
            raise PatternError(
                f"the pre-tokenizer pattern {shown_pattern(pattern)} sets flags with {piece.text!r} after its "
                f"start; put them first, or write ({piece.text[1:-1]}:...) around the part they are for"
            )
        if piece.kind == FUZZY:  # tokenizers (Oniguruma) and tiktoken (Rust) read those braces as text
            raise PatternError(
                f"the pre-tokenizer pattern {shown_pattern(pattern)} uses the fuzzy-match constraint {piece.text!r}, "
                "which only Python's regex module has (Hugging Face's and tiktoken's engines read it as text); "
                "BPE Lab does not run it"
            )
        if piece.kind == ESCAPE and piece.text == "\\K":
            raise PatternError(
                f"the pre-tokenizer pattern {shown_pattern(pattern)} uses \\K, which drops what was matched "
                "before it from the chunk, so the chunks skip text; BPE Lab does not run it"
            )
        if piece.kind == OTHER:
            raise PatternError(
                f"the pre-tokenizer pattern {shown_pattern(pattern)} uses {piece.text!r} (recursion, a "
                "reference or a condition), which BPE Lab does not run"
            )


# Escapes that match a position, not a character.
_ZERO_WIDTH_ESCAPES = frozenset({"\\b", "\\B", "\\A", "\\Z", "\\z", "\\G", "\\K", "\\m", "\\M"})


def _can_match_empty(pattern: str) -> bool:
    """Whether some alternative of ``pattern`` may match no character at all, read from its
    syntax: ``(?=☃)|.`` matches empty before every ☃, which no probe string holds, so the
    probes alone would pass it and encoding would fail on the first text with a ☃. An
    alternative is empty-capable when each of its parts is: an anchor, a zero-width
    escape, a lookaround, a part repeated at least 0 times, or a group with such an
    alternative."""
    # Per open group: its alternatives so far (any empty-capable?), whether the current
    # alternative's parts before the last are all empty-capable, and the last part's.
    stack: list[list] = [[False, True, True, False]]  # [any alt, before last, last, is lookaround]
    for piece in pieces(pattern):
        frame = stack[-1]
        if piece.kind == OPEN:
            stack.append([False, True, True, piece.text in ("(?=", "(?!", "(?<=", "(?<!")])
            continue
        if piece.kind == CLOSE and len(stack) > 1:
            inner = stack.pop()
            empty = inner[3] or inner[0] or (inner[1] and inner[2])
            frame = stack[-1]
            frame[1], frame[2] = frame[1] and frame[2], empty
        elif piece.kind == BAR:
            frame[0] = frame[0] or (frame[1] and frame[2])
            frame[1], frame[2] = True, True
        elif piece.kind == REPEAT and piece.text[0] in "*?":
            frame[2] = True
        elif piece.kind == INTERVAL and piece.low == 0:
            frame[2] = True
        elif piece.kind in (ESCAPE, CLASS, LITERAL, OTHER, FUZZY):
            empty = piece.kind == ESCAPE and piece.text in _ZERO_WIDTH_ESCAPES
            frame[1], frame[2] = frame[1] and frame[2], empty
        # anchors, flags and comments match no character: the alternative stays as it was
    top = stack[0]
    return top[0] or (top[1] and top[2])


def pattern_cost(pattern: str) -> int:
    """How much a regex makes the compiler expand, read without compiling it: the sum over
    its atoms of the product of the repeat counts on the atom and on each group around it
    (``{n}`` and ``{m,n}`` count n, ``{m,}`` counts m; ``*``, ``+``, ``?`` count 1).
    ``(?:x{300}){300}`` costs 90,000. Raises `PatternError` for groups nested deeper than
    `MAX_PATTERN_NESTING` or left open. The pattern is read by `bpe.regex_syntax`, as the
    export to other libraries reads it."""
    # One list of costs per open group; a group closes into one atom of its summed cost.
    stack: list[list[int]] = [[]]
    for piece in pieces(pattern):
        if piece.kind in (OPEN, FLAGS) and "x" in piece.flags_on:
            raise PatternError(
                f"the pre-tokenizer pattern {shown_pattern(pattern)} turns on verbose mode (x), where "
                "spaces inside a repeat count hide its size; write the pattern without it"
            )
        if piece.kind == OPEN:
            stack.append([])
            if len(stack) > MAX_PATTERN_NESTING + 1:
                raise PatternError(
                    f"the pre-tokenizer pattern {shown_pattern(pattern)} nests groups more than {MAX_PATTERN_NESTING} deep"
                )
        elif piece.kind == CLOSE:
            if len(stack) > 1:
                inner = stack.pop()
                stack[-1].append(max(1, sum(inner)))
        elif piece.kind == INTERVAL and stack[-1]:  # (after a stray ")" there is no atom)
            count = piece.high if piece.high is not None else piece.low
            stack[-1][-1] *= max(1, min(count, 10**12))
        elif piece.kind in (ESCAPE, CLASS, LITERAL, OTHER):
            stack[-1].append(1)
        # anchors, alternation, open repeats, comments and flags cost nothing
    if len(stack) > 1:
        raise PatternError(
            f"pre-tokenizer pattern {shown_pattern(pattern)} does not compile: a group is left open (missing ')')"
        )
    return sum(stack[0])


def _probes() -> list[str]:
    """Strings a splitting pattern must cover, quickly: runs of one kind of character with
    and without a mismatch at the end (where backtracking explodes), and ordinary text."""
    pieces = ["a", "A", "é", "中", "1", " ", "\n", "\t", "'", "!", "_", "a ", " a", "a1", "ab", "\r\n", "😀", "\u200b"]
    probes = [piece * 40 + tail for piece in pieces for tail in ("", "!", "\x00", " a", "\n")]
    probes += ["a" * 3000 + "!", " " * 3000 + "a", "Hello world, it's 2024!\n\n  Ça va? 中文 123456 \t\r\n'S"]
    return probes


PROBES = _probes()


@lru_cache(maxsize=16)
def _compiled_custom(pattern: str):
    import regex  # the \p{L} classes need the `regex` package, not `re`

    try:
        compiled = regex.compile(pattern)
    except (regex.error, OverflowError, RecursionError, MemoryError, ValueError) as error:
        raise PatternError(f"pre-tokenizer pattern {shown_pattern(pattern)} does not compile: {error}") from None
    if compiled.groups:
        raise PatternError(
            f"the pre-tokenizer pattern {shown_pattern(pattern)} has a capturing group ( ... ): then "
            "each match is not one whole chunk; write the group as (?: ... )"
        )
    for probe in PROBES:
        try:
            chunks = compiled.findall(probe, timeout=PROBE_SECONDS)
        except TimeoutError:
            raise PatternError(
                f"the pre-tokenizer pattern {shown_pattern(pattern)} is too slow: over {PROBE_SECONDS} s on "
                f"{len(probe)} characters ({shown_pattern(probe[:12])}...), the mark of catastrophic "
                "backtracking; BPE Lab will not run it"
            ) from None
        if "" in chunks:
            raise PatternError(
                f"the pre-tokenizer pattern {shown_pattern(pattern)} matches empty text; every chunk "
                "must hold at least one character"
            )
        if sum(map(len, chunks)) != len(probe):
            raise PatternError(
                f"the pre-tokenizer pattern {shown_pattern(pattern)} does not cover the whole text (it skips "
                f"characters of {shown_pattern(probe[:12])}...); add an alternative such as |\\s+|. "
                "that matches the rest"
            )
        if "".join(chunks) != probe:
            raise PatternError(
                f"the pre-tokenizer pattern {shown_pattern(pattern)} gives chunks that, joined, are not the "
                f"text {shown_pattern(probe[:12])}... (it reorders them); BPE Lab needs chunks in text order"
            )
    return compiled


def compiled_custom(pattern):
    """``pattern`` compiled once it passed every check of `check_safe_pattern` (else
    `PatternError` saying why); compiled once per pattern, then reused."""
    return _compiled_custom(_checked_text(pattern))


def shown_pattern(text: str, limit: int = 60) -> str:
    """A pattern (or a text) as an error message quotes it: its repr, cut after ``limit`` characters."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "..."


def pattern_seconds(characters: int) -> float:
    """The time limit of one run of a custom pattern over ``characters`` characters."""
    return PATTERN_SECONDS + PATTERN_SECONDS_PER_MILLION_CHARS * characters / 1e6
