"""Settings for the whole test run."""

from __future__ import annotations

import os
import sys

import pytest


@pytest.fixture(scope="session", autouse=True)
def machine_dir_of_this_run(tmp_path_factory):
    """Model-job slots and download locks are shared by every process of a machine
    (`bpe.paths.machine_dir`): the test run gets a folder of its own, so a test's model job
    never waits behind another run's on the same machine. Servers the tests start inherit it."""
    previous = os.environ.get("BPE_MACHINE_DIR")
    os.environ["BPE_MACHINE_DIR"] = str(tmp_path_factory.mktemp("machine"))
    yield
    if previous is None:
        os.environ.pop("BPE_MACHINE_DIR", None)
    else:
        os.environ["BPE_MACHINE_DIR"] = previous


@pytest.fixture(autouse=True)
def main_module_kept():
    """AppTest runs each page as ``__main__`` and leaves that module in `sys.modules`. A
    worker started with spawn (the count phase's pool, a Dask nanny) re-runs ``__main__`` by
    its path, which is then a page's temporary script: put pytest's own back after each test."""
    main = sys.modules.get("__main__")
    yield
    if main is not None and sys.modules.get("__main__") is not main:
        sys.modules["__main__"] = main


# Tests that start servers or browsers (a real Streamlit server, the lecture hall with its proxy,
# Chromium) run one after another on one worker when pytest-xdist spreads the run over two
# (pytest.ini): they pick loopback ports and time what a server does, so two of them at once
# would race for ports and slow each other down, while the rest of the suite, pure Python,
# runs beside them on the other worker.
SERVER_TEST_FILES = {"test_lecture_hall_command.py", "test_warm_up.py", "test_load_scripts.py"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("e2e") or item.path.name in SERVER_TEST_FILES:
            item.add_marker(pytest.mark.xdist_group("servers"))
