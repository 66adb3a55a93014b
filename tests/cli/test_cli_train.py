"""`python -m bpe train`: from a counts file to a run file and a tokenizer, the merges of
in-memory training; Ctrl-C and SIGTERM leave no output and no temporary file behind."""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import time

import pytest
from helpers import ROOT

from bpe import BPETokenizer
from bpe.cli.main import main
from bpe.cli.train import progress_line
from bpe.paths import DATA_DIR
from bpe.run import train_run
from bpe.scale.chunk_counts import count_text
from bpe.scale.counts_file import write_counts
from bpe.scale.run_file import read_run_file
from bpe.training import MAX_VOCAB_CHARACTERS

TEXT = (DATA_DIR / "tinyshakespeare.txt").read_text(encoding="utf-8")
TRAIN, HELDOUT = TEXT[:300_000], TEXT[-30_000:]


def write_table(path, train: str, heldout: str, alphabet="bytes", pretokenizer="gpt2"):
    table = count_text(train, alphabet=alphabet, pretokenizer=pretokenizer)
    held = count_text(heldout, alphabet=alphabet, pretokenizer=pretokenizer)
    table = dataclasses.replace(
        table,
        heldout_chunks=held.chunks,
        heldout_counts=held.counts,
        heldout_characters=held.characters,
        heldout_documents=1,
        heldout_text=heldout[:4_000],
        inputs=(("tinyshakespeare.txt", len(train), "0" * 64),),
    )
    write_counts(path, table)
    return path


@pytest.fixture(scope="module")
def counts_file(tmp_path_factory):
    return write_table(tmp_path_factory.mktemp("counts") / "shakespeare.parquet", TRAIN, HELDOUT)


@pytest.mark.parametrize("tie_rule", ["first_occurrence", "huggingface"])
def test_train_writes_the_run_and_the_tokenizer_of_in_memory_training(counts_file, tmp_path, capsys, tie_rule):
    run_path, tokenizer_path = tmp_path / "runs" / "s.bperun", tmp_path / "s.json"
    status = main(
        [
            "train",
            "--counts",
            str(counts_file),
            "--vocab-size",
            "1000",
            "--tie-rule",
            tie_rule,
            "--run-output",
            str(run_path),
            "--tokenizer-output",
            str(tokenizer_path),
        ]
    )
    out, err = capsys.readouterr()
    assert status == 0, err
    expected = train_run(
        TRAIN, target_vocab_size=1000, alphabet="bytes", pretokenizer="gpt2", tie_rule=tie_rule, heldout_text=HELDOUT
    )
    loaded = read_run_file(run_path)
    assert loaded.run.merges == expected.merges
    assert list(loaded.run.steps) == expected.steps
    assert loaded.run.heldout_lengths == expected.heldout_lengths
    assert loaded.source.name == "shakespeare" and loaded.source.inputs == ("tinyshakespeare.txt",)
    assert loaded.sample == HELDOUT[:4_000]
    assert BPETokenizer.from_file(tokenizer_path) == expected.tokenizer()
    assert "744 merges" in out and f"wrote {run_path}" in out
    assert "merges/s" in err and "left" in err  # the progress lines (stderr is not a terminal here)


def test_minimum_pair_frequency_stops_training(counts_file, tmp_path, capsys):
    status = main(
        ["train", "--counts", str(counts_file), "--vocab-size", "100000", "--minimum-pair-frequency", "50", "--quiet"]
    )
    out, err = capsys.readouterr()
    assert status == 0
    assert "fewer than 50 times" in out
    assert "[#" not in err  # --quiet: no progress bar


def test_a_bad_counts_file_is_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"not parquet")
    assert main(["train", "--counts", str(bad), "--vocab-size", "300"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "not a counts file" in err


def test_an_output_that_is_a_folder_is_refused_before_training(counts_file, tmp_path, capsys):
    folder = tmp_path / "taken"
    folder.mkdir()
    assert main(["train", "--counts", str(counts_file), "--vocab-size", "300", "--run-output", str(folder)]) == 1
    assert "it is a folder" in capsys.readouterr().err


def test_a_vocab_below_the_alphabet_is_named(counts_file, capsys):
    assert main(["train", "--counts", str(counts_file), "--vocab-size", "100"]) == 1
    assert "smaller than the alphabet (256 base tokens)" in capsys.readouterr().err


def test_ctrl_c_while_training_writes_nothing(counts_file, tmp_path, monkeypatch, capsys):
    import bpe.cli.train as train_cli

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(train_cli, "train_run_from_counts", interrupted)
    run_path = tmp_path / "s.bperun"
    status = main(["train", "--counts", str(counts_file), "--vocab-size", "300", "--run-output", str(run_path)])
    assert status == 130
    assert "interrupted. Nothing was written." in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_sigterm_while_training_leaves_no_file(tmp_path):
    """A real process, stopped by SIGTERM in the middle of its merges: exit 143, old run kept."""
    counts = write_table(tmp_path / "big.parquet", TEXT, HELDOUT, alphabet="characters", pretokenizer=None)
    run_path = tmp_path / "out" / "run.bperun"
    run_path.parent.mkdir()
    run_path.write_bytes(b"the old run")
    process = subprocess.Popen(
        [sys.executable, "-m", "bpe", "train", "--counts", str(counts), "--vocab-size", "20000"]
        + ["--run-output", str(run_path)],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    first = process.stderr.readline()  # the counts file is read: training starts now
    assert "distinct chunks" in first
    time.sleep(1.0)
    process.send_signal(signal.SIGTERM)
    rest = process.stderr.read()
    assert process.wait(timeout=60) == 143, rest
    assert "interrupted" in rest and "Traceback" not in rest
    assert run_path.read_bytes() == b"the old run"
    assert sorted(p.name for p in run_path.parent.iterdir()) == ["run.bperun"]


def test_progress_line_says_rate_and_time_left():
    assert progress_line(250, 1000, 2.0, width=10) == "[##........] 250/1,000 merges  125 merges/s  0:00:06 left"


def test_training_from_inputs_counts_first_as_count_does(tmp_path, capsys):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(TRAIN, encoding="utf-8")
    counts = tmp_path / "c.parquet"
    common = ["--alphabet", "bytes", "--pretokenizer", "gpt2", "--heldout-fraction", "0.2", "--workers", "1"]
    assert main(["count", str(corpus), "--output", str(counts), *common, "--quiet"]) == 0
    assert (
        main(["train", "--counts", str(counts), "--vocab-size", "600", "--run-output", str(tmp_path / "a.bperun")]) == 0
    )
    assert main(["train", str(corpus), *common, "--vocab-size", "600", "--run-output", str(tmp_path / "b.bperun")]) == 0
    capsys.readouterr()
    a, b = read_run_file(tmp_path / "a.bperun"), read_run_file(tmp_path / "b.bperun")
    assert a.run.merges == b.run.merges and a.run.heldout_lengths == b.run.heldout_lengths
    assert a.sample == b.sample and a.run.heldout_characters > 0
    assert b.source.name == "corpus" and b.source.inputs == ("corpus.txt",)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--vocab-size", "300"], "nothing to train on"),
        (["x.txt", "--counts", "c.parquet", "--vocab-size", "300"], "not both"),
        (["--counts", "c.parquet", "--alphabet", "bytes", "--vocab-size", "300"], "--alphabet shape"),
        (["--counts", "c.parquet", "--vocab-size", "300000", "--run-output", "r.bperun"], "more than a run file holds"),
    ],
)
def test_what_to_train_on_is_checked_first(argv, message, capsys):
    assert main(["train", *argv]) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_top_k_is_bounded_by_what_a_run_file_holds(capsys):
    assert main(["train", "--counts", "c.parquet", "--vocab-size", "300", "--top-k", "101"]) == 1
    assert capsys.readouterr().err == "error: argument --top-k: 101 is outside 0..100\n"


def test_a_run_too_big_for_its_file_is_refused_before_training(counts_file, tmp_path, capsys):
    """100 runners-up over 100,000 merges would be a run file no reader takes (at most 20
    million JSON values): refused before training, not after it."""
    argv = ["train", "--counts", str(counts_file), "--vocab-size", "100000", "--top-k", "100"]
    assert main([*argv, "--run-output", str(tmp_path / "r.bperun")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: a run file of 100,000 merges with 100 runners-up a step may hold 35,600,000 values")
    assert "at most 56,179 merges" in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_max_vocab_characters_stops_training_cleanly_at_a_prefix(counts_file, tmp_path, capsys):
    run_path = tmp_path / "bounded.bperun"
    argv = ["train", "--counts", str(counts_file), "--vocab-size", "1000", "--quiet", "--run-output", str(run_path)]
    assert main([*argv, "--max-vocab-characters", "2,000"]) == 0
    out = capsys.readouterr().out
    bounded = read_run_file(run_path).run
    assert bounded.stop_reason.value == "vocab_characters_reached"
    assert bounded.settings.max_vocab_characters == 2_000  # the run file keeps the bound it trained under
    assert "past 2,000 characters in all" in out and "--max-vocab-characters N raises the bound" in out
    full = train_run(TRAIN, target_vocab_size=1000, alphabet="bytes", pretokenizer="gpt2", heldout_text=HELDOUT)
    assert list(bounded.steps) == full.steps[: len(bounded.steps)] and len(bounded.steps) < len(full.steps)
    assert main([*argv, "--max-vocab-characters", "none"]) == 0  # no bound: the whole run
    assert read_run_file(run_path).run.merges == full.merges
    assert main([*argv]) == 0  # the default bound is far above real settings
    assert read_run_file(run_path).run.settings.max_vocab_characters == MAX_VOCAB_CHARACTERS


@pytest.mark.parametrize("value, message", [("0", "below 1"), ("lots", "not a whole number or 'none'")])
def test_a_bad_max_vocab_characters_is_one_line(value, message, capsys):
    assert main(["train", "--counts", "c.parquet", "--vocab-size", "300", "--max-vocab-characters", value]) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_an_output_that_is_the_counts_file_or_the_other_output_is_refused(counts_file, tmp_path, capsys):
    """Failure 11: `train --counts X --run-output X` replaced the counts file (hours of
    counting) and said "wrote X"; one path for both outputs lost one of them."""
    before = counts_file.read_bytes()
    argv = ["train", "--counts", str(counts_file), "--vocab-size", "300", "--quiet"]
    assert main([*argv, "--run-output", str(counts_file)]) == 1
    assert f"--run-output '{counts_file}' is --counts '{counts_file}', the file it reads" in capsys.readouterr().err
    assert counts_file.read_bytes() == before
    same = tmp_path / "out"
    assert main([*argv, "--run-output", str(same), "--tokenizer-output", str(tmp_path / "." / "out")]) == 1
    err = capsys.readouterr().err
    assert "--tokenizer-output" in err and "is --run-output" in err and "the file it also writes" in err
    assert not same.exists()


def test_compiled_merges_write_the_fast_engines_run(counts_file, tmp_path, capsys):
    pytest.importorskip("numba", reason="--compiled needs numba (requirements.txt installs it)")
    run_path = tmp_path / "s.bperun"
    argv = ["train", "--counts", str(counts_file), "--vocab-size", "1000", "--run-output", str(run_path), "--compiled"]
    status = main(argv)
    out, err = capsys.readouterr()
    assert status == 0, err
    expected = train_run(TRAIN, target_vocab_size=1000, alphabet="bytes", pretokenizer="gpt2", heldout_text=HELDOUT)
    loaded = read_run_file(run_path)
    assert list(loaded.run.steps) == expected.steps and loaded.run.settings.top_k == 10
    assert loaded.run.heldout_lengths == expected.heldout_lengths
    assert "744 merges" in out
    in_python = tmp_path / "python.bperun"
    assert main([*argv[:-3], "--run-output", str(in_python), "--no-compiled"]) == 0, capsys.readouterr().err
    assert list(read_run_file(in_python).run.steps) == expected.steps


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--tie-rule", "huggingface"],
            "error: compiled merges break ties by first occurrence only: tie_rule 'huggingface'",
        ),
        (
            ["--engine", "reference"],
            "error: compiled merges are the fast engine's: engine 'reference' trains in Python",
        ),
        (
            ["--variant", "picky"],
            "error: --compiled trains the standard rule's merge phase; --variant trains in memory",
        ),
    ],
)
def test_what_compiled_merges_cannot_do_is_refused_before_the_counts_are_read(argv, message, capsys):
    assert main(["train", "--counts", "missing.parquet", "--vocab-size", "300", "--compiled", *argv]) == 1
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1
