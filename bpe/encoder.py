"""Encoding with learned merges: the textbook replay and the fast lowest-rank-first merge.

`replay_merges` applies the merges one after another over the whole sequence, exactly as
training did: the definition of the right answer, and slow (one pass per merge).

`RankEncoder` gets the same answer in one pass: a linked list over the symbols and a
heap of candidate pairs keyed by (rank, position), always merging the lowest-ranked
pair, leftmost first. One subtlety makes it exact for every merge list: since the
vocabulary is a set, a token may be *re-created* by a later merge, and a pair formed at
merge ``t`` may only be merged by a rank after ``t`` (the replay has already passed the
earlier ranks). Each candidate therefore takes the first rank of its pair that comes
after the merge that formed it.

`CodePointEncoder` is what tokenizers use on text: the first merges replayed in C with
`str.replace`, then the text cut where no later merge can join, then `RankEncoder` on each
distinct piece, cached.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from heapq import heapify, heappop, heappush
from itertools import chain, compress, count, repeat
from operator import not_

from bpe.errors import BpeError
from bpe.pairs import merge_pair


def replay_merges(symbols: Sequence, merges: Sequence[tuple]) -> list:
    """Apply ``merges`` in order to ``symbols`` (token strings or bytes)."""
    tokens = list(symbols)
    for pair in merges:
        if len(tokens) < 2:
            break
        tokens = merge_pair(tokens, pair, pair[0] + pair[1])
    return tokens


# The symbol of the sentinel slot: shifted or or-ed with any id it gives a negative key,
# which is never a pair's key, so "no neighbour" needs no branch.
_EDGE = -2
# Sequences longer than this are merged rank by rank (buckets); shorter ones with a heap.
BUCKETS_FROM = 2048


class MergeTriples(Sequence):
    """Merges as ids, ``(left id, right id, result id)`` in learned order, packed in one
    array: 12 bytes a merge, where a list of tuples takes about 80 (the tuple and its slot
    in the list), which a tokenizer of 50,000 merges kept for its lifetime (4 MB). Reads as a sequence of tuples: ``MergeTriples([(97, 98, 256)])[0]``
    is ``(97, 98, 256)``; a slice is another `MergeTriples`."""

    def __init__(self, triples: Iterable[tuple[int, int, int]] = ()) -> None:
        self._ids = array("I", chain.from_iterable(triples))

    def append(self, left: int, right: int, result: int) -> None:
        self._ids.extend((left, right, result))

    def __len__(self) -> int:
        return len(self._ids) // 3

    def __iter__(self) -> Iterator[tuple[int, int, int]]:
        ids = iter(self._ids)
        return zip(ids, ids, ids)

    def __getitem__(self, index):
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                raise ValueError(f"a slice of merges takes every merge in its range, not every {step}")
            part = MergeTriples()
            part._ids = self._ids[3 * start : 3 * max(start, stop)]
            return part
        start = 3 * range(len(self))[index]  # (an IndexError names the index past the end)
        return tuple(self._ids[start : start + 3])


class RankEncoder:
    """Turns a sequence of base-token ids into merged token ids, lowest rank first."""

    def __init__(self, merges_as_ids: Sequence[tuple[int, int, int]]) -> None:
        """``merges_as_ids``: (left id, right id, result id) in learned order (rank = index)."""
        largest_id = max((max(m) for m in merges_as_ids), default=0)
        self._shift = shift = max(8, (largest_id + 1).bit_length())  # pair (a, b) -> a << shift | b
        self._first_rank: dict[int, int] = {}
        # Pairs learned more than once (their result was re-created later): all their ranks,
        # ascending. Rare: no list for the others.
        self._all_ranks: dict[int, list[int]] = {}
        first_rank = self._first_rank.setdefault
        for rank, (left, right, _result) in enumerate(merges_as_ids):
            pair = left << shift | right
            first = first_rank(pair, rank)
            if first != rank:
                self._all_ranks.setdefault(pair, [first]).append(rank)
        self._results = [result for _left, _right, result in merges_as_ids]

    def _rank_after(self, pair: int, formed_at: int) -> int | None:
        """The first rank of ``pair`` after the merge that formed it, if any."""
        later = self._all_ranks.get(pair)
        if later is None:
            return None
        i = bisect_right(later, formed_at)
        return later[i] if i < len(later) else None

    def encode(self, ids: list[int]) -> list[int]:
        """Merge ``ids`` (base-token ids) exactly as replaying the merges in order would."""
        if len(ids) < 2 or not self._results:
            return list(ids)
        # Long sequences: one bucket of positions per rank. Short chunks (pre-tokenized
        # words): a small heap, since walking thousands of empty ranks would dominate.
        if len(ids) > BUCKETS_FROM:
            return self.encode_many([ids])[0]
        return self._encode_with_heap(ids)

    def encode_many(self, sequences: list[list[int]]) -> list[list[int]]:
        """Encode several sequences in one pass: rank by rank, each rank's positions left
        to right. Batching many short pieces this way avoids per-piece set-up costs.

        A merge at rank r only forms pairs whose rank is after r, so a bucket never grows
        while it is processed, and sorting it once gives the replay's left-to-right order.
        The sequences lie end to end without links between them; index -1 means "no
        neighbour" and reads a sentinel slot whose symbol makes no pair (see `_EDGE`).
        """
        shift = self._shift
        symbols, nxt, prev, starts = _laid_end_to_end(sequences)
        n = len(symbols) - 1  # the sentinel slot last
        first_rank = self._first_rank.get
        rank_after = self._rank_after
        results = self._results
        live = [-1] * (n + 1)  # the rank of the candidate pair starting at each position
        buckets: dict[int, list[int]] = {}
        for p, pair in enumerate([a << shift | b for a, b in zip(symbols, map(symbols.__getitem__, nxt))]):
            rank = first_rank(pair)
            if rank is not None:
                live[p] = rank
                found = buckets.get(rank)
                if found is None:
                    buckets[rank] = [p]
                else:
                    found.append(p)
        pending = list(buckets)
        heapify(pending)
        while pending:
            rank = heappop(pending)
            bucket = buckets.pop(rank)
            bucket.sort()
            new = results[rank]
            for p in bucket:
                if live[p] != rank:
                    continue  # consumed by the occurrence to its left, or its pair changed
                q = nxt[p]
                symbols[p] = new
                live[q] = -1
                right = nxt[q]
                nxt[p] = right
                prev[right] = p
                left = prev[p]
                # the two pairs the merge formed: (new, right neighbour) and (left neighbour, new)
                for at, pair in ((p, new << shift | symbols[right]), (left, symbols[left] << shift | new)):
                    r = first_rank(pair)
                    if r is not None and r <= rank:  # formed after its first rank: replay passed it
                        r = rank_after(pair, rank)
                    if r is None:
                        live[at] = -1
                    else:
                        live[at] = r
                        found = buckets.get(r)
                        if found is None:
                            buckets[r] = [at]
                            heappush(pending, r)
                        else:
                            found.append(at)
        out = []
        for start, ids in zip(starts, sequences):
            out.append(_read_list(symbols, nxt, start) if ids else [])
        return out

    def _encode_with_heap(self, ids: list[int]) -> list[int]:
        """A heap of (rank, position) packed in one small int: lowest rank, then leftmost."""
        n = len(ids)
        shift = self._shift
        bits = n.bit_length()
        mask = (1 << bits) - 1
        symbols = list(ids)
        nxt = list(range(1, n + 1))
        nxt[-1] = -1
        prev = list(range(-1, n - 1))
        first_rank = self._first_rank.get
        rank_after = self._rank_after
        results = self._results
        live = [-1] * n  # the heap key of the candidate at each position; stale keys differ
        heap = []
        for p, pair in enumerate([a << shift | b for a, b in zip(symbols, symbols[1:])]):
            rank = first_rank(pair)
            if rank is not None:
                live[p] = key = rank << bits | p
                heap.append(key)
        heapify(heap)
        while heap:
            key = heappop(heap)
            p = key & mask
            if live[p] != key:
                continue
            rank = key >> bits
            q = nxt[p]
            new = results[rank]
            symbols[p] = new
            live[q] = -1
            live[p] = -1
            right = nxt[q]
            nxt[p] = right
            if right >= 0:
                prev[right] = p
                pair = new << shift | symbols[right]
                r = first_rank(pair)
                if r is not None and r <= rank:
                    r = rank_after(pair, rank)
                if r is not None:
                    live[p] = key = r << bits | p
                    heappush(heap, key)
            left = prev[p]
            if left >= 0:
                pair = symbols[left] << shift | new
                r = first_rank(pair)
                if r is not None and r <= rank:
                    r = rank_after(pair, rank)
                if r is None:
                    live[left] = -1
                else:
                    live[left] = key = r << bits | left
                    heappush(heap, key)
        return _read_list(symbols, nxt)


def _laid_end_to_end(sequences: list[list[int]]) -> tuple[list[int], list[int], list[int], list[int]]:
    """``(symbols, nxt, prev, starts)``: the sequences one after another as doubly linked
    lists without links between them, then one sentinel slot (`_EDGE`) that index -1 reads.
    ``[[5, 6], [7]]`` -> symbols ``[5, 6, 7, EDGE]``, nxt ``[1, -1, -1, -1]``, prev
    ``[-1, 0, -1, -1]``, starts ``[0, 2]``."""
    symbols: list[int] = []
    nxt: list[int] = []
    prev: list[int] = []
    starts = []
    for ids in sequences:
        start = len(symbols)
        starts.append(start)
        symbols.extend(ids)
        end = len(symbols)
        nxt.extend(range(start + 1, end + 1))
        prev.extend(range(start - 1, end - 1))
        if end > start:
            nxt[end - 1] = -1
            prev[start] = -1
    symbols.append(_EDGE)
    nxt.append(-1)
    prev.append(-1)
    return symbols, nxt, prev, starts


def _read_list(symbols: list[int], nxt: list[int], start: int = 0) -> list[int]:
    out = []
    p = start
    while p >= 0:
        out.append(symbols[p])
        p = nxt[p]
    return out


# How many leading merges `CodePointEncoder` replays over the whole text with `str.replace`.
# They are the most frequent merges, so they do most of the merging, at C speed; after them
# the text falls into short pieces that repeat (see `joinable_pairs`). Anywhere from 50 to 150
# encodes as fast; none at all is much slower (docs/speed.md).
REPLAYED_WITH_REPLACE = 100
# Encoded pieces kept per encoder; bounded so a long-lived tokenizer cannot grow forever.
PIECE_CACHE_SIZE = 200_000
# Longer pieces are encoded but not kept: they rarely repeat.
CACHED_PIECE_LENGTH = 1_000
# What `joinable_pairs` may spend (set elements) before giving up on cutting. Real merge
# lists need 10 to 16 per merge (trained here to vocab 1,000 to 10,000, and GPT-2's 50,000);
# a chain where each merge extends the last needs quadratically many. The budget also
# bounds the memory an uploaded tokenizer can make the server spend on its cuts.
SPINE_BUDGET_PER_MERGE = 24
SPINE_BUDGET_BASE = 20_000
_NOT_WORKED_OUT = object()
# Token ids are spelled as code points, so a vocabulary can have at most this many tokens.
MAX_CODE_POINT_IDS = 0x110000 - 1  # one code point is left for the separator of chunks


class CodePointEncoder:
    """Encodes text spelled one code point per token id (``chr(id)``), exactly as replaying
    the merges in order would, in three stages:

    1. the first merges (`REPLAYED_WITH_REPLACE`) replayed over the whole text: with one code
       point per symbol a pair is a two-character substring, and `str.replace`'s scan (left
       to right, no overlap) is `merge_pair`'s (`str.split` scans the same way);
    2. the text cut wherever no later merge can join the two symbols beside the cut
       (`joinable_pairs`), so that pieces are short and repeat;
    3. each distinct piece through a `RankEncoder` of the remaining merges, cached.

    Pieces on either side of a cut are independent: no pair across it is ever a merge's
    pair, so it is never merged and never blocks a merge beside it.
    """

    def __init__(
        self, merges_as_ids: Sequence[tuple[int, int, int]], id_count: int, replayed: int = REPLAYED_WITH_REPLACE
    ) -> None:
        """``merges_as_ids`` as for `RankEncoder`; ids run from 0 to ``id_count - 1``."""
        if id_count > MAX_CODE_POINT_IDS:
            raise BpeError(
                f"{id_count:,} tokens: a tokenizer here can have at most {MAX_CODE_POINT_IDS:,} "
                "(one Unicode code point each while encoding)"
            )
        if not isinstance(merges_as_ids, MergeTriples):
            merges_as_ids = MergeTriples(merges_as_ids)
        self._replacements = [(chr(left) + chr(right), chr(result)) for left, right, result in merges_as_ids[:replayed]]
        self._all_merges = merges_as_ids
        self._rank_encoder = RankEncoder(merges_as_ids[replayed:])
        # `joinable_pairs`, worked out on first use (`with_merges` makes many encoders)
        self._joinable: set | None | object = _NOT_WORKED_OUT
        self._joinable_from_start: set | None | object = _NOT_WORKED_OUT  # the same over every merge (`last_cut`)
        self._cache: dict[str, list[int]] = {}
        # Joins chunks (pre-tokenizer output) that must not merge with each other: no id, so
        # no merge has it and every pair with it is a cut.
        self.separator = chr(id_count)

    def encode(self, symbols: str, cache: dict | None = None) -> list[int]:
        """The merged ids of ``symbols`` (one code point per base-token id). ``cache``: where
        encoded pieces are kept instead of the encoder's own (a stream keeps a small one)."""
        for pair, merged in self._replacements:
            symbols = merged.join(symbols.split(pair))  # str.replace's result, faster here (docs/speed.md)
        if len(symbols) < 2:
            return [ord(ch) for ch in symbols if ch != self.separator]
        if self._joinable is _NOT_WORKED_OUT:
            self._joinable = joinable_pairs(self._all_merges, len(self._replacements))
        if self._joinable is None:  # cut only between chunks, cache nothing
            encode = self._rank_encoder.encode
            return [i for chunk in symbols.split(self.separator) for i in encode(list(map(ord, chunk)))]
        # zip reuses its tuple when the set lookup lets go of it: no allocation per pair
        cuts = list(compress(count(1), map(not_, map(self._joinable.__contains__, zip(symbols, symbols[1:])))))
        pieces = [symbols[start:end] for start, end in zip([0, *cuts], [*cuts, len(symbols)])]
        found = self._encode_pieces(pieces, self._cache if cache is None else cache)
        return list(chain.from_iterable(map(found.__getitem__, pieces)))

    def encode_chunks(self, chunks: Sequence[str], cache: dict | None = None) -> list[int]:
        """Encode each chunk on its own (as a pre-tokenizer requires) and join the ids."""
        return self.encode(self.separator.join(chunks), cache)

    def last_cut(self, symbols: str) -> int:
        """The last place in ``symbols`` (spelled base-token ids, before any merge) where
        the text may be cut and each side encoded alone: between two symbols that no merge
        ever puts inside one token (`joinable_pairs` over every merge). 0 when there is
        none, or when the merges are too tangled to work that out."""
        if self._joinable_from_start is _NOT_WORKED_OUT:
            self._joinable_from_start = joinable_pairs(self._all_merges, 0)
        joinable = self._joinable_from_start
        if joinable is None:
            return 0
        for at in range(len(symbols) - 1, 0, -1):
            if (symbols[at - 1], symbols[at]) not in joinable:
                return at
        return 0

    def _encode_pieces(self, pieces: list[str], cache: dict) -> dict[str, list[int]]:
        """Each distinct piece's ids, from the cache or encoded now (and cached)."""
        encode = self._rank_encoder.encode
        found = {self.separator: []}
        for piece in set(pieces).difference(found):
            ids = cache.get(piece)
            if ids is None:
                ids = encode(list(map(ord, piece)))
                if len(cache) < PIECE_CACHE_SIZE and len(piece) < CACHED_PIECE_LENGTH:
                    cache[piece] = ids
            found[piece] = ids
        return found


def joinable_pairs(merges_as_ids: Sequence[tuple[int, int, int]], start: int) -> set[tuple[str, str]] | None:
    """The pairs of adjacent symbols (as code points) that merges from rank ``start`` on may
    put inside one token; the text may be cut between any other two. None when working
    that out would cost too much (long chains of merges): then cut nowhere.

    A symbol, once made, is never split: a later token that covers the boundary between
    symbols x and y is made by a merge (l, r) whose left half ends with x as built (x is l,
    or l's right half, or that one's right half, ...: l's right spine) and whose right half
    begins with y (r's left spine). A token made more than once has every way counted:
    the spines of a merge's halves are taken as made by the merges before it.
    """
    budget = SPINE_BUDGET_PER_MERGE * len(merges_as_ids) + SPINE_BUDGET_BASE
    right_spines: dict[int, frozenset[int]] = {}
    left_spines: dict[int, frozenset[int]] = {}
    joinable: set[tuple[str, str]] = set()
    spelled: dict[int, str] = {}  # one str object per id, shared by every pair that holds it
    for rank, (left, right, result) in enumerate(merges_as_ids):
        ends = ends_of(left, right_spines)
        begins = ends_of(right, left_spines)
        if rank >= start:
            budget -= len(ends) * len(begins)
            if budget < 0:
                return None
            ends_spelled = [spelled.get(x) or spelled.setdefault(x, chr(x)) for x in ends]
            for y in begins:
                y_spelled = spelled.get(y) or spelled.setdefault(y, chr(y))
                joinable.update(zip(ends_spelled, repeat(y_spelled)))
        right_spines[result] = right_spines.get(result, frozenset((result,))) | ends_of(right, right_spines)
        left_spines[result] = left_spines.get(result, frozenset((result,))) | ends_of(left, left_spines)
        budget -= len(right_spines[result]) + len(left_spines[result])
        if budget < 0:
            return None
    return joinable


def ends_of(token: int, spines: dict[int, frozenset[int]]) -> frozenset[int]:
    """A token's spine so far; a base token (or one not made yet) is its own spine."""
    return spines.get(token) or frozenset((token,))
