"""The scale benchmark's corpora: sizes, the seeded prose, prefixes that say what they are
made of."""

from __future__ import annotations

import argparse

import pytest

import bpe.benchmarks.scale_corpora as scale_corpora
from bpe.cli.arguments import parse_size


def test_sizes_read_and_print_as_people_write_them():
    assert [parse_size(s) for s in ("16M", "1G", "2.5k", "300")] == [16_000_000, 10**9, 2_500, 300]
    assert [scale_corpora.size_name(n) for n in (16_000_000, 10**9, 1_234)] == ["16M", "1G", "1,234"]
    with pytest.raises(argparse.ArgumentTypeError, match="not a size"):
        parse_size("lots")


def test_the_prose_is_seeded_prose_like_and_never_the_same_twice():
    words = ("the cat sat on the mat \n the dog sat on the log \n a cat saw a dog " * 20).split(" ")
    chain = scale_corpora.MarkovChain(words)
    first, again, other = chain.block(0, 2_000), chain.block(0, 2_000), chain.block(1, 2_000)
    assert first == again and first != other
    assert len(first) <= 2_002 and first.endswith("\n\n")
    pairs = set(zip(words, words[1:]))
    spoken = [w for w in first.replace("\n", " \n ").split(" ") if w]
    assert all((a, b) in pairs for a, b in zip(spoken, spoken[1:]) if "\n" not in (a, b))  # only seen steps


def test_corpora_are_prefixes_of_one_stream_and_say_what_they_hold(tmp_path, monkeypatch):
    sources = [("shared data", "a.txt", "First real text.\n" * 30), ("Python sources", "b.py", "x = 1\r\n" * 40)]
    monkeypatch.setattr(scale_corpora, "real_sources", lambda: sources)
    monkeypatch.setattr(scale_corpora, "MARKOV_BLOCK_CHARACTERS", 300)
    corpora = scale_corpora.build_corpora([400, 2_000, 5_000], tmp_path, say=lambda message: None)
    texts = {size: corpus.path.read_bytes().decode("utf-8") for size, corpus in corpora.items()}
    assert [len(texts[size]) for size in (400, 2_000, 5_000)] == [400, 2_000, 5_000]
    assert texts[5_000].startswith(texts[2_000]) and texts[2_000].startswith(texts[400])
    assert "\r\n" in texts[2_000]  # written exactly
    assert corpora[400].made_of == "0.0M shared data"
    assert corpora[5_000].made_of.endswith("Markov prose") and "Python sources" in corpora[5_000].made_of
    again = scale_corpora.build_corpora([2_000], tmp_path, say=lambda message: None)  # cached: read, not rebuilt
    assert again[2_000].made_of == corpora[2_000].made_of
