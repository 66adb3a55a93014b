"""Every command the documentation shows runs as written: the blocks marked ``runnable`` are
run, in order, in a copy of the checkout (the shipped files of data/, no shared data, no
network), and must succeed; every other shell block says why it is not run. Also: the
README stays a front door, commands name the venv's Python, the decode example gives back
what encode took, and `build` checks torch before any work."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from doc_pages import NOT_RUNNABLE, README, ROOT, blocks, commands, pages, shell_blocks

from bpe import BPETokenizer
from bpe.cli.main import main

README_MOST_LINES = 150  # issue 42: the README is a front door; the rest is docs/, one page a reader
BLOCK_TIMEOUT_S = 180  # a runnable block is a few commands of a few seconds each on small shipped files
# What a copy of the checkout needs for the documented commands: the code, the app, the shipped data.
CHECKOUT = ("app.py", "bpe", "pages", "data", ".streamlit", "requirements.txt", "pyproject.toml")
NOT_COPIED = shutil.ignore_patterns("__pycache__", "cache", "encoded_bpe")
# A tool named bare where a command starts: not the venv's (a bare `python` lacks torch and the rest).
BARE_TOOL = re.compile(r"(?:^|&&|\|\||[|;(]|\$\()\s*(?:\w+=\S+\s+)*(python|streamlit|pip|pytest|dask|ruff)\b")


def runnable_pages() -> list[Path]:
    return [page for page in pages() if any(block.runnable for block in shell_blocks(page))]


def test_the_readme_stays_a_front_door():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MOST_LINES, f"README.md has {len(lines)} lines; move detail to docs/"
    first_block = blocks(README)[0]
    assert "streamlit run app.py" in first_block.text and "pytest" in first_block.text  # it opens with the two commands


def test_every_fenced_block_names_its_language():
    unnamed = [block.where for page in pages() for block in blocks(page) if not block.language]
    assert unnamed == [], "a fenced block without a language hides its commands from these tests"


def test_every_shell_block_says_whether_it_runs():
    for page in pages():
        for block in shell_blocks(page):
            assert block.runnable or block.marker.startswith(NOT_RUNNABLE), (
                f"{block.where}: mark it ```{block.language} runnable or ```{block.language} {NOT_RUNNABLE} <why>"
            )
            if not block.runnable:
                assert len(block.marker[len(NOT_RUNNABLE) :].strip()) >= 10, f"{block.where}: say why it is not run"


def test_every_command_calls_the_venvs_tools():
    for page in pages():
        for block in shell_blocks(page):
            for command in commands(block):
                bare = BARE_TOOL.search(command)
                assert bare is None, f"{block.where}: {bare[1]!r} is not the venv's; write .venv/bin/{bare[1]}"


def test_some_commands_of_every_kind_are_run():
    # The pages that show commands of the lab itself run some of them: a page whose blocks
    # all became not-runnable would go untested without a word.
    assert {page.name for page in runnable_pages()} >= {"README.md", "command-line.md", "big-corpora.md"}


@pytest.mark.parametrize("page", runnable_pages(), ids=lambda page: str(page.relative_to(ROOT)))
def test_runnable_commands_run_as_written(page, tmp_path):
    checkout = copy_of_checkout(tmp_path / "bpe-lab")
    env = {key: value for key, value in os.environ.items() if key not in ("BPE_CORPORA", "BPE_RUNS")}
    env |= {"BPE_SHARED_DATA": str(tmp_path / "no-shared-data"), "BPE_MACHINE_DIR": str(tmp_path / "machine")}
    for block in shell_blocks(page):
        if not block.runnable:
            continue
        done = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", block.text],
            cwd=checkout,
            env=env,
            capture_output=True,
            text=True,
            timeout=BLOCK_TIMEOUT_S,
        )
        assert done.returncode == 0, (
            f"{block.where} failed with status {done.returncode}:\n{block.text}\n"
            f"--- stdout (end)\n{done.stdout[-3000:]}\n--- stderr (end)\n{done.stderr[-3000:]}"
        )


def copy_of_checkout(target: Path) -> Path:
    """The files the documented commands use, copied to ``target``, with ``.venv`` the venv
    these tests run in (or, outside a venv, a ``.venv/bin/python`` that runs this Python)."""
    target.mkdir()
    for name in CHECKOUT:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=NOT_COPIED)
        elif source.exists():
            shutil.copy2(source, target / name)
    if sys.prefix != sys.base_prefix:
        (target / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)
    else:
        bin_dir = target / ".venv" / "bin"
        bin_dir.mkdir(parents=True)
        shim = bin_dir / "python"
        shim.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} "$@"\n')
        shim.chmod(0o755)
    return target


def test_the_decode_example_gives_back_the_encoded_text(tmp_path):
    page = ROOT / "docs" / "command-line.md"
    tokenizer = tmp_path / "shakespeare.json"
    BPETokenizer.train("low lower lowest newest widest " * 20, target_vocab_size=40).save(tokenizer)
    shown = [command for block in shell_blocks(page) if block.runnable for command in commands(block)]
    decode = next(command for command in shown if command.startswith(".venv/bin/python -m bpe decode "))
    assert "tokenizer/shakespeare.json" in decode and '--text "low lower lowest"' in decode
    decode = decode.replace("tokenizer/shakespeare.json", shlex.quote(str(tokenizer)))
    decode = decode.replace(".venv/bin/python", shlex.quote(sys.executable))
    done = subprocess.run(["bash", "-c", decode], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "low lower lowest\n"


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
