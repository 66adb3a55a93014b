"""`RecordedSteps`: a run's merge steps held as flat arrays, each `MergeStep` built on demand.

A `MergeStep` as an object costs about 4 KB once its ten runners-up and sixteen count
changes are tuples of tuples; 100,000 of them would hold 400 MB for one run. Here a step
is a few ints in C arrays (tokens by id: every token a step names is a base token or the
result of an earlier merge, so one list of token strings spells them all) and the whole
record of 100,000 merges takes tens of megabytes. It behaves as a read-only list:
``len(steps)``, ``steps[k]``, ``steps[a:b]``, iteration.

The runners-up and the count changes are most of it, so their token ids and their counts
are kept apart: ids in 4 bytes, counts in 4 bytes until one does not fit, then the whole
column in 8 (a run on a corpus of billions of characters). That is 12 bytes a pair where
one 8-byte column of (left, right, count) triples took 24.

    recorded = RecordedSteps(base_tokens)
    for step in train_steps(...):
        recorded.append(step)
    recorded[0]          # the MergeStep again, equal to the one appended
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate, chain

from bpe.errors import BpeError
from bpe.steps import MergeStep


class RecordedSteps(Sequence):
    """Merge steps appended one by one (or loaded by `from_columns`), read back as `MergeStep`."""

    def __init__(self, base_tokens: Iterable) -> None:
        self.vocab: list = list(base_tokens)  # token strings by id: base tokens, then each new token
        self.base_size = len(self.vocab)
        self._ids = {token: i for i, token in enumerate(self.vocab)}
        self.lefts = array("I")  # per step: the merged pair's token ids
        self.rights = array("I")
        self.frequencies = array("Q")
        self.sequence_lengths = array("Q")  # training tokens after the step
        # runners-up and count changes: per step, how many; then each pair's two ids and its count
        self.top_sizes = array("I")
        self.top_ids = array("I")
        self.top_counts = array("i")
        self.change_sizes = array("I")
        self.change_ids = array("I")
        self.change_deltas = array("i")
        self._top_starts = array("Q", (0,))  # per step, where its pairs start (pairs, not ids)
        self._change_starts = array("Q", (0,))
        self._token_ids = array("I")  # the step's token id (an existing token keeps its id)
        self._vocab_sizes = array("I")
        self._pairs: list | None = None

    # ==================== Recording

    def append(self, step: MergeStep) -> None:
        """Record the next step (numbered ``len(self) + 1``)."""
        ids = self._ids
        left, right = ids[step.pair[0]], ids[step.pair[1]]
        self._add(left, right, step.frequency, step.sequence_length, step.token)
        self.top_sizes.append(len(step.top_pairs))
        for (a, b), _ in step.top_pairs:
            self.top_ids.extend((ids[a], ids[b]))
        self.top_counts = _extended(self.top_counts, [count for _, count in step.top_pairs])
        self._top_starts.append(len(self.top_counts))
        self.change_sizes.append(len(step.count_changes))
        for (a, b), _ in step.count_changes:
            self.change_ids.extend((ids[a], ids[b]))
        self.change_deltas = _extended(self.change_deltas, [delta for _, delta in step.count_changes])
        self._change_starts.append(len(self.change_deltas))

    def _add(
        self, left: int, right: int, frequency: int, sequence_length: int, token: str | bytes | None = None
    ) -> None:
        if token is None:
            token = self.vocab[left] + self.vocab[right]
        token_id = self._ids.get(token)
        if token_id is None:  # the vocabulary is a set: an existing string adds no token
            token_id = self._ids[token] = len(self.vocab)
            self.vocab.append(token)
        self.lefts.append(left)
        self.rights.append(right)
        self.frequencies.append(frequency)
        self.sequence_lengths.append(sequence_length)
        self._token_ids.append(token_id)
        self._vocab_sizes.append(len(self.vocab))
        self._pairs = None

    @classmethod
    def from_columns(
        cls,
        base_tokens: list,
        *,
        lefts: Sequence[int],
        rights: Sequence[int],
        frequencies: Sequence[int],
        sequence_lengths: Sequence[int],
        top_sizes: Sequence[int],
        top_values: Sequence[int],
        change_sizes: Sequence[int],
        change_values: Sequence[int],
    ) -> RecordedSteps:
        """Rebuild a record from its columns (a run file's), checking every id against the
        tokens that exist at that step; `BpeError` naming the first step that is wrong."""
        steps = len(lefts)
        for name, column in (
            ("rights", rights),
            ("frequencies", frequencies),
            ("sequence_lengths", sequence_lengths),
            ("top_sizes", top_sizes),
            ("change_sizes", change_sizes),
        ):
            if len(column) != steps:
                raise BpeError(f"{name} has {len(column):,} entries for {steps:,} merges")
        for name, sizes, values in (
            ("top_values", top_sizes, top_values),
            ("change_values", change_sizes, change_values),
        ):
            if 3 * sum(sizes) != len(values):
                raise BpeError(f"{name} has {len(values):,} numbers; its sizes call for {3 * sum(sizes):,}")
        record = cls(base_tokens)
        top_ends = list(accumulate(3 * size for size in top_sizes))
        change_ends = list(accumulate(3 * size for size in change_sizes))
        top_start = change_start = 0
        for number in range(steps):
            known = len(record.vocab)  # tokens that exist before this step
            left, right = lefts[number], rights[number]
            if not (0 <= left < known and 0 <= right < known):
                raise BpeError(f"merge {number + 1} names token ids ({left}, {right}); only 0..{known - 1} exist then")
            if frequencies[number] < 1 or sequence_lengths[number] < 0:
                raise BpeError(f"merge {number + 1} has a count below 1 or a negative token count")
            if number and sequence_lengths[number] > sequence_lengths[number - 1]:
                raise BpeError(f"merge {number + 1} makes the training text longer, which no merge does")
            record._add(left, right, frequencies[number], sequence_lengths[number])
            for what, values, start, end, limit in (
                ("its runners-up", top_values, top_start, top_ends[number], known),
                ("its count changes", change_values, change_start, change_ends[number], len(record.vocab)),
            ):
                for j in range(start, end, 3):
                    if not (0 <= values[j] < limit and 0 <= values[j + 1] < limit):
                        raise BpeError(f"merge {number + 1}: {what} name a token id that does not exist then")
            top_start, change_start = top_ends[number], change_ends[number]
        record.top_sizes = array("I", top_sizes)
        record.change_sizes = array("I", change_sizes)
        record.top_ids, record.top_counts = _split_triples(top_values, "i")
        record.change_ids, record.change_deltas = _split_triples(change_values, "i")
        record._top_starts = array("Q", (0, *(end // 3 for end in top_ends)))
        record._change_starts = array("Q", (0, *(end // 3 for end in change_ends)))
        return record

    @property
    def top_values(self) -> array:
        """The runners-up as one column of (left id, right id, count) triples, as run files keep them."""
        return _triples_column(self.top_ids, self.top_counts)

    @property
    def change_values(self) -> array:
        """The count changes as one column of (left id, right id, change) triples."""
        return _triples_column(self.change_ids, self.change_deltas)

    # ==================== Reading

    def __len__(self) -> int:
        return len(self.lefts)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self._step(i) for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(f"step index {index} is out of range: {len(self)} steps")
        return self._step(index)

    def __iter__(self) -> Iterator[MergeStep]:
        return map(self._step, range(len(self)))

    def _step(self, i: int) -> MergeStep:
        vocab = self.vocab
        token_id = self._token_ids[i]
        vocab_size = self._vocab_sizes[i]
        return MergeStep(
            i + 1,
            (vocab[self.lefts[i]], vocab[self.rights[i]]),
            vocab[token_id],
            token_id,
            self.frequencies[i],
            self._pairs_of(self.top_ids, self.top_counts, self._top_starts[i], self._top_starts[i + 1]),
            self._pairs_of(self.change_ids, self.change_deltas, self._change_starts[i], self._change_starts[i + 1]),
            self.sequence_lengths[i],
            vocab_size,
            vocab_size > (self._vocab_sizes[i - 1] if i else self.base_size),
        )

    def _pairs_of(self, ids: array, counts: array, start: int, end: int) -> tuple:
        vocab = self.vocab
        return tuple(((vocab[ids[2 * j]], vocab[ids[2 * j + 1]]), counts[j]) for j in range(start, end))

    def vocab_size_after(self, steps: int) -> int:
        """The vocab size after the first ``steps`` steps (1 or more)."""
        return self._vocab_sizes[steps - 1]

    def vocab_sizes(self) -> list[int]:
        """The vocab size after each step, without building the steps."""
        return self._vocab_sizes.tolist()

    def pairs(self) -> list[tuple]:
        """Every merged pair, in order (the run's merges), without building the steps."""
        if self._pairs is None:
            vocab = self.vocab
            self._pairs = [(vocab[a], vocab[b]) for a, b in zip(self.lefts, self.rights)]
        return self._pairs

    def __eq__(self, other) -> bool:
        if isinstance(other, RecordedSteps | list | tuple):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, as a list is


# 4-byte columns and the 8-byte ones they widen to
_WIDER = {"I": "Q", "i": "q"}


def _extended(column: array, values: list[int]) -> array:
    """``column`` with ``values`` appended: the same array, or, when a value does not fit
    its 4-byte items, all of it copied into 8-byte ones (which every count fits)."""
    size = len(column)
    try:
        column.extend(values)
        return column
    except OverflowError:
        del column[size:]  # extend stopped at the value that did not fit
        wider = array(_WIDER.get(column.typecode, column.typecode), column)
        wider.extend(values)
        return wider


def _split_triples(values: Sequence[int], count_type: str) -> tuple[array, array]:
    """A column of (left, right, count) triples as its ids (in pairs) and its counts."""
    ids = array("I", chain.from_iterable(zip(values[0::3], values[1::3])))
    return ids, _extended(array(count_type), list(values[2::3]))


def _triples_column(ids: array, counts: array) -> array:
    return array("q", chain.from_iterable(zip(ids[0::2], ids[1::2], counts)))
