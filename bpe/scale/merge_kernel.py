"""The compiled merge loop, in numba: `bpe.scale.compiled_merges` says what it computes and
why it exists; this module is only imported once numba is known to be there.

Arrays here grow by doubling, as Python's lists do: numba has no list of ints as compact as
`array`, and a pair's fields in separate arrays keep each loop reading one of them.
"""

from __future__ import annotations

import heapq

import numpy as np
from numba import njit

EMPTY = -1  # a free slot of the open-addressing tables
HASH_BASE = np.uint64(1_000_003)  # a token's characters hashed as a polynomial (mod 2**64)


@njit(cache=True, nogil=True)
def _grown(values, needed):
    """``values`` with room for ``needed`` items: itself, or a copy twice as long (or more)."""
    if needed <= values.shape[0]:
        return values
    size = max(values.shape[0] * 2, needed, 16)
    bigger = np.empty(size, values.dtype)
    bigger[: values.shape[0]] = values
    return bigger


@njit(cache=True, nogil=True, inline="always")
def _mixed(value):
    """``value``'s bits spread over all 64 (splitmix64's finaliser): packed pairs differ
    in few bits, and a table's slot is the low bits."""
    z = np.uint64(value) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, nogil=True, inline="always")
def _slot(keys, key):
    """Where ``key`` is in an open-addressing table, or the free slot where it would go."""
    mask = keys.shape[0] - 1
    slot = np.int64(_mixed(key) & np.uint64(mask))
    while keys[slot] != EMPTY and keys[slot] != key:
        slot = (slot + 1) & mask
    return slot


@njit(cache=True, nogil=True)
def _rehashed(keys, values, needed):
    """The pair table with room for ``needed`` keys at most half full (itself if it has)."""
    if 2 * needed <= keys.shape[0]:
        return keys, values
    size = keys.shape[0]
    while 2 * needed > size:
        size *= 2
    new_keys = np.full(size, EMPTY, np.int64)
    new_values = np.empty(size, np.int64)
    for old in range(keys.shape[0]):
        if keys[old] != EMPTY:
            slot = _slot(new_keys, keys[old])
            new_keys[slot] = keys[old]
            new_values[slot] = values[old]
    return new_keys, new_values


@njit(cache=True, nogil=True)
def _chunk_weights(chunk_lengths, frequencies, n):
    """Each position's chunk (for its weight, the chunk's frequency), the weights, and the
    sequence's length in tokens (each chunk's length times its frequency)."""
    chunk_of = np.zeros(n, np.int32)
    weight = frequencies.astype(np.int64)
    length = np.int64(0)
    p = 1
    for chunk in range(chunk_lengths.shape[0]):
        size = np.int64(chunk_lengths[chunk])
        chunk_of[p : p + size] = chunk
        length += size * weight[chunk]
        p += size + 1
    return chunk_of, weight, length


@njit(cache=True, nogil=True)
def _token_table(contents, content_ends, most):
    """The tokens before any merge, with room for ``most``: where each one's code units
    start in ``contents`` and how many, their hash and ``HASH_BASE`` to the power of their
    length (so that ``hash(a + b) = hash(a) * power(b) + hash(b)``), and the open-addressing
    table from a hash's slot to its token."""
    content_start = np.zeros(most, np.int64)
    content_length = np.zeros(most, np.int64)
    token_hash = np.zeros(most, np.uint64)
    token_power = np.ones(most, np.uint64)
    slots = 4
    while slots < 2 * most:
        slots *= 2
    token_table = np.full(slots, EMPTY, np.int64)
    start = 0
    for token in range(content_ends.shape[0]):
        end = content_ends[token]
        content_start[token] = start
        content_length[token] = end - start
        value = np.uint64(0)
        power = np.uint64(1)
        for k in range(start, end):
            value = value * HASH_BASE + np.uint64(contents[k] + 1)
            power = power * HASH_BASE
        token_hash[token] = value
        token_power[token] = power
        slot = np.int64(_mixed(value) & np.uint64(slots - 1))
        while token_table[slot] != EMPTY:
            slot = (slot + 1) & (slots - 1)
        token_table[slot] = token
        start = end
    return content_start, content_length, token_hash, token_power, token_table


@njit(cache=True, nogil=True)
def _spelled_token(a, b, value, token_table, token_hash, content_start, content_length, pool):
    """``(id, slot)`` of the token spelled ``a`` then ``b`` (hash ``value``), or ``(-1, the
    free slot for it)`` if the vocabulary has no such string: ``"a" + "bc"`` after ``"ab" +
    "c"`` is the same token, found by its hash and then compared code unit by code unit."""
    slots = token_table.shape[0]
    size = content_length[a] + content_length[b]
    slot = np.int64(_mixed(value) & np.uint64(slots - 1))
    while token_table[slot] != EMPTY:
        other = token_table[slot]
        if token_hash[other] == value and content_length[other] == size:
            at = content_start[other]
            same = True
            for part in (a, b):
                for k in range(content_length[part]):
                    if pool[at + k] != pool[content_start[part] + k]:
                        same = False
                        break
                if not same:
                    break
                at += content_length[part]
            if same:
                return other, slot
        slot = (slot + 1) & (slots - 1)
    return np.int64(-1), slot


@njit(cache=True, nogil=True, inline="always")
def _listed(pair, at, positions, used, list_start, list_length, list_room, list_head, in_order):
    """``positions`` and ``used`` once ``at`` is listed for ``pair``: a full list moves to
    the pool's end with twice the room (the old room is left unused, as a list's old array
    is freed), and a position below the last one listed marks the list out of order."""
    if list_length[pair] == list_room[pair]:
        room = max(2 * list_room[pair], 2)
        positions = _grown(positions, used + room)
        positions[used : used + list_length[pair]] = positions[list_start[pair] : list_start[pair] + list_length[pair]]
        list_start[pair] = used
        list_room[pair] = room
        used += room
    if list_length[pair] > list_head[pair] and positions[list_start[pair] + list_length[pair] - 1] > at:
        in_order[pair] = False
    positions[list_start[pair] + list_length[pair]] = at
    list_length[pair] += 1
    return positions, used


@njit(cache=True, nogil=True)
def _kept_changes(change, touched, touched_count, kept):
    """``(nonzero, cut)``: how many of the ``touched`` pairs changed, and the smallest change
    a step keeps (`bpe.steps.CHANGES_KEPT` of them, ``kept``, and any tied with the last:
    changes of 9, 7, 7, 2 with ``kept=2`` keep 9, 7, 7, so the cut is 7)."""
    nonzero = 0
    for t in range(touched_count):
        if change[touched[t]] != 0:
            nonzero += 1
    if nonzero <= kept:
        return nonzero, np.int64(1)
    sizes = np.empty(nonzero, np.int64)
    j = 0
    for t in range(touched_count):
        if change[touched[t]] != 0:
            sizes[j] = abs(change[touched[t]])
            j += 1
    sizes.sort()
    return nonzero, sizes[nonzero - kept]


@njit(cache=True, nogil=True)
def _rare_pairs(
    symbols, span, edge, keys, indexes, count, minimum, taken, search, ranked_pairs,
    ranked, ranked_left, ranked_right, ranked_count,
):  # fmt: skip
    """Fill ``ranked`` after its first ``ranked_pairs`` with the best pairs counted fewer
    than ``minimum`` times (the heap holds none of them), as many as fit; return how many
    it holds. Near the end of training, when fewer pairs than the runners-up asked for can
    win, the steps show these too, as the fast engine's do: found by reading the whole
    sequence, each pair at its first position, ranked by count and then by that position
    (read in order, a later pair of the same count goes after: 'ab' twice at 3 and 'cd'
    twice at 1 rank 'cd', 'ab')."""
    wanted = ranked.shape[0]
    for p in range(symbols.shape[0] - 1):
        left = symbols[p]
        if left < 0 or left == edge:  # inside a token, or between chunks
            continue
        right = symbols[p + span[left]]
        if right == edge:
            continue
        pair = indexes[_slot(keys, (np.int64(left) << 32) | right)]
        now = count[pair]
        if now >= minimum or taken[pair] == search:
            continue
        taken[pair] = search
        if ranked_pairs == wanted and now <= ranked_count[wanted - 1]:
            continue  # no better than the last one kept
        j = min(ranked_pairs, wanted - 1)
        while j > 0 and ranked_count[j - 1] < now:  # (the heap's pairs, counted more, stay first)
            ranked[j], ranked_left[j], ranked_right[j], ranked_count[j] = (
                ranked[j - 1], ranked_left[j - 1], ranked_right[j - 1], ranked_count[j - 1]
            )  # fmt: skip
            j -= 1
        ranked[j], ranked_left[j], ranked_right[j], ranked_count[j] = pair, left, right, now
        ranked_pairs = min(ranked_pairs + 1, wanted)
    return ranked_pairs


@njit(cache=True, nogil=True)
def learn_merges(
    symbols,
    chunk_lengths,
    frequencies,
    contents,
    content_ends,
    edge,
    target,
    minimum,
    max_chars,
    kept,
    top_k,
    dead,
    sweep_slack,
):
    """Learn merges on ``symbols`` (token ids, chunks laid end to end between ``edge``
    slots, as `bpe.fast.spelled_words` writes them) until the vocabulary has ``target``
    tokens or `bpe.steps` says stop. The tokens before any merge are spelled by
    ``contents`` (code units) up to each of ``content_ends``.

    Returns, per merge: its pair's ids, its token's id (a new token's is the next id),
    its frequency, the sequence length after it, where its count changes end, where its
    top pairs end; then the changes (pair ids, delta: the ``kept`` largest and any tied
    with the last), the ``top_k`` best pairs before each merge, the winner first (pair ids,
    count), and the stop (an index into `bpe.scale.compiled_merges._STOPS`). The heap is
    swept of pairs that cannot win when it has gained ``sweep_slack`` entries and doubled
    since the last sweep.
    """
    n = symbols.shape[0]
    chunk_of, weight, length = _chunk_weights(chunk_lengths, frequencies, n)

    # ---- tokens: how many positions each covers, and its characters for the set of strings
    initial = content_ends.shape[0]
    most = max(target, initial) + 1
    span = np.ones(most, np.int64)
    content_start, content_length, token_hash, token_power, token_table = _token_table(contents, content_ends, most)
    pool_of_contents = _grown(contents.copy(), 2 * contents.shape[0] + 16)
    contents_used = contents.shape[0]
    tokens = initial

    # ---- the pair table: first the counts, then each pair's positions, ascending
    keys = np.full(1 << 12, EMPTY, np.int64)  # packed pair (left << 32 | right) -> pair index
    indexes = np.empty(1 << 12, np.int64)
    count = np.zeros(1 << 10, np.int64)
    listed = np.zeros(1 << 10, np.int64)
    pairs = 0
    for p in range(n - 1):
        left, right = symbols[p], symbols[p + 1]
        if left == edge or right == edge:
            continue
        key = (np.int64(left) << 32) | right
        slot = _slot(keys, key)
        if keys[slot] == EMPTY:
            if 2 * (pairs + 1) > keys.shape[0]:
                keys, indexes = _rehashed(keys, indexes, pairs + 1)
                slot = _slot(keys, key)
            keys[slot] = key
            indexes[slot] = pairs
            count = _grown(count, pairs + 1)
            listed = _grown(listed, pairs + 1)
            count[pairs] = 0
            listed[pairs] = 0
            pairs += 1
        pair = indexes[slot]
        count[pair] += weight[chunk_of[p]]
        listed[pair] += 1
    room = max(2 * pairs, 1 << 10)
    left_of = np.empty(room, np.int32)
    right_of = np.empty(room, np.int32)
    count = _grown(count[:pairs].copy(), room)
    list_start = np.empty(room, np.int64)
    list_length = np.zeros(room, np.int64)
    list_room = np.empty(room, np.int64)
    list_head = np.zeros(room, np.int64)  # positions before it are known stale
    in_order = np.ones(room, np.bool_)
    first_hint = np.empty(room, np.int64)  # at or before the pair's first occurrence
    change_stamp = np.zeros(room, np.int64)  # the merge that last changed its count
    change = np.zeros(room, np.int64)  # ... and by how much
    listed_stamp = np.zeros(room, np.int64)  # the merge that last listed a position for it
    used = 0
    for pair in range(pairs):
        list_start[pair] = used
        list_room[pair] = listed[pair]
        used += listed[pair]
    positions = np.empty(used + used // 2 + 16, np.int32)
    for p in range(n - 1):
        left, right = symbols[p], symbols[p + 1]
        if left == edge or right == edge:
            continue
        pair = indexes[_slot(keys, (np.int64(left) << 32) | right)]
        if list_length[pair] == 0:
            left_of[pair], right_of[pair], first_hint[pair] = left, right, p
        positions[list_start[pair] + list_length[pair]] = p
        list_length[pair] += 1

    # ---- the heap of candidates: (-count, a position at or before the first, pair)
    heap = [(np.int64(0), np.int64(0), np.int64(0))]
    heap.pop()
    for pair in range(pairs):
        if count[pair] >= minimum:
            heap.append((-count[pair], first_hint[pair], np.int64(pair)))
    heapq.heapify(heap)
    kept_after_sweep = len(heap)

    # ---- what is returned
    merge_left = np.empty(1024, np.int32)
    merge_right = np.empty(1024, np.int32)
    merge_token = np.empty(1024, np.int32)
    merge_frequency = np.empty(1024, np.int64)
    merge_length = np.empty(1024, np.int64)
    change_end = np.empty(1024, np.int64)
    changed_left = np.empty(1 << 14, np.int32)
    changed_right = np.empty(1 << 14, np.int32)
    changed_by = np.empty(1 << 14, np.int64)
    changes = 0
    top_end = np.empty(1024, np.int64)
    top_left = np.empty(1024 if top_k else 0, np.int32)
    top_right = np.empty(1024 if top_k else 0, np.int32)
    top_count = np.empty(1024 if top_k else 0, np.int64)
    tops = 0
    # ---- one search's best pairs, in order: the winner, then the runners-up
    wanted = max(top_k, 1)
    ranked = np.empty(wanted, np.int64)
    ranked_left = np.empty(wanted, np.int32)
    ranked_right = np.empty(wanted, np.int32)
    ranked_count = np.empty(wanted, np.int64)
    taken = np.zeros(room, np.int64)  # the search that last ranked the pair (a second heap entry is dropped)
    search = 0
    merges = 0
    spelled = np.int64(0)  # characters of the merges' tokens so far (`bpe.steps.over_budget`)
    stop = 0
    touched = np.empty(1 << 10, np.int64)  # the pairs one merge changed
    stamp = 0

    while True:
        if tokens >= target:
            stop = 0
            break
        # ---- the best pairs: the heap's smallest entries that hold their pair's key now
        search += 1
        found_pairs = 0
        while found_pairs < wanted and len(heap) > 0:
            negative, first, pair = heapq.heappop(heap)
            now = count[pair]
            if now < minimum or taken[pair] == search:
                continue  # merged away or too rare (a merge that lifts it pushes it again), or ranked already
            if -negative != now:
                if -negative > now:  # it fell: back with its count (a grown one has its own entry)
                    heapq.heappush(heap, (-now, np.int64(max(first, first_hint[pair])), pair))
                continue
            if not in_order[pair]:
                head = list_start[pair] + list_head[pair]
                positions[head : list_start[pair] + list_length[pair]].sort()
                in_order[pair] = True
            a, b = left_of[pair], right_of[pair]
            second = span[a]
            found = np.int64(-1)
            while list_head[pair] < list_length[pair]:
                p = positions[list_start[pair] + list_head[pair]]
                if symbols[p] == a and symbols[p + second] == b:
                    found = np.int64(p)
                    break
                list_head[pair] += 1
            first_hint[pair] = found
            if found != first:
                heapq.heappush(heap, (-now, np.int64(found), pair))
                continue
            taken[pair] = search
            ranked[found_pairs], ranked_left[found_pairs], ranked_right[found_pairs] = pair, a, b
            ranked_count[found_pairs] = now
            found_pairs += 1
        # the runners-up go back as they were: their keys are the ones they hold now
        for j in range(1, found_pairs):
            heapq.heappush(heap, (-ranked_count[j], first_hint[ranked[j]], ranked[j]))
        best = ranked[0] if found_pairs > 0 else -1
        ranked_pairs = found_pairs
        if 0 < found_pairs < top_k and minimum > 1:  # too few pairs can win: the rare ones follow
            ranked_pairs = _rare_pairs(
                symbols, span, edge, keys, indexes, count, minimum, taken, search, found_pairs,
                ranked, ranked_left, ranked_right, ranked_count,
            )  # fmt: skip
        if best < 0:
            stop = 1  # no pair left, unless one occurs too rarely to win
            for pair in range(pairs):
                if count[pair] > 0:
                    stop = 2
                    break
            break
        a, b = left_of[best], right_of[best]
        frequency = count[best]
        if max_chars >= 0 and spelled + content_length[a] + content_length[b] > max_chars:
            stop = 3
            break
        spelled += content_length[a] + content_length[b]

        # ---- the merged token: a string the vocabulary holds keeps its id
        value = token_hash[a] * token_power[b] + token_hash[b]
        size = content_length[a] + content_length[b]
        new_id, slot = _spelled_token(
            a, b, value, token_table, token_hash, content_start, content_length, pool_of_contents
        )
        if new_id < 0:
            new_id = tokens
            tokens += 1
            token_table[slot] = new_id
            pool_of_contents = _grown(pool_of_contents, contents_used + size)
            at = contents_used
            pool_of_contents[at : at + content_length[a]] = pool_of_contents[
                content_start[a] : content_start[a] + content_length[a]
            ]
            pool_of_contents[at + content_length[a] : at + size] = pool_of_contents[
                content_start[b] : content_start[b] + content_length[b]
            ]
            content_start[new_id] = at
            content_length[new_id] = size
            contents_used += size
            token_hash[new_id] = value
            token_power[new_id] = token_power[a] * token_power[b]
            span[new_id] = span[a] + span[b]

        # ---- room for what this merge can add: two pairs and two positions an occurrence
        occurrences = list_length[best] - list_head[best]
        if pairs + 2 * occurrences > left_of.shape[0]:
            room = pairs + 2 * occurrences
            left_of = _grown(left_of, room)
            right_of = _grown(right_of, room)
            count = _grown(count, room)
            list_start = _grown(list_start, room)
            list_length = _grown(list_length, room)
            list_room = _grown(list_room, room)
            list_head = _grown(list_head, room)
            in_order = _grown(in_order, room)
            first_hint = _grown(first_hint, room)
            change_stamp = _grown(change_stamp, room)
            change = _grown(change, room)
            listed_stamp = _grown(listed_stamp, room)
            taken = _grown(taken, room)
        keys, indexes = _rehashed(keys, indexes, pairs + 2 * occurrences)
        stamp += 1
        touched_count = 0
        removed = np.int64(0)
        second = span[a]
        after = span[a] + span[b]

        # ---- merge every occurrence, left to right, and change the counts it touches
        k = list_head[best]
        while k < list_length[best]:
            p = positions[list_start[best] + k]
            k += 1
            if symbols[p] != a or symbols[p + second] != b:
                continue  # stale: consumed by an earlier occurrence ('aaa'), or merged otherwise
            w = weight[chunk_of[p]]
            removed += w
            before = p - 1
            if symbols[before] < 0:  # the end of a longer token: minus its length
                before = p + symbols[before]
            x = symbols[before]
            y = symbols[p + after]
            # the pairs this occurrence changes: (a, b) and, beside an edge-free neighbour,
            # (x, a) -> (x, new) on the left and (b, y) -> (new, y) on the right
            for side in range(5):
                if side == 0:
                    key, delta, at = (np.int64(a) << 32) | b, -w, -1
                elif side == 1 or side == 2:
                    if x == edge:
                        continue
                    if side == 1:
                        key, delta, at = (np.int64(x) << 32) | a, -w, -1
                    else:
                        key, delta, at = (np.int64(x) << 32) | new_id, w, before
                else:
                    if y == edge:
                        continue
                    if side == 3:
                        key, delta, at = (np.int64(b) << 32) | y, -w, -1
                    else:
                        key, delta, at = (np.int64(new_id) << 32) | y, w, p
                slot = _slot(keys, key)
                if keys[slot] == EMPTY:  # a pair never seen: only the new token's
                    pair = pairs
                    pairs += 1
                    keys[slot] = key
                    indexes[slot] = pair
                    left_of[pair] = key >> 32
                    right_of[pair] = key & 0xFFFFFFFF
                    count[pair] = 0
                    list_start[pair] = 0
                    list_length[pair] = 0
                    list_room[pair] = 0
                    list_head[pair] = 0
                    in_order[pair] = True
                    first_hint[pair] = at
                    change_stamp[pair] = 0
                    listed_stamp[pair] = 0
                    taken[pair] = 0
                else:
                    pair = indexes[slot]
                count[pair] += delta
                if change_stamp[pair] != stamp:
                    change_stamp[pair] = stamp
                    change[pair] = 0
                    touched = _grown(touched, touched_count + 1)
                    touched[touched_count] = pair
                    touched_count += 1
                change[pair] += delta
                if at >= 0:  # listed where it now occurs
                    positions, used = _listed(
                        pair, at, positions, used, list_start, list_length, list_room, list_head, in_order
                    )
                    if at < first_hint[pair]:
                        first_hint[pair] = at
                    listed_stamp[pair] = stamp  # listed anew: it goes back to the heap
            symbols[p] = new_id
            symbols[p + second] = dead
            symbols[p + after - 1] = -after  # (the same slot as the last when b is one symbol)
        length -= removed

        # ---- record the merge and the changes the steps keep
        merge_left = _grown(merge_left, merges + 1)
        merge_right = _grown(merge_right, merges + 1)
        merge_token = _grown(merge_token, merges + 1)
        merge_frequency = _grown(merge_frequency, merges + 1)
        merge_length = _grown(merge_length, merges + 1)
        change_end = _grown(change_end, merges + 1)
        merge_left[merges], merge_right[merges], merge_token[merges] = a, b, new_id
        merge_frequency[merges] = frequency
        merge_length[merges] = length
        nonzero, cut = _kept_changes(change, touched, touched_count, kept)
        changed_left = _grown(changed_left, changes + nonzero)
        changed_right = _grown(changed_right, changes + nonzero)
        changed_by = _grown(changed_by, changes + nonzero)
        for t in range(touched_count):
            pair = touched[t]
            if abs(change[pair]) >= cut:
                changed_left[changes] = left_of[pair]
                changed_right[changes] = right_of[pair]
                changed_by[changes] = change[pair]
                changes += 1
            # a pair listed anew may now come first (its count grew, or an earlier position)
            if listed_stamp[pair] == stamp and count[pair] >= minimum:
                heapq.heappush(heap, (-count[pair], first_hint[pair], np.int64(pair)))
        change_end[merges] = changes
        if top_k:
            top_left = _grown(top_left, tops + ranked_pairs)
            top_right = _grown(top_right, tops + ranked_pairs)
            top_count = _grown(top_count, tops + ranked_pairs)
            top_left[tops : tops + ranked_pairs] = ranked_left[:ranked_pairs]
            top_right[tops : tops + ranked_pairs] = ranked_right[:ranked_pairs]
            top_count[tops : tops + ranked_pairs] = ranked_count[:ranked_pairs]
            tops += ranked_pairs
        top_end = _grown(top_end, merges + 1)
        top_end[merges] = tops
        merges += 1

        # ---- entries of pairs that can no longer win pile up: swept when the heap doubles
        if len(heap) > 2 * kept_after_sweep + sweep_slack:
            kept_heap = [entry for entry in heap if count[entry[2]] >= minimum]
            heapq.heapify(kept_heap)
            heap = kept_heap
            kept_after_sweep = len(heap)

    return (
        merge_left[:merges],
        merge_right[:merges],
        merge_token[:merges],
        merge_frequency[:merges],
        merge_length[:merges],
        change_end[:merges],
        top_end[:merges],
        changed_left[:changes],
        changed_right[:changes],
        changed_by[:changes],
        top_left[:tops],
        top_right[:tops],
        top_count[:tops],
        stop,
    )
