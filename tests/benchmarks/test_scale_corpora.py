"""The scale benchmark's corpora: sizes, the seeded prose, prefixes that say what they are
made of, and the workers that make their blocks."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys

import pytest
from helpers import ROOT

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


# Each block is large (8 MB, a pipe holds 64 KB), so the workers are always in the middle of
# sending one back when the consumer stops: a pool that terminated them there could hang for
# ever (a worker killed holding the result queue's lock). Forty stops, each given 30 s, run
# apart, so a hang fails this test quickly rather than the whole run.
STOPPED_EARLY = """
import itertools, os, threading
from bpe.benchmarks.scale_corpora import blocks_in_order

def block(index):
    return "x" * 8_000_000

for attempt in range(40):
    blocks = blocks_in_order(block, (range(k, k + 8) for k in itertools.count(0, 8)))
    assert next(blocks) == block(0)
    stopping = threading.Thread(target=blocks.close, daemon=True)
    stopping.start()
    stopping.join(30)
    if stopping.is_alive():
        print(f"stop {attempt + 1} hung", flush=True)
        os._exit(3)
print("stopped cleanly")
"""


def test_a_consumer_that_stops_early_leaves_the_block_workers_promptly(tmp_path):
    printed = tmp_path / "printed.txt"
    with printed.open("w") as sink:  # a file, not a pipe: a hung pool's workers would hold a pipe open
        child = subprocess.Popen(
            [sys.executable, "-c", STOPPED_EARLY],
            stdout=sink,
            stderr=subprocess.STDOUT,
            cwd=ROOT,
            start_new_session=True,
        )
        try:
            status = child.wait(timeout=600)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGKILL)  # and whatever workers a hang left behind
    shown = printed.read_text()
    assert status == 0 and "stopped cleanly" in shown, shown[-2000:]
