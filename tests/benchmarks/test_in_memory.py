"""`python -m bpe.benchmarks.in_memory` refuses sizes it cannot take a slope between, in one
line, before it starts a training: the bytes per character are the slope between the two largest."""

from __future__ import annotations

import pytest

from bpe.benchmarks import in_memory


@pytest.mark.parametrize("sizes", [["1000"], ["1000", "1000"], ["0", "1000"]])
def test_sizes_without_a_slope_are_refused_in_one_line(sizes, capsys, monkeypatch):
    monkeypatch.setattr(in_memory, "peak_bytes", lambda *args: pytest.fail("a training started"))
    with pytest.raises(SystemExit) as stopped:
        in_memory.main(["--sizes", *sizes])
    assert stopped.value.code == 2
    error = capsys.readouterr().err.splitlines()[-1]
    assert (
        error
        == f"python -m bpe.benchmarks.in_memory: error: --sizes needs two different sizes of 1 character or more, got {' '.join(sizes)}"
    )
