"""Heaps' law for GPT-2 chunks: how many distinct chunks a text holds as it grows, and the
power law ``D = K * N ** beta`` fitted to it (N characters, D distinct chunks).

Real text keeps meeting new words, numbers, names and identifiers, so D keeps growing with
N, ever more slowly (``beta`` < 1). BPE's merge phase works on the distinct chunks, so D,
not N, is what makes a big corpus hard: a corpus whose vocabulary stops growing (a Markov
chain over a fixed set of words) is the best case, not the usual one.

`DistinctChunks` counts D for a text read piece by piece, exactly, holding the distinct
chunks and one piece, whatever the length of the text.
Example: reading ``"the cat saw the cat"`` gives the chunks "the", " cat", " saw", " the",
" cat": 4 distinct in 19 characters.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from bpe.pretokenize import GPT2_WHITESPACE, chunk_counts

PIECE_CHARACTERS = 4_000_000  # what is chunked at once: the memory of a step, not of the text


def last_cut(text: str) -> int:
    """Where GPT-2's regex certainly starts a chunk, as late in ``text`` as possible: before
    a space that a non-space follows (0 if there is none). The regex chunks the text before
    and after such a cut exactly as it chunks them together (see `bpe.pretokenize.gpt2_segments`).
    Example: ``last_cut("a b c  ")`` is 3, before " c" (the spaces at the end may yet be
    followed by a word: "c  " + "d" is chunked "c", " ", " d").
    """
    at = len(text) - 1
    while (at := text.rfind(" ", 0, at)) >= 0:
        if text[at + 1] not in GPT2_WHITESPACE:
            return at
    return 0


class DistinctChunks:
    """The distinct GPT-2 chunks of a text given piece by piece (`add`), counted exactly.

    Each piece is chunked up to its last safe cut (`last_cut`); what follows waits for the
    next piece, so any way of cutting the text into pieces gives the same count. Memory: the
    distinct chunks (a set of them, about 100 MB for the million of the 1 G open-vocabulary
    corpus) and one piece with its counts, however long the text. The chunks themselves, not
    their hashes: CPython hashes a string's stored bytes, so ``hash("™") == hash('"!')``
    (U+2122 is stored as the bytes 0x22 0x21, as '"!' is), and counting hashes undercounts.
    """

    def __init__(self, piece_characters: int = PIECE_CHARACTERS) -> None:
        self.piece_characters = piece_characters
        self.characters = 0  # characters chunked so far: the text up to the last cut
        self._known: set[str] = set()  # the chunks seen
        self._rest: list[str] = []  # the text after the last cut, not chunked yet
        self._rest_characters = 0

    def __len__(self) -> int:
        """Distinct chunks of the text up to the last cut (`characters`)."""
        return len(self._known)

    def add(self, text: str) -> list[str]:
        """Read ``text`` on; the chunks it showed for the first time (once a piece is full)."""
        self._rest.append(text)
        self._rest_characters += len(text)
        if self._rest_characters < self.piece_characters:
            return []
        pending = "".join(self._rest)
        cut = last_cut(pending)
        self._rest, self._rest_characters = [pending[cut:]], len(pending) - cut
        return self._take(pending[:cut])

    def finish(self) -> list[str]:
        """The text ends here: chunk what is left; the chunks it showed for the first time."""
        rest, self._rest, self._rest_characters = "".join(self._rest), [], 0
        return self._take(rest)

    def total(self) -> int:
        """Distinct chunks of the whole text given so far, as if it ended here."""
        rest = "".join(self._rest)
        return len(self._known) + len(chunk_counts(rest, "gpt2").keys() - self._known)

    def is_known(self, chunk: str) -> bool:
        """Was ``chunk`` seen in the text up to the last cut?"""
        return chunk in self._known

    def add_chunks(self, chunks: Iterable[str]) -> list[str]:
        """Count ``chunks`` as seen (from a text chunked apart); those not seen before, once each, in order."""
        known = self._known
        new = [chunk for chunk in dict.fromkeys(chunks) if chunk not in known]
        known.update(new)
        return new

    def _take(self, text: str) -> list[str]:
        self.characters += len(text)
        return self.add_chunks(chunk_counts(text, "gpt2")) if text else []


def distinct_chunks_at(path: Path, checkpoints: Iterable[int]) -> Iterator[tuple[int, int]]:
    """``(N, D)``: the distinct GPT-2 chunks of the first N characters of the file, for each
    checkpoint N (sorted; the file's end if it is shorter), in one pass over it."""
    counter = DistinctChunks()
    read = 0
    with path.open(encoding="utf-8", newline="") as file:  # the text exactly, \r\n kept
        for checkpoint in sorted(set(checkpoints)):
            while read < checkpoint:
                piece = file.read(min(counter.piece_characters, checkpoint - read))
                if not piece:
                    break
                read += len(piece)
                counter.add(piece)
            yield read, counter.total()


# ==================== The power law


@dataclass(frozen=True)
class HeapsFit:
    """``D = K * N ** beta``, fitted by least squares on log D against log N."""

    k: float
    beta: float
    characters: int  # of the text it was fitted on
    distinct: int  # chunks that text holds
    made_of: str  # "4.9M shared data + 0.5M Python docs + ..."

    def predict(self, characters: int) -> float:
        return self.k * characters**self.beta


def fit_heaps(points: Iterable[tuple[int, int]], smallest: int = 1_000_000) -> tuple[float, float]:
    """``(K, beta)`` of the points ``(N, D)`` from ``smallest`` characters on, each doubling
    of N weighing the same (the points of a stream are evenly spaced in N, so the tail
    would outvote the head). Example: (1e6, 1e5), (4e6, 2e5), (16e6, 4e5) give beta 0.5
    and K 100."""
    points = sorted((n, d) for n, d in points if n >= smallest and d > 0)
    if len(points) < 2:
        raise ValueError(f"Heaps' law needs two points from {smallest:,} characters on, not {len(points)}")
    kept, next_n = [], 0.0
    for n, d in points:  # at most four points a doubling
        if n >= next_n:
            kept.append((math.log(n), math.log(d)))
            next_n = n * 2**0.25
    mean_x = sum(x for x, _ in kept) / len(kept)
    mean_y = sum(y for _, y in kept) / len(kept)
    beta = sum((x - mean_x) * (y - mean_y) for x, y in kept) / sum((x - mean_x) ** 2 for x, _ in kept)
    return math.exp(mean_y - beta * mean_x), beta
