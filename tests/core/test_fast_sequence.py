"""The fast engine's sequence keeps its pair table true after any merges, including the
rare merge into a token that exists already (two ways of spelling one string): every
pair's count is what a recount of the sequence finds, and its entry lists every position
where it occurs (an array, or one int for a pair listed once)."""

from __future__ import annotations

from collections import Counter

import pytest
from helpers import MAX_EXAMPLES
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe import fast
from bpe.fast import HEAVY, _Sequence


def weight_at(seq: _Sequence, p: int) -> int:
    """The frequency of the chunk at position ``p``, found from scratch: a chunk seen
    `HEAVY` times or more keeps its frequency aside."""
    if seq.unweighted:
        return 1
    weight = seq.weights[p]
    return weight if weight != HEAVY else seq.heavy_weights[seq.heavy_positions.index(p)]


def recount(seq: _Sequence) -> tuple[Counter, dict]:
    """Pair counts and positions found by walking the sequence's tokens from scratch."""
    counts, positions = Counter(), {}
    symbols = seq.symbols
    p = 0
    while p < len(symbols) - 1:
        a = symbols[p]
        q = p + (seq.lengths[a] if a != seq.edge else 1)
        b = symbols[q]
        if a != seq.edge and b != seq.edge:
            key = a << seq.shift | b
            counts[key] += weight_at(seq, p)
            positions.setdefault(key, set()).add(p)
        p = q
    return counts, positions


def check(seq: _Sequence) -> None:
    counts, positions = recount(seq)
    # the table holds exactly the pairs at the floor or above it
    kept = {key: count for key, count in counts.items() if count >= seq.kept_from}
    assert {key: seq.count(entry) for key, entry in seq.pairs.items()} == kept
    below = {key: (count, min(positions[key])) for key, count in counts.items() if count < seq.kept_from}
    assert seq.below_floor() == below
    for key in kept:
        found = positions[key]
        listed = set(seq.positions(seq.pairs[key]))
        assert found <= listed, f"pair {key} occurs at {sorted(found - listed)}, which its entry does not list"
        assert seq.first_position(key) == min(found)
    if seq.cold is None:
        assert seq.kept_from == seq.minimum
        return
    # below a raised floor, each pair that can win has one record: a count it cannot exceed,
    # and every position where it occurs
    records = {}
    for key, bound, listed in seq.cold.records(seq.minimum):
        assert key not in records and key not in seq.pairs, f"pair {key} is listed twice"
        records[key] = bound, set(listed)
    for key, count in counts.items():
        if seq.minimum <= count < seq.kept_from:
            bound, listed = records[key]
            assert count <= bound and positions[key] <= listed, f"pair {key}: {count} at {positions[key]}"


def merge_picked(seq: _Sequence, pick: int, into_existing: bool) -> tuple[dict, list]:
    """Merge the pair ``pick`` chooses among those in the table into a token of the same
    length that exists already (its string could be spelled two ways), or a new one."""
    key = sorted(seq.pairs)[pick % len(seq.pairs)]
    a, b = key >> seq.shift, key & seq.mask
    length = seq.lengths[a] + seq.lengths[b]
    existing = [t for t in range(len(seq.lengths)) if seq.lengths[t] == length and t not in (a, b)]
    new_id = existing[pick % len(existing)] if into_existing and existing else len(seq.lengths)
    return seq.merge(key, new_id)


# Frequencies on both sides of HEAVY (a byte holds the weight below it) and past 2**32
# (a count needs 8 bytes).
frequencies = st.one_of(st.integers(1, 3), st.integers(HEAVY - 2, HEAVY + 2), st.just(2**40))
words = st.lists(
    st.tuples(st.lists(st.sampled_from("abc"), min_size=1, max_size=9), frequencies), min_size=1, max_size=8
)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(
    words=words,
    choices=st.lists(st.tuples(st.integers(0, 10**6), st.booleans()), max_size=12),
    floor=st.sampled_from([1, 2, 3, HEAVY + 1]),
    tallied_from=st.sampled_from([fast.STALE_TALLIED_FROM, 0]),
)
def test_the_pair_table_stays_true_through_any_merges(words, choices, floor, tallied_from):
    # Pairs below the floor (the minimum frequency) are left out; a merge into a token that
    # exists already can lift one above it, and it is counted again from the symbols then.
    # Entries a merge leaves mostly stale are listed again (tallied from groups of any
    # size, they are at every merge that can).
    seq = _Sequence(words, {"a": 0, "b": 1, "c": 2}, 64, floor=floor)
    check(seq)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fast, "STALE_TALLIED_FROM", tallied_from)
        for pick, into_existing in choices:
            if not seq.pairs:
                break
            changes, grown = merge_picked(seq, pick, into_existing)
            check(seq)
            assert all(changes[g] > 0 for g in grown)


def test_an_entry_a_merge_leaves_mostly_stale_lists_only_where_its_pair_occurs():
    # ("x", "a") is listed at 500 positions; merging ("a", "b") leaves it at 200 of them
    # (the "xac" chunks). 300 went stale in one group of the merge, more than half: the
    # entry is listed again, so it holds the 200 and nothing of the 300. Below half, or in
    # a text trained whole (chunks seen once: no weights), it keeps its stale positions,
    # skipped when read.
    ids = {"x": 0, "a": 1, "b": 2, "c": 3}

    def listed_after_merging_ab(xab: int, xac: int, frequency: int) -> int:
        seq = _Sequence([(list("xab"), frequency)] * xab + [(list("xac"), frequency)] * xac, ids, 64)
        xa, ab = ids["x"] << seq.shift | ids["a"], ids["a"] << seq.shift | ids["b"]
        assert len(seq.pairs[xa]) - 1 == xab + xac
        seq.merge(ab, len(seq.lengths))
        assert seq.count(seq.pairs[xa]) == xac * frequency
        listed = len(seq.pairs[xa]) - 1
        check(seq)  # (which drops the stale positions before the first: read before it)
        return listed

    assert listed_after_merging_ab(300, 200, 2) == 200
    assert listed_after_merging_ab(200, 300, 2) == 500
    assert listed_after_merging_ab(300, 200, 1) == 500


def test_a_merge_in_a_run_lists_no_pair_the_next_occurrence_makes_stale():
    # "aaaa" then "aaa" (edges at 0, 5 and 9), each seen twice, merging ("a", "a"): in
    # "aaaa", 1 and 3 merge, so ("aa", "a") at 1 is gone as soon as it is made, and
    # ("aa", "aa") is listed there instead. In "aaa", ("aa", "a") at 6 stays.
    ids = {"a": 0}
    seq = _Sequence([(list("aaaa"), 2), (list("aaa"), 2)], ids, 64)
    aa = len(seq.lengths)
    seq.merge(ids["a"] << seq.shift | ids["a"], aa)
    assert list(seq.positions(seq.pairs[aa << seq.shift | ids["a"]])) == [6]
    assert list(seq.positions(seq.pairs[aa << seq.shift | aa])) == [1]
    check(seq)  # (after: it drops stale positions before a pair's first)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(
    chunks=st.lists(st.tuples(st.binary(min_size=1, max_size=6), st.integers(1, 3)), min_size=1, max_size=8),
    shuffled=st.permutations(range(256)),
    max_tokens=st.sampled_from([300, 70_000]),
)
def test_words_given_as_their_bytes_are_laid_out_as_their_tokens(chunks, shuffled, max_tokens):
    # The merge phase gives a chunk of the byte alphabet as its UTF-8 bytes, spelled in C
    # through the byte ids (here in any order, as Hugging Face's rule numbers them, and with
    # an edge past U+FFFF): the same sequence as the chunk given as byte tokens one by one.
    from bpe.fast import fast_steps
    from bpe.reference import reference_steps

    ids = {bytes((value,)): i for i, value in enumerate(shuffled)}
    as_bytes = _Sequence(chunks, dict(ids), max_tokens)
    as_tokens = _Sequence([([bytes((b,)) for b in chunk], n) for chunk, n in chunks], dict(ids), max_tokens)
    assert as_bytes.symbols == as_tokens.symbols and as_bytes.weights == as_tokens.weights
    assert {key: as_bytes.count(e) for key, e in as_bytes.pairs.items()} == {
        key: as_tokens.count(e) for key, e in as_tokens.pairs.items()
    }
    base = [bytes((value,)) for value in shuffled]
    for engine in (fast_steps, reference_steps):
        steps = [
            list(engine(words, base, target_vocab_size=270, minimum_pair_frequency=1, top_k=3))
            for words in (chunks, [([bytes((b,)) for b in chunk], n) for chunk, n in chunks])
        ]
        assert steps[0] == steps[1]


@settings(max_examples=MAX_EXAMPLES // 2 or 1, deadline=None)
@given(text=st.text(alphabet="abc", min_size=200, max_size=600), picks=st.lists(st.integers(0, 10**6), max_size=30))
def test_a_whole_texts_entries_stay_true_with_their_stale_positions(text, picks):
    # Trained whole (no weights), the entries a merge takes occurrences from keep listing
    # them (written again, they cost a third of such a training's time for a tenth of its
    # memory: docs/speed.md); reading skips them, so the table stays true merge after merge.
    seq = _Sequence([(text, 1)], {"a": 0, "b": 1, "c": 2}, 256)
    for pick in picks:
        if not seq.pairs:
            break
        merge_picked(seq, pick, into_existing=False)
        check(seq)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(
    words=words,
    held_pairs=st.integers(1, 4),
    steps=st.lists(
        st.tuples(st.sampled_from(["merge", "merge into an existing token", "raise", "lower"]), st.integers(0, 10**6)),
        max_size=16,
    ),
    floor=st.sampled_from([1, 2, 3]),
)
def test_pairs_below_a_raised_floor_wait_with_their_positions(words, held_pairs, steps, floor):
    # The table holds only the pairs at its floor or above; raised (when merges fill the
    # table with rare pairs) it sends the others to wait, lowered it takes back those that
    # reach it, counted again from their positions; merges in between, into new tokens and
    # into tokens that exist already, keep every waiting pair's record true.
    seq = _Sequence(words, {"a": 0, "b": 1, "c": 2}, 64, floor=floor, held_pairs=held_pairs)
    check(seq)
    for action, pick in steps:
        if action == "raise" and len(seq.pairs) >= held_pairs:
            seq.raise_floor(at_most=pick % 300 + 1)
        elif action == "lower" and seq.kept_from > seq.minimum:
            for key in seq.lower_floor():
                assert seq.count(seq.pairs[key]) >= seq.kept_from
        elif action.startswith("merge") and seq.pairs:
            merge_picked(seq, pick, into_existing=action.endswith("token"))
        check(seq)
