"""The fast engine reproduces the reference engine, merge for merge, top_pairs included."""

from collections import Counter

import pytest
from helpers import CHUNK_FLOORS, MAX_EXAMPLES, ROOT, WEIGHTED_CHUNKS, assert_same_steps, shared_file
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe import fast, train_steps
from bpe.errors import BpeError
from bpe.fast import _sweep as fast_sweep
from bpe.reference import reference_steps
from bpe.steps import TIE_RULES, StopReason


def both(text, vocab, **options):
    ref = train_steps(text, target_vocab_size=vocab, engine="reference", **options)
    fast = train_steps(text, target_vocab_size=vocab, engine="fast", **options)
    ref_steps, fast_steps = list(ref), list(fast)
    return ref_steps, fast_steps, ref.stop_reason, fast.stop_reason


def assert_same(text, vocab, **options):
    ref_steps, fast_steps, ref_stop, fast_stop = both(text, vocab, **options)
    assert_same_steps(ref_steps, fast_steps)
    assert ref_stop == fast_stop
    return ref_steps


# Small alphabets make ties, overlapping runs ('aaaa') and repeated structure likely.
texts = st.text(alphabet=st.sampled_from("ab c\n"), min_size=1, max_size=60)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(text=texts, extra=st.integers(0, 40), min_freq=st.integers(1, 3), top_k=st.integers(0, 5))
def test_engines_agree_on_generated_text(text, extra, min_freq, top_k):
    vocab = len(set(text)) + extra
    assert_same(text, vocab, minimum_pair_frequency=min_freq, top_k=top_k)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(
    text=st.text(min_size=1, max_size=40),
    extra=st.integers(0, 30),
    alphabet=st.sampled_from(["characters", "bytes"]),
    pretokenizer=st.sampled_from([None, "whitespace", "gpt2", "gpt4"]),
)
def test_engines_agree_on_any_unicode_in_every_mode(text, extra, alphabet, pretokenizer):
    base = 256 if alphabet == "bytes" else len(set(text))
    assert_same(text, base + extra, minimum_pair_frequency=1, top_k=3, alphabet=alphabet, pretokenizer=pretokenizer)


@pytest.mark.parametrize("text", ["aaaa", "abababab", "aaabdaaabac", "abcabcabc abcabc", "\n\n\n \n \n"])
def test_engines_agree_when_training_runs_out_of_pairs(text):
    steps = assert_same(text, 100, minimum_pair_frequency=1, top_k=10)
    assert steps, "expected at least one merge"


@pytest.mark.shared_data
@pytest.mark.parametrize(
    "name,chars,vocab",
    [
        ("the-verdict.txt", 20_000, 400),
        ("tinyshakespeare/input.txt", 30_000, 350),
        ("wikitext-2/valid.txt", 40_000, 350),
    ],
)
def test_engines_agree_on_real_corpora(name, chars, vocab):
    text = shared_file(name).read_text(encoding="utf-8")[:chars]
    steps = assert_same(text, vocab, top_k=10)
    assert steps[-1].vocab_size == vocab


@pytest.mark.shared_data
@pytest.mark.parametrize("pretokenizer", ["whitespace", "gpt2"])
def test_engines_agree_on_real_pretokenized_bytes(pretokenizer):
    text = shared_file("taylorswift.txt").read_text(encoding="utf-8")[:30_000]
    assert_same(text, 256 + 150, top_k=5, alphabet="bytes", pretokenizer=pretokenizer)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(
    words=WEIGHTED_CHUNKS,
    extra=st.integers(1, 30),
    tie_rule=st.sampled_from(TIE_RULES),
    floor=CHUNK_FLOORS,
    held_pairs=st.sampled_from([fast.HELD_PAIRS, 1, 2, 5]),
    tallied_from=st.sampled_from([fast.STALE_TALLIED_FROM, 0]),
)
def test_engines_agree_on_chunks_of_any_frequency(words, extra, tie_rule, floor, held_pairs, tallied_from):
    # The fast engine keeps a chunk's frequency in a byte below HEAVY and aside from it:
    # counts from both sides of that line, and past 2**32, are the reference engine's.
    # The heap is swept of stale entries as often as it can be (no slack), with the
    # same steps. Pairs below the minimum frequency are out of the fast engine's table,
    # yet the runners-up below it, shown when too few reach it, are the reference's. And
    # with a table of a few pairs, whose floor goes up and down all the time, too; and
    # with entries listed again whenever a merge leaves them half stale (a tally from
    # groups of any size), memory given back after every merge.
    base = sorted({symbol for chunk, _ in words for symbol in chunk})
    options = dict(target_vocab_size=len(base) + extra, minimum_pair_frequency=floor, top_k=4, tie_rule=tie_rule)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fast, "SWEEP_SLACK", 0)
        patch.setattr(fast, "HELD_PAIRS", held_pairs)
        patch.setattr(fast, "STALE_TALLIED_FROM", tallied_from)
        patch.setattr(fast, "RELEASED_BEFORE_TRIM", 0)
        assert list(fast.fast_steps(words, base, **options)) == list(reference_steps(words, base, **options))


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(
    text=texts, extra=st.integers(0, 40), min_freq=st.integers(1, 3), top_k=st.integers(0, 5), held=st.integers(1, 6)
)
def test_engines_agree_with_a_table_of_a_few_pairs(text, extra, min_freq, top_k, held):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fast, "HELD_PAIRS", held)
        assert_same(text, len(set(text)) + extra, minimum_pair_frequency=min_freq, top_k=top_k)


@pytest.mark.parametrize("tie_rule", TIE_RULES)
@pytest.mark.parametrize("pretokenizer", ["whitespace", None])
def test_pairs_waiting_below_the_tables_floor_leave_the_steps_as_they_were(tie_rule, pretokenizer):
    # The fast engine's table holds the pairs that can win soon (`fast.HELD_PAIRS`); the
    # rarer ones wait outside it and come back as its floor is lowered. The shipped
    # Shakespeare's letters in an alphabet of four (as DNA is written) start with fewer
    # pairs than a table of 32 holds, so merges fill it and its floor is raised, then
    # lowered again and again: the steps are the reference engine's all the same.
    text = (ROOT / "data" / "tinyshakespeare.txt").read_text(encoding="utf-8")[:20_000]
    text = "".join(c if c in " \n" else "acgt"[ord(c) % 4] for c in text)
    moved = Counter()

    def counted(name):
        method = getattr(fast._Sequence, name)

        def call(seq, *args):
            before = seq.kept_from
            found = method(seq, *args)
            moved[name] += seq.kept_from != before
            return found

        return call

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fast, "HELD_PAIRS", 32)
        for name in ("raise_floor", "lower_floor"):
            patch.setattr(fast._Sequence, name, counted(name))
        assert_same(text, 6 + 400, top_k=5, pretokenizer=pretokenizer, tie_rule=tie_rule)
    assert moved["raise_floor"] >= 1 and moved["lower_floor"] >= 10, moved


def test_sweeping_the_heap_leaves_the_steps_as_they_were():
    # Swept whenever it doubles (no slack), the heap still gives the reference engine's
    # steps on real text (the shipped Shakespeare), and the sweeps did happen.
    text = (ROOT / "data" / "tinyshakespeare.txt").read_text(encoding="utf-8")[:20_000]
    swept = []  # entries kept by each sweep

    def counted_sweep(*args):
        swept.append(fast_sweep(*args))
        return swept[-1]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fast, "SWEEP_SLACK", 0)
        patch.setattr(fast, "_sweep", counted_sweep)
        assert_same(text, 256 + 300, top_k=3, alphabet="bytes", pretokenizer="whitespace", minimum_pair_frequency=1)
    assert len(swept) >= 2, f"the heap was swept {len(swept)} times"


# ---------- the bound on the tokens' characters (max_vocab_characters)


def assert_budget_is_a_prefix(text, vocab, budget, **options):
    """Both engines stop at the same merge under ``budget``, that merge is the last whose
    token fits, and the steps are exactly the first ones of the unbounded run."""
    bounded = assert_same(text, vocab, max_vocab_characters=budget, **options)
    unbounded = assert_same(text, vocab, **options)
    assert bounded == unbounded[: len(bounded)]
    held = sum(len(step.token) for step in bounded)
    assert held <= budget
    stop = train_steps(text, target_vocab_size=vocab, max_vocab_characters=budget, **options)
    list(stop)
    if len(bounded) < len(unbounded):  # it stopped early: for the bound, just before the token that passes it
        assert stop.stop_reason is StopReason.VOCAB_CHARACTERS_REACHED
        assert held + len(unbounded[len(bounded)].token) > budget
    else:
        assert stop.stop_reason is not StopReason.VOCAB_CHARACTERS_REACHED
    return bounded, unbounded


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(
    text=texts,
    extra=st.integers(0, 40),
    min_freq=st.integers(1, 3),
    top_k=st.integers(0, 5),
    budget=st.integers(1, 200),
    tie_rule=st.sampled_from(["first_occurrence", "lexicographic", "huggingface"]),
)
def test_engines_stop_at_the_same_merge_within_a_character_budget(text, extra, min_freq, top_k, budget, tie_rule):
    vocab = len(set(text)) + extra
    assert_budget_is_a_prefix(text, vocab, budget, minimum_pair_frequency=min_freq, top_k=top_k, tie_rule=tie_rule)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(
    text=st.text(min_size=1, max_size=40),
    budget=st.integers(1, 120),
    alphabet=st.sampled_from(["characters", "bytes"]),
    pretokenizer=st.sampled_from([None, "whitespace", "gpt2"]),
)
def test_character_budget_in_every_mode(text, budget, alphabet, pretokenizer):
    base = 256 if alphabet == "bytes" else len(set(text))
    assert_budget_is_a_prefix(
        text, base + 30, budget, minimum_pair_frequency=1, top_k=3, alphabet=alphabet, pretokenizer=pretokenizer
    )


def test_merging_once_seen_pairs_stops_at_the_budget():
    # Without a pre-tokenizer, pairs seen once grow one token a symbol a merge: the lengths
    # add up quadratically, which is what the bound is for.
    text = "".join(chr(0x4E00 + i) for i in range(300))  # 300 distinct characters: every pair occurs once
    bounded, unbounded = assert_budget_is_a_prefix(text, 300 + 299, 1_000, minimum_pair_frequency=1, top_k=2)
    assert len(unbounded) == 299 and sum(len(s.token) for s in unbounded) > 40_000
    assert 0 < len(bounded) < 60


def test_explanation_says_the_bound_and_what_keeps_tokens_short():
    stream = train_steps("abcdefgh", target_vocab_size=20, minimum_pair_frequency=1, max_vocab_characters=5)
    assert [step.token for step in stream] == ["ab", "abc"]
    assert stream.explain_stop() == (
        "the next merge would take its tokens past 5 characters in all, the most one run may hold here; "
        "a minimum pair frequency of 2 keeps tokens short"
    )


@pytest.mark.parametrize("budget", [0, -3, 2.5, True, "10"])
def test_a_bad_character_budget_is_refused_in_one_line(budget):
    with pytest.raises(BpeError, match=r"max_vocab_characters=.* must be a positive whole number"):
        train_steps("abc", target_vocab_size=5, max_vocab_characters=budget)
