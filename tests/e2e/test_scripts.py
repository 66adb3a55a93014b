"""The two scripts in this folder that the docs name (docs/architecture.md's `doc_pictures.py`,
docs/speed.md's `measure_playback.py`) start as a person runs them, from the checkout with the
venv's Python: their imports resolve outside pytest (this folder's conftest imports the tests'
helpers, which import pages/), and a wrong argument gets a one-line answer before any browser starts."""

from __future__ import annotations

import subprocess
import sys

import pytest
from e2e.conftest import ROOT

pytest.importorskip("playwright", reason="the scripts drive chromium through playwright")


@pytest.mark.parametrize(
    "script, argument, answer",
    [
        ("doc_pictures.py", "no-such-picture", "no picture named ['no-such-picture']; the pictures are ["),
        ("measure_playback.py", "0.3", "no speed [0.3] on the Speed slider; its speeds are ["),
    ],
)
def test_a_script_the_docs_name_starts_and_answers_a_wrong_argument_in_one_line(script, argument, answer):
    run = subprocess.run(
        [sys.executable, f"tests/e2e/{script}", argument], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 1
    assert run.stderr.startswith(answer) and run.stderr.count("\n") == 1, run.stderr
