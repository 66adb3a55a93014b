"""The fast engine: incremental pair counts, same steps as the reference.

Unlike `bpe.reference`, which recounts the whole text every step, this engine counts
once and then touches only the neighbours of each merged occurrence:

- the text is a doubly linked list over symbol positions (``prev``/``next`` arrays); a
  merged symbol keeps the position of its left half, so positions stay in text order;
- each pair (two token ids packed into one int) has a weighted count and a min-heap of
  the positions where it may occur; entries are checked when read (lazy invalidation),
  so a merge never searches a heap to delete from it;
- a max-heap of ``(-count, pair)`` entries finds the winner; decreases are lazy (a
  stale entry is re-pushed with its current count when it surfaces), increases push a
  fresh entry once per step;
- ties are resolved exactly as the reference does: among the pairs with the top count,
  the earliest first occurrence wins (the head of that pair's position heap).

Pre-tokenized text is many short chunks laid end to end with no links across them; each
position carries the frequency of its chunk as a weight.
"""
from __future__ import annotations

import gc
from array import array
from contextlib import contextmanager
from collections import defaultdict
from heapq import heapify, heappop, heappush, nlargest
from typing import Iterator

from .steps import CHANGES_KEPT, MergeStep, StopReason, make_step


EDGE = -2  # the symbol of the sentinel slot: "no neighbour here"
DEAD = -1  # the symbol of a position merged into its left neighbour


class _Sequence:
    """The training text as linked symbols, with per-pair counts and positions.

    A pair (a, b) of token ids is packed into one int, ``a << shift | b``; the shift is
    as small as the vocabulary allows, so keys stay single-digit Python ints (faster).

    The arrays hold one extra slot at the end, a sentinel: a missing neighbour is index
    -1, which reads that slot, whose symbol (`EDGE`) never equals a token id. So the
    merge loop needs no "is there a neighbour?" branches.
    """

    def __init__(self, words: list, token_ids: dict, max_tokens: int) -> None:
        self.shift = max(8, max_tokens.bit_length())
        self.mask = (1 << self.shift) - 1
        symbols: list[int] = []
        starts: list[int] = []
        for tokens, frequency in words:
            starts.append(len(symbols))
            symbols.extend(map(token_ids.__getitem__, tokens))
        n = len(symbols)
        symbols.append(EDGE)
        # Without repeated chunks a pair's count is its number of positions: no weights.
        self.unweighted = all(frequency == 1 for _, frequency in words)
        weights = [] if self.unweighted else [f for tokens, f in words for _ in tokens] + [0]
        # Links as C arrays: no int object per position to chase through memory. The
        # last slot is the sentinel; chunk ends link to it (-1), so merges never cross.
        prev = array("i", range(-1, n))
        nxt = array("i", range(1, n + 2))
        for start in starts:
            prev[start] = -1
            if start:
                nxt[start - 1] = -1
        nxt[n - 1 if n else 0] = -1
        nxt[n] = -1
        prev[n] = -1
        self.symbols, self.weights, self.prev, self.next = symbols, weights, prev, nxt
        self.one_chunk = len(starts) == 1
        self.length = sum(len(tokens) * frequency for tokens, frequency in words)
        self.positions = self._group_positions()
        self.counts = {key: self.weigh(found) for key, found in self.positions.items()}

    def weigh(self, positions: list[int]) -> int:
        """How many times the text holds the pairs starting at these positions."""
        if self.unweighted:
            return len(positions)
        return sum(map(self.weights.__getitem__, positions))

    def _group_positions(self) -> dict[int, list[int]]:
        symbols, nxt, shift = self.symbols, self.next, self.shift
        grouped: defaultdict = defaultdict(list)
        if self.one_chunk:
            # Every position but the last starts a pair.
            for p, key in enumerate([a << shift | b for a, b in zip(symbols, symbols[1:-1])]):
                grouped[key].append(p)  # ascending, so each list is already a heap
        else:
            for p, q in enumerate(nxt[:-1]):
                if q >= 0:
                    grouped[symbols[p] << shift | symbols[q]].append(p)
        return dict(grouped)

    def pair_key(self, a: int, b: int) -> int:
        return a << self.shift | b

    def split_key(self, key: int) -> tuple[int, int]:
        return key >> self.shift, key & self.mask

    def first_position(self, key: int) -> int:
        """Earliest position where the pair occurs now; drops stale heap entries."""
        heap = self.positions[key]
        symbols, nxt = self.symbols, self.next
        a, b = self.split_key(key)
        while True:
            p = heap[0]
            if symbols[p] == a and symbols[nxt[p]] == b:
                return p
            heappop(heap)

    def merge(self, key: int, new_id: int, queue: list) -> dict[int, int]:
        """Merge every occurrence of the pair, left to right; return the pair-count changes.
        Pairs whose count grew are pushed on ``queue`` (decreases surface lazily).

        Instead of updating counts per occurrence, occurrences are grouped by the symbol
        on their left and on their right: each group changes two pair counts by the same
        amount, applied once after the scan. Sums commute, so this equals doing it one
        occurrence at a time (even when neighbouring occurrences touch, as in 'abab').
        """
        symbols, prev, nxt = self.symbols, self.prev, self.next
        a, b = self.split_key(key)
        by_left: defaultdict = defaultdict(list)  # left symbol -> positions left of a merge
        by_right: defaultdict = defaultdict(list)  # right symbol -> positions of merged tokens
        for p in sorted(self.positions.pop(key)):
            if symbols[p] != a:
                continue  # consumed by an earlier occurrence, or merged into something else
            q = nxt[p]
            if symbols[q] != b:
                continue
            left = prev[p]
            right = nxt[q]
            by_left[symbols[left]].append(left)
            by_right[symbols[right]].append(p)
            prev[right] = p
            symbols[p] = new_id
            symbols[q] = DEAD
            nxt[p] = right
        # every merged position is in exactly one by_right group (EDGE at a chunk's end)
        merged = [p for found in by_right.values() for p in found]
        by_left.pop(EDGE, None)
        by_right.pop(EDGE, None)
        return self._apply_counts(key, a, b, new_id, merged, by_left, by_right, queue)

    def _apply_counts(self, key, a, b, new_id, merged, by_left, by_right, queue) -> dict[int, int]:
        """Turn the grouped occurrences into pair-count changes, then apply them once."""
        counts, positions, shift = self.counts, self.positions, self.shift
        weigh = len if self.unweighted else self.weigh
        removed = weigh(merged)
        changes: defaultdict = defaultdict(int)
        changes[key] = -removed
        for neighbours, old_left, new_left in ((by_left, None, None), (by_right, b, new_id)):
            for symbol, found in neighbours.items():
                delta = weigh(found)
                if old_left is None:  # left neighbours: (symbol, a) becomes (symbol, new)
                    old, new = symbol << shift | a, symbol << shift | new_id
                else:  # right neighbours: (b, symbol) becomes (new, symbol)
                    old, new = old_left << shift | symbol, new_left << shift | symbol
                changes[old] -= delta
                changes[new] += delta
                heap = positions.get(new)
                if heap is None:
                    positions[new] = found  # ascending already: a valid heap
                else:  # the pair occurs already: only when new_id existed before (a set vocabulary)
                    heap.extend(found)
                    heapify(heap)
        get_count = counts.get
        for changed, delta in changes.items():
            count = get_count(changed, 0) + delta
            if count:
                counts[changed] = count
                if delta > 0:
                    heappush(queue, (-count, changed))
            else:
                counts.pop(changed, None)
                positions.pop(changed, None)
        self.length -= removed
        return changes


def fast_steps(words: list, base_tokens: list, *, target_vocab_size: int,
               minimum_pair_frequency: int, top_k: int) -> Iterator[MergeStep]:
    """Yield the same `MergeStep` stream as `bpe.reference.reference_steps`."""
    vocab = list(base_tokens)
    token_ids = {token: i for i, token in enumerate(vocab)}
    with _collector_paused():
        seq = _Sequence(words, token_ids, target_vocab_size)
        counts = seq.counts
        queue = [(-count, key) for key, count in counts.items()]
        heapify(queue)
        gc.freeze()
    wanted = max(top_k, 1)

    def next_step(number: int) -> MergeStep | StopReason:
        ranked = _top_pairs(queue, counts, seq, wanted)
        if not ranked:
            return StopReason.NO_PAIRS_LEFT
        frequency, _, key = ranked[0]
        if frequency < minimum_pair_frequency:
            return StopReason.BELOW_MINIMUM_FREQUENCY
        for count, _, other in ranked[1:]:  # the runners-up go back; the winner is consumed
            heappush(queue, (-count, other))
        a_id, b_id = seq.split_key(key)
        a, b = vocab[a_id], vocab[b_id]
        token = a + b
        new_id = token_ids.get(token)
        is_new = new_id is None
        if is_new:
            new_id = token_ids[token] = len(vocab)
            vocab.append(token)
        changes = seq.merge(key, new_id, queue)
        return make_step(
            number=number, pair=(a, b), token=token, token_id=new_id, frequency=frequency,
            top_pairs=[(_tokens(vocab, seq, k), c) for c, _, k in ranked[:top_k]],
            changes={_tokens(vocab, seq, k): d for k, d in _largest_changes(changes) if d},
            sequence_length=seq.length, vocab_size=len(vocab), new=is_new,
        )

    number = 0
    try:
        while len(vocab) < target_vocab_size:
            number += 1
            with _collector_paused():
                step = next_step(number)
                gc.freeze()
            if isinstance(step, StopReason):
                return step
            yield step
        return StopReason.TARGET_REACHED
    finally:
        gc.unfreeze()


@contextmanager
def _collector_paused():
    """Keep Python's cyclic garbage collector off the engine's data.

    The engine keeps millions of ints in long-lived lists and never makes reference
    cycles, yet the collector would traverse those lists again and again: a fifth of the
    training time. So it is paused while the engine works, and what exists when a step is
    done is frozen (`gc.freeze`: left out of later collections; refcounting still frees
    it). `fast_steps` unfreezes when the stream ends or is closed.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _largest_changes(changes: dict[int, int]) -> list[tuple[int, int]]:
    """The changes that can make `keep_largest_changes`' cut (ties at the cut included).

    Cutting on sizes first, as plain ints, avoids turning every changed pair into strings.
    """
    if len(changes) <= CHANGES_KEPT:
        return list(changes.items())
    smallest_kept = max(nlargest(CHANGES_KEPT, map(abs, changes.values()))[-1], 1)
    return [(key, delta) for key, delta in changes.items() if abs(delta) >= smallest_kept]


def _tokens(vocab: list, seq: _Sequence, key: int) -> tuple:
    return vocab[key >> seq.shift], vocab[key & seq.mask]


def _top_pairs(queue: list, counts: dict, seq: _Sequence, wanted: int) -> list:
    """Pop the ``wanted`` most frequent pairs (and any tied with the last), ranked.

    Returns ``[(count, first_position, key), ...]`` sorted by count, then first position.
    The caller pushes back the ones it does not consume.
    """
    found: list = []
    seen: set = set()
    while queue:
        negative, key = queue[0]
        count = -negative
        current = counts.get(key, 0)
        if current != count or key in seen:
            heappop(queue)
            if 0 < current < count and key not in seen:
                heappush(queue, (-current, key))  # a lazy decrease surfaces
            continue
        if len(found) >= wanted and count < found[-1][0]:
            break
        heappop(queue)
        seen.add(key)
        found.append((count, seq.first_position(key), key))
    found.sort(key=lambda item: (-item[0], item[1]))
    return found
