"""Pre-tokenization: optional splitting of text into chunks that merges never cross.

The tutorial merges over the whole text (``pretokenizer=None``), so a token may span
words ("e t"). Production tokenizers split first with a regex: GPT-2's pattern keeps a
leading space with its word, GPT-4's (cl100k) also splits digits into groups of three.
Training then counts each distinct chunk once with its frequency, which is also what
makes pre-tokenized training fast.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from itertools import islice

from bpe.errors import PatternError
from bpe.pattern_safety import compiled_custom, pattern_seconds, shown_pattern
from bpe.specials import pieces

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
    `bpe.pattern_safety.check_safe_pattern`; one that is refused raises `PatternError` saying why."""
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


@lru_cache(maxsize=16)
def _compiled(pattern: str):
    """A pattern compiled: a named one as it is, a custom one only once it passed
    `check_safe_pattern`."""
    if pattern not in _NAMED_TEXTS:
        return compiled_custom(pattern)
    import regex  # the \p{L} classes need the `regex` package, not `re`

    return regex.compile(pattern)


_NAMED_TEXTS = frozenset(NAMED_PATTERNS.values())


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
                f"the pre-tokenizer pattern {shown_pattern(pattern)} took over {limit:.1f} s on "
                f"{len(text):,} characters and was stopped; it is too slow to use"
            ) from None
        if "" in chunks:
            raise PatternError(
                f"the pre-tokenizer pattern {shown_pattern(pattern)} matched empty text; every chunk "
                "must hold at least one character"
            )
    if sum(map(len, chunks)) != len(text):
        raise PatternError(
            f"pre-tokenizer pattern {shown_pattern(pattern)} does not cover the whole text "
            "(it skips characters); add an alternative such as |\\s+|. that matches the rest"
        )
    return chunks


def chunk_counts(text: str, pretokenizer: str | None, special_tokens: Sequence[str] = ()) -> Counter:
    """Each distinct chunk with its frequency, in order of first appearance: what
    ``Counter(split(text, pretokenizer))`` gives, counted a piece at a time (see `ChunkTally`),
    so that the text's chunks are never all in memory at once. With special tokens the text
    is cut at them first (`bpe.specials.pieces`) and each piece is split on its own: no chunk
    holds or crosses one (their own counts: `ChunkTally.special_counts`)."""
    tally = ChunkTally(pretokenizer, ChunkTally.IN_MEMORY_PENDING_SEGMENTS, special_tokens=special_tokens)
    tally.add(text)
    return tally.counts()


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


# ==================== Counting a text a piece at a time

# Where a named pattern certainly cuts a text (the rules of `bpe.scale.safe_cuts`, which
# reads them in a file's bytes, here in a str): the pattern's chunks of the whole text are
# those of the pieces between such cuts. "S" is a character that is certainly not
# whitespace (not in GPT2_WHITESPACE, which holds every str.isspace() character too).
# GPT-2 cuts before a space followed by an S; GPT-4 after a newline before an S, and
# before a space that follows an S; the whitespace pattern before a space, tab or newline
# that follows an S. "one two" is cut by GPT-2 into "one" and " two".
_S = "[^" + re.escape(GPT2_WHITESPACE) + "]"
_TEXT_CUTS = {
    "gpt2": re.compile(f" (?={_S})"),
    "gpt4": re.compile(f"(?<=\\n)(?={_S})|(?<={_S})(?= )"),
    "whitespace": re.compile(f"(?<={_S})(?=[ \\t\\n\\r])"),
}
PIECE_CHARACTERS = 1 << 20  # a text is counted in pieces of about this many characters


def text_pieces(text: str, pretokenizer: str | None, size: int = PIECE_CHARACTERS) -> Iterator[str]:
    """``text`` in pieces of about ``size`` characters that a named pattern chunks as it
    chunks the whole text: each ends at the first cut (see `_TEXT_CUTS`) at or after
    ``size`` characters. A text without a cut (no pre-tokenizer, a custom pattern, or no
    cut in it) is one piece."""
    cut = _TEXT_CUTS.get(pretokenizer)  # (a custom pattern is its own regex: no rule)
    start = 0
    while cut is not None and len(text) - start > size:
        found = cut.search(text, start + size)
        if found is None:
            break
        yield text[start : found.start()]
        start = found.start()
    yield text[start:] if start else text


class ChunkTally:
    """The chunk counts of many texts, each split on its own, in order of first
    appearance: ``chunk_counts`` of each text, summed in order, for the count phase's
    stream of passages and for a whole text held in memory. Each text is first cut at the
    ``special_tokens`` (`bpe.specials`); a long text is counted in pieces (`text_pieces`),
    so that its chunks are never all in memory at once.

    With GPT-2's pattern it keeps the texts' segments (`gpt2_segments`: cut by C string
    methods) counted, in C, until asked, and chunks each distinct segment once then, not
    once per text it occurs in: most segments of a corpus (" the", " word,") recur in every
    megabyte, and most are letters alone, one chunk without any regex. Segments keep their
    order of first appearance, and a segment's chunks lie in order inside it, so the chunks
    come out in the order the texts hold them. Any other pattern counts each piece's chunks
    as it comes.

    ``seconds`` says where this thread's CPU time went: cutting text into chunks
    ("pre-tokenize": into segments, then the distinct segments into chunks, with their
    tally) and counting each occurrence ("count": of a segment, or of a chunk).
    """

    # Distinct segments kept before they are chunked: a bound on a counting worker's memory,
    # about 100 bytes a segment. A segment that recurs after a flush is chunked again, but the
    # ones that recur most (" the", " word,") come back within any few hundred thousand
    # distinct ones, so a larger bound saves little regex work for what it holds (the
    # measurement of 250,000 against 1,000,000 is in docs/speed.md).
    MAX_PENDING_SEGMENTS = 250_000
    # ... when a text held in memory is counted (for training): a few megabytes of segments
    IN_MEMORY_PENDING_SEGMENTS = 1 << 16

    def __init__(
        self,
        pretokenizer: str | None,
        max_pending_segments: int = MAX_PENDING_SEGMENTS,
        *,
        special_tokens: Sequence[str] = (),
    ) -> None:
        self.pretokenizer = pretokenizer
        self.max_pending_segments = max_pending_segments
        self.special_tokens = tuple(special_tokens)
        self._chunks: Counter = Counter()
        self._specials: Counter = Counter()  # each special token's occurrences
        self._segments: Counter | None = Counter() if pretokenizer == "gpt2" else None
        self.seconds = {"pre-tokenize": 0.0, "count": 0.0}

    def add(self, text: str) -> None:
        if not self.special_tokens:
            self._add_piece(text)
            return
        specials = self.special_tokens
        for piece in pieces(text, specials):
            if piece in specials:  # (an ordinary piece never is one: it holds no special token)
                self._specials[piece] += 1
            else:
                self._add_piece(piece)

    def _add_piece(self, text: str) -> None:
        seconds = self.seconds
        for piece in text_pieces(text, self.pretokenizer):
            if not piece:
                continue
            started = time.thread_time()
            if self._segments is None:
                self._add_chunks(piece, started)
                continue
            segments = gpt2_segments(piece)
            if segments is None:  # it holds GLUED_SPACE itself: the regex, after what waits
                self._flush_segments()
                self._add_chunks(piece, time.thread_time())
                continue
            # The first segment stands for itself, without a space before it: marked with
            # a character no other segment starts with (they start with a non-space).
            segments[0] = FIRST_SEGMENT + segments[0]
            cut = time.thread_time()
            self._segments.update(segments)
            seconds["pre-tokenize"] += cut - started
            seconds["count"] += time.thread_time() - cut
            if len(self._segments) > self.max_pending_segments:  # a bound on memory, whatever the corpus
                self._flush_segments()

    def counts(self) -> Counter:
        """Every chunk so far with its count, in order of first appearance."""
        self._flush_segments()
        return self._chunks

    def special_counts(self) -> Counter:
        """How often each special token occurred so far (those that did), in order of first appearance."""
        return self._specials

    def _add_chunks(self, text: str, started: float) -> None:
        pattern = pattern_for(self.pretokenizer)
        if pattern is None or pattern in _NAMED_TEXTS:
            chunks = split(text, self.pretokenizer)
            cut = time.thread_time()
            self._chunks.update(chunks)
            self.seconds["pre-tokenize"] += cut - started
            self.seconds["count"] += time.thread_time() - cut
        else:  # a batch of matches at a time: cutting and counting go together
            _count_custom(self._chunks, text, pattern)
            self.seconds["pre-tokenize"] += time.thread_time() - started

    def _flush_segments(self) -> None:
        """Chunk the distinct segments, in order. Segments seen once (most, in a corpus of
        new words) go to the regex together: each stands for a space and what follows it,
        and a space followed by a non-space is a safe cut, so ``" " + " ".join(segments)``
        chunks as the segments do one by one (``["cat,", "dog"]``: `` cat,`` + `` dog`` ->
        ``" cat"``, ``","``, ``" dog"``), and its chunks are counted in C. Only ASCII ones
        are joined: one character past it would send the whole run to the slower regex
        module (`gpt2_chunker`)."""
        if not self._segments:
            return
        started = time.thread_time()
        chunk = gpt2_chunker()
        counts = self._chunks
        once: list[str] = []  # consecutive segments seen once, not yet chunked

        def chunk_once() -> None:
            text = " " + " ".join(once)
            counts.update(chunk(text.replace(GLUED_SPACE, " ") if GLUED_SPACE in text else text))
            once.clear()

        for segment, times in self._segments.items():
            if times == 1 and segment.isascii() and segment[0] != FIRST_SEGMENT:  # (`re` takes them all)
                once.append(segment)
                continue
            if once:
                chunk_once()
            if segment[0] == FIRST_SEGMENT:
                text = segment[1:]
                if not text:
                    continue
            elif segment.isalpha():  # " word": letters with the space before them (`` ?\p{L}++``)
                counts[" " + segment] += times
                continue
            else:
                text = " " + segment
            if GLUED_SPACE in text:
                text = text.replace(GLUED_SPACE, " ")
            for found in chunk(text):
                counts[found] += times
        if once:
            chunk_once()
        self._segments = Counter()
        self.seconds["pre-tokenize"] += time.thread_time() - started


FIRST_SEGMENT = "\n"  # marks a text's first segment in a tally: whitespace, which no later segment starts with


def _count_custom(counts: Counter, text: str, pattern: str) -> None:
    """Add a custom pattern's chunks of ``text`` to ``counts``, as `split` makes them and
    with its checks, but a batch of matches at a time: the text's chunks are never all in
    memory at once."""
    import regex

    compiled = _compiled(pattern)
    limit = pattern_seconds(len(text))
    deadline = time.monotonic() + limit
    matches = compiled.finditer(text, timeout=limit)
    covered = 0
    try:
        while batch := list(map(regex.Match.group, islice(matches, 1 << 16))):
            if "" in batch:
                raise PatternError(
                    f"the pre-tokenizer pattern {shown_pattern(pattern)} matched empty text; every chunk "
                    "must hold at least one character"
                )
            covered += sum(map(len, batch))
            counts.update(batch)
            if time.monotonic() > deadline:
                raise TimeoutError
    except TimeoutError:
        raise PatternError(
            f"the pre-tokenizer pattern {shown_pattern(pattern)} took over {limit:.1f} s on "
            f"{len(text):,} characters and was stopped; it is too slow to use"
        ) from None
    if covered != len(text):
        raise PatternError(
            f"pre-tokenizer pattern {shown_pattern(pattern)} does not cover the whole text "
            "(it skips characters); add an alternative such as |\\s+|. that matches the rest"
        )


# ==================== GPT-2's pattern in Python's own re


@lru_cache(maxsize=1)
def gpt2_chunker() -> Callable[[str], list[str]]:
    """``text -> GPT-2's chunks of it``, exactly as the regex module makes them; ASCII
    text by Python's `re`, which runs the pattern about three times faster.

    `re` has no ``\\p{L}`` or ``\\p{N}``: the ASCII classes are spelled out as the regex
    module itself reads them (``\\p{L}`` is ``A-Za-z`` there, ``\\s`` is ``\\t\\n\\v\\f\\r``
    and the space, not the four separators \\x1c-\\x1f that str.isspace() adds), so both
    agree on every ASCII text. Spelling out the whole of Unicode's classes for `re` costs a
    quarter of a second to compile, more than the few non-ASCII pieces of a text take in the
    regex module.
    """
    import regex

    ascii_characters = "".join(map(chr, range(0x80)))
    letters, numbers, spaces = (_ranges(regex.findall(c, ascii_characters)) for c in (r"\p{L}", r"\p{N}", r"\s"))
    in_re = re.compile(
        f"'(?:[sdmt]|ll|ve|re)| ?[{letters}]++| ?[{numbers}]++| ?[^{spaces}{letters}{numbers}]++"
        f"|[{spaces}]++$|[{spaces}]+(?![^{spaces}])|[{spaces}]"
    ).findall
    in_regex = _compiled(GPT2_PATTERN).findall

    def chunks(text: str) -> list[str]:
        return in_re(text) if text.isascii() else in_regex(text)

    return chunks


def _ranges(characters: list[str]) -> str:
    """Distinct ASCII characters as the ranges of a character class: a, b, c, x -> ``a-cx``
    (escaped: ``\\x61-\\x63\\x78``)."""
    codes = sorted(set(map(ord, characters)))
    spans, start = [], 0
    for i in range(1, len(codes) + 1):
        if i == len(codes) or codes[i] != codes[i - 1] + 1:
            spans.append((codes[start], codes[i - 1]))
            start = i
    return "".join(f"\\x{a:02x}" if a == b else f"\\x{a:02x}-\\x{b:02x}" for a, b in spans)
