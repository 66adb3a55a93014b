"""The scale benchmark (not its timings): rustbpe's pieces that give back the file exactly,
and the command line's errors."""

from __future__ import annotations

import sys
from pathlib import Path

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
        (
            ["--tools", "app,x"],
            "unknown tool x: choose from project, project-python, project-compiled, huggingface, rustbpe, app",
        ),
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
    assert result["compiled"] == (tool == "project-compiled")  # ("project" compiles from 100M characters)
    in_one = {"pair index"} if result["compiled"] else set()  # (its merges hold its pair index)
    assert set(result["phases"]) == set(scale.PHASES) - in_one


def test_a_job_runs_with_the_variables_it_is_given():
    wall, cpu, peak, output = scale.measure_command(
        [sys.executable, "-c", "import os; print(os.environ['NUMBA_CACHE_DIR'], 'PATH' in os.environ)"],
        {"NUMBA_CACHE_DIR": "empty-cache"},
    )
    assert output.split() == ["empty-cache", "True"]  # set beside the benchmark's own variables


def test_the_compiled_loops_first_use_is_timed_with_an_empty_cache_then_with_numbas(tmp_path, monkeypatch):
    # The first job gets a cache folder of its own that holds nothing (numba compiles, as on a
    # fresh install); the next two numba's own cache, the second of them timed as "cached".
    text = "a\r\nb" * scale.FIRST_USE_CHARACTERS
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(text, encoding="utf-8", newline="")
    jobs = []

    def measure(kind, sample, merges, environment=None):
        cache = (environment or {}).get("NUMBA_CACHE_DIR")
        jobs.append((kind, merges, cache is not None and not any(Path(cache).glob("*"))))
        assert sample.read_bytes().decode("utf-8") == text[: scale.FIRST_USE_CHARACTERS]  # (its \r\n kept)
        return scale.Measured(10.0 - len(jobs), 1.0, 300.0 - 50 * len(jobs), {})

    monkeypatch.setattr(scale, "measure", measure)
    first_use = scale.compiled_first_use(corpus)
    assert (
        jobs
        == [("project-compiled", scale.FIRST_USE_MERGES, True)]
        + [("project-compiled", scale.FIRST_USE_MERGES, False)] * 2
    )
    assert (first_use["first"]["wall_s"], first_use["cached"]["wall_s"]) == (9.0, 7.0)
    assert scale.first_use_line(first_use).startswith(
        "The compiled merge loop's first use (1M characters to 1,000 merges) compiles it: 9.0 s, 250 MB; "
        "once numba has cached it, 7.0 s, 150 MB."
    )
