"""How a command ends when SIGTERM arrives (`bpe.cli.errors`): status 143 and its one line,
also when CPython replaced the stop's exception with another one."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

from tests.helpers import ROOT

# A command whose SIGTERM lands inside code that turns the stop into another exception, as
# CPython did inside ssl's import ("TypeError: expected a message argument").
COMMAND = """
import os, signal, sys
from bpe.cli.errors import Terminated, reporting_errors, terminating_cleanly

def action():
    try:
        if {signalled}:
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(1000):  # the handler runs between these instructions
                pass
        raise TypeError("expected a message argument")
    except Terminated:
        raise TypeError("expected a message argument") from None

with terminating_cleanly():
    sys.exit(reporting_errors(action, interrupted="interrupted: no partial file was left in the cache."))
"""


def run(signalled: bool) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    code = COMMAND.format(signalled=signalled)
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)


def test_a_stop_replaced_by_another_exception_is_still_the_stop():
    ended = run(signalled=True)
    assert ended.returncode == 128 + signal.SIGTERM, ended.stderr
    assert ended.stderr == "\ninterrupted: no partial file was left in the cache.\n"


def test_the_same_exception_without_a_stop_is_not_hidden():
    ended = run(signalled=False)
    assert ended.returncode == 1 and "TypeError: expected a message argument" in ended.stderr


def test_a_reader_that_stops_reading_ends_the_command_quietly(tmp_path):
    """``python -m bpe inspect ... | head -3``: once the reader has gone, the command stops as a
    command killed by SIGPIPE does (status 141), with nothing on stderr: neither the
    BrokenPipeError of a write nor the one of the flush at exit, whether the output is
    longer than Python buffers (every merge, ``--json``) or shorter (the summary). The
    pipe's reading end is closed before the command starts, so every write finds it gone."""
    from bpe.tokenizer import BPETokenizer

    tokenizer = tmp_path / "shakespeare.json"
    text = (ROOT / "data" / "tinyshakespeare.txt").read_text(encoding="utf-8")[:200_000]
    BPETokenizer.train(text, 2_000, alphabet="bytes", pretokenizer="gpt2").save(tokenizer)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for options in (["--json"], []):
        reading_end, writing_end = os.pipe()
        os.close(reading_end)
        try:
            ended = subprocess.run(
                [sys.executable, "-m", "bpe", "inspect", "--tokenizer", str(tokenizer), *options],
                env=env,
                stdout=writing_end,
                stderr=subprocess.PIPE,
                timeout=60,
            )
        finally:
            os.close(writing_end)
        assert ended.returncode == 128 + signal.SIGPIPE, ended.stderr
        assert ended.stderr == b""
