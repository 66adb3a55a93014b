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
from collections.abc import Sequence
from functools import lru_cache

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
    """Each distinct chunk with its frequency, in order of first appearance. With special
    tokens the text is cut at them first (`bpe.specials.ordinary_pieces`) and each piece is
    split on its own: no chunk holds or crosses one."""
    if special_tokens:
        tally = ChunkTally(pretokenizer, special_tokens=special_tokens)
        tally.add(text)
        return tally.counts()  # (the special tokens' own counts: `ChunkTally.special_counts`)
    if pretokenizer == "gpt2":
        return count_gpt2_chunks(text)  # the same counts, in the same order, faster (see its docstring)
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
# a text into exactly these runs and whitespace chunks with `re`, in C, much faster
# than the regex with its Unicode classes, and far fewer of them are distinct than
# space-led pieces (a word followed by a newline and an indent is one piece, but two runs).
# It needs the regex's \s exactly, not a superset: a character taken for whitespace would
# be cut out of the chunk it belongs to.
GPT2_SPACES = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000" + "".join(map(chr, range(0x2000, 0x200B)))
_SPACE = "[" + re.escape(GPT2_SPACES) + "]"
_NOT_SPACE = "[^" + re.escape(GPT2_SPACES) + "]"
_GPT2_RUNS = re.compile(f" ?{_NOT_SPACE}+|{_SPACE}+(?!{_NOT_SPACE})|{_SPACE}")


def count_gpt2_chunks(text: str) -> Counter:
    """``Counter(GPT-2's regex chunks of text)``, in order of first appearance, as
    ``Counter(split(text, "gpt2"))`` gives it, faster: the runs of `_GPT2_RUNS` are counted
    in C and the regex runs once per distinct run. ``"the cat, the cat"`` has the runs
    ``"the"``, ``" cat,"``, ``" the"``, ``" cat"``; only ``" cat,"`` needs the regex, which
    cuts it into ``" cat"`` and ``","``.
    """
    tally = ChunkTally("gpt2")
    tally.add(text)
    return tally.counts()


class ChunkTally:
    """The chunk counts of many texts, each split on its own, in order of first
    appearance: ``chunk_counts`` of each text, summed in order, for the count phase's
    stream of passages. Each text is first cut at the ``special_tokens`` (`bpe.specials`).

    With GPT-2's pattern it keeps the texts' runs (`_GPT2_RUNS`) counted (in C) until asked, and
    chunks each distinct run once then, not once per text it occurs in: most runs of a
    corpus ("the", " word,") recur in every megabyte. Runs keep their order of first
    appearance, and a run's chunks lie in order inside it, so the chunks come out in the
    order the texts hold them. Any other pattern counts each text's chunks as it comes.
    """

    MAX_PENDING_RUNS = 1_000_000  # distinct runs kept before they are chunked: a bound on memory

    def __init__(
        self, pretokenizer: str | None, max_pending_runs: int = MAX_PENDING_RUNS, *, special_tokens: Sequence[str] = ()
    ) -> None:
        self.pretokenizer = pretokenizer
        self.max_pending_runs = max_pending_runs
        self.special_tokens = tuple(special_tokens)
        self._chunks: Counter = Counter()
        self._specials: Counter = Counter()  # each special token's occurrences
        self._runs: Counter | None = Counter() if pretokenizer == "gpt2" else None

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

    def special_counts(self) -> Counter:
        """How often each special token occurred so far (those that did), in order of first appearance."""
        return self._specials

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
