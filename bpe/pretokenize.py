"""Pre-tokenization: optional splitting of text into chunks that merges never cross.

The tutorial merges over the whole text (``pretokenizer=None``), so a token may span
words ("e t"). Production tokenizers split first with a regex: GPT-2's pattern keeps a
leading space with its word, GPT-4's (cl100k) also splits digits into groups of three.
Training then counts each distinct chunk once with its frequency, which is also what
makes pre-tokenized training fast.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

from bpe.errors import PatternError
from bpe.regex_syntax import BAR, CLASS, CLOSE, ESCAPE, FLAGS, FUZZY, INTERVAL, LITERAL, OPEN, OTHER, REPEAT, pieces

# The published split patterns, exactly as tiktoken runs them: r50k (GPT-2) and cl100k
# (GPT-4). GPT-2's original release spells its pattern
# 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+ ; this form is equivalent.
GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
GPT4_PATTERN = r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
# A space stays with the word after it, as in GPT-2, so decoding is still concatenation.
WHITESPACE_PATTERN = r"""\s*\S+|\s+"""

NAMED_PATTERNS = {"whitespace": WHITESPACE_PATTERN, "gpt2": GPT2_PATTERN, "gpt4": GPT4_PATTERN}
PRETOKENIZER_CHOICES = ("none", *NAMED_PATTERNS)
_DISPLAY_NAMES = {"none": "none", "whitespace": "whitespace", "gpt2": "GPT-2", "gpt4": "GPT-4"}


def pretokenizer_name(pretokenizer: str | None) -> str:
    """The name a page shows for a pre-tokenizer: None -> "none", "gpt2" -> "GPT-2"; a
    custom pattern is shown as written."""
    return _DISPLAY_NAMES.get(pretokenizer or "none", pretokenizer or "none")


def pattern_for(pretokenizer: str | None) -> str | None:
    """The regex for a pre-tokenizer name; a string that is not a name is a custom pattern."""
    if pretokenizer is None or pretokenizer == "none":
        return None
    return NAMED_PATTERNS.get(pretokenizer, pretokenizer)


def check_pretokenizer(pretokenizer: str | None) -> str | None:
    """The pre-tokenizer as stored (``None`` for none). A custom pattern must pass
    `check_safe_pattern`; one that is refused raises `PatternError` saying why."""
    if pretokenizer is not None and not isinstance(pretokenizer, str):  # a list is not even hashable
        raise PatternError(
            f"pretokenizer={pretokenizer!r:.60} is a {type(pretokenizer).__name__}: give None, "
            f"{', '.join(repr(name) for name in PRETOKENIZER_CHOICES)} or a custom regex (a str)"
        )
    pattern = pattern_for(pretokenizer)
    if pattern is None:
        return None
    _compiled(pattern)
    return pretokenizer


# ==================== Custom patterns: safe by construction, or refused
#
# A pattern can come from a stranger (a tokenizer file someone uploads), and a regex is a
# program: `(?:x{65535}){65535}` makes the compiler build a 4-billion-character string,
# `(?:a|aa)+$` takes exponential time, a capturing group changes what `findall` returns.
# The fingerprint does not help (anyone can compute it). So a custom pattern is checked
# before it is compiled (length, nesting, and how much its fixed repeats make the compiler
# expand), then on probe strings under a time limit, and every later run has a time limit
# that grows with the text. The named patterns are ours and run without these limits.

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
    _compiled_custom(_checked_text(pattern))
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
            f"the pre-tokenizer pattern {_shown(pattern)} is {len(pattern):,} characters long; "
            f"the most BPE Lab runs is {MAX_PATTERN_CHARS:,}"
        )
    cost = pattern_cost(pattern)
    if cost > MAX_PATTERN_COST:
        raise PatternError(
            f"the pre-tokenizer pattern {_shown(pattern)} repeats too much to compile safely: its "
            f"fixed repeat counts multiply to {cost:,} (the limit is {MAX_PATTERN_COST:,}); "
            "use open repeats such as + or * instead of large {n}"
        )
    _check_constructs(pattern)
    if _can_match_empty(pattern):
        raise PatternError(
            f"the pre-tokenizer pattern {_shown(pattern)} can match empty text (an alternative made "
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
                        f"the pre-tokenizer pattern {_shown(pattern)} sets the inline flag {flag} "
                        f"({_FLAG_MEANINGS[flag]}) in {piece.text!r}; BPE Lab runs only the flags "
                        f"{', '.join(SAFE_FLAGS)}, which keep what a chunk holds and the order of chunks"
                    )
        if piece.kind == FLAGS and index:
            raise PatternError(
                f"the pre-tokenizer pattern {_shown(pattern)} sets flags with {piece.text!r} after its "
                f"start; put them first, or write ({piece.text[1:-1]}:...) around the part they are for"
            )
        if piece.kind == FUZZY:  # tokenizers (Oniguruma) and tiktoken (Rust) read those braces as text
            raise PatternError(
                f"the pre-tokenizer pattern {_shown(pattern)} uses the fuzzy-match constraint {piece.text!r}, "
                "which only Python's regex module has (Hugging Face's and tiktoken's engines read it as text); "
                "BPE Lab does not run it"
            )
        if piece.kind == ESCAPE and piece.text == "\\K":
            raise PatternError(
                f"the pre-tokenizer pattern {_shown(pattern)} uses \\K, which drops what was matched "
                "before it from the chunk, so the chunks skip text; BPE Lab does not run it"
            )
        if piece.kind == OTHER:
            raise PatternError(
                f"the pre-tokenizer pattern {_shown(pattern)} uses {piece.text!r} (recursion, a "
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
                f"the pre-tokenizer pattern {_shown(pattern)} turns on verbose mode (x), where "
                "spaces inside a repeat count hide its size; write the pattern without it"
            )
        if piece.kind == OPEN:
            stack.append([])
            if len(stack) > MAX_PATTERN_NESTING + 1:
                raise PatternError(
                    f"the pre-tokenizer pattern {_shown(pattern)} nests groups more than {MAX_PATTERN_NESTING} deep"
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
            f"pre-tokenizer pattern {_shown(pattern)} does not compile: a group is left open (missing ')')"
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
        raise PatternError(f"pre-tokenizer pattern {_shown(pattern)} does not compile: {error}") from None
    if compiled.groups:
        raise PatternError(
            f"the pre-tokenizer pattern {_shown(pattern)} has a capturing group ( ... ): then "
            "each match is not one whole chunk; write the group as (?: ... )"
        )
    for probe in PROBES:
        try:
            chunks = compiled.findall(probe, timeout=PROBE_SECONDS)
        except TimeoutError:
            raise PatternError(
                f"the pre-tokenizer pattern {_shown(pattern)} is too slow: over {PROBE_SECONDS} s on "
                f"{len(probe)} characters ({_shown(probe[:12])}...), the mark of catastrophic "
                "backtracking; BPE Lab will not run it"
            ) from None
        if "" in chunks:
            raise PatternError(
                f"the pre-tokenizer pattern {_shown(pattern)} matches empty text; every chunk "
                "must hold at least one character"
            )
        if sum(map(len, chunks)) != len(probe):
            raise PatternError(
                f"the pre-tokenizer pattern {_shown(pattern)} does not cover the whole text (it skips "
                f"characters of {_shown(probe[:12])}...); add an alternative such as |\\s+|. "
                "that matches the rest"
            )
        if "".join(chunks) != probe:
            raise PatternError(
                f"the pre-tokenizer pattern {_shown(pattern)} gives chunks that, joined, are not the "
                f"text {_shown(probe[:12])}... (it reorders them); BPE Lab needs chunks in text order"
            )
    return compiled


@lru_cache(maxsize=16)
def _compiled(pattern: str):
    """A pattern compiled: a named one as it is, a custom one only once it passed
    `check_safe_pattern`."""
    if pattern not in _NAMED_TEXTS:
        return _compiled_custom(_checked_text(pattern))
    import regex  # the \p{L} classes need the `regex` package, not `re`

    return regex.compile(pattern)


_NAMED_TEXTS = frozenset(NAMED_PATTERNS.values())


def _shown(text: str, limit: int = 60) -> str:
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "..."


def pattern_seconds(characters: int) -> float:
    """The time limit of one run of a custom pattern over ``characters`` characters."""
    return PATTERN_SECONDS + PATTERN_SECONDS_PER_MILLION_CHARS * characters / 1e6


def split(text: str, pretokenizer: str | None) -> list[str]:
    """Split ``text`` into chunks; ``"".join(chunks) == text`` always holds.

    A custom pattern that skips characters would lose text, so it is refused; one that
    runs longer than `pattern_seconds` is stopped and refused (`PatternError`).
    """
    pattern = pattern_for(pretokenizer)
    if pattern is None:
        return [text] if text else []
    compiled = _compiled(pattern)
    if pattern in _NAMED_TEXTS:
        chunks = compiled.findall(text)
    else:
        limit = pattern_seconds(len(text))
        try:
            chunks = compiled.findall(text, timeout=limit)
        except TimeoutError:
            raise PatternError(
                f"the pre-tokenizer pattern {_shown(pattern)} took over {limit:.1f} s on "
                f"{len(text):,} characters and was stopped; it is too slow to use"
            ) from None
        if "" in chunks:
            raise PatternError(
                f"the pre-tokenizer pattern {_shown(pattern)} matched empty text; every chunk "
                "must hold at least one character"
            )
    if sum(map(len, chunks)) != len(text):
        raise PatternError(
            f"pre-tokenizer pattern {_shown(pattern)} does not cover the whole text "
            "(it skips characters); add an alternative such as |\\s+|. that matches the rest"
        )
    return chunks


def chunk_counts(text: str, pretokenizer: str | None) -> Counter:
    """Each distinct chunk with its frequency, in order of first appearance."""
    if pretokenizer == "gpt2":
        return count_gpt2_chunks(text)  # the same counts, in the same order, ~3x faster
    return Counter(split(text, pretokenizer))


# ==================== GPT-2's pattern without running it everywhere

# Where GPT-2's regex must cut, found without running it. A space followed by a character
# that is not whitespace always starts a chunk: the chunk before cannot hold it (only a
# *leading* space joins a word, and whitespace chunks hold no non-space), and the regex
# reads nothing to the left. So the text splits at such spaces into pieces that the regex
# chunks exactly as it chunks the whole text. `_GLUE` marks every other space (followed by
# whitespace, or last) with `GLUED_SPACE`, so that a plain ``split(" ")`` cuts only where it
# may. GPT2_WHITESPACE may hold more than the regex's \s (then a piece is merely longer),
# never less.
GPT2_WHITESPACE = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u180e\u200b\u2028\u2029\u202f\u205f"
    "\u3000\ufeff" + "".join(map(chr, range(0x2000, 0x200B)))
)
_GLUE = re.compile(" (?=[" + re.escape(GPT2_WHITESPACE) + r"]|\Z)")
GLUED_SPACE = "\x00"  # stands for a glued space; text holding it takes the plain path


def gpt2_segments(text: str) -> list[str] | None:
    """``text`` cut where GPT-2's regex must cut, by C string methods alone.

    Segment 0 is the text before the first cut; every later segment stands for a space
    followed by it (see `segment_text`). ``None`` when the text holds `GLUED_SPACE`
    itself: then the caller runs the regex over the whole text.
    """
    if GLUED_SPACE in text:
        return None
    return _GLUE.sub(GLUED_SPACE, text).split(" ")


def segment_text(segment: str, *, first: bool = False) -> str:
    """The text a segment of `gpt2_segments` stands for: ``" ab"`` for segment ``"ab"``."""
    text = segment.replace(GLUED_SPACE, " ")
    return text if first else " " + text


# The count phase cuts finer. A run of non-whitespace, with the space before it if there
# is one, is chunked by the regex alone, whatever surrounds it: no alternative that starts
# on a non-space reads whitespace, and a space followed by a non-space always starts a
# chunk (above). What lies between two such runs is whitespace, and there the regex's three
# whitespace alternatives (``\s++$|\s+(?!\S)|\s``) are chunks already. `_GPT2_RUNS` cuts
# a text into exactly these runs and whitespace chunks with `re`, in C, ten times faster
# than the regex with its Unicode classes, and far fewer of them are distinct than
# space-led pieces (a word followed by a newline and an indent is one piece, but two runs).
# It needs the regex's \s exactly, not a superset: a character taken for whitespace would
# be cut out of the chunk it belongs to.
GPT2_SPACES = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000" + "".join(map(chr, range(0x2000, 0x200B)))
_SPACE = "[" + re.escape(GPT2_SPACES) + "]"
_NOT_SPACE = "[^" + re.escape(GPT2_SPACES) + "]"
_GPT2_RUNS = re.compile(f" ?{_NOT_SPACE}+|{_SPACE}+(?!{_NOT_SPACE})|{_SPACE}")


def gpt2_runs(text: str) -> list[str]:
    """``text`` cut into its runs of non-whitespace (each with the space before it, if
    any) and its whitespace chunks; GPT-2's regex chunks each run alone exactly as it
    chunks it in ``text``."""
    return _GPT2_RUNS.findall(text)


def count_gpt2_chunks(text: str) -> Counter:
    """``Counter(GPT-2's regex chunks of text)``, in order of first appearance, as
    ``Counter(split(text, "gpt2"))`` gives it, about twice as fast: the runs of
    `gpt2_runs` are counted in C and the regex runs once per distinct run.
    """
    tally = ChunkTally("gpt2")
    tally.add(text)
    return tally.counts()


class ChunkTally:
    """The chunk counts of many texts, each split on its own, in order of first
    appearance: ``chunk_counts`` of each text, summed in order, for the count phase's
    stream of passages.

    With GPT-2's pattern it keeps the texts' `gpt2_runs` counted (in C) until asked, and
    chunks each distinct run once then, not once per text it occurs in: most runs of a
    corpus ("the", " word,") recur in every megabyte. Runs keep their order of first
    appearance, and a run's chunks lie in order inside it, so the chunks come out in the
    order the texts hold them. Any other pattern counts each text's chunks as it comes.
    """

    MAX_PENDING_RUNS = 1_000_000  # distinct runs kept before they are chunked (~100 MB)

    def __init__(self, pretokenizer: str | None, max_pending_runs: int = MAX_PENDING_RUNS) -> None:
        self.pretokenizer = pretokenizer
        self.max_pending_runs = max_pending_runs
        self._chunks: Counter = Counter()
        self._runs: Counter | None = Counter() if pretokenizer == "gpt2" else None

    def add(self, text: str) -> None:
        if self._runs is None:
            self._chunks.update(split(text, self.pretokenizer))
            return
        self._runs.update(_GPT2_RUNS.findall(text))
        if len(self._runs) > self.max_pending_runs:  # a bound on memory, whatever the corpus
            self._flush_runs()

    def counts(self) -> Counter:
        """Every chunk so far with its count, in order of first appearance."""
        self._flush_runs()
        return self._chunks

    def _flush_runs(self) -> None:
        if not self._runs:
            return
        findall = _compiled(GPT2_PATTERN).findall
        spaces = _SPACE_SET
        counts = self._chunks
        for run, times in self._runs.items():
            # A whitespace chunk (only they end in whitespace), or letters with the space
            # before them (`` ?\p{L}++``): one chunk, no regex needed.
            if run[-1] in spaces or run.isalpha() or (run[0] == " " and run[1:].isalpha()):
                counts[run] += times
            else:
                for chunk in findall(run):
                    counts[chunk] += times
        self._runs = Counter()


_SPACE_SET = frozenset(GPT2_SPACES)
