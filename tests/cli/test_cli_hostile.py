"""The command line under hostile input (issue 15): one line and exit status 1, never a
traceback; outputs of one build change together or not at all; no device is ever written over.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from helpers import ROOT, shared_file
from test_cli import TEST, splits  # noqa: F401  (the same three small splits)

from bpe import BPETokenizer
from bpe.cli import pipeline
from bpe.cli.main import main


def build_argv(splits, out, vocab: int) -> list[str]:
    return [
        "build",
        "--processed-dir",
        str(splits),
        "--tokenizer-output",
        str(out / "tok.json"),
        "--encoded-output-dir",
        str(out / "enc"),
        "--target-vocab-size",
        str(vocab),
        "--quiet",
    ]


def outputs(out) -> dict[str, bytes]:
    names = ["tok.json", "enc/train_ids.pt", "enc/val_ids.pt", "enc/test_ids.pt"]
    return {name: (out / name).read_bytes() for name in names if (out / name).is_file()}


def leftovers(out) -> list[str]:
    return sorted(p.name for p in out.rglob("*") if p.name.endswith((".tmp", ".old")))


# ==================== 3. build: all four outputs change together, or none does


def test_a_build_that_fails_midway_keeps_the_old_tokenizer_and_ids(splits, tmp_path, monkeypatch, capsys):
    pytest.importorskip("torch")
    assert main(build_argv(splits, tmp_path, 30)) == 0
    before = outputs(tmp_path)
    assert len(before) == 4
    real_encode = BPETokenizer.encode

    def encode_failing_on_the_test_split(self, text):
        if text == TEST:
            raise OSError(28, "No space left on device")  # what a full disk looks like halfway through
        return real_encode(self, text)

    monkeypatch.setattr(BPETokenizer, "encode", encode_failing_on_the_test_split)
    with pytest.raises(OSError):
        main(build_argv(splits, tmp_path, 45))
    assert outputs(tmp_path) == before  # the new tokenizer never sits beside old ids
    assert leftovers(tmp_path) == []


def test_ctrl_c_during_a_build_says_what_was_kept(splits, tmp_path, monkeypatch, capsys):
    pytest.importorskip("torch")
    assert main(build_argv(splits, tmp_path, 30)) == 0
    before = outputs(tmp_path)
    capsys.readouterr()
    calls = []

    def interrupted(ids):
        calls.append(len(ids))
        if len(calls) == 2:  # after the tokenizer and the train ids were staged
            raise KeyboardInterrupt
        return b"ids"

    monkeypatch.setattr(pipeline, "ids_tensor_bytes", interrupted)
    assert main(build_argv(splits, tmp_path, 45)) == 130
    err = capsys.readouterr().err
    assert "interrupted. Nothing was written:" in err and "tok.json" in err and "are as before" in err
    assert outputs(tmp_path) == before and leftovers(tmp_path) == []


def test_a_destination_that_cannot_be_written_is_found_before_anything_changes(splits, tmp_path, capsys):
    pytest.importorskip("torch")
    assert main(build_argv(splits, tmp_path, 30)) == 0
    before = outputs(tmp_path)
    (tmp_path / "enc" / "test_ids.pt").unlink()
    (tmp_path / "enc" / "test_ids.pt").mkdir()  # the last output is in the way
    del before["enc/test_ids.pt"]
    capsys.readouterr()
    assert main(build_argv(splits, tmp_path, 45)) == 1
    err = capsys.readouterr().err
    assert "test_ids.pt" in err and "it is a folder" in err
    assert outputs(tmp_path) == before


def test_a_failure_while_moving_files_into_place_puts_the_old_ones_back(splits, tmp_path, monkeypatch, capsys):
    pytest.importorskip("torch")
    assert main(build_argv(splits, tmp_path, 30)) == 0
    before = outputs(tmp_path)
    real_replace = os.replace
    moved = []

    def replace_failing_on_the_third(source, target):
        if str(source).endswith(".tmp"):
            moved.append(target)
            if len(moved) == 3:
                raise OSError(5, "Input/output error")
        return real_replace(source, target)

    monkeypatch.setattr(os, "replace", replace_failing_on_the_third)
    capsys.readouterr()
    assert main(build_argv(splits, tmp_path, 45)) == 1
    err = capsys.readouterr().err
    assert "Input/output error" in err and "Nothing was written" in err
    assert outputs(tmp_path) == before and leftovers(tmp_path) == []


# ==================== 7. never write over a device, a pipe or a folder


def test_build_refuses_an_output_that_is_a_pipe_and_leaves_it_a_pipe(splits, tmp_path, capsys):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # stands in for /dev/null: the old code replaced it with a regular file
    argv = [
        "build",
        "--processed-dir",
        str(splits),
        "--tokenizer-output",
        str(fifo),
        "--encoded-output-dir",
        str(tmp_path / "enc"),
        "--target-vocab-size",
        "30",
        "--quiet",
    ]
    assert main(argv) == 1
    assert "is not a regular file" in capsys.readouterr().err
    assert fifo.is_fifo() and not (tmp_path / "enc").exists()


def test_lm_save_dir_refuses_a_pipe_before_training(tmp_path, capsys):
    text = tmp_path / "t.txt"
    text.write_text("low lower lowest " * 50, encoding="utf-8")
    (tmp_path / "models").mkdir()
    os.mkfifo(tmp_path / "models" / "chars.pt")
    argv = ["lm", "train", "--text", str(text), "--steps", "1", "--save-dir", str(tmp_path / "models")]
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert "chars.pt" in captured.err and "not a regular file" in captured.err and captured.out == ""
    assert (tmp_path / "models" / "chars.pt").is_fifo()


# ==================== 4. no traceback where the README promises none


@pytest.fixture
def deep_json(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "argv",
    [
        ["inspect", "--tokenizer", "{deep}"],
        ["encode", "--tokenizer", "{deep}", "--text", "a"],
        ["decode", "--tokenizer", "{deep}", "--ids", "1"],
        ["gpt2", "encode", "--encoder", "{deep}", "--vocab", "{deep}", "--text", "a"],
    ],
)
def test_deeply_nested_json_is_one_line(deep_json, capsys, argv):
    assert main([a.format(deep=deep_json) for a in argv]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "too deeply" in err and "Traceback" not in err


def test_lm_save_dir_that_cannot_be_written_fails_before_training(tmp_path, capsys):
    text = tmp_path / "t.txt"
    text.write_text("low lower lowest " * 50, encoding="utf-8")
    blocker = tmp_path / "a-file"
    blocker.write_text("x")  # a folder cannot be made under a file, even by root
    argv = ["lm", "train", "--text", str(text), "--steps", "1", "--save-dir", str(blocker / "models")]
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert "cannot write in the folder" in captured.err and "Not a directory" in captured.err
    assert captured.out == ""  # no model was trained (and lost)


def run_bpe(argv: list, cwd) -> tuple[int, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-m", "bpe", *argv], capture_output=True, env=env, cwd=cwd)
    return result.returncode, result.stderr.decode("utf-8", "replace")


def test_surrogates_on_the_command_line_are_one_line(tmp_path):
    path = tmp_path / "t.json"
    BPETokenizer.train("low lower", 300, alphabet="bytes").save(path)
    # bytes that are not UTF-8 reach Python as the lone surrogate '\udcff'
    status, err = run_bpe(["encode", "--tokenizer", str(path), "--text", b"low\xff"], tmp_path)
    assert status == 1 and "Traceback" not in err and "lone surrogate" in err and "character 3" in err, err


def test_surrogates_for_gpt2_are_one_line(tmp_path):
    encoder, vocab = shared_file("gpt2/encoder.json"), shared_file("gpt2/vocab.bpe")
    status, err = run_bpe(
        ["gpt2", "encode", "--encoder", str(encoder), "--vocab", str(vocab), "--text", b"low\xff"], tmp_path
    )
    assert status == 1 and "Traceback" not in err and "lone surrogate" in err, err


def test_surrogates_are_a_clear_error_in_the_library():
    for tok in (BPETokenizer.train("low lower", 30), BPETokenizer.train("low lower", 300, alphabet="bytes")):
        with pytest.raises(ValueError, match="lone surrogate"):
            tok.encode("low\ud800")
    with pytest.raises(ValueError, match="lone surrogate"):
        BPETokenizer.train("low\ud800 lower", 300, alphabet="bytes")


# ==================== 8 (minor). inspect's counts


@pytest.mark.parametrize("option", ["--first", "--longest"])
def test_inspect_refuses_negative_counts(tmp_path, capsys, option):
    path = tmp_path / "t.json"
    BPETokenizer.train("low lower lowest", 100).save(path)
    assert main(["inspect", "--tokenizer", str(path), option, "-3"]) == 1
    assert capsys.readouterr().err == f"error: argument {option}: -3 is negative; give 0 or more\n"


# ==================== B10. A bad number for an option is one line and exit status 1 (not argparse's usage, 2)

TRAIN_COUNTS = ["train", "--counts", "c.parquet", "--vocab-size", "300"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["count", "c.txt", "--output", "c.parquet", "--max-characters", "0"], "argument --max-characters: 0 must"),
        (["count", "c.txt", "--output", "c.parquet", "--max-characters", "-5"], "argument --max-characters: -5"),
        (
            ["count", "c.txt", "--output", "c.parquet", "--max-document-characters", "0"],
            "argument --max-document-characters: 0",
        ),
        (["count", "c.txt", "--output", "c.parquet", "--workers", "0"], "argument --workers: 0 must be at least 1"),
        (["count", "c.txt", "--output", "c.parquet", "--seed", "1.5"], "argument --seed: invalid int value: '1.5'"),
        (["train", "--counts", "c.parquet", "--vocab-size", "300.5"], "argument --vocab-size: invalid int value"),
        ([*TRAIN_COUNTS, "--top-k", "-1"], "argument --top-k: -1 is outside 0..100"),
        ([*TRAIN_COUNTS, "--top-k", "1000000"], "argument --top-k: 1000000 is outside 0..100"),
        ([*TRAIN_COUNTS, "--max-vocab-characters", "0"], "argument --max-vocab-characters: 0 is below 1"),
        ([*TRAIN_COUNTS, "--max-vocab-characters", "-1"], "argument --max-vocab-characters: -1 is below 1"),
        ([*TRAIN_COUNTS, "--engine", "turbo"], "argument --engine: invalid choice: 'turbo'"),
        # checked by the settings, before the counts are read (c.parquet does not exist)
        (["train", "--counts", "c.parquet", "--vocab-size", "2147483648"], "target_vocab_size=2147483648 is more"),
        ([*TRAIN_COUNTS, "--minimum-pair-frequency", "0"], "minimum_pair_frequency=0 must be"),
        (["build", "--target-vocab-size", "300.5"], "argument --target-vocab-size: invalid int value: '300.5'"),
        (["build", "--training-characters", "x"], "argument --training-characters: invalid int value: 'x'"),
        (["inspect", "--tokenizer", "t.json", "--longest", "x"], "argument --longest: 'x' is not a whole number"),
        (
            ["train", "a.txt", "b.txt", "--rule", "parity", "--vocab-size", "1.5"],
            "argument --vocab-size: invalid int value: '1.5'",
        ),
        (["lm", "train", "--text", "a.txt", "--width", "wide"], "argument --width: invalid int value: 'wide'"),
        (["download", "wikitext-2", "--timeout", "soon"], "argument --timeout: invalid float value: 'soon'"),
    ],
)
def test_a_bad_option_value_is_one_line_and_status_1(tmp_path, monkeypatch, capsys, argv, message):
    monkeypatch.chdir(tmp_path)  # nothing named here exists: the value is refused first
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert captured.err.startswith(f"error: {message}") and captured.err.count("\n") == 1, captured.err
    assert captured.out == "" and os.listdir(tmp_path) == []


def test_a_bad_option_value_through_the_real_command_line(tmp_path):
    status, err = run_bpe(["train", "c.txt", "--top-k", "1000000", "--tokenizer-output", "t.json"], tmp_path)
    assert (status, err) == (1, "error: argument --top-k: 1000000 is outside 0..100\n")


@pytest.mark.parametrize(
    "argv, option",
    [
        (["decode", "--tokenizer", "t.json", "--ids"], "argument --ids: expected at least one argument"),
        (["train", "--counts", "c.parquet", "--vocab-size"], "argument --vocab-size: expected one argument"),
        (["count", "c.txt", "--output"], "argument --output/-o: expected one argument"),
    ],
)
def test_an_option_missing_its_values_gets_the_commands_usage_and_status_2(tmp_path, monkeypatch, capsys, argv, option):
    """A count of values is the command line's shape, not a bad value: argparse's usage of
    that command, status 2, as for an unknown or a missing option."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: python -m bpe {argv[0]} ") and err.endswith(f": error: {option}\n"), err


@pytest.mark.parametrize(
    "argv, said",
    [
        (["decode", "--tokenizer", "t.json", "--file", "empty.txt"], "there are no ids to decode"),
        (
            [
                "export",
                "--tokenizer",
                "t.json",
                "--format",
                "minbpe",
                "--output",
                "x.model",
                "--check-text",
                "empty.txt",
            ],
            "there is no text to check the export on",
        ),
    ],
)
def test_an_empty_file_is_refused_for_what_the_command_reads_it_for(tmp_path, monkeypatch, capsys, argv, said):
    monkeypatch.chdir(tmp_path)
    BPETokenizer.train("low lower lowest", 100).save(tmp_path / "t.json")
    (tmp_path / "empty.txt").write_bytes(b"")
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err == f"error: empty.txt is empty (0 bytes): {said}. Choose a file with some text in it.\n", err
    assert sorted(os.listdir(tmp_path)) == ["empty.txt", "t.json"]


def test_an_empty_file_encodes_to_no_ids_as_the_empty_text_does(tmp_path, capsys):
    path = tmp_path / "t.json"
    BPETokenizer.train("low lower lowest", 100).save(path)
    (tmp_path / "empty.txt").write_bytes(b"")
    assert main(["encode", "--tokenizer", str(path), "--file", str(tmp_path / "empty.txt")]) == 0
    from_file = capsys.readouterr()
    assert main(["encode", "--tokenizer", str(path), "--text", ""]) == 0
    assert capsys.readouterr() == from_file and "0 characters → 0 tokens" in from_file.err
