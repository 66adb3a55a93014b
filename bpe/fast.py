"""The fast engine: incremental pair counts, same steps as the reference.

Unlike `bpe.reference`, which recounts the whole text every step, this engine counts
once and then touches only the neighbours of each merged occurrence:

- the text is one list of symbol positions (see `_Sequence`); a merged token keeps the
  position of its left half, so positions stay in text order;
- each pair (two token ids packed into one int) has one entry: its weighted count and
  the ascending positions where it may occur, in an array, or in one int for a pair
  listed once (most are); positions are checked when read (lazy invalidation), so a
  merge never searches for what to delete, and an entry is written again to drop them
  only in pre-tokenized text, when a merge's large groups have left it mostly stale
  (`_Sequence._compacted`; trained whole, where every group is large, that cost 1.4x the
  time for an eighth of the memory);
- one heap of candidates, each keyed in the tie rule's order, the tie-break included:
  ``(-count, first position, pair)`` packed in one int by default. So the winner and the
  top k come out in O(k log n), however many pairs share the top count. A key only gets
  worse between pushes (counts fall, first occurrences move right), except for the
  pairs a merge creates or extends, which get a fresh entry; so a stale entry surfaces
  early, is recognised, and goes back with its current key;
- pairs below the minimum frequency can never win, and stay out of both the heap and the
  table: most pairs occur once (at 16 M characters split at whitespace, 218,000 of the
  409,000 pairs after 49,000 merges), and a count only grows where a merge makes one of
  the pair's tokens, so a pair left out is counted when it could reach the minimum (see
  `_Sequence._recount_pairs_of`);
- pairs that reach the minimum but cannot win for a while wait outside both too, below a
  floor that moves: the table holds the few thousand best pairs (`HELD_PAIRS`), and the
  others are records in C arrays (`_ColdPairs`), brought back when the table runs out
  of pairs that can win. Of the 216,000 pairs the table held at the 50,000th merge of
  those 16 M characters, 3,500 reached that merge's count of 9.

Pre-tokenized text is many short chunks laid end to end, with an edge slot between
them; each position carries the frequency of its chunk as a weight.

`HeldOutTracker` applies each learned merge to held-out text on a sequence of its own, so
the run (`bpe.run`) gets the held-out curve without reaching into the engine's internals.

The engine leaves Python's garbage collector alone (several trainings may share a
process). Its millions of positions live in C arrays, which the collector never
traverses and which hold no int objects: in lists (or tuples) each position is an int
object somewhere in memory, touched again by every collection, copy and free, and
those cache misses slow a whole run (docs/speed.md says by how much). The symbols and the
chunks' weights are arrays too (4 bytes a symbol, a byte a weight), built in one pass over
the words, which may be a generator: the merge phase of a big corpus never holds a Python
object per symbol.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from heapq import heapify, heappop, heappush, nsmallest
from itertools import compress, count, islice, repeat
from operator import itemgetter, lshift, mul, or_
from typing import NamedTuple

from bpe.io.memory import return_free_memory
from bpe.steps import (
    CHANGES_KEPT,
    DEFAULT_TIE_RULE,
    FIRST_OCCURRENCE,
    HUGGINGFACE,
    LEXICOGRAPHIC,
    LEXICOGRAPHIC_GREATEST,
    MergeStep,
    StopReason,
    check_tie_rule,
    descending_key,
    huggingface_order,
    make_step,
    over_budget,
    shared_token_ids,
)

DEAD = -1  # the symbol of a position inside a token, after its first
HEAVY = 255  # a chunk's weight that is looked up aside (see `_Sequence._weigh`)


def edge_symbol(max_tokens: int) -> int:
    """The symbol between chunks: all ones, above every id a vocabulary of ``max_tokens``
    gives (at least 8 bits: 255 for 200 tokens, 65,535 for 50,256), so it is also the mask
    of an id in a packed pair and its bit length the pair's shift."""
    return (1 << max(8, max_tokens.bit_length())) - 1


def spelled_words(words: Iterable, token_ids: dict, edge: int) -> tuple[array, array, array]:
    """The words laid end to end as token ids, `edge` before and after each: the
    sequence's symbols, with each word's length and frequency.

    A word's symbols are its base tokens, or, for the byte alphabet, its UTF-8 bytes in one
    `bytes` object (what the merge phase gives: no object per byte). Those are spelled in
    C, many words at a time: each byte becomes the character of its id (``b"hi"`` ->
    ``"hi"`` when bytes are numbered by value), the words are joined with the edge's
    character, and the text's UTF-32 is the array's 4-byte items. A million chunks of a
    1 GB corpus take half a second so, against seconds one symbol at a time.
    """
    symbols = array("i", (edge,))
    assert symbols.itemsize == 4, "UTF-32 spells 4-byte ids"
    chunk_lengths, frequencies = array("I"), array("Q")
    getitem = token_ids.__getitem__
    byte_ids = _byte_ids(token_ids) if edge <= 0x10FFFF else None  # (the edge needs a character)
    separator = chr(min(edge, 0x10FFFF))
    spelled: list[str] = []  # words spelled as id characters, not yet in `symbols`
    held = 0  # ... and their length: a bound on the text spelled at once

    def spell(data: bytes) -> str:
        return (data.translate(byte_ids) if byte_ids else data).decode("latin-1")

    def flush() -> None:
        nonlocal held
        if spelled:
            symbols.frombytes((separator.join(spelled) + separator).encode("utf-32-le"))
            spelled.clear()
            held = 0

    for tokens, frequency in words:
        if type(tokens) is bytes and byte_ids is not None:
            if len(tokens) > SPELLED_AT_ONCE:  # a text trained whole: in slices
                flush()
                for start in range(0, len(tokens), SPELLED_AT_ONCE):
                    symbols.frombytes(spell(tokens[start : start + SPELLED_AT_ONCE]).encode("utf-32-le"))
                symbols.append(edge)
            else:
                spelled.append(spell(tokens))
                held += len(tokens)
                if held >= SPELLED_AT_ONCE:
                    flush()
        else:
            flush()
            symbols.extend(map(getitem, [bytes((b,)) for b in tokens] if type(tokens) is bytes else tokens))
            symbols.append(edge)
        chunk_lengths.append(len(tokens))
        frequencies.append(frequency)
    flush()
    return symbols, chunk_lengths, frequencies


SPELLED_AT_ONCE = 1 << 20  # bytes of words spelled in one piece


def _byte_ids(token_ids: dict) -> bytes | None:
    """How `bytes.translate` turns a byte into its token's id: ``b""`` when every byte's id
    is its value (nothing to translate), None when a byte's id is not below 256 (or a
    byte has none) and the bytes go one at a time."""
    ids = [token_ids.get(bytes((value,)), 256) for value in range(256)]
    if max(ids) > 255:
        return None
    return b"" if ids == list(range(256)) else bytes(ids)


class _ColdPairs:
    """The pairs that can win but are below the table's raised floor (`_Sequence.raise_floor`):
    each one's count as last known, which only falls until the pair is looked at again, and
    the positions where it occurred then: records in C arrays instead of the table's objects.

    A pair in the table takes a dict entry, an int or an array and a heap entry, about 250
    bytes; a record here takes 16 bytes and 4 a position. Split at whitespace, 16 M
    characters give the table 216,000 pairs by the 50,000th merge, 3,500 of them at or above
    that merge's count of 9: it grew by 77 MB over the merges. Held here instead, 374,000
    records of 962,000 positions (10 MB) at that merge, and the process does not grow:
    they fit in what the merges free of the table's position arrays. Records are kept by
    their count, so lowering the floor reads only the records that may reach it.

    A key has one record at most, except after `_Sequence._recount_pairs_of` counts it again
    (a merge into a token that exists already): its older records are superseded, so the
    keys it counted keep their record in `recounted`, written over each time, and their
    records kept by count are skipped.
    """

    def __init__(self, typecode: str) -> None:
        self.typecode = typecode
        self.by_count: dict[int, tuple[array, array, array]] = {}  # count -> keys, ends, positions
        self.recounted: dict[int, tuple[int, array]] = {}  # key -> (count, positions)
        self.recounted_keys: set[int] = set()

    def add(self, key: int, known: int, positions: Iterable[int]) -> None:
        """Keep the pair ``key``, counted ``known`` times now, and where it may occur."""
        if key in self.recounted_keys:
            self.recounted[key] = known, array(self.typecode, positions)
            return
        records = self.by_count.get(known)
        if records is None:
            records = self.by_count[known] = array("Q"), array("Q"), array(self.typecode)
        keys, ends, listed = records
        keys.append(key)
        listed.extend(positions)
        ends.append(len(listed))

    def forget(self, key: int) -> None:
        """Drop what the key's records list: it is being counted again."""
        self.recounted_keys.add(key)
        self.recounted.pop(key, None)

    def floor_for(self, wanted: int, minimum: int) -> int:
        """The highest count that about ``wanted`` records reach (going by their last
        known counts), or ``minimum`` when fewer do."""
        reaching = Counter({known: len(records[0]) for known, records in self.by_count.items()})
        reaching.update(known for known, _ in self.recounted.values())
        total = 0
        for known in sorted(reaching, reverse=True):
            total += reaching[known]
            if total >= wanted:
                return max(known, minimum)
        return minimum

    def records(self, at_least: int) -> Iterator[tuple[int, int, array]]:
        """``(key, count as last known, positions)`` of each record of ``at_least`` or more."""
        for known, records in self.by_count.items():
            if known >= at_least:
                yield from self._unpacked(known, records)
        for key, (known, listed) in self.recounted.items():
            if known >= at_least:
                yield key, known, listed

    def take(self, at_least: int) -> Iterator[tuple[int, int, array]]:
        """`records` of ``at_least`` or more, removed from here as they come (so a record
        added meanwhile, below ``at_least``, stays)."""
        for known in [known for known in self.by_count if known >= at_least]:
            yield from self._unpacked(known, self.by_count.pop(known))
        for key in [key for key, (known, _) in self.recounted.items() if known >= at_least]:
            yield key, *self.recounted.pop(key)

    def _unpacked(self, known: int, records: tuple[array, array, array]) -> Iterator[tuple[int, int, array]]:
        keys, ends, listed = records
        start = 0
        for key, end in zip(keys, ends):
            if key not in self.recounted_keys:  # (else superseded)
                yield key, known, listed[start:end]
            start = end


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

    def __init__(
        self, words: Iterable, token_ids: dict, max_tokens: int, floor: int = 1, held_pairs: int | None = None
    ) -> None:
        # Pairs counted fewer than `floor` times are left out for good (the module says why).
        self.minimum = max(floor, 1)
        # The table holds the pairs counted `kept_from` times or more. With ``held_pairs``, it
        # starts where about that many pairs reach it, the rarer ones wait in `cold`, and
        # `lower_floor` brings them in when the table runs out of pairs that can win; without,
        # it is the minimum, and every pair that can win is in the table.
        self.kept_from = self.minimum
        self.held_pairs = held_pairs
        self.mask = self.edge = edge_symbol(max_tokens)  # ids stay below max_tokens < edge
        self.shift = self.edge.bit_length()
        # One pass over the words, so they may come from a generator: a corpus's distinct
        # chunks are read once, and no per-chunk list of symbols outlives this loop.
        # An array: 4 bytes a slot instead of a list's 8-byte pointer (reading an item
        # builds an int, a small cost of a run's time; the memory matters more).
        symbols, chunk_lengths, frequencies = spelled_words(words, token_ids, self.edge)
        self.symbols = symbols
        # Without repeated chunks a pair's count is its number of positions: no weights.
        self.unweighted = not frequencies or max(frequencies) == 1
        self._weigh(chunk_lengths, frequencies)
        self.lengths = array("I", repeat(1, len(token_ids)))  # base symbols per token id
        self.length = sum(map(mul, chunk_lengths, frequencies))
        del chunk_lengths, frequencies  # (12 bytes a chunk, not held while positions are listed)
        # A pair's entry is its count and the positions where it may occur, in one object:
        # one dict entry a pair, where a dict of counts beside a dict of positions would take
        # two entries and an int more, a large share of the merge phase's memory. Either
        # an array, its count first, then the positions; or, for a pair listed at one
        # position (most pairs a merge makes occur once), one int, ``count << bits |
        # position``: 32 bytes instead of an array's 88. Arrays are unsigned: "I" items are
        # stored without the argument parsing that signed typecodes go through, which slows
        # every append; 8 bytes only when a count could outgrow 4 (no
        # count exceeds the text's length).
        typecode = "I" if self.length < 1 << 32 and len(symbols) < 1 << 32 else "Q"
        self.new_entry = partial(array, typecode, (0,))  # a count of 0, no positions yet
        self.bits = len(symbols).bit_length()
        self.position_mask = (1 << self.bits) - 1
        self.cold = _ColdPairs(typecode) if held_pairs else None
        # pair -> how many of the positions its entry lists went stale in large groups (`_compacted`)
        self.stale: dict[int, int] = {}
        self.released = 0  # positions of the entries let go since memory was last given back
        self.merged = 0  # ... and merges
        self.pairs = self._group_positions()
        self._settle()

    def _weigh(self, chunk_lengths: array, frequencies: array) -> None:
        """The chunk's frequency at each of its positions (0 at the edge slots), a byte each.

        Most of a corpus's distinct chunks are rare: split at whitespace, 16 M characters
        make 260,000 distinct chunks, 5.2 M positions, and under 5,000 of those positions
        are in chunks seen `HEAVY` times or more. Those hold `HEAVY`, and their chunk's
        frequency is in `heavy_weights` beside `heavy_positions` (ascending, bisected):
        a byte a position where four bytes took 20 MB of that training."""
        self.weights = array("B")
        self.heavy_positions = array("Q" if len(self.symbols) >= 1 << 32 else "I")
        self.heavy_weights = array("Q")
        if self.unweighted:
            return
        self.weights.append(0)
        position = 1
        for length, frequency in zip(chunk_lengths, frequencies):
            if frequency < HEAVY:
                self.weights.extend(repeat(frequency, length))
            else:
                self.weights.extend(repeat(HEAVY, length))
                self.heavy_positions.extend(range(position, position + length))
                self.heavy_weights.extend(repeat(frequency, length))
            self.weights.append(0)
            position += length + 1

    def _group_positions(self) -> dict[int, array]:
        symbols, shift, edge = self.symbols, self.shift, self.edge
        grouped: defaultdict = defaultdict(self.new_entry)
        keys = map(or_, map(lshift, symbols, repeat(shift)), islice(symbols, 1, None))
        if self.unweighted:
            for p, key in enumerate(keys):
                grouped[key].append(p)  # in ascending order
        else:  # each pair's weights added as its positions are found, in order (not looked up again)
            # A pair with an edge has a weight of 0 on one side: left out here, where listing
            # the two a chunk has took 2.4 MB at 16 M characters split at whitespace, freed
            # just after, in pieces, between the positions kept.
            weights = self.weights
            for p, key, weight in compress(zip(count(), keys, weights), map(mul, weights, islice(weights, 1, None))):
                entry = grouped[key]
                entry[0] += weight
                entry.append(p)
            for p, weight in zip(self.heavy_positions, self.heavy_weights):  # read as HEAVY above
                grouped[symbols[p] << shift | symbols[p + 1]][0] += weight - HEAVY
        unweighted, minimum = self.unweighted, self.minimum
        counted = {}  # every pair that can win, and its count
        for key, entry in grouped.items():
            found = len(entry) - 1 if unweighted else entry[0]
            if found >= minimum and key >> shift != edge and key & edge != edge:
                counted[key] = found
        if self.cold is not None and len(counted) > self.held_pairs:
            self.kept_from = sorted(counted.values(), reverse=True)[self.held_pairs - 1]
        kept_from, pairs = self.kept_from, {}
        for key, found in counted.items():
            entry = grouped[key]
            if found >= kept_from:
                pairs[key] = self.entry(found, entry)
            else:
                self.cold.add(key, found, islice(entry, 1, None))
        return pairs

    def entry(self, count: int, found: array):
        """The entry of a pair found ``count`` times at the positions of ``found`` (a new
        entry array, count slot first): the array, or one int for one position."""
        if len(found) == 2:
            return count << self.bits | found[1]
        found[0] = count
        return found

    def count(self, entry) -> int:
        """An entry's count."""
        return entry >> self.bits if type(entry) is int else entry[0]

    def positions(self, entry) -> Iterable[int]:
        """The positions an entry lists, ascending (some may be stale)."""
        return (entry & self.position_mask,) if type(entry) is int else islice(entry, 1, None)

    def first_listed(self, key: int) -> int:
        """The first position the pair's entry lists: its first occurrence, or a stale one before it."""
        entry = self.pairs[key]
        return entry & self.position_mask if type(entry) is int else entry[1]

    def first_position(self, key: int) -> int:
        """Earliest position where the pair occurs now; drops the stale entries before it."""
        entry = self.pairs[key]
        if type(entry) is int:  # listed once: that is where it occurs, since it is counted
            return entry & self.position_mask
        symbols = self.symbols
        a, b = key >> self.shift, key & self.mask
        second = self.lengths[a]
        for i, p in enumerate(islice(entry, 1, None), 1):
            if symbols[p] == a and symbols[p + second] == b:
                if i > 1:
                    del entry[1:i]
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
        # Each group's first item is its count: the weights of its positions, added up as
        # they are found (the weight is read beside the symbol, not again later).
        by_left: defaultdict = defaultdict(self.new_entry)  # left symbol -> positions left of a merge
        by_right: defaultdict = defaultdict(self.new_entry)  # right symbol -> positions of merged tokens
        weights = self.weights  # (empty when every weight is 1)
        heavy_positions, heavy_weights = self.heavy_positions, self.heavy_weights
        entry = self.pairs.pop(key)
        occurrences = self.positions(entry)
        edge, at_edges = self.edge, 0  # (the weight of the occurrences that end a chunk)
        if weights:
            # A chunk's edge is no pair's side: an occurrence beside one is not grouped on
            # that side. And in a run ("a a a a" merging ("a", "a")), an occurrence whose
            # right neighbour is the next one merged is listed on its right only until that
            # one is: (aa, a) at 0 is stale once 2 is merged, and (aa, aa) is listed there.
            # Split at whitespace, the first merge of 16 M characters is "  " in indented
            # code, 850,000 positions: its groups grew the process by 2.9 MB, where 7.0 before.
            last, last_right = -1, None  # the occurrence merged last, and its right group
            for p in occurrences:
                # a stale entry fails a check: consumed by an earlier occurrence ('aaa'), or merged otherwise
                if symbols[p] == a:
                    q = p + second
                    if symbols[q] == b:
                        weight = weights[p]
                        if weight == HEAVY:
                            weight = heavy_weights[bisect_left(heavy_positions, p)]
                        left = p - 1
                        symbol = symbols[left]
                        if symbol < 0:  # the end of a longer token: minus its length
                            left = p + symbol
                            symbol = symbols[left]
                        right = p + after
                        if symbol != edge:
                            found = by_left[symbol]
                            found[0] += weight
                            found.append(left)
                            if left == last:  # (its count stays: the two groups' changes cancel)
                                last_right.pop()
                        symbol = symbols[right]
                        if symbol != edge:
                            last_right = found = by_right[symbol]
                            found[0] += weight
                            found.append(p)
                        else:
                            at_edges += weight
                        last = p
                        symbols[p] = new_id
                        symbols[q] = DEAD
                        symbols[right - 1] = end  # (the same slot as q when b is one symbol)
        else:
            # The same loop without weights (a text trained whole): a group's count is its
            # number of positions, set once after the loop, not added to at each of the
            # text's millions of occurrences.
            for p in occurrences:
                if symbols[p] == a:
                    q = p + second
                    if symbols[q] == b:
                        left = p - 1
                        symbol = symbols[left]
                        if symbol < 0:
                            left = p + symbol
                            symbol = symbols[left]
                        right = p + after
                        by_left[symbol].append(left)
                        by_right[symbols[right]].append(p)
                        symbols[p] = new_id
                        symbols[q] = DEAD
                        symbols[right - 1] = end
            for found in (*by_left.values(), *by_right.values()):
                found[0] = len(found) - 1
        # every merged position is in exactly one by_right group, or at a chunk's end
        removed = sum(found[0] for found in by_right.values()) + at_edges
        by_left.pop(edge, None)  # (grouped when trained whole: only the text's ends are edges)
        by_right.pop(edge, None)
        self._let_go(key, entry)
        del entry, occurrences  # (freed before the counts are applied, which may list positions again)
        changes_and_grown = self._apply_counts(key, a, b, new_id, fresh, removed, by_left, by_right)
        self.merged += 1
        if self.released >= RELEASED_BEFORE_TRIM or self.merged >= MERGES_BEFORE_TRIM:
            self._give_back()
        return changes_and_grown

    def _apply_counts(self, key, a, b, new_id, fresh, removed, by_left, by_right) -> tuple[dict[int, int], list[int]]:
        """Turn the grouped occurrences into pair-count changes, then apply them once.

        When the merged token is ``fresh``, most of its new pairs are counted once, here:
        left groups come first, and a pair with the new token on its left (from a right
        group) can only meet a pair already changed when a left group's old pair is the
        same one ('abab' then 'a': the left neighbour of the second 'ab' is the new token).
        Any pair already changed goes through ``pending``, applied at the end. When it is
        not fresh, its pairs are counted again from the symbols (`_recount_pairs_of`): some
        may have been left out of the table, below the floor."""
        shift, pairs, bits, kept_from = self.shift, self.pairs, self.bits, self.kept_from
        # each group's pairs were `old` and are `new` now: (symbol, a) -> (symbol, new) on
        # the left, (b, symbol) -> (new, symbol) on the right
        moves = [(symbol << shift | a, symbol << shift | new_id, found) for symbol, found in by_left.items()]
        moves += [(b << shift | symbol, new_id << shift | symbol, found) for symbol, found in by_right.items()]
        pending = {key: -removed}  # changes applied after the scan
        change = pending.get
        added: dict[int, int] = {}  # pairs of a fresh token, counted as they are found
        grown = []
        stale, weighted = self.stale, not self.unweighted
        for old, new, found in moves:
            delta = found[0]
            pending[old] = change(old, 0) - delta
            if weighted and len(found) > STALE_TALLIED_FROM:  # the old pair's entry still lists these positions
                stale[old] = stale.get(old, 0) + len(found) - 1
            if fresh and new not in pending:
                added[new] = delta
                if delta >= kept_from:
                    pairs[new] = self.entry(delta, found)  # ascending, as merges go left to right
                    grown.append(new)
                elif delta >= self.minimum:  # (only under a raised floor)
                    self.cold.add(new, delta, found[1:])
                continue
            pending[new] = change(new, 0) + delta
            if fresh:  # (its pairs are all new; when not fresh, the recount below lists them)
                found[0] = 0  # its count is set from `pending` below
                pairs[new] = found
        recounted = set() if fresh else self._recount_pairs_of(new_id)
        # The merged pair comes first and is gone already (its every occurrence was merged,
        # or taken by an overlapping one): its count ends at 0.
        for changed, delta in islice(pending.items(), 1, None):
            entry = pairs.get(changed)
            if entry is None or changed in recounted:  # below the floor, or counted again
                continue
            if type(entry) is int:
                count = (entry >> bits) + delta
                if count >= kept_from:
                    pairs[changed] = count << bits | entry & self.position_mask
            else:
                count = entry[0] + delta
                if count >= kept_from and len(entry) == 2:  # listed once: an int, as `entry` makes it
                    pairs[changed] = count << bits | entry[1]
                elif count >= kept_from:
                    entry[0] = count
                    if 2 * stale.get(changed, 0) > len(entry):  # mostly stale: list only where it occurs
                        pairs[changed] = self._compacted(changed, entry)
            if count < kept_from:  # gone, below the floor for good (`_recount_pairs_of`), or until it is lowered
                del pairs[changed]
                if count >= self.minimum:
                    self._wait(changed, count, entry)
            elif delta > 0:
                grown.append(changed)
        grown += [pair for pair in recounted if change(pair, 0) > 0]  # (a pair new to the table grew)
        changes = {**pending, **added}
        self.length -= removed
        return changes, grown

    def _compacted(self, key: int, entry: array):
        """The entry of ``key`` listing only the positions where the pair occurs now.

        Positions go stale in the pairs beside each merge: merging ("t", "h") leaves
        ("h", "e") listed wherever "th" now stands. Read and skipped, they cost no time, but
        the first merges are the largest: split at whitespace, 16 M characters had 6.3 M
        positions listed after 80 merges and 3.5 M of them occurring, 11 MB of stale ones,
        most of them in a few long entries. So an entry that a merge's large groups have
        made mostly stale (`stale`, tallied in `_apply_counts`) is listed again. Not in a
        text trained whole (a sequence without weights): there every group is large, and
        8 M characters to vocab 1,000 took 1.4x the CPU for 12% less memory."""
        found = self.new_entry()
        found.extend(self.occurring(key, islice(entry, 1, None)))
        self._let_go(key, entry)
        return self.entry(entry[0], found)

    def _let_go(self, key: int, entry) -> None:
        """Forget a table entry taken out or replaced: its stale tally goes, and its
        positions count among those `released`."""
        self.stale.pop(key, None)
        if type(entry) is not int:
            self.released += len(entry)

    def _give_back(self) -> None:
        """Give the memory of the entries let go back to the system (`bpe.io.memory`)."""
        return_free_memory()
        self.released = self.merged = 0

    def _recount_pairs_of(self, token: int) -> set[int]:
        """Count every pair with ``token`` on either side from the symbols, write their
        entries, and return the pairs kept: after a merge into a token that existed already.

        Only such a merge adds to a pair that was counted before: ``"a" + "bc"`` made
        ``"abc"``, so (" ", "abc") has its count, which may be below the floor and out of
        the table; merging ``"ab" + "c"`` later makes more of it. Its count then is the old
        one plus the new, and the old one is known only to the symbols. Such merges are
        rare (none in 50,000 merges of 16 M characters split at whitespace); each reads the
        symbols once, in C, to find the token."""
        symbols, lengths, shift, edge, pairs = self.symbols, self.lengths, self.shift, self.edge, self.pairs
        second = lengths[token]
        found: defaultdict = defaultdict(self.new_entry)
        for p in self._positions_of(token):
            weight = self.weight_at(p)
            left = p - 1
            symbol = symbols[left]
            if symbol < 0:  # the end of a longer token: minus its length
                left = p + symbol
                symbol = symbols[left]
            if symbol != edge and symbol != token:  # (token, token) is counted at the left one
                entry = found[symbol << shift | token]
                entry[0] += weight
                entry.append(left)
            symbol = symbols[p + second]
            if symbol != edge:
                entry = found[token << shift | symbol]
                entry[0] += weight
                entry.append(p)
        kept, cold = set(), self.cold
        for key, entry in found.items():  # (each pair's positions ascending, as the token's are)
            if cold is not None:
                cold.forget(key)  # what it listed before is superseded by this count
            if entry[0] >= self.kept_from:
                pairs[key] = self.entry(entry[0], entry)
                kept.add(key)
            else:
                pairs.pop(key, None)
                if entry[0] >= self.minimum:
                    cold.add(key, entry[0], entry[1:])
        return kept

    def _positions_of(self, token: int) -> Iterator[int]:
        """The positions holding ``token``, ascending: its 4 bytes found in the symbols' bytes
        (at a position's start only: ``b"\\x01\\x00\\x00\\x00"`` is also inside 256, 0)."""
        data = self.symbols.tobytes()
        pattern = array("i", (token,)).tobytes()
        at = data.find(pattern)
        while at >= 0:
            if at % 4:
                at = data.find(pattern, at + 1)
            else:
                yield at // 4
                at = data.find(pattern, at + 4)

    def weight_at(self, p: int) -> int:
        """The frequency of the chunk holding position ``p``."""
        weight = self.weights[p] if self.weights else 1
        return self.heavy_weights[bisect_left(self.heavy_positions, p)] if weight == HEAVY else weight

    def raise_floor(self, at_most: int) -> None:
        """Raise the table's floor to the count of its `held_pairs`-th pair, and move the
        pairs below it to `cold`: when merges have filled the table with pairs too rare to
        win for a while. The floor stays at or below ``at_most``: pairs counted that many
        times must stay in the table (the runners-up the caller holds)."""
        pairs = self.pairs
        counts_now = list(map(self.count, pairs.values()))
        floor = min(sorted(counts_now, reverse=True)[self.held_pairs - 1], at_most)
        if floor > self.kept_from:  # (else many pairs tie at the floor: none can go)
            for key, count in [(key, count) for key, count in zip(pairs, counts_now) if count < floor]:
                self._wait(key, count, pairs.pop(key))
            self.kept_from = floor
        self._settle()

    def _wait(self, key: int, count: int, entry) -> None:
        """Send the pair of a table entry taken out of the table to wait in `cold`, with the
        positions where it still occurs: most of a long entry's are stale by then."""
        self._let_go(key, entry)
        self.cold.add(key, count, self.occurring(key, self.positions(entry)))

    def _settle(self) -> None:
        """The table's size once built or its floor moved: twice that (or twice
        `held_pairs`), it is full, and `raise_floor` is due. Never, without `cold`."""
        self.raise_at = 2 * max(len(self.pairs), self.held_pairs) if self.cold is not None else float("inf")
        # Building or moving the table freed entries by the thousand (and, built, the chunks
        # counted before it): their memory goes back now.
        self._give_back()

    def lower_floor(self) -> list[int]:
        """Lower the table's floor to where about `held_pairs` of the pairs waiting in `cold`
        reach it (or to the minimum), bring those pairs in, and return them.

        A pair waiting in `cold` has a count it cannot exceed (counts only fall, but for the
        merges `_recount_pairs_of` counts again) and positions where it may occur: its count
        now is found from those where it still does (`occurring`)."""
        cold = self.cold
        floor = self.kept_from = cold.floor_for(self.held_pairs, self.minimum)
        weight_at, unweighted, pairs, brought = self.weight_at, self.unweighted, self.pairs, []
        for key, _, listed in cold.take(floor):
            found = self.new_entry()
            found.extend(self.occurring(key, listed))
            count = len(found) - 1 if unweighted else sum(map(weight_at, islice(found, 1, None)))
            if count >= floor:
                pairs[key] = self.entry(count, found)
                brought.append(key)
            elif count >= self.minimum:
                cold.add(key, count, islice(found, 1, None))
        self._settle()
        return brought

    def occurring(self, key: int, listed: Iterable[int]) -> Iterator[int]:
        """The positions of ``listed`` where the pair ``key`` occurs now: where its two
        tokens still stand side by side, as `merge` reads them. One at a time: an entry of
        a million positions is compacted without a list of them beside it."""
        symbols, a, b = self.symbols, key >> self.shift, key & self.mask
        second = self.lengths[a]
        return (p for p in listed if symbols[p] == a and symbols[p + second] == b)

    def below_floor(self) -> dict[int, tuple[int, int]]:
        """Every pair left out of the table, with its count and first position: found by
        reading the whole sequence, for the rare step that shows pairs below the floor."""
        symbols, lengths, shift, edge, pairs = self.symbols, self.lengths, self.shift, self.edge, self.pairs
        found: dict[int, list[int]] = {}
        for p, symbol in enumerate(symbols):
            if symbol < 0 or symbol == edge:  # inside a token, or between chunks
                continue
            right = symbols[p + lengths[symbol]]
            key = symbol << shift | right
            if right == edge or key in pairs:
                continue
            counted = found.get(key)
            if counted is None:
                found[key] = [self.weight_at(p), p]
            else:
                counted[0] += self.weight_at(p)
        return {key: (count, first) for key, (count, first) in found.items()}


def fast_steps(
    words: list,
    base_tokens: list,
    *,
    target_vocab_size: int,
    minimum_pair_frequency: int,
    top_k: int,
    tie_rule: str = DEFAULT_TIE_RULE,
    max_vocab_characters: int | None = None,
    token_ids: dict | None = None,
) -> Iterator[MergeStep]:
    """Yield the same `MergeStep` stream as `bpe.reference.reference_steps` (``base_tokens``
    as there: special tokens first, if any). ``token_ids``: see `bpe.steps.shared_token_ids`."""
    vocab = list(base_tokens)  # the token ids steps report
    token_ids = shared_token_ids(vocab, token_ids)
    # The engine's own ids: Hugging Face's numbering under its rule, so that packed pair
    # keys compare as its (left id, right id) pairs do. Under the other rules they are the
    # steps' ids, and one list and one map serve both (a map of 100,000 tokens is megabytes).
    if check_tie_rule(tie_rule) == HUGGINGFACE:
        names = huggingface_order(vocab)
        ids = {token: i for i, token in enumerate(names)}
    else:
        names, ids = vocab, token_ids
    # A pair below the minimum frequency can never win, so it stays out of the sequence's
    # table and the heap: most pairs a merge makes occur once. It can be a runner-up only
    # when too few pairs reach the minimum; `_top_pairs` finds it then. Pairs that reach it
    # but cannot win for a while wait outside them too (`_ColdPairs`).
    seq = _Sequence(words, ids, target_vocab_size, floor=minimum_pair_frequency, held_pairs=HELD_PAIRS)
    pairs = seq.pairs
    ranking = _ranking(tie_rule, seq, names)
    hopeful_key = ranking.hopeful_key
    count_of = seq.count
    queue = [hopeful_key(count, pair) for pair, count in zip(pairs, map(count_of, pairs.values()))]
    heapify(queue)
    kept_after_sweep = len(queue)  # entries once stale ones were last swept out
    wanted = max(top_k, 1)
    shift, mask = seq.shift, seq.mask

    def tokens(pair: int) -> tuple:
        return names[pair >> shift], names[pair & mask]

    number = 0
    spelled = 0  # characters of the merges' tokens so far (`over_budget`)
    runners_up: list = []  # the last step's, still as they were (see `_top_pairs`)
    while len(vocab) < target_vocab_size:
        ranked = _top_pairs(queue, seq, ranking, wanted, runners_up)
        floor = seq.kept_from  # (lowered there when the table ran out of pairs)
        if not ranked:
            return StopReason.NO_PAIRS_LEFT
        frequency, pair, _ = ranked[0]
        if frequency < minimum_pair_frequency:
            return StopReason.BELOW_MINIMUM_FREQUENCY
        a, b = tokens(pair)
        if over_budget(spelled, len(a) + len(b), max_vocab_characters):  # checked before the merge: a prefix
            return StopReason.VOCAB_CHARACTERS_REACHED
        token = a + b
        spelled += len(token)
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
            count = count_of(pairs[changed])
            if count >= floor:
                heappush(queue, hopeful_key(count, changed))
        # The runners-up the merge left alone keep their keys; the others go back to the
        # heap with their old key, never better than the new one (a count that grew has
        # a fresh entry too). The winner is consumed.
        runners_up = []
        for runner_up in ranked[1:]:
            if runner_up[1] in changes:
                heappush(queue, runner_up[2])
            elif runner_up[0] >= floor:
                runners_up.append(runner_up)
        if len(pairs) > seq.raise_at:
            seq.raise_floor(min((count for count, _, _ in runners_up), default=frequency))
        if len(queue) > 2 * kept_after_sweep + SWEEP_SLACK:
            kept_after_sweep = _sweep(queue, seq, ranking.pair, floor)
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


# The pairs the table holds after its floor is raised, and about as many as it takes in
# when the floor is lowered (`_Sequence.raise_floor`, `_Sequence.lower_floor`): few enough
# that rare pairs cost no objects, enough that the floor moves rarely. 16 M characters
# split at whitespace, 50,000 merges: raised twice, lowered 15 times, 1.3 s of the run's 13.5.
HELD_PAIRS = 1 << 13

# The groups of a merge (`_Sequence._apply_counts`) whose positions are tallied as stale in
# the old pair's entry: the large ones, where stale positions add up to megabytes.
STALE_TALLIED_FROM = 64

# Positions of entries let go (a merged pair's, one sent to wait, a compacted one's stale
# ones) after which the C allocator is asked to give their memory back (`bpe.io.memory`):
# a megabyte of them.
RELEASED_BEFORE_TRIM = 1 << 18

# Merges after which that memory is given back anyway: late in training a merge lets go of
# few positions, but it makes and drops small objects (pairs' entries, heap keys, records
# sent to wait) whose memory is freed in pieces. Split at whitespace, 16 M characters
# trained live to 50,000 merges peaked 1.8 MB lower with it (3.80 MB per million
# characters over the text against 3.91), for about 100 trims of a few tenths of a
# millisecond each.
MERGES_BEFORE_TRIM = 500


class HeldOutTracker:
    """Applies each training merge to held-out text as it is learned: the held-out curve
    costs one incremental merge per step on the engine's own sequence, never a
    re-encoding per point. ``words`` are the held-out text's distinct chunks as base-token
    sequences with their frequencies (`bpe.training.prepare_words`); `lengths` gives its
    length in tokens after each number of merges."""

    def __init__(self, words: Iterable, base_tokens: list, max_tokens: int) -> None:
        self.token_ids = {token: i for i, token in enumerate(base_tokens)}
        self.sequence = _Sequence(words, self.token_ids, max(max_tokens, len(base_tokens)))
        self._lengths = array("Q", (self.sequence.length,))  # after 0, 1, 2, ... merges
        self._merges = 0
        self._empty = not self.sequence.length  # no held-out text: every length is 0, none is kept

    def apply(self, step: MergeStep) -> None:
        ids = self.token_ids
        if step.token not in ids:
            ids[step.token] = step.token_id
        self.apply_ids(ids[step.pair[0]], ids[step.pair[1]], step.token_id)

    def apply_ids(self, a: int, b: int, token_id: int) -> None:
        """`apply` for a merge given by ids (its pair's and its token's), for a caller that
        has them: a record of the run keeps every token's id, and this tracker need not."""
        self._merges += 1
        if self._empty:
            return
        sequence = self.sequence
        key = a << sequence.shift | b
        if key in sequence.pairs:
            sequence.merge(key, token_id)  # counts change too; nothing is chosen from held-out text
        elif token_id == len(sequence.lengths):  # a new token this text never forms still takes its id
            sequence.lengths.append(sequence.lengths[a] + sequence.lengths[b])
        self._lengths.append(sequence.length)

    def lengths(self, merges: int | None = None) -> list[int]:
        """The held-out text's length in tokens after 0, 1, ... ``merges`` merges (all so far for None)."""
        merges = self._merges if merges is None else merges
        return [0] * (merges + 1) if self._empty else self._lengths[: merges + 1].tolist()


class _Ranking(NamedTuple):
    """How candidates are keyed in the heap under a tie rule (smallest key first)."""

    key: Callable[[int, int], object]  # (count, pair) -> the pair's key now
    hopeful_key: Callable[[int, int], object]  # never worse than the key now, and cheaper
    pair: Callable[[object], int]  # the pair a key is for
    key_at: Callable[[int, int, int], object]  # (count, pair, first position) -> the key, for a pair not in the table


def _ranking(tie_rule: str, seq: _Sequence, names: list) -> _Ranking:
    shift, mask = seq.shift, seq.mask
    pair_bits = 2 * shift
    pair_mask = (1 << pair_bits) - 1
    limit = 1 << max(seq.length, 1).bit_length()  # above any count: limit - count is positive
    if tie_rule == LEXICOGRAPHIC:  # token strings do not pack into an int: a tuple

        def by_tokens(count: int, pair: int) -> tuple:
            return -count, names[pair >> shift], names[pair & mask], pair

        return _Ranking(by_tokens, by_tokens, itemgetter(3), _anywhere(by_tokens))
    if tie_rule == LEXICOGRAPHIC_GREATEST:  # the tokens' descending keys, each made once per token
        keys: list[str] = []

        def by_descending_tokens(count: int, pair: int) -> tuple:
            if len(keys) < len(names):  # new tokens since the last call
                keys.extend(map(descending_key, names[len(keys) :]))
            return -count, keys[pair >> shift], keys[pair & mask], pair

        return _Ranking(by_descending_tokens, by_descending_tokens, itemgetter(3), _anywhere(by_descending_tokens))
    if tie_rule == HUGGINGFACE:  # ids in Hugging Face's order: the packed pair is its tie-break

        def by_ids(count: int, pair: int) -> int:
            return (limit - count) << pair_bits | pair

        return _Ranking(by_ids, by_ids, pair_mask.__and__, _anywhere(by_ids))
    assert tie_rule == FIRST_OCCURRENCE, tie_rule
    position_bits = len(seq.symbols).bit_length()
    first_position, first_listed = seq.first_position, seq.first_listed

    def at_position(count: int, pair: int, first: int) -> int:
        return ((limit - count) << position_bits | first) << pair_bits | pair

    def by_position(count: int, pair: int) -> int:
        return at_position(count, pair, first_position(pair))

    def by_any_position(count: int, pair: int) -> int:
        # the pair's first listed position: its first occurrence, or a stale one before it
        return at_position(count, pair, first_listed(pair))

    return _Ranking(by_position, by_any_position, pair_mask.__and__, at_position)


def _anywhere(key: Callable[[int, int], object]) -> Callable[[int, int, object], object]:
    """A tie rule's key that no position changes, as `_Ranking.key_at` takes it."""
    return lambda count, pair, first: key(count, pair)


def _sweep(queue: list, seq: _Sequence, pair_of: Callable, floor: int) -> int:
    """Drop the heap's entries for pairs merged away or below ``floor``; return how many stay.

    Entries are checked only when they surface, so those of pairs that are gone pile up:
    at 16 M characters split at whitespace, 50,000 merges left 336,000 entries for 190,000
    pairs that could still win (6 MB). Each pair that can win keeps all its entries, the one
    keyed no worse than its current key among them, so the heap answers as before. Swept
    when it has doubled since the last sweep: each entry is looked at a constant number of
    times on average."""
    pairs, count_of = seq.pairs, seq.count
    kept = 0
    for entry in queue:
        found = pairs.get(pair_of(entry))
        if found is not None and count_of(found) >= floor:
            queue[kept] = entry
            kept += 1
    del queue[kept:]
    heapify(queue)
    return kept


SWEEP_SLACK = 1 << 16  # entries a heap may gain before its first sweep


def _top_pairs(queue: list, seq: _Sequence, ranking: _Ranking, wanted: int, held: list) -> list:
    """The ``wanted`` best pairs, in the tie rule's order: ``[(count, pair, key), ...]``.

    ``held`` are the last step's runners-up that the merge left alone, in order, checked
    then: their keys hold still, so they are weighed against the heap's best without going
    through it (with ten runners-up a step, that was twenty heap operations and ten keys
    worked out again). Of the heap, entries are popped until one holds its pair's current
    key; one that does not goes back with the current key (never a better key, so the order
    holds), unless its count fell below the table's floor. The caller keeps the runners-up it
    does not consume, as ``held`` for the next step. When fewer than ``wanted`` pairs reach
    the floor, it is lowered (`_Sequence.lower_floor`) and the pairs that reach it now are
    weighed too: below the old floor, each ranks after every pair found so far. When the
    floor is the minimum frequency already, the best pairs below it (which the heap does
    not hold) follow.
    """
    found: list = []
    taken: set = set()
    pairs, count_of, key_of, pair_of = seq.pairs, seq.count, ranking.key, ranking.pair
    floor = seq.kept_from

    def best_in_heap() -> tuple | None:
        while queue:
            entry = heappop(queue)
            pair = pair_of(entry)
            current = pairs.get(pair)
            count = 0 if current is None else count_of(current)
            if count < floor or pair in taken:  # merged away, too rare, or a second entry of a pair found
                continue
            current = key_of(count, pair)
            if current == entry:
                return count, pair, entry
            heappush(queue, current)
        return None

    index, candidate = 0, None
    while True:
        while len(found) < wanted:
            if candidate is None:
                candidate = best_in_heap()
            waiting = held[index] if index < len(held) else None
            if waiting is not None and (candidate is None or waiting[2] < candidate[2]):
                index += 1
                if waiting[1] not in taken:
                    found.append(waiting)
                    taken.add(waiting[1])
            elif candidate is not None:
                if candidate[1] not in taken:
                    found.append(candidate)
                    taken.add(candidate[1])
                candidate = None
            else:
                break
        if len(found) == wanted or floor == seq.minimum:
            break
        for pair in seq.lower_floor():  # (the heap and `held` are spent)
            heappush(queue, ranking.hopeful_key(count_of(pairs[pair]), pair))
        floor = seq.kept_from
    if candidate is not None:
        heappush(queue, candidate[2])
    for _, _, key in held[index:]:
        heappush(queue, key)
    if len(found) < wanted and floor > 1:  # near the end of training: the whole sequence is read
        key_at = ranking.key_at
        rare = nsmallest(
            wanted - len(found),
            ((key_at(count, pair, first), count, pair) for pair, (count, first) in seq.below_floor().items()),
        )
        found += [(count, pair, key) for key, count, pair in rare]
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
