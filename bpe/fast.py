"""The fast engine: incremental pair counts, same steps as the reference.

Unlike `bpe.reference`, which recounts the whole text every step, this engine counts
once and then touches only the neighbours of each merged occurrence:

- the text is one list of symbol positions (see `_Sequence`); a merged token keeps the
  position of its left half, so positions stay in text order;
- each pair (two token ids packed into one int) has a weighted count and an ascending
  array of the positions where it may occur; entries are checked when read (lazy
  invalidation), so a merge never searches for what to delete;
- one heap of candidates, each keyed in the tie rule's order, the tie-break included:
  ``(-count, first position, pair)`` packed in one int by default. So the winner and the
  top k come out in O(k log n), however many pairs share the top count. A key only gets
  worse between pushes (counts fall, first occurrences move right), except for the
  pairs a merge creates or extends, which get a fresh entry; so a stale entry surfaces
  early, is recognised, and goes back with its current key.

Pre-tokenized text is many short chunks laid end to end, with an edge slot between
them; each position carries the frequency of its chunk as a weight.

`HeldOutTracker` applies each learned merge to held-out text on a sequence of its own, so
the run (`bpe.run`) gets the held-out curve without reaching into the engine's internals.

The engine leaves Python's garbage collector alone (several trainings may share a
process). Its millions of positions live in C arrays, which the collector never
traverses and which hold no int objects: in lists (or tuples) each position is an int
object somewhere in memory, touched again by every collection, copy and free, and
those cache misses made a run a third slower. The symbols and the chunks' weights are
arrays too (4 bytes a slot), built in one pass over the words, which may be a generator:
the merge phase of a big corpus never holds a Python object per symbol.
"""

from __future__ import annotations

import operator
from array import array
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from heapq import heapify, heappop, heappush
from itertools import compress, repeat
from operator import itemgetter, lshift, or_
from typing import NamedTuple

from bpe.steps import (
    CHANGES_KEPT,
    DEFAULT_TIE_RULE,
    FIRST_OCCURRENCE,
    HUGGINGFACE,
    LEXICOGRAPHIC,
    MergeStep,
    StopReason,
    check_tie_rule,
    huggingface_order,
    make_step,
    over_budget,
)

DEAD = -1  # the symbol of a position inside a token, after its first
# An array of positions. Unsigned: "I" items are stored without the argument parsing
# that signed typecodes go through, which made every append several times slower.
_positions = partial(array, "I")


class _Sequence:
    """The training text as symbol positions, with per-pair counts and positions.

    One list, ``symbols``, is the whole sequence. A token sits at the position of its
    first base symbol and covers as many positions as it has base symbols, so its right
    neighbour is at ``p + length``. The positions it covers after the first are negative:
    the last holds minus its length, which leads from ``p - 1`` to the left neighbour;
    any others hold `DEAD`. A merge writes three slots, all near each other: with millions
    of positions, one region of memory per occurrence is what keeps a merge fast.

    A pair (a, b) of token ids is packed into one int, ``a << shift | b``; the shift is
    as small as the vocabulary allows, so keys stay single-digit Python ints (faster).

    A slot holding ``edge``, an id no token gets, comes before and after every chunk; a
    pair with it is never counted. So merges never cross chunks and need no "is there a
    neighbour?" branch, and every neighbour is a position (an index from 0).
    """

    def __init__(self, words: Iterable, token_ids: dict, max_tokens: int) -> None:
        self.shift = max(8, max_tokens.bit_length())
        self.mask = self.edge = (1 << self.shift) - 1  # ids stay below max_tokens < edge
        # One pass over the words, so they may come from a generator: a corpus's distinct
        # chunks are read once, and no per-chunk list of symbols outlives this loop.
        # An array: 4 bytes a slot instead of a list's 8-byte pointer (reading an item
        # builds an int, which costs about 5% of a run's time; the memory matters more).
        symbols = array("i", (self.edge,))
        chunk_lengths, frequencies = array("I"), array("Q")
        getitem = token_ids.__getitem__
        for tokens, frequency in words:
            before = len(symbols)
            symbols.extend(map(getitem, tokens))
            symbols.append(self.edge)
            chunk_lengths.append(len(symbols) - before - 1)
            frequencies.append(frequency)
        self.symbols = symbols
        # Without repeated chunks a pair's count is its number of positions: no weights.
        self.unweighted = not frequencies or max(frequencies) == 1
        # (the chunk's frequency at each of its positions; 0 at the edge slots)
        self.weights = array("I" if self.unweighted or max(frequencies) < 1 << 32 else "Q")
        if not self.unweighted:
            self.weights.append(0)
            for length, frequency in zip(chunk_lengths, frequencies):
                self.weights.extend(repeat(frequency, length))
                self.weights.append(0)
        self.lengths = [1] * len(token_ids)  # base symbols per token id
        self.length = sum(map(operator.mul, chunk_lengths, frequencies))
        self.positions = self._group_positions()
        self.counts = {key: self.weigh(found) for key, found in self.positions.items()}

    def weigh(self, positions: array) -> int:
        """How many times the text holds the pairs starting at these positions."""
        if self.unweighted:
            return len(positions)
        return sum(map(self.weights.__getitem__, positions))

    def _group_positions(self) -> dict[int, array]:
        symbols, shift, edge = self.symbols, self.shift, self.edge
        grouped: defaultdict = defaultdict(_positions)
        for p, key in enumerate(map(or_, map(lshift, symbols, repeat(shift)), symbols[1:])):
            grouped[key].append(p)  # in ascending order
        return {key: found for key, found in grouped.items() if key >> shift != edge and key & edge != edge}

    def first_position(self, key: int) -> int:
        """Earliest position where the pair occurs now; drops the stale entries before it."""
        found = self.positions[key]
        symbols = self.symbols
        a, b = key >> self.shift, key & self.mask
        second = self.lengths[a]
        for i, p in enumerate(found):
            if symbols[p] == a and symbols[p + second] == b:
                if i:
                    self.positions[key] = found[i:]
                return p
        raise AssertionError(f"pair {key} is counted but occurs nowhere")

    def merge(self, key: int, new_id: int) -> tuple[dict[int, int], list[int]]:
        """Merge every occurrence of the pair, left to right; return the pair-count changes
        and the pairs whose count grew.

        Instead of updating counts per occurrence, occurrences are grouped by the symbol
        on their left and on their right: each group changes two pair counts by the same
        amount, applied once after the scan. Sums commute, so this equals doing it one
        occurrence at a time (even when neighbouring occurrences touch, as in 'abab').
        """
        symbols, lengths = self.symbols, self.lengths
        a, b = key >> self.shift, key & self.mask
        second = lengths[a]  # from a merged token's position to its second half's
        after = second + lengths[b]  # ... and to its right neighbour
        fresh = new_id == len(lengths)  # a token never seen: no pair holds it yet
        if fresh:
            lengths.append(after)
        end = -after  # one int object for every slot it is written to, not one per slot
        by_left: defaultdict = defaultdict(_positions)  # left symbol -> positions left of a merge
        by_right: defaultdict = defaultdict(_positions)  # right symbol -> positions of merged tokens
        for p in self.positions.pop(key):
            # a stale entry fails a check: consumed by an earlier occurrence ('aaa'), or merged otherwise
            if symbols[p] == a:
                q = p + second
                if symbols[q] == b:
                    left = p - 1
                    symbol = symbols[left]
                    if symbol < 0:  # the end of a longer token: minus its length
                        left = p + symbol
                        symbol = symbols[left]
                    right = p + after
                    by_left[symbol].append(left)
                    by_right[symbols[right]].append(p)
                    symbols[p] = new_id
                    symbols[q] = DEAD
                    symbols[right - 1] = end  # (the same slot as q when b is one symbol)
        # every merged position is in exactly one by_right group (the edge at a chunk's end)
        removed = sum(map(len if self.unweighted else self.weigh, by_right.values()))
        by_left.pop(self.edge, None)
        by_right.pop(self.edge, None)
        return self._apply_counts(key, a, b, new_id, fresh, removed, by_left, by_right)

    def _apply_counts(self, key, a, b, new_id, fresh, removed, by_left, by_right) -> tuple[dict[int, int], list[int]]:
        """Turn the grouped occurrences into pair-count changes, then apply them once.

        When the merged token is ``fresh``, most of its new pairs are counted once, here:
        left groups come first, and a pair with the new token on its left (from a right
        group) can only meet a pair already changed when a left group's old pair is the
        same one ('abab' then 'a': the left neighbour of the second 'ab' is the new token).
        Any pair already changed goes through ``pending``, applied at the end."""
        shift, counts, positions = self.shift, self.counts, self.positions
        weigh = len if self.unweighted else self.weigh
        # each group's pairs were `old` and are `new` now: (symbol, a) -> (symbol, new) on
        # the left, (b, symbol) -> (new, symbol) on the right
        moves = [(symbol << shift | a, symbol << shift | new_id, found) for symbol, found in by_left.items()]
        moves += [(b << shift | symbol, new_id << shift | symbol, found) for symbol, found in by_right.items()]
        pending = {key: -removed}  # changes applied after the scan
        change = pending.get
        added: dict[int, int] = {}  # pairs of a fresh token, counted as they are found
        grown = []
        for old, new, found in moves:
            delta = weigh(found)
            pending[old] = change(old, 0) - delta
            if fresh and new not in pending:
                added[new] = counts[new] = delta
                positions[new] = found  # ascending, as merges go left to right
                grown.append(new)
                continue
            pending[new] = change(new, 0) + delta
            known = positions.get(new)
            if known is None:
                positions[new] = found
            else:  # the pair occurs already: only when new_id existed before (a set vocabulary)
                positions[new] = _positions(sorted(known + found))  # two ascending runs: one merge pass
        for changed, delta in pending.items():
            count = counts.get(changed, 0) + delta
            if count:
                counts[changed] = count
                if delta > 0:
                    grown.append(changed)
            else:
                counts.pop(changed, None)
                positions.pop(changed, None)
        changes = {**pending, **added}
        self.length -= removed
        return changes, grown


def fast_steps(
    words: list,
    base_tokens: list,
    *,
    target_vocab_size: int,
    minimum_pair_frequency: int,
    top_k: int,
    tie_rule: str = DEFAULT_TIE_RULE,
    max_vocab_characters: int | None = None,
) -> Iterator[MergeStep]:
    """Yield the same `MergeStep` stream as `bpe.reference.reference_steps`."""
    vocab = list(base_tokens)  # the token ids steps report
    token_ids = {token: i for i, token in enumerate(vocab)}
    # The engine's own ids: Hugging Face's numbering under its rule, so that packed pair
    # keys compare as its (left id, right id) pairs do. Under the other rules they are the
    # steps' ids, and one list and one map serve both (a map of 100,000 tokens is megabytes).
    if check_tie_rule(tie_rule) == HUGGINGFACE:
        names = huggingface_order(vocab)
        ids = {token: i for i, token in enumerate(names)}
    else:
        names, ids = vocab, token_ids
    seq = _Sequence(words, ids, target_vocab_size)
    counts = seq.counts
    ranking = _ranking(tie_rule, seq, names)
    # Without runners-up to record, a pair below the minimum frequency can never be shown
    # or win (a count only grows with a fresh push): it stays out of the heap.
    floor = minimum_pair_frequency if top_k == 0 else 1
    hopeful_key = ranking.hopeful_key
    queue = [hopeful_key(count, pair) for pair, count in counts.items() if count >= floor]
    heapify(queue)
    wanted = max(top_k, 1)
    shift, mask = seq.shift, seq.mask

    def tokens(pair: int) -> tuple:
        return names[pair >> shift], names[pair & mask]

    number = 0
    held = 0  # characters of the merges' tokens so far (`over_budget`)
    while len(vocab) < target_vocab_size:
        ranked = _top_pairs(queue, counts, ranking, wanted, floor)
        if not ranked:
            return StopReason.BELOW_MINIMUM_FREQUENCY if counts else StopReason.NO_PAIRS_LEFT
        frequency, pair, _ = ranked[0]
        if frequency < minimum_pair_frequency:
            return StopReason.BELOW_MINIMUM_FREQUENCY
        a, b = tokens(pair)
        if over_budget(held, len(a) + len(b), max_vocab_characters):  # checked before the merge: a prefix
            return StopReason.VOCAB_CHARACTERS_REACHED
        for _, _, entry in ranked[1:]:  # the runners-up go back; the winner is consumed
            heappush(queue, entry)
        token = a + b
        held += len(token)
        new_id = ids.get(token)
        is_new = new_id is None
        if is_new:  # the vocabulary is a set: an existing string adds no token
            new_id = ids[token] = len(names)
            names.append(token)
            if names is not vocab:
                token_ids[token] = len(vocab)
                vocab.append(token)
        changes, grown = seq.merge(pair, new_id)
        for changed in grown:  # a count that grew: its entry ranks too low
            count = counts[changed]
            if count >= floor:
                heappush(queue, hopeful_key(count, changed))
        number += 1
        yield make_step(
            number=number,
            pair=(a, b),
            token=token,
            token_id=token_ids[token],
            frequency=frequency,
            top_pairs=[(tokens(p), c) for c, p, _ in ranked[:top_k]],
            changes=_largest_changes(changes, tokens),
            sequence_length=seq.length,
            vocab_size=len(vocab),
            new=is_new,
        )
    return StopReason.TARGET_REACHED


class HeldOutTracker:
    """Applies each training merge to held-out text as it is learned: the held-out curve
    costs one incremental merge per step on the engine's own sequence, never a
    re-encoding per point. ``words`` are the held-out text's distinct chunks as base-token
    sequences with their frequencies (`bpe.training.prepare_words`); ``lengths[k]`` is its
    length in tokens after ``k`` merges."""

    def __init__(self, words: list, base_tokens: list, max_tokens: int) -> None:
        self.token_ids = {token: i for i, token in enumerate(base_tokens)}
        self.sequence = _Sequence(words, self.token_ids, max(max_tokens, len(base_tokens)))
        self.lengths = [self.sequence.length]

    def apply(self, step: MergeStep) -> None:
        ids, sequence = self.token_ids, self.sequence
        if step.token not in ids:
            ids[step.token] = step.token_id
        a, b = ids[step.pair[0]], ids[step.pair[1]]
        key = a << sequence.shift | b
        if key in sequence.positions:
            sequence.merge(key, step.token_id)  # counts change too; nothing is chosen from held-out text
        elif step.token_id == len(sequence.lengths):  # a new token this text never forms still takes its id
            sequence.lengths.append(sequence.lengths[a] + sequence.lengths[b])
        self.lengths.append(sequence.length)


class _Ranking(NamedTuple):
    """How candidates are keyed in the heap under a tie rule (smallest key first)."""

    key: Callable[[int, int], object]  # (count, pair) -> the pair's key now
    hopeful_key: Callable[[int, int], object]  # never worse than the key now, and cheaper
    pair: Callable[[object], int]  # the pair a key is for


def _ranking(tie_rule: str, seq: _Sequence, names: list) -> _Ranking:
    shift, mask = seq.shift, seq.mask
    pair_bits = 2 * shift
    pair_mask = (1 << pair_bits) - 1
    limit = 1 << max(seq.length, 1).bit_length()  # above any count: limit - count is positive
    if tie_rule == LEXICOGRAPHIC:  # token strings do not pack into an int: a tuple

        def by_tokens(count: int, pair: int) -> tuple:
            return -count, names[pair >> shift], names[pair & mask], pair

        return _Ranking(by_tokens, by_tokens, itemgetter(3))
    if tie_rule == HUGGINGFACE:  # ids in Hugging Face's order: the packed pair is its tie-break

        def by_ids(count: int, pair: int) -> int:
            return (limit - count) << pair_bits | pair

        return _Ranking(by_ids, by_ids, pair_mask.__and__)
    assert tie_rule == FIRST_OCCURRENCE, tie_rule
    position_bits = len(seq.symbols).bit_length()
    first_position, positions = seq.first_position, seq.positions

    def by_position(count: int, pair: int) -> int:
        return ((limit - count) << position_bits | first_position(pair)) << pair_bits | pair

    def by_any_position(count: int, pair: int) -> int:
        # the pair's first listed position: its first occurrence, or a stale one before it
        return ((limit - count) << position_bits | positions[pair][0]) << pair_bits | pair

    return _Ranking(by_position, by_any_position, pair_mask.__and__)


def _top_pairs(queue: list, counts: dict, ranking: _Ranking, wanted: int, floor: int) -> list:
    """Pop the ``wanted`` best pairs, in the tie rule's order: ``[(count, pair, key), ...]``.

    An entry whose key is no longer its pair's current key goes back with the current one
    (never a better key, so the order holds), unless its count fell below ``floor``. The
    caller pushes back the pairs it does not consume.
    """
    found: list = []
    taken: set = set()
    while queue and len(found) < wanted:
        entry = heappop(queue)
        pair = ranking.pair(entry)
        count = counts.get(pair, 0)
        if count < floor or pair in taken:  # merged away, too rare, or a second entry of a pair found
            continue
        current = ranking.key(count, pair)
        if current == entry:
            found.append((count, pair, entry))
            taken.add(pair)
        else:
            heappush(queue, current)
    return found


def _largest_changes(changes: dict[int, int], tokens: Callable) -> dict:
    """The changes `keep_largest_changes` keeps, by token pair.

    Cutting on sizes first, as plain ints, leaves only the changes tied at the cut to be
    compared by their tokens (turning every changed pair into strings is slow).
    """
    if len(changes) <= CHANGES_KEPT:
        return {tokens(key): delta for key, delta in changes.items() if delta}
    keys, deltas = list(changes), list(changes.values())
    sizes = list(map(abs, deltas))
    cut = max(sorted(sizes)[-CHANGES_KEPT], 1)
    kept = {tokens(key): changes[key] for key in compress(keys, map(cut.__lt__, sizes))}
    for level in (cut, -cut):  # at the cut: gains before losses, then by token pair
        tied = sorted(map(tokens, compress(keys, map(level.__eq__, deltas))))
        kept.update((pair, level) for pair in tied[: CHANGES_KEPT - len(kept)])
    return kept
