"""Text inputs that are not regular files: a pipe (FIFO) with no writer, a device, a folder.

Opening a FIFO for reading blocks until someone writes, and a device such as /dev/zero
never ends: each text input (``build --train``, ``lm train --text``, ``encode --file``,
corpora in data/ or BPE_CORPORA) refuses them in one line, as tokenizer inputs do. The
commands run in a subprocess with a timeout, so a reader that blocks fails the test
instead of hanging it.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from helpers import ROOT

from bpe.corpora.corpus import CorpusInfo, read_corpus
from bpe.corpora.textfile import read_text_file
from bpe.errors import CorpusError

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this OS")


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe.txt"
    os.mkfifo(path)
    return path


def run_cli(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bpe", *argv], cwd=ROOT, capture_output=True, text=True, timeout=60)


def special_inputs(fifo) -> list:
    inputs = [fifo]
    inputs += [device for device in ("/dev/zero", "/dev/null") if os.path.exists(device)]
    return inputs


def test_read_text_file_refuses_pipes_devices_and_folders_at_once(fifo, tmp_path):
    for path in special_inputs(fifo):
        with pytest.raises(CorpusError, match="it is not a regular file .a device, pipe or socket"):
            read_text_file(path)
    with pytest.raises(CorpusError, match="it is a folder, not a file"):
        read_text_file(tmp_path)
    info = CorpusInfo("my corpus", "env", 0, None, "", fifo)  # listed as a file, since replaced by a pipe
    with pytest.raises(CorpusError, match="^cannot read the text file my corpus: it is not a regular file"):
        read_corpus(info)


@pytest.mark.parametrize(
    "command",
    [
        ["build", "--train", "{input}", "--val", "{input}", "--test", "{input}", "--quiet"],
        ["encode", "--tokenizer", "{tokenizer}", "--file", "{input}"],
        ["lm", "train", "--text", "{input}"],
    ],
    ids=["build --train", "encode --file", "lm train --text"],
)
def test_commands_refuse_a_pipe_or_device_as_text_in_one_line(fifo, tmp_path, command):
    from bpe import BPETokenizer

    tokenizer = tmp_path / "tok.json"
    BPETokenizer.train("low lower", 12).save(tokenizer)
    for path in special_inputs(fifo):
        argv = [part.format(input=path, tokenizer=tokenizer) for part in command]
        argv += ["--tokenizer-output", str(tmp_path / "out.json")] if command[0] == "build" else []
        done = run_cli(*argv)
        assert done.returncode == 1, done.stderr
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
        assert "is not a regular file" in done.stderr
