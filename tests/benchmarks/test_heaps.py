"""Distinct GPT-2 chunks counted piece by piece, exactly, and Heaps' law fitted to them."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe.benchmarks.heaps import DistinctChunks, distinct_chunks_at, fit_heaps, last_cut
from bpe.pretokenize import split

# text where the cuts matter: runs of spaces, tabs and line breaks before and after words,
# digits, punctuation, contractions, a no-break space
pieces = st.sampled_from(list("ab1 .'\n\t\xa0") + ["ll", " the", "  ", "\r\n"])
texts = st.lists(pieces, max_size=120).map("".join)


def distinct(text: str) -> int:
    return len(set(split(text, "gpt2")))


def test_the_docstring_example():
    counter = DistinctChunks()
    counter.add("the cat saw the cat")
    assert counter.total() == 4
    assert last_cut("a b c  ") == 3 and last_cut("abc") == 0


@settings(max_examples=300, deadline=None)
@given(texts, st.lists(st.integers(0, 300), max_size=8), st.integers(1, 40))
def test_any_pieces_count_the_whole_text(text, cuts, piece_characters):
    counter = DistinctChunks(piece_characters)
    bounds = [0, *sorted(min(cut, len(text)) for cut in cuts), len(text)]
    for start, stop in zip(bounds, bounds[1:]):
        counter.add(text[start:stop])
        assert counter.total() == distinct(text[:stop])  # asking does not change what follows
    assert len(counter) <= counter.total() and counter.characters <= len(text)
    new = counter.finish()
    assert len(counter) == distinct(text) and counter.characters == len(text)
    assert all(counter.is_known(chunk) for chunk in split(text, "gpt2")) and not counter.is_known("never")
    assert len(set(new)) == len(new)


def test_the_chunks_seen_first_are_said_once(tmp_path):
    counter = DistinctChunks(piece_characters=10)
    first = counter.add("one two three one two ")
    second = counter.add("three four five ")
    assert first == ["one", " two", " three", " one"]  # " two " waits for what follows
    assert second == [" four"]
    assert counter.finish() == [" five", " "]


def test_checkpoints_count_each_prefix_of_a_file(tmp_path):
    text = "The first line.\r\n  indented  words 123 and 4567\n" * 50 + "the end, at last"
    path = tmp_path / "corpus.txt"
    path.write_bytes(text.encode("utf-8"))
    checkpoints = [10, 17, 200, len(text) - 1, len(text) + 100]
    found = list(distinct_chunks_at(path, checkpoints))
    assert found == [(n, distinct(text[:n])) for n in (10, 17, 200, len(text) - 1, len(text))]


def test_the_fit_finds_the_power_law():
    points = [(n, 100 * n**0.5) for n in (1e6, 4e6, 16e6)]
    k, beta = fit_heaps(points)
    assert k == pytest.approx(100) and beta == pytest.approx(0.5)
    # every doubling weighs the same: a thousand points near the end do not outvote the start
    many = [(n, 3 * n**0.7) for n in range(1_000_000, 64_000_000, 50_000)]
    k, beta = fit_heaps([(n, d * (1.5 if n < 2e6 else 1)) for n, d in many])
    assert beta < 0.69
    assert fit_heaps(many) == pytest.approx((3, 0.7))
    with pytest.raises(ValueError, match="two points from 1,000,000 characters"):
        fit_heaps([(10, 5), (2e6, 3)])
    assert math.isfinite(fit_heaps([(10, 5), (20, 8)], smallest=10)[1])
