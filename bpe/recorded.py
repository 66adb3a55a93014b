"""`RecordedSteps`: a run's merge steps held as flat arrays, each `MergeStep` built on demand.

A `MergeStep` as an object is a tree of tuples (its ten runners-up and sixteen count
changes each a tuple of tuples), kilobytes a step; a run of 100,000 merges would hold
hundreds of megabytes of them. Here a step is a few ints in C arrays (tokens by id: every
token a step names is a base token or the result of an earlier merge, so one list of
token strings spells them all). Merge 1 of "low lower" joining ``l`` (id 2) and ``o`` (id
3) into ``lo`` (id 7) is ``lefts[0] == 2``, ``rights[0] == 3``, the new token's id being
the base size plus the merge's index. It behaves as a read-only list: ``len(steps)``,
``steps[k]``, ``steps[a:b]``, iteration.

The runners-up and the count changes are most of it, so their token ids and their counts
are kept apart, and packed a block at a time (`PackedColumn`): a step's runners-up are
mostly the last step's, their counts a little lower, so zlib packs a pair into under 3
bytes, where plain arrays of ids and counts in 4 bytes took 12. At 50,000 merges of 16 M
characters split at whitespace that is 2.85 MB against 12.7: held beside the engine as a
live training goes on, plain arrays would outweigh every other saving the engine makes.

A training that records as it goes (the merge phase of a big corpus) can keep those
columns on disk instead (``spill=True``, see `SpilledColumn`): in a file of its own, a
column costs a block of memory however long it grows.

    recorded = RecordedSteps(base_tokens)
    for step in train_steps(...):
        recorded.append(step)
    recorded[0]          # the MergeStep again, equal to the one appended
"""

from __future__ import annotations

import os
import tempfile
import zlib
from array import array
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate, chain

from bpe.errors import BpeError
from bpe.steps import MergeStep, shared_token_ids


class RecordedSteps(Sequence):
    """Merge steps appended one by one (or loaded by `from_columns`), read back as `MergeStep`."""

    def __init__(self, base_tokens: Iterable, *, spill: bool = False) -> None:
        self.vocab: list = list(base_tokens)  # token strings by id: base tokens, then each new token
        self.base_size = len(self.vocab)
        # token -> id, for what steps name. An engine may share it (`bpe.steps.shared_token_ids`):
        # then a step's new token is in it before the step is appended.
        self.ids = shared_token_ids(self.vocab, None)
        # What a tokenizer of the run needs stays in memory as it is; the rest of a step
        # (what the pages show of it) is packed, or spilled on disk. Counts are in 8 bytes
        # from the start: neither kind widens a column, and packing makes the zeros cheap.
        column = SpilledColumn if spill else array
        packed = SpilledColumn if spill else PackedColumn
        self.lefts = array("I")  # per step: the merged pair's token ids
        self.rights = array("I")
        self._token_ids = array("I")  # the step's token id (an existing token keeps its id)
        self._vocab_sizes = array("I")
        self.frequencies = column("Q")
        self.sequence_lengths = column("Q")  # training tokens after the step
        # runners-up and count changes: per step, how many; then each pair's two ids and its count
        self.top_sizes = column("I")
        self.change_sizes = column("I")
        self.top_ids, self.top_counts = packed("I"), packed("q")
        self.change_ids, self.change_deltas = packed("I"), packed("q")
        self._top_starts = column("Q")  # per step, where its pairs start (pairs, not ids)
        self._change_starts = column("Q")
        self._top_starts.append(0)
        self._change_starts.append(0)
        self._pairs: list | None = None

    # ==================== Recording

    def append(self, step: MergeStep) -> None:
        """Record the next step (numbered ``len(self) + 1``)."""
        ids = self.ids
        left, right = ids[step.pair[0]], ids[step.pair[1]]
        self._add(left, right, step.frequency, step.sequence_length, step.token)
        self.top_sizes.append(len(step.top_pairs))
        self.top_ids.extend([ids[token] for pair, _ in step.top_pairs for token in pair])
        self.top_counts.extend([count for _, count in step.top_pairs])
        self._top_starts.append(len(self.top_counts))
        self.change_sizes.append(len(step.count_changes))
        self.change_ids.extend([ids[token] for pair, _ in step.count_changes for token in pair])
        self.change_deltas.extend([delta for _, delta in step.count_changes])
        self._change_starts.append(len(self.change_deltas))

    def _add(
        self, left: int, right: int, frequency: int, sequence_length: int, token: str | bytes | None = None
    ) -> None:
        if token is None:
            token = self.vocab[left] + self.vocab[right]
        token_id = self.ids.setdefault(token, len(self.vocab))
        if token_id == len(self.vocab):  # the vocabulary is a set: an existing string adds no token
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
        grows: bool = False,
        token_budget=None,
    ) -> RecordedSteps:
        """Rebuild a record from its columns (a run file's), checking every id against the
        tokens that exist at that step; `BpeError` naming the first step that is wrong.
        ``grows``: the text may get longer after a step (a rule that removes tokens as it
        trains, `bpe.variants.picky`, splits them back into their parts).

        Each merge's token is ``vocab[left] + vocab[right]``, so a few merges can describe a
        huge token (30 that each join the newest token with itself: a gigabyte). With
        ``token_budget`` (a `bpe.io.budget.TokenTally`) each token's length is added to it
        before the token is made, and the budget refuses the first one too long."""
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
            if not grows and number and sequence_lengths[number] > sequence_lengths[number - 1]:
                raise BpeError(f"merge {number + 1} makes the training text longer, which no merge does")
            if token_budget is not None:
                token_budget.add(len(record.vocab[left]) + len(record.vocab[right]), f"merge {number + 1:,}")
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

    def prefix(self, steps: int) -> RecordedSteps:
        """The record of the first ``steps`` steps, as it stands: its columns cut there
        (copies, a few bytes a step), its tokens shared (they are only ever added to).
        What a training being recorded hands out while it goes on (`bpe.run.RunInTraining.run`):
        later steps never reach it. Packed columns share their packed blocks. For a record
        held in memory (not ``spill``)."""
        cut = RecordedSteps(self.vocab[: self.base_size])
        if steps:
            cut.vocab = self.vocab[: self._vocab_sizes[steps - 1]]
        cut.ids = self.ids  # (a token's id never changes; the later ones are never asked for)
        for name in ("lefts", "rights", "_token_ids", "_vocab_sizes", "frequencies", "sequence_lengths"):
            setattr(cut, name, getattr(self, name)[:steps])
        cut.top_sizes, cut.change_sizes = self.top_sizes[:steps], self.change_sizes[:steps]
        cut._top_starts, cut._change_starts = self._top_starts[: steps + 1], self._change_starts[: steps + 1]
        tops, changes = self._top_starts[steps], self._change_starts[steps]
        cut.top_ids, cut.top_counts = _head(self.top_ids, 2 * tops), _head(self.top_counts, tops)
        cut.change_ids, cut.change_deltas = _head(self.change_ids, 2 * changes), _head(self.change_deltas, changes)
        return cut

    @property
    def top_values(self) -> array:
        """The runners-up as one column of (left id, right id, count) triples, as run files keep them."""
        return array("q", chain.from_iterable(self.top_value_pieces()))

    @property
    def change_values(self) -> array:
        """The count changes as one column of (left id, right id, change) triples."""
        return array("q", chain.from_iterable(self.change_value_pieces()))

    def top_value_pieces(self, pairs: int = 1 << 14) -> Iterator[array]:
        """`top_values` a piece of at most ``pairs`` triples at a time (never all at once)."""
        return _triples(self.top_ids, self.top_counts, pairs)

    def change_value_pieces(self, pairs: int = 1 << 14) -> Iterator[array]:
        """`change_values` a piece of at most ``pairs`` triples at a time."""
        return _triples(self.change_ids, self.change_deltas, pairs)

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

    def _pairs_of(self, ids, counts, start: int, end: int) -> tuple:
        vocab = self.vocab
        pair_ids, pair_counts = ids[2 * start : 2 * end], counts[start:end]  # one read each when spilled
        return tuple(
            ((vocab[left], vocab[right]), count)
            for left, right, count in zip(pair_ids[0::2], pair_ids[1::2], pair_counts)
        )

    def vocab_size_after(self, steps: int) -> int:
        """The vocab size after the first ``steps`` steps (1 or more)."""
        return self._vocab_sizes[steps - 1]

    def vocab_sizes(self) -> list[int]:
        """The vocab size after each step, without building the steps."""
        return self._vocab_sizes.tolist()

    def tokens(self, steps: int) -> list:
        """The tokens the first ``steps`` steps made, the record's own strings (a step that
        made an existing token names that one)."""
        vocab = self.vocab
        return [vocab[token_id] for token_id in self._token_ids[:steps]]

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


def _head(column, items: int):
    """The first ``items`` items of a column: a `PackedColumn` sharing its blocks, else a copy."""
    return column.head(items) if isinstance(column, PackedColumn) else column[:items]


def _triples(ids, counts, pairs: int) -> Iterator[array]:
    """The (left, right, count) triples of two columns, ``pairs`` triples a piece."""
    for start in range(0, len(counts), pairs):
        end = min(start + pairs, len(counts))
        pair_ids = ids[2 * start : 2 * end]
        yield array("q", chain.from_iterable(zip(pair_ids[0::2], pair_ids[1::2], counts[start:end])))


class _AppendedColumn:
    """A column of integers appended in order, all but its last block stored away
    (`SpilledColumn`: in a file; `PackedColumn`: compressed in memory). Read back by ranges
    (``column[start:end]``) or whole, in order (iteration); copied or pickled, a column is
    an in-memory `array` of the same items. A kind says how blocks are stored
    (`_store_tail`) and read (`_read_stored`)."""

    BLOCK_ITEMS = 1 << 12  # items kept as they are before they are stored

    def __init__(self, typecode: str) -> None:
        self.typecode = typecode
        self.itemsize = array(typecode).itemsize
        self._stored = 0  # items stored away
        self._tail = array(typecode)

    def append(self, value: int) -> None:
        self._tail.append(value)
        if len(self._tail) >= self.BLOCK_ITEMS:
            self._store_tail()

    def extend(self, values: Iterable[int]) -> None:
        self._tail.extend(values)
        if len(self._tail) >= self.BLOCK_ITEMS:
            self._store_tail()

    def _store_tail(self) -> None:
        raise NotImplementedError

    def _read_stored(self, start: int, end: int, out: array) -> None:
        """Append stored items ``start`` to ``end`` to ``out``."""
        raise NotImplementedError

    def __len__(self) -> int:
        return self._stored + len(self._tail)

    def __getitem__(self, index):
        if not isinstance(index, slice):
            at = index + len(self) if index < 0 else index
            if not 0 <= at < len(self):
                raise IndexError(f"index {index} is out of range: {len(self)} items")
            return self[at : at + 1][0]
        start, end, step = index.indices(len(self))
        if step != 1:
            return self[start:end][::step]
        out = array(self.typecode)
        if start < min(end, self._stored):  # the part stored away
            self._read_stored(start, min(end, self._stored), out)
        if end > self._stored:
            out.extend(self._tail[max(start - self._stored, 0) : end - self._stored])
        return out

    def __iter__(self) -> Iterator[int]:
        for start in range(0, len(self), self.BLOCK_ITEMS):
            yield from self[start : start + self.BLOCK_ITEMS]

    def __reduce__(self):
        return array, (self.typecode, self[:].tobytes())


class SpilledColumn(_AppendedColumn):
    """A column kept in an unnamed temporary file, but for its last block: it costs a block
    of memory however long it grows. A range is read with one ``pread``.

    The file is the process's own (unlinked when made) and closed with the column."""

    def __init__(self, typecode: str) -> None:
        super().__init__(typecode)
        self._file = tempfile.TemporaryFile(buffering=0)  # unbuffered: what is written can be read with pread

    def _store_tail(self) -> None:
        block = memoryview(self._tail).cast("B")
        while block:  # a raw file may take part of a write
            block = block[self._file.write(block) :]
        self._stored += len(self._tail)
        self._tail = array(self.typecode)

    def _read_stored(self, start: int, end: int, out: array) -> None:
        out.frombytes(os.pread(self._file.fileno(), (end - start) * self.itemsize, start * self.itemsize))


class PackedColumn(_AppendedColumn):
    """A column kept in memory compressed, a block at a time, but for its last block.

    A live training records every step's runners-up and count changes as it goes
    (`bpe.run.RunInTraining`): about 250 bytes a step in plain arrays of 4-byte numbers,
    12.7 MB at 50,000 merges, held beside the engine at its busiest. They repeat from step
    to step (the same runners-up, counts that fall by a few): zlib's fastest level packs
    them into 2.85 MB (their counts in 8 bytes), in 0.2 s. A page reading a step
    decompresses the block that holds it (at most a tenth of a millisecond), once for the
    steps around it (the last block read is kept)."""

    def __init__(self, typecode: str) -> None:
        super().__init__(typecode)
        self._blocks: list[bytes] = []  # each BLOCK_ITEMS items, compressed
        self._read: tuple[int, array] = (-1, array(typecode))  # the last block decompressed, and its number

    def _store_tail(self) -> None:
        tail, size = self._tail, self.BLOCK_ITEMS
        while len(tail) >= size:
            self._blocks.append(zlib.compress(tail[:size], 1))
            del tail[:size]
            self._stored += size

    def _read_stored(self, start: int, end: int, out: array) -> None:
        size = self.BLOCK_ITEMS
        for number in range(start // size, (end + size - 1) // size):
            first = number * size
            out.extend(self._block(number)[max(start - first, 0) : end - first])

    def _block(self, number: int) -> array:
        read, block = self._read
        if read != number:
            block = array(self.typecode)
            block.frombytes(zlib.decompress(self._blocks[number]))
            self._read = (number, block)
        return block

    def head(self, items: int) -> PackedColumn:
        """The column of the first ``items`` items, sharing this one's packed blocks."""
        whole = min(items, len(self)) // self.BLOCK_ITEMS
        cut = PackedColumn(self.typecode)
        cut.BLOCK_ITEMS = self.BLOCK_ITEMS
        cut._blocks = self._blocks[:whole]
        cut._stored = whole * self.BLOCK_ITEMS
        cut._tail = self[cut._stored : items]
        return cut

    @property
    def nbytes(self) -> int:
        """The bytes it holds: its packed blocks and the items of its last block."""
        return sum(map(len, self._blocks)) + len(self._tail) * self.itemsize
