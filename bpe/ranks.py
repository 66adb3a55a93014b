"""tiktoken's rank rule: how a chunk's bytes become token ids from a ranks table alone.

A ranks file (GPT-2's ``encoder.json``, a ``.tiktoken`` file) lists tokens, not merges.
tiktoken encodes a chunk by it: a chunk whose bytes are a token is that token; otherwise,
starting from single bytes, the adjacent pair whose *concatenation* has the lowest rank is
merged (leftmost first on ties), until no concatenation is a token. The GPT-2 tokenizer
(`bpe.gpt2.tokenizer`) and the lab's reader of .tiktoken files (`bpe.formats`) both
encode with it; `recover_merge` reads a merge list back out of the ranks, as minbpe does.

    >>> ranks = {bytes([b]): b for b in range(256)} | {b"ab": 256, b"abc": 257}
    >>> rank_merge(b"abcab", ranks)
    [257, 256]
"""

from __future__ import annotations

from heapq import heapify, heappop, heappush
from itertools import repeat

LONG_CHUNK = 256  # bytes; longer chunks merge with a heap instead of rescanning a list
_NO_RANK = 1 << 62
_SINGLE_BYTES = [bytes([value]) for value in range(256)]


def rank_merge(piece: bytes, ranks: dict[bytes, int], *, whole: bool = True) -> list[int]:
    """tiktoken's ``byte_pair_encode``: ``piece`` to ranks (every single byte must have one).

    ``whole``: a piece that is a token is that token (tiktoken's first step); False runs
    the merging alone (for part of a chunk)."""
    if whole:
        found = ranks.get(piece)
        if found is not None:
            return [found]
    if len(piece) > LONG_CHUNK:
        return merge_by_rank_heap(piece, ranks)
    return merge_by_rank(piece, ranks)


def recover_merge(token: bytes, ranks: dict[bytes, int]) -> tuple[bytes, bytes] | None:
    """The pair tiktoken's rule merges last when it builds ``token`` from its bytes using only
    lower ranks (minbpe's ``recover_merges``); None when the lower ranks do not build two parts."""
    limit = ranks[token]
    get = ranks.get
    parts = [token[i : i + 1] for i in range(len(token))]
    while len(parts) > 2:
        best = None
        best_rank = limit
        for i in range(len(parts) - 1):
            rank = get(parts[i] + parts[i + 1])
            if rank is not None and rank < best_rank:
                best, best_rank = i, rank
        if best is None:
            return None
        parts[best : best + 2] = [parts[best] + parts[best + 1]]
    if len(parts) != 2:
        return None
    return parts[0], parts[1]


def merge_by_rank(piece: bytes, ranks: dict[bytes, int]) -> list[int]:
    """Merge the pair whose concatenation has the lowest rank, leftmost first, until none is a token.

    Example (GPT-2): b'hello' -> [b'h', b'ello'] -> [31373]. Quadratic in the chunk's length,
    with the scans done by C (`min`, `list.index`): the fastest way for short chunks.
    """
    get = ranks.get
    parts = list(map(_SINGLE_BYTES.__getitem__, piece))
    pair_ranks = list(map(get, map(bytes.__add__, parts, parts[1:]), repeat(_NO_RANK)))
    while pair_ranks:
        best = min(pair_ranks)
        if best == _NO_RANK:
            break
        i = pair_ranks.index(best)  # the leftmost of equal ranks
        parts[i] += parts.pop(i + 1)
        del pair_ranks[i]
        if i > 0:
            pair_ranks[i - 1] = get(parts[i - 1] + parts[i], _NO_RANK)
        if i < len(pair_ranks):
            pair_ranks[i] = get(parts[i] + parts[i + 1], _NO_RANK)
    return [ranks[part] for part in parts]


def merge_by_rank_heap(piece: bytes, ranks: dict[bytes, int]) -> list[int]:
    """`merge_by_rank` for long chunks (a run of 10,000 spaces): a linked list and a heap
    keyed by (rank, position), so each merge costs a logarithm, not a scan."""
    get = ranks.get
    n = len(piece)
    parts = [piece[i : i + 1] for i in range(n)]
    nxt = list(range(1, n + 1))
    nxt[-1] = -1
    prev = list(range(-1, n - 1))
    live = [-1] * n  # the heap key of the pair starting at each position; others are stale
    heap = []
    for p in range(n - 1):
        rank = get(parts[p] + parts[p + 1])
        if rank is not None:
            live[p] = rank << 32 | p
            heap.append(live[p])
    heapify(heap)
    while heap:
        key = heappop(heap)
        p = key & 0xFFFFFFFF
        if live[p] != key:
            continue
        q = nxt[p]
        parts[p] += parts[q]
        parts[q] = b""
        live[q] = -1
        nxt[p] = right = nxt[q]
        if right >= 0:
            prev[right] = p
        for left in (prev[p], p):  # the two pairs that now contain the merged part
            if left < 0 or nxt[left] < 0:
                if left >= 0:
                    live[left] = -1
                continue
            rank = get(parts[left] + parts[nxt[left]])
            live[left] = -1 if rank is None else rank << 32 | left
            if rank is not None:
                heappush(heap, live[left])
    return [ranks[part] for part in parts if part]
