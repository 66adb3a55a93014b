"""Vocab sizes to compare come from the run (bpe.analysis.vocab_sizes)."""

from __future__ import annotations

import pytest

from bpe import train_run
from bpe.analysis.vocab_sizes import reached_vocab_size, round_sizes, spread_sizes


def test_round_sizes_between_two_bounds():
    assert round_sizes(65, 1_000) == [100, 200, 300, 500]
    assert round_sizes(8, 12) == [10]


def test_a_tiny_run_gets_every_size_it_reaches():
    run = train_run("low lower lowest", target_vocab_size=1_000)  # alphabet 8, stops at 12
    assert spread_sizes(run) == [9, 10, 11, 12]


@pytest.mark.parametrize("target", [300, 1_000, 2_000])
def test_sizes_differ_and_end_where_training_stopped(target):
    text = " ".join(f"word{i % 37} token{i % 11} merge{i % 5}" for i in range(3_000))
    run = train_run(text, target_vocab_size=target)
    sizes = spread_sizes(run)
    assert sizes == sorted(set(sizes)) and len(sizes) == 4
    assert sizes[-1] == run.final_vocab_size
    assert all(reached_vocab_size(run, size) == size for size in sizes)  # no row "stops at" another's size
    assert len({run.merge_count(size) for size in sizes}) == 4  # so no two rows are the same


def test_a_run_with_no_merges_offers_its_alphabet():
    run = train_run("abc", target_vocab_size=100)
    assert spread_sizes(run) == [3]
