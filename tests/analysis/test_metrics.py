"""Metrics against hand-computed values, and the one-run curve against real re-encoding.

The worked example is Wikipedia's ``aaabdaaabac`` (base tokens a b c d):

    merge 1 ('a','a')  -> aa a b d aa a b a c      9 tokens   (pair count 4: overlaps count)
    merge 2 ('aa','a') -> aaa b d aaa b a c        7 tokens   (ties with ('a','b'); earlier wins)
    merge 3 ('aaa','b') -> aaab d aaab a c         5 tokens

and held-out ``aaabac``: 6 -> 5 -> 4 -> 3 tokens.
"""

from __future__ import annotations

from collections import Counter

import pytest

from bpe import BpeError, StopReason, TrainingRun, train_run
from bpe.analysis.metrics import (
    CurvePoint,
    compression,
    compression_curve,
    context_coverage,
    embedding_parameters,
    longest_tokens,
    parting_point,
    percentile,
    relative_attention_cost,
    size_summary,
    token_count_reduction,
    token_lengths,
    token_usage,
)
from bpe.corpora.corpus import load_corpus, split_train_heldout
from bpe.steps import make_step
from bpe.text import token_characters

TRAIN, HELDOUT = "aaabdaaabac", "aaabac"


@pytest.fixture(scope="module")
def wiki_run():
    return train_run(TRAIN, target_vocab_size=7, heldout_text=HELDOUT, engine="reference")


@pytest.fixture(scope="module")
def prose():
    """A real text with a held-out tail: the French lighthouse paragraph plus the multilingual sample."""
    text = load_corpus("lighthouse (French)") * 3 + load_corpus("multilingual sample")
    train, heldout = split_train_heldout(text, 0.3)
    return train, heldout, train_run(train, target_vocab_size=200, heldout_text=heldout)


# ==================== Compression and cost


def test_compression_is_characters_per_token():
    assert compression(52, 13) == 4.0
    assert compression(11, 5) == 2.2
    assert compression(0, 0) == 0.0


def test_token_count_reduction_is_share_of_character_tokens_saved():
    assert token_count_reduction(52, 13) == 0.75
    assert token_count_reduction(11, 11) == 0.0


def test_embedding_parameters_tied_and_untied():
    assert embedding_parameters(2000, 128) == 256_000
    assert embedding_parameters(2000, 128, tied=False) == 512_000
    with pytest.raises(BpeError, match="d=0"):
        embedding_parameters(2000, 0)


def test_attention_cost_grows_with_the_square_of_tokens():
    assert relative_attention_cost(250, 1000) == 0.0625
    assert relative_attention_cost(1000, 1000) == 1.0
    with pytest.raises(BpeError, match="baseline_tokens=0"):
        relative_attention_cost(5, 0)


# ==================== Coverage


def test_token_characters_counts_a_split_character_once():
    assert token_characters("abc") == 3
    euro = "€".encode()  # e2 82 ac
    assert [token_characters(euro[:1]), token_characters(euro[1:])] == [1, 0]
    assert token_lengths([b"a\xe2\x82", b"\xac b", "xy"]) == [2, 2, 2]


def test_coverage_of_non_overlapping_full_windows():
    cov = context_coverage([1, 2, 3, 4, 5], 2)  # windows 1+2, 3+4; the lone 5 is not a full window
    assert (cov.windows, cov.mean, cov.tokens, cov.characters) == (2, 5.0, 5, 15)
    assert cov.p10 == pytest.approx(3.4) and cov.p90 == pytest.approx(6.6)
    assert not cov.partial


def test_coverage_of_text_shorter_than_one_window_is_the_whole_text():
    cov = context_coverage([3, 4], 128)
    assert (cov.windows, cov.mean, cov.p10, cov.p90, cov.partial) == (1, 7.0, 7.0, 7.0, True)


def test_coverage_equals_characters_decoded_from_each_window(prose):
    _train, heldout, run = prose
    tok = run.tokenizer()
    ids = tok.encode(heldout)
    block = 16
    decoded = [len(tok.decode(ids[s : s + block])) for s in range(0, len(ids) - block + 1, block)]
    cov = context_coverage(token_lengths(tok.encode_tokens(heldout)), block)
    assert cov.windows == len(decoded)
    assert cov.mean == pytest.approx(sum(decoded) / len(decoded))
    assert cov.p10 == pytest.approx(percentile(decoded, 10)) and cov.p90 == pytest.approx(percentile(decoded, 90))
    assert context_coverage(token_lengths(tok.encode_tokens(heldout)), block).mean > block  # BPE buys context


def test_coverage_rejects_an_empty_block():
    with pytest.raises(BpeError, match="block_size=0"):
        context_coverage([1], 0)


def test_percentile_interpolates_like_numpy():
    assert percentile([3, 7], 10) == pytest.approx(3.4)
    assert percentile([5], 90) == 5
    assert percentile([4, 1, 3, 2], 50) == 2.5


# ==================== The compression curve of one run


def test_curve_of_the_worked_example(wiki_run):
    assert compression_curve(wiki_run) == [
        CurvePoint(0, 4, 1.0, 1.0),
        CurvePoint(1, 5, 11 / 9, 6 / 5),
        CurvePoint(2, 6, 11 / 7, 6 / 4),
        CurvePoint(3, 7, 11 / 5, 6 / 3),
    ]


def test_curves_part_where_heldout_falls_behind_by_the_gap(wiki_run):
    curve = compression_curve(wiki_run)
    # relative gaps: 0, 0.018, 0.045, 0.091
    assert parting_point(curve, 0.05).vocab_size == 7
    assert parting_point(curve, 0.02).vocab_size == 6
    assert parting_point(curve, 0.10) is None


def test_no_heldout_text_gives_no_heldout_curve():
    run = train_run(TRAIN, target_vocab_size=7)
    assert [p.heldout_compression for p in compression_curve(run)] == [None] * 4
    assert parting_point(compression_curve(run)) is None


def test_heldout_curve_equals_encoding_with_each_prefix(prose):
    train, heldout, run = prose
    curve = compression_curve(run)
    assert len(curve) > 50
    for point in curve[:: max(1, len(curve) // 12)] + [curve[-1]]:
        tok = run.tokenizer(point.vocab_size)
        assert len(tok.merges) == point.merges
        assert point.heldout_compression == pytest.approx(len(heldout) / len(tok.encode(heldout)))
        assert point.train_compression == pytest.approx(len(train) / len(tok.encode(train)))


def recreating_run() -> TrainingRun:
    """A run whose 4th merge rebuilds 'abc' (already made by merge 3): no new token.
    Real training rarely does this, so the record is written by hand."""

    def step(number, pair, vocab_size, length, new=True):
        return make_step(
            number=number,
            pair=pair,
            token=pair[0] + pair[1],
            token_id=vocab_size - 1,
            frequency=2,
            top_pairs=[],
            changes={},
            sequence_length=length,
            vocab_size=vocab_size,
            new=new,
        )

    steps = [
        step(1, ("a", "b"), 4, 10),
        step(2, ("b", "c"), 5, 9),
        step(3, ("ab", "c"), 6, 8),
        step(4, ("a", "bc"), 6, 7, new=False),
    ]
    return TrainingRun(
        settings={},
        base_tokens=["a", "b", "c"],
        steps=steps,
        stop_reason=StopReason.TARGET_REACHED,
        stop_explanation="",
        training_seconds=0.0,
        training_characters=12,
        initial_length=12,
    )


def test_curve_keeps_the_last_merge_of_a_vocab_size_when_a_merge_adds_no_token():
    run = recreating_run()
    curve = compression_curve(run)
    assert [(p.merges, p.vocab_size) for p in curve] == [(0, 3), (1, 4), (2, 5), (4, 6)]
    assert curve[-1].train_compression == 12 / 7
    assert all(p.merges == run.merge_count(p.vocab_size) for p in curve)


# ==================== Token usage


def test_token_usage_of_the_worked_example(wiki_run):
    assert token_usage(wiki_run, TRAIN) == Counter({"aaab": 2, "d": 1, "a": 1, "c": 1})
    assert token_usage(wiki_run, TRAIN, 1) == Counter({"aa": 2, "a": 3, "b": 2, "d": 1, "c": 1})
    assert token_usage(wiki_run, TRAIN, 0) == Counter(TRAIN)


@pytest.mark.parametrize("pretokenizer", [None, "gpt2"])
@pytest.mark.parametrize("alphabet", ["characters", "bytes"])
def test_token_usage_equals_counting_the_encoding(prose, alphabet, pretokenizer):
    train, _heldout, _run = prose
    run = train_run(train, target_vocab_size=300, alphabet=alphabet, pretokenizer=pretokenizer)
    for merges in (0, len(run.steps) // 3, len(run.steps)):
        tok = run.tokenizer(run.steps[merges - 1].vocab_size if merges else len(run.base_tokens))
        assert token_usage(run, train, len(tok.merges)) == Counter(tok.encode_tokens(train))


def test_token_usage_rejects_a_prefix_beyond_the_run(wiki_run):
    with pytest.raises(BpeError, match="merges=9 is outside 0..3"):
        token_usage(wiki_run, TRAIN, 9)


# ==================== One row of the comparison table


def test_size_summary_of_the_worked_example(wiki_run):
    row = size_summary(wiki_run, 6, d=128)
    assert (row.vocab_size, row.merges, row.sequence_length) == (6, 2, 7)
    assert row.compression == 11 / 7 and row.reduction == 1 - 7 / 11 and row.heldout_compression == 1.5
    assert row.longest_tokens == ("aaa", "aa", "a", "b", "c", "d")
    assert row.embedding_parameters == 6 * 128
    assert row.training_seconds == wiki_run.step_seconds[1]  # seconds until the second merge


def test_size_summary_above_the_run_stops_at_its_last_merge(wiki_run):
    row = size_summary(wiki_run, 500)
    assert (row.requested_vocab_size, row.vocab_size, row.merges) == (500, 7, 3)


def test_longest_tokens_breaks_ties_by_id(wiki_run):
    assert [t for _, t in longest_tokens(wiki_run.tokenizer(), 3)] == ["aaab", "aaa", "aa"]
