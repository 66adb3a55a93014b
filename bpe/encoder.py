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

from .pairs import merge_pair


def replay_merges(symbols: Sequence, merges: Sequence[tuple]) -> list:
    """Apply ``merges`` in order to ``symbols`` (token strings or bytes)."""
    tokens = list(symbols)
    for pair in merges:
        if len(tokens) < 2:
            break
        tokens = merge_pair(tokens, pair, pair[0] + pair[1])
    return tokens


class RankEncoder:
    """Turns a sequence of base-token ids into merged token ids, lowest rank first."""

    def __init__(self, merges_as_ids: Sequence[tuple[int, int, int]]) -> None:
        """``merges_as_ids``: (left id, right id, result id) in learned order (rank = index)."""
        ranks: dict[tuple[int, int], list[int]] = {}
        for rank, (left, right, _result) in enumerate(merges_as_ids):
            ranks.setdefault((left, right), []).append(rank)
        self._first_rank = {pair: found[0] for pair, found in ranks.items()}
        # Pairs learned more than once (their result was re-created later): all ranks.
        self._all_ranks = {pair: found for pair, found in ranks.items() if len(found) > 1}
        self._results = [result for _left, _right, result in merges_as_ids]

    def _rank_after(self, pair: tuple[int, int], formed_at: int) -> int | None:
        rank = self._first_rank.get(pair)
        if rank is None or rank > formed_at:
            return rank
        later = self._all_ranks.get(pair)
        if later is None:
            return None
        i = bisect_right(later, formed_at)
        return later[i] if i < len(later) else None

    def encode(self, ids: list[int]) -> list[int]:
        n = len(ids)
        if n < 2:
            return list(ids)
        symbols = list(ids)
        nxt = list(range(1, n + 1))
        nxt[-1] = -1
        prev = list(range(-1, n - 1))
        first_rank = self._first_rank
        all_ranks = self._all_ranks
        rank_after = self._rank_after
        # One live candidate per position: its key is (rank << 32 | position); a popped key
        # that no longer equals live[position] is stale.
        live = [-1] * n
        heap = []
        for p in range(n - 1):
            rank = first_rank.get((symbols[p], symbols[p + 1]))
            if rank is not None:
                key = rank << 32 | p
                live[p] = key
                heap.append(key)
        heapify(heap)
        results = self._results
        while heap:
            key = heappop(heap)
            p = key & 0xFFFFFFFF
            if live[p] != key:
                continue
            rank = key >> 32
            q = nxt[p]
            new = results[rank]
            symbols[p] = new
            live[q] = -1
            right = nxt[q]
            nxt[p] = right
            if right >= 0:
                prev[right] = p
                pair = (new, symbols[right])
                r = first_rank.get(pair)
                if r is not None and r <= rank and pair in all_ranks:
                    r = rank_after(pair, rank)
                elif r is not None and r <= rank:
                    r = None
                live[p] = -1 if r is None else r << 32 | p
                if r is not None:
                    heappush(heap, live[p])
            else:
                live[p] = -1
            left = prev[p]
            if left >= 0:
                pair = (symbols[left], new)
                r = first_rank.get(pair)
                if r is not None and r <= rank and pair in all_ranks:
                    r = rank_after(pair, rank)
                elif r is not None and r <= rank:
                    r = None
                live[left] = -1 if r is None else r << 32 | left
                if r is not None:
                    heappush(heap, live[left])
        out = []
        p = 0
        while p >= 0:
            out.append(symbols[p])
            p = nxt[p]
        return out
