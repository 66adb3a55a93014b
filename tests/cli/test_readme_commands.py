"""The README's command-line block works from a fresh clone: the venv's Python, a decode
example that decodes what encode printed, and `build` checking torch before any work."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys

from helpers import ROOT

from bpe import BPETokenizer
from bpe.cli.main import main

README = (ROOT / "README.md").read_text(encoding="utf-8")


def command_block() -> list[str]:
    """The commands of the README's "The command line" block, continuation lines joined."""
    section = README.split("## The command line", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    joined = block.replace("\\\n", " ")
    return [line.split("  #")[0].strip() for line in joined.splitlines() if line.strip() and not line.startswith("#")]


def test_every_command_runs_the_venvs_python():
    commands = command_block()
    assert commands and all(command.startswith(".venv/bin/python -m bpe") for command in commands)


def test_the_decode_example_gives_back_the_encoded_text(tmp_path):
    tokenizer = tmp_path / "bpe_tokenizer.json"
    BPETokenizer.train("low lower lowest newest widest " * 20, target_vocab_size=40).save(tokenizer)
    commands = {
        name: next(c for c in command_block() if c.startswith(f".venv/bin/python -m bpe {name} "))
        for name in ("encode", "decode")
    }
    outputs = {}
    for name, command in commands.items():
        command = command.replace("tokenizer/bpe_tokenizer.json", shlex.quote(str(tokenizer)))
        command = command.replace(".venv/bin/python", shlex.quote(sys.executable))
        done = subprocess.run(["bash", "-c", command], cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        outputs[name] = done.stdout
    ids = [int(i) for i in outputs["encode"].split()]
    assert ids == BPETokenizer.from_file(tokenizer).encode("low lower lowest")
    assert outputs["decode"] == "low lower lowest\n"


def test_build_says_torch_is_missing_before_doing_any_work(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "processed"
    folder.mkdir()
    for name in ("train", "val", "test"):
        (folder / f"wikitext2_{name}_clean.txt").write_text("low lower lowest\n" * 20, encoding="utf-8")
    monkeypatch.setitem(sys.modules, "torch", None)  # as in a Python without torch
    out_json = tmp_path / "tok" / "bpe_tokenizer.json"
    status = main(
        [
            "build",
            "--processed-dir",
            str(folder),
            "--tokenizer-output",
            str(out_json),
            "--encoded-output-dir",
            str(tmp_path / "enc"),
            "--target-vocab-size",
            "20",
        ]
    )
    captured = capsys.readouterr()
    assert status == 1
    assert "torch is not installed in this Python" in captured.err and ".venv/bin/python -m bpe build" in captured.err
    assert "Traceback" not in captured.err and len(captured.err.strip().splitlines()) == 1
    assert captured.out == "" and not out_json.exists() and not (tmp_path / "enc").exists()
