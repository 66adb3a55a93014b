"""Where things live: the project's data folder, its download cache, the shared reference data,
and the folder where a machine's server processes keep what they share (locks).

One home for every location the package reads or writes by default, so that the corpus
registry, the downloaders and the benchmarks agree. Each function that takes a folder
also accepts another one; these are only the defaults.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = PROJECT_ROOT / "data"  # texts the project ships
CACHE_DIR = DATA_DIR / "cache"  # downloads (git-ignored): WikiText-2, GPT-2's files
SHARED_DATA_ENV_VAR = "BPE_SHARED_DATA"
MACHINE_DIR_ENV_VAR = "BPE_MACHINE_DIR"


def shared_data_dir() -> Path:
    """The shared reference data: ``$BPE_SHARED_DATA``, else ``../shared/data`` beside the project."""
    return Path(os.environ.get(SHARED_DATA_ENV_VAR) or PROJECT_ROOT.parent / "shared" / "data")


def machine_dir() -> Path:
    """Where the server processes of this machine keep their shared locks (the line of model
    jobs): ``$BPE_MACHINE_DIR``, else ``bpe-lab-<uid>`` in the system's temporary folder.
    One folder per machine and user, so every server process of one lecture hall finds it
    without being told; a test points ``BPE_MACHINE_DIR`` at a folder of its own."""
    found = os.environ.get(MACHINE_DIR_ENV_VAR)
    if found:
        return Path(found)
    return Path(tempfile.gettempdir()) / f"bpe-lab-{os.getuid()}"
