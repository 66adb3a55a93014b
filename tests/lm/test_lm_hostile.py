"""Checkpoints from strangers (issue 15, point 4): a clear `BpeError`, never a raw OSError,
and never an allocation the file's own weights do not justify."""

from __future__ import annotations

import resource

import pytest
import torch

from bpe.errors import BpeError
from bpe.lm.checkpoint import load_checkpoint, save_checkpoint
from bpe.lm.config import ModelConfig
from bpe.lm.model import TinyGPT

CONFIG = ModelConfig(vocab_size=50, block_size=16, width=32, depth=1, heads=4)


@pytest.fixture
def saved(tmp_path):
    path = tmp_path / "m.pt"
    save_checkpoint(path, TinyGPT(CONFIG), fingerprint="f")
    return path


def test_a_truncated_checkpoint_is_a_clear_error(saved, tmp_path):
    cut = tmp_path / "cut.pt"
    cut.write_bytes(saved.read_bytes()[: saved.stat().st_size // 2])
    with pytest.raises(BpeError, match="not a readable TinyGPT checkpoint"):
        load_checkpoint(cut, fingerprint="f")


def test_a_folder_is_a_clear_error(tmp_path):
    (tmp_path / "dir.pt").mkdir()
    with pytest.raises(BpeError, match="cannot read checkpoint file '.*dir.pt': it is a folder, not a file"):
        load_checkpoint(tmp_path / "dir.pt", fingerprint="f")


@pytest.mark.parametrize("change", [{"width": 10**6}, {"depth": 10**6}, {"vocab_size": 10**9}, {"block_size": 10**9}])
def test_a_config_asking_for_a_huge_model_is_refused_before_allocating(saved, tmp_path, change):
    payload = torch.load(saved, weights_only=True)
    payload["config"].update(change)
    path = tmp_path / "huge.pt"
    torch.save(payload, path)
    limit = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (8 << 30, limit[1]))  # a terabyte allocation would fail, not swap
    try:
        with pytest.raises(BpeError, match="do not fit its own config"):
            load_checkpoint(path, fingerprint="f")
    finally:
        resource.setrlimit(resource.RLIMIT_AS, limit)


def test_a_good_checkpoint_still_loads(saved):
    assert load_checkpoint(saved, fingerprint="f").config == CONFIG


def test_a_pipe_or_device_is_refused_instead_of_blocking(tmp_path):
    """torch.load opened the path itself: a FIFO blocked it for good, /dev/zero never ended.
    In a subprocess with a timeout, so a load that blocks fails the test instead of hanging it."""
    import os
    import subprocess
    import sys

    from helpers import ROOT

    os.mkfifo(tmp_path / "pipe.pt")
    (tmp_path / "zero.pt").symlink_to("/dev/zero")
    probe = (
        "import sys; from bpe.errors import BpeError; from bpe.lm.checkpoint import load_checkpoint\n"
        "for path in sys.argv[1:]:\n"
        "    try: load_checkpoint(path, fingerprint='f')\n"
        "    except BpeError as error: print(error)\n"
    )
    paths = [str(tmp_path / "pipe.pt"), str(tmp_path / "zero.pt")]
    done = subprocess.run([sys.executable, "-c", probe, *paths], cwd=ROOT, capture_output=True, text=True, timeout=90)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        f"cannot read checkpoint file {path!r}: it is not a regular file (a device, pipe or socket)" for path in paths
    ]


def test_a_checkpoint_over_the_size_cap_is_refused_before_reading(saved, tmp_path, monkeypatch):
    from bpe.lm import checkpoint

    monkeypatch.setattr(checkpoint, "MAX_CHECKPOINT_BYTES", saved.stat().st_size - 1)
    with pytest.raises(BpeError, match=r"m.pt' is [0-9,]+ bytes, over the limit of [0-9,]+ bytes"):
        load_checkpoint(saved, fingerprint="f")
