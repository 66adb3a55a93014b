"""Shared test helpers: where the shared reference data is, how many hypothesis examples."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# ../shared/data beside the project; BPE_SHARED_DATA points elsewhere when it lives elsewhere.
SHARED_DATA = Path(os.environ.get("BPE_SHARED_DATA", ROOT.parent / "shared" / "data"))
MAX_EXAMPLES = int(os.environ.get("BPE_MAX_EXAMPLES", "100"))


def shared_file(relative: str) -> Path:
    """A file of the shared data, or skip the test saying what is missing and how to point at it."""
    path = SHARED_DATA / relative
    if not path.is_file():
        pytest.skip(f"{relative} not found under {SHARED_DATA} (set BPE_SHARED_DATA to the shared data folder)")
    return path
