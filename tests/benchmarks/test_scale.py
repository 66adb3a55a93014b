"""The scale benchmark (not its timings): rustbpe's pieces that give back the file exactly,
and the command line's errors."""

from __future__ import annotations

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
        (["--tools", "app,x"], "unknown tool x: choose from project, huggingface, rustbpe, app"),
    ):
        with pytest.raises(SystemExit):
            scale.main(argv)
        assert message in capsys.readouterr().err
