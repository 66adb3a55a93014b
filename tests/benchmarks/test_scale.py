"""The scale benchmark (not its timings): rustbpe's pieces that give back the file exactly,
and the command line's errors."""

from __future__ import annotations

import sys

import pytest

import bpe.benchmarks.scale as scale


def test_rustbpe_pieces_give_back_the_file_exactly(tmp_path):
    path = tmp_path / "corpus.txt"
    text = "line one\r\nline two\n" * 5_000 + "no newline at the end"
    path.write_bytes(text.encode("utf-8"))
    pieces = list(scale._lines(path, block_bytes=1_000))
    assert "".join(pieces) == text and len(pieces) > 10
    assert all(piece.endswith("\n") for piece in pieces[:-1])


def test_an_unknown_corpus_or_tool_is_named(capsys):
    for argv, message in (
        (["--corpus", "open,wide"], "unknown corpus wide: choose from open, closed"),
        (["--tools", "app,x"], "unknown tool x: choose from project, project-compiled, huggingface, rustbpe, app"),
    ):
        with pytest.raises(SystemExit):
            scale.main(argv)
        assert message in capsys.readouterr().err


def test_a_jobs_peak_is_its_own_not_the_benchmarks():
    # Linux starts a child's ru_maxrss at its parent's peak: a bare interpreter started by a
    # benchmark holding 300 MB read 300 MB, so every tool of the closed table read 238 MB.
    held = bytearray(300 * 2**20)
    held[::4096] = b"\x01" * len(held[::4096])  # touched, so resident
    wall, cpu, peak, output = scale.measure_command([sys.executable, "-c", "print('done')"])
    assert output.strip() == "done"
    assert peak < 100 * 2**20, f"{peak / 2**20:.0f} MB for a bare interpreter"
    del held


@pytest.mark.parametrize("mode", sorted(scale.APP_MODES))
def test_the_apps_path_trains_in_the_alphabet_and_pre_tokenizer_it_names(tmp_path, mode):
    # A job of the app's path, as the child process runs it: the merges asked for, on top of
    # the alphabet's base (256 bytes, or the text's characters), and the process's memory
    # once the text is read.
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("the cat sat on the mat, the dog sat on the log.\n" * 200, encoding="utf-8")
    result = scale.run_job(mode, str(corpus), 12)
    assert result["merges"] == 12 and result["read_mb"] > 0


@pytest.mark.parametrize("tool", scale.PROJECT_TOOLS)
def test_the_projects_jobs_count_train_and_say_where_the_time_went(tmp_path, tool):
    # The project's job as the child runs it, with its merge phase in Python or compiled
    # (where numba is installed): the merges asked for, the chunks, every step's seconds.
    if tool == "project-compiled":
        pytest.importorskip("numba", reason="the compiled merge phase needs numba (requirements.txt installs it)")
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("the cat sat on the mat, the dog sat on the log.\n" * 200, encoding="utf-8")
    result = scale.run_job(tool, str(corpus), 12)
    assert result["merges"] == 12 and result["chunks"] == 11 and result["run_file_bytes"] > 0
    in_one = {"pair index"} if tool == "project-compiled" else set()  # (its merges hold its pair index)
    assert set(result["phases"]) == set(scale.PHASES) - in_one
