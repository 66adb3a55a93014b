"""`python -m bpe count`: one counts file, whole or not at all, and one line for what is wrong."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from bpe.cli.main import main
from bpe.scale.count_phase import count_corpus
from bpe.scale.counts_file import read_counts
from bpe.scale.partitions import ReadOptions
from tests.helpers import ROOT, children_of, gone


def _corpus(tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text("low lower lowest\n" * 200)
    (tmp_path / "in" / "b.jsonl").write_text('{"body": "newest widest"}\n' * 50)
    return tmp_path / "in"


def test_count_writes_the_table_the_library_counts(tmp_path, capsys):
    folder = _corpus(tmp_path)
    argv = ["count", str(folder), "--alphabet", "bytes", "--field", "body", "--output", str(tmp_path / "c.parquet")]
    assert main([*argv, "--heldout-fraction", "0.2", "--seed", "4", "--workers", "1"]) == 0
    out, err = capsys.readouterr()
    assert "distinct chunks" in out and "MB/s" in out
    assert "counting:" in err and "MB/s" in err
    expected = count_corpus(
        [folder],
        alphabet="bytes",
        pretokenizer="gpt2",
        options=ReadOptions(field="body", heldout_fraction=0.2, seed=4),
        workers=1,
    )
    assert read_counts(tmp_path / "c.parquet") == expected


def test_a_custom_pattern_and_the_limits(tmp_path, capsys):
    folder = _corpus(tmp_path)
    argv = ["count", str(folder / "a.txt"), "--pattern", r"\w+|\s+|[^\w\s]+", "--max-characters", "100", "--quiet"]
    assert main([*argv, "--output", str(tmp_path / "c.parquet")]) == 0
    counts = read_counts(tmp_path / "c.parquet")
    assert counts.pretokenizer == "custom" and counts.pattern == r"\w+|\s+|[^\w\s]+" and counts.characters == 100


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--pretokenizer", "none"], "cannot be counted in chunks"),
        (["--pretokenizer", "gpt4", "--pattern", r"\w+|\W"], "not both"),
        (["--pattern", r"(a)|[\s\S]"], "capturing group"),
        (["--heldout-fraction", "2"], "heldout_fraction=2.0 is out of range"),
    ],
)
def test_refusals_are_one_line_and_write_nothing(tmp_path, capsys, extra, message):
    folder = _corpus(tmp_path)
    assert main(["count", str(folder), "--output", str(tmp_path / "c.parquet"), *extra]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert message in err[-1] and err[-1].startswith("error: ")
    assert not (tmp_path / "c.parquet").exists()


def test_bad_input_leaves_the_old_counts_file(tmp_path, capsys):
    folder = _corpus(tmp_path)
    target = tmp_path / "c.parquet"
    assert main(["count", str(folder), "--field", "body", "--output", str(target), "--quiet"]) == 0
    before = target.read_bytes()
    (folder / "z.txt").write_bytes(b"bad \xff byte")
    assert main(["count", str(folder), "--field", "body", "--output", str(target), "--quiet"]) == 1
    assert "z.txt is not valid UTF-8: byte 0xFF at byte offset 4" in capsys.readouterr().err
    assert target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.parquet", "in"]


def test_sigterm_leaves_no_counts_file(tmp_path):
    corpus = tmp_path / "big.txt"
    corpus.write_text("".join(f"Line {i} of a long text, with {i % 97} words in it.\n" for i in range(600_000)))
    target = tmp_path / "c.parquet"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "bpe", "count", str(corpus), "--output", str(target), "--workers", "2"]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        # Stopped while it counts: once its two workers run. A fixed sleep of 1.5 s was, on a
        # busy machine, still inside Python's start-up, before any command's SIGTERM handler
        # exists, and the process ended by the signal itself (status -15), a test of nothing.
        ends = time.monotonic() + 60
        while len(children_of(process.pid)) < 2 and process.poll() is None and time.monotonic() < ends:
            time.sleep(0.05)
        assert process.poll() is None, "counting ended before it could be stopped"
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 143, err.decode()
    assert b"Traceback" not in err and b"nothing was written" in err
    assert b"leaked semaphore" not in err, err.decode()  # failure 10: the resource tracker's warning
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.txt"]


def test_ctrl_c_from_the_terminal_stops_count_and_its_workers_in_one_line(tmp_path):
    """A terminal's Ctrl-C reaches every process of the command: workers still starting
    Python printed KeyboardInterrupt tracebacks after "interrupted". Sent to the whole
    process group as they start, it stops the count: status 130, one line, no file."""
    corpus = tmp_path / "big.txt"
    corpus.write_text("".join(f"Line {i} of a long text, with {i % 97} words in it.\n" for i in range(600_000)))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "bpe", "count", str(corpus), "--output", str(tmp_path / "c.parquet")]
    process = subprocess.Popen(
        [*command, "--workers", "2"], env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, start_new_session=True
    )
    try:
        ends = time.monotonic() + 60
        while len(children_of(process.pid)) < 2 and process.poll() is None and time.monotonic() < ends:
            time.sleep(0.02)
        assert process.poll() is None, "counting ended before it could be stopped"
        os.killpg(process.pid, signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 130 and b"Traceback" not in err, err.decode()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.txt"]


def test_build_refuses_a_training_text_that_will_not_fit_in_memory(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("bpe.training_memory.available_memory_bytes", lambda: 20 << 20)
    folder = tmp_path / "processed"
    folder.mkdir()
    for name in ("train", "val", "test"):
        (folder / f"wikitext2_{name}_clean.txt").write_text("low lower lowest\n" * 20_000, encoding="utf-8")
    argv = ["build", "--processed-dir", str(folder), "--tokenizer-output", str(tmp_path / "t.json")]
    assert main([*argv, "--encoded-output-dir", str(tmp_path / "enc"), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "in memory needs about" in err and "MiB available" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "t.json").exists()


def test_an_unreachable_dask_scheduler_is_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("bpe.scale.count_phase.DASK_CONNECT_SECONDS", 1)
    folder = _corpus(tmp_path)
    argv = ["count", str(folder), "--dask", "tcp://127.0.0.1:9", "--output", str(tmp_path / "c.parquet"), "--quiet"]
    assert main(argv) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error: nothing listens at 'tcp://127.0.0.1:9'") and len(err) == 1
    assert not (tmp_path / "c.parquet").exists()


def test_a_count_that_fails_leaves_no_new_folders(tmp_path, capsys):
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    status = main(["count", str(empty), "--output", str(tmp_path / "new" / "sub" / "c.parquet")])
    assert status == 1 and "empty" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.txt"]


def test_killing_count_kills_its_workers(tmp_path):
    """Failure 10: SIGKILL of `count --workers 2` left its pool workers and the resource
    tracker counting on for 30 s and more. The workers ask the kernel to die with it."""
    corpus = tmp_path / "big.txt"
    corpus.write_text("".join(f"Line {i} of a long text, with {i % 97} words in it.\n" for i in range(600_000)))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "bpe", "count", str(corpus), "--output", str(tmp_path / "c.parquet")]
    process = subprocess.Popen([*command, "--workers", "2", "--quiet"], env=env, stderr=subprocess.PIPE)
    try:
        children: list[int] = []
        ends = time.monotonic() + 30
        while len(children) < 3 and time.monotonic() < ends:  # two workers and the resource tracker
            children = children_of(process.pid)
            time.sleep(0.1)
        assert len(children) >= 3 and process.poll() is None, f"the workers did not start: {children}"
        process.kill()
        process.wait()
        assert gone(children), f"processes of the killed count still run: {children}"
    finally:
        process.kill()


@pytest.mark.parametrize("same", ["the input", "a hard link to the input"])
def test_an_output_that_is_an_input_is_refused_before_counting(tmp_path, capsys, same):
    """Failure 11: an output equal to an input was not refused."""
    corpus = tmp_path / "c.txt"
    corpus.write_text("low lower lowest\n" * 100)
    target = corpus
    if same != "the input":
        target = tmp_path / "link.txt"
        os.link(corpus, target)
    assert main(["count", str(corpus), "--output", str(target), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert f"--output '{target}' is the input" in err and "choose another path" in err
    assert corpus.read_text() == "low lower lowest\n" * 100
