"""A lecture hall (issue 25): `python -m pages._shared.lecture_hall` with two app processes
behind haproxy, and a small class through the proxy with the classroom script
(pages/_shared/lecture_hall/load/classroom.py):
no errors, no session sees another's text, every session is answered by one process
only (its websocket and its uploads alike), both processes get students, and SIGTERM
stops the proxy and both processes, leaving nothing behind. The processes are warmed for
the class's link first (``--warm``), as a teacher starts them."""

from __future__ import annotations

import json
import os
import signal
import urllib.parse

import pytest
from helpers import children_of, free_ports, gone, nobody_listens, on_own_thread, start_lecture_hall

from pages._shared.lecture_hall.load.classroom import main as classroom

pytestmark = pytest.mark.e2e
CLASS_CORPUS, CLASS_VOCAB = "Python language reference", 1000  # the classroom script's defaults


def test_a_class_through_two_processes_stays_apart_and_stuck(tmp_path):
    port = free_ports(3)
    env = {**os.environ, "BPE_SESSION_GRACE_SECONDS": "5", "BPE_MACHINE_DIR": str(tmp_path / "machine")}
    link = "?" + urllib.parse.urlencode({"corpus": CLASS_CORPUS, "vocab": CLASS_VOCAB})  # the class's, warmed
    hall, started = start_lecture_hall(
        "--processes", "2", "--port", str(port), "--address", "127.0.0.1", "--warm", link, env=env
    )
    children = children_of(hall.pid)
    try:
        figures = tmp_path / "class.json"
        status = on_own_thread(
            classroom,
            [
                "--url",
                f"http://127.0.0.1:{port}",
                "--sessions",
                "4",
                "--merges",
                "3",
                "--think",
                "0.2",
                "--jobs-per",
                "4",
                "--model-steps",
                "10",
                "--corpus",
                CLASS_CORPUS,
                "--vocab",
                str(CLASS_VOCAB),
                "--json",
                str(figures),
            ],
        )
        found = json.loads(figures.read_text())
    finally:
        os.killpg(hall.pid, signal.SIGTERM)  # as a service manager stops it
        output, _ = hall.communicate(timeout=90)
    assert status == 0 and found["errors"] == [] and found["leaks"] == [], found["errors"]
    apps = {f"127.0.0.1:{port + 1}", f"127.0.0.1:{port + 2}"}
    assert set(found["per_process"]) == apps  # the proxy placed students on both processes
    assert sum(row["sessions"] for row in found["per_process"].values()) == 4
    for row in found["per_process"].values():
        assert row["latency"]["merge step"]["n"] == 3 * row["sessions"]
        assert row["memory_mb"]["after round 2"] > 0  # each process found and measured by its port
    assert found["latency"]["upload a text"]["n"] == 4 and len(found["jobs"]) == 1
    assert hall.returncode == 143 and "Traceback" not in output, output[-3000:]
    assert "stopped the proxy and 2 app process(es)" in output
    warmed = [line for line in started if line.startswith("[warm app")]
    assert len(warmed) == 2 and all(" warmed " in line for line in warmed), started  # no note, no failure
    assert len(children) == 3 and gone(children)
    assert all(nobody_listens(port + n) for n in range(3))
