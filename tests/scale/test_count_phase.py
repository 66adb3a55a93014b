"""The count phase gives one table whatever does the counting: one process, a pool of
two, or a real Dask cluster of two worker processes on loopback."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from bpe.cli.errors import Terminated
from bpe.errors import BpeError, CorpusError
from bpe.scale.chunk_counts import count_text, merge_counts
from bpe.scale.count_phase import _stops_held, count_corpus
from bpe.scale.partitions import ReadOptions
from tests.helpers import ROOT, shared_file

# Small partitions, so that even this small corpus is many partitions of every kind.
OPTIONS = ReadOptions(block_bytes=4096, passage_bytes=2048, partition_bytes=8192, heldout_fraction=0.1, seed=3)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """A text file, a gzip'd one, JSON lines and Parquet, with the texts they hold."""
    folder = tmp_path_factory.mktemp("corpus")
    prose = "".join(f"Line {i}: the quick brown fox, it's {i * 7 % 13} jumps.\n" for i in range(1500))
    (folder / "a.txt").write_text(prose)
    (folder / "b.txt.gz").write_bytes(gzip.compress(prose[::-1].encode()))
    records = [f"record {i} says {'low ' * (i % 4)}lowest, naïve café" for i in range(600)]
    (folder / "c.jsonl").write_text("".join(json.dumps({"text": r}) + "\n" for r in records))
    pq.write_table(pa.table({"text": records[::-1]}), folder / "d.parquet", row_group_size=100)
    return folder, [folder / name for name in ("a.txt", "b.txt.gz", "c.jsonl", "d.parquet")]


def test_one_worker_and_two_give_the_same_table(corpus):
    _, inputs = corpus
    one = count_corpus(inputs, alphabet="bytes", pretokenizer="gpt2", options=OPTIONS, workers=1)
    two = count_corpus(inputs, alphabet="bytes", pretokenizer="gpt2", options=OPTIONS, workers=2)
    assert one == two
    assert one.heldout_documents > 0 and one.documents > 0 and len(one.inputs) == 4


def test_counted_without_holding_out_it_is_the_inputs_counted_in_memory(corpus):
    folder, inputs = corpus
    options = ReadOptions(block_bytes=4096, passage_bytes=2048, partition_bytes=8192)
    got = count_corpus(inputs, alphabet="characters", pretokenizer="gpt4", options=options, workers=2)
    texts = [
        (folder / "a.txt").read_text(),
        gzip.decompress((folder / "b.txt.gz").read_bytes()).decode(),
        *(json.loads(line)["text"] for line in (folder / "c.jsonl").read_text().splitlines()),
        *pq.read_table(folder / "d.parquet").column("text").to_pylist(),
    ]
    expected = merge_counts(count_text(text, alphabet="characters", pretokenizer="gpt4") for text in texts)
    assert got.words() == expected.words() and got.base_tokens == expected.base_tokens


def test_a_character_limit_is_the_same_prefix_on_two_workers(corpus):
    _, inputs = corpus
    options = ReadOptions(block_bytes=4096, passage_bytes=2048, partition_bytes=8192, max_characters=100_000)
    one = count_corpus(inputs, alphabet="characters", pretokenizer="gpt2", options=options, workers=1)
    two = count_corpus(inputs, alphabet="characters", pretokenizer="gpt2", options=options, workers=2)
    assert one == two and one.characters == 100_000


def test_a_real_dask_cluster_gives_the_same_table(corpus):
    distributed = pytest.importorskip("distributed")
    _, inputs = corpus
    here = count_corpus(inputs, alphabet="bytes", pretokenizer="gpt2", options=OPTIONS, workers=1)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        on_cluster = count_corpus(
            inputs, alphabet="bytes", pretokenizer="gpt2", options=OPTIONS, dask=cluster.scheduler_address
        )
    assert on_cluster == here


def test_an_unreachable_scheduler_is_one_line(corpus, monkeypatch):
    monkeypatch.setattr("bpe.scale.count_phase.DASK_CONNECT_SECONDS", 1)
    _, inputs = corpus
    with pytest.raises(BpeError, match="nothing listens at 'tcp://127.0.0.1:9'"):
        count_corpus(inputs[:1], alphabet="bytes", pretokenizer="gpt2", dask="tcp://127.0.0.1:9")


@pytest.mark.shared_data
def test_the_shared_texts_count_as_they_train(tmp_path):
    path = shared_file("tinyshakespeare/input.txt")
    text = path.read_text(encoding="utf-8")
    got = count_corpus([path], alphabet="bytes", pretokenizer="gpt2", workers=2)
    assert got.words() == count_text(text, alphabet="bytes", pretokenizer="gpt2").words()


def test_an_interrupted_pool_is_gone_before_the_interrupt_leaves(corpus):
    # A pool left to wind down on its own races the interpreter's exit, which then prints
    # "Exception ignored ... Bad file descriptor" under the command's one-line message.
    import multiprocessing
    import threading
    from concurrent.futures.process import _ExecutorManagerThread

    _, inputs = corpus

    def stop(progress):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        count_corpus(inputs, alphabet="bytes", pretokenizer="gpt2", options=OPTIONS, workers=2, on_progress=stop)
    assert not [thread for thread in threading.enumerate() if isinstance(thread, _ExecutorManagerThread)]
    assert multiprocessing.active_children() == []


# ==================== One big document (issue 41, failure 14)


def test_one_big_json_document_is_counted_a_passage_at_a_time(tmp_path):
    """A 100 MB JSON line peaked at 2.7 GB: its text was tallied whole, every run of it a
    Python string at once. It is counted in passages that end at safe cuts, as a text
    file's are: the same table, and the tally holds one passage's runs at a time."""
    import tracemalloc

    text = "".join(f"word{i % 5000} and {i}, then\\n" if i % 7 == 0 else f"word{i % 5000} " for i in range(400_000))
    path = tmp_path / "big.jsonl"
    path.write_text(json.dumps({"text": text}) + "\n")
    tracemalloc.start()
    try:
        counted = count_corpus([path], alphabet="bytes", pretokenizer="gpt2", workers=1)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    whole = count_text(text, alphabet="bytes", pretokenizer="gpt2")
    assert list(zip(counted.chunks, counted.counts)) == list(zip(whole.chunks, whole.counts))
    # the line, its text and the text's UTF-8 (about 4 MB each) and the table: not a string a run
    assert peak < 8 * len(text), f"peak {peak / 1e6:.0f} MB for a document of {len(text) / 1e6:.1f} MB"


def test_a_gzipped_line_with_no_place_to_cut_is_refused(tmp_path, monkeypatch):
    """A 204 KB .jsonl.gz holding a 200 MB line with no cut was accepted as one chunk (2.05 GB);
    a stretch with no cut is refused past MAX_PASSAGE_BYTES in a document, as in a text file."""
    monkeypatch.setattr("bpe.scale.partitions.MAX_PASSAGE_BYTES", 200_000)
    path = tmp_path / "uncut.jsonl.gz"
    path.write_bytes(gzip.compress((json.dumps({"text": "ok then " + "a" * 1_000_000}) + "\n").encode()))
    assert path.stat().st_size < 5_000
    with pytest.raises(
        CorpusError, match=r"uncut.jsonl.gz: the document at byte 0: found no place .* within 200,000 bytes"
    ) as caught:
        count_corpus([path], alphabet="bytes", pretokenizer="gpt2", workers=1)
    assert "\n" not in str(caught.value)


def test_a_stop_while_the_pool_starts_a_worker_is_acted_on_once_it_has_started():
    """SIGTERM in the middle of starting a worker (spawned, its start-up data not yet sent)
    left it to die on an EOFError traceback, and in the middle of the pool's thread start, a
    pool that could not shut down: `count` printed tracebacks after "interrupted". The stop
    is put off to the end of the start, then acted on by the caller's own handler, even when
    the kernel hands the signal to another thread (the one hashing the inputs)."""
    stopped: list[str] = []

    def stop(number, frame) -> None:
        stopped.append("stopped")
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        with pytest.raises(Terminated):
            with _stops_held():
                other = threading.Thread(target=os.kill, args=(os.getpid(), signal.SIGTERM))
                other.start()
                other.join()
                time.sleep(0.05)  # Python would run the handler here, in the middle of the start
                stopped.append("started")
        assert stopped == ["started", "stopped"]
        assert signal.getsignal(signal.SIGTERM) is stop  # the caller's handler, back
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_a_worker_starts_with_the_stop_signals_held_and_then_ignores_ctrl_c():
    """A Ctrl-C from the terminal reaches every process of the command: a worker still
    starting Python printed a KeyboardInterrupt traceback. A worker starts with the stop
    signals blocked (inherited from `_stops_held`), then ignores Ctrl-C and takes SIGTERM."""
    show = "import signal; print(sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, [])))"
    with _stops_held():
        started = subprocess.run([sys.executable, "-c", show], capture_output=True, text=True, check=True)
    assert {int(signal.SIGINT), int(signal.SIGTERM)} <= set(json.loads(started.stdout))
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # this process's, back
    ready = "import os, signal; from bpe.scale.count_phase import die_with; die_with(os.getppid()); "
    ready += (
        "print(signal.getsignal(signal.SIGINT) is signal.SIG_IGN, sorted(signal.pthread_sigmask(signal.SIG_BLOCK, [])))"
    )
    with _stops_held():
        worker = subprocess.run([sys.executable, "-c", ready], capture_output=True, text=True, check=True, cwd=ROOT)
    assert worker.stdout.split(" ", 1) == ["True", "[]\n"], worker.stdout + worker.stderr
