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
"""
from __future__ import annotations

from bisect import bisect_right
from heapq import heapify, heappop, heappush
from typing import Sequence

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


class RankEncoder:
    """Turns a sequence of base-token ids into merged token ids, lowest rank first."""

    def __init__(self, merges_as_ids: Sequence[tuple[int, int, int]]) -> None:
        """``merges_as_ids``: (left id, right id, result id) in learned order (rank = index)."""
        largest_id = max((max(m) for m in merges_as_ids), default=0)
        self._shift = shift = max(8, (largest_id + 1).bit_length())  # pair (a, b) -> a << shift | b
        ranks: dict[int, list[int]] = {}
        for rank, (left, right, _result) in enumerate(merges_as_ids):
            ranks.setdefault(left << shift | right, []).append(rank)
        self._first_rank = {pair: found[0] for pair, found in ranks.items()}
        # Pairs learned more than once (their result was re-created later): all their ranks.
        self._all_ranks = {pair: found for pair, found in ranks.items() if len(found) > 1}
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
        n = len(symbols)
        symbols.append(_EDGE)
        nxt.append(-1)
        prev.append(-1)
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


def _read_list(symbols: list[int], nxt: list[int], start: int = 0) -> list[int]:
    out = []
    p = start
    while p >= 0:
        out.append(symbols[p])
        p = nxt[p]
    return out
