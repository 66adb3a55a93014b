"""How each library merges one chunk, in pure Python, rule for rule.

Three libraries, three rules; on the same vocabulary they can disagree (see
`bpe.formats.merges_vs_ranks`):

- **Hugging Face** `tokenizers` (`hf_merge`): a priority queue of adjacent pairs keyed by
  the pair's merge rank, then position; the lowest is merged, the two pairs it forms are
  pushed. A pair listed twice keeps its *last* rank (the merge table is a hash map
  filled in file order). A queued pair is stale only if its pair no longer produces the
  same new id. Any pair in the table may merge at any time.
- **minbpe** (`bpe.encoder.RankEncoder`, see `bpe.formats.minbpe`): the pair with the
  lowest merge index is merged everywhere, left to right, until no pair is a merge.
  On a file minbpe can load (every merge makes a new id, ids only refer backwards), this
  is the same as replaying merges in order, which RankEncoder does.
- **tiktoken** (`bpe.ranks.rank_merge`): no merge list at all. A chunk whose bytes are a token is
  that token; otherwise, from single bytes, the adjacent pair whose *concatenation* has
  the lowest rank is merged (leftmost on ties) until no concatenation is a token.

BPE Lab replays its merges in learned order (`bpe.encoder`): a pair formed after its own
rank has passed only merges at a later rank of the same pair.
"""

from __future__ import annotations

from heapq import heapify, heappop, heappush

# ====================
# Hugging Face


def hf_merge(symbols: list[int], merge_map: dict[tuple[int, int], tuple[int, int]]) -> list[int]:
    """``tokenizers``' ``Word::merge_all`` without dropout. ``merge_map``: (left id, right id)
    -> (rank, new id)."""
    n = len(symbols)
    if n < 2:
        return list(symbols)
    ids = list(symbols)
    nxt = list(range(1, n + 1))
    nxt[-1] = -1
    prev = list(range(-1, n - 1))
    gone = [False] * n
    get = merge_map.get
    heap = []
    for pos in range(n - 1):
        found = get((ids[pos], ids[pos + 1]))
        if found is not None:
            heap.append((found[0], pos, found[1]))
    heapify(heap)
    while heap:
        _rank, pos, new_id = heappop(heap)
        if gone[pos]:
            continue
        right = nxt[pos]
        if right < 0:
            continue
        current = get((ids[pos], ids[right]))
        if current is None or current[1] != new_id:
            continue  # an expired entry: the pair changed since it was queued
        ids[pos] = new_id
        gone[right] = True
        after = nxt[right]
        nxt[pos] = after
        if after >= 0:
            prev[after] = pos
        before = prev[pos]
        if before >= 0:
            found = get((ids[before], new_id))
            if found is not None:
                heappush(heap, (found[0], before, found[1]))
        if after >= 0:
            found = get((new_id, ids[after]))
            if found is not None:
                heappush(heap, (found[0], pos, found[1]))
    out = []
    pos = 0
    while pos >= 0:
        out.append(ids[pos])
        pos = nxt[pos]
    return out


def hf_merge_map(merges_as_ids: list[tuple[int, int, int]]) -> dict[tuple[int, int], tuple[int, int]]:
    """The table `hf_merge` reads, built as ``tokenizers`` builds it: a later copy of a pair
    overwrites an earlier one."""
    return {(left, right): (rank, new) for rank, (left, right, new) in enumerate(merges_as_ids)}
