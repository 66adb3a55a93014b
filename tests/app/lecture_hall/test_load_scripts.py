"""The lecture hall's load scripts keep working: each runs for a few seconds against a real
server (`streamlit run app.py` on loopback, started by the script itself or, for
`hall_runs`, by the lecture hall's command) on a small corpus, and reports figures.

The classroom script runs a whole small lesson in tests/e2e/test_server_classroom.py and
through the lecture hall in tests/e2e/test_server_lecture_hall.py. Each script runs on a thread
of its own (`on_own_thread`): on a worker that has run a browser test first, Playwright's event
loop runs on the main thread, and the scripts' ``asyncio.run`` is refused there."""

from __future__ import annotations

import json
import os

import pytest
from helpers import on_own_thread

from pages._shared.lecture_hall.load import hall_runs, hostile_uploads, page_cost, session_memory

SMALL = ["--corpus", "low lower newest widest", "--vocab", "40"]
HAPROXY = next((p for p in ("/usr/sbin/haproxy", "/usr/local/sbin/haproxy") if os.access(p, os.X_OK)), None)


def test_page_cost_measures_every_page_and_a_merge_step(capsys):
    assert on_own_thread(page_cost.main, ["--visits", "1", "--steps", "2", *SMALL]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith(("first visit: ", "merge step"))]
    assert any(row.startswith("first visit: Merge by merge ") for row in rows), out
    assert len(rows) >= 10 and rows[-1].startswith("merge step")  # each page's first visit, then the steps
    assert "the server's event loop: uvloop" in out  # requirements.txt installs it


def test_session_memory_samples_the_server_before_and_after_a_session(tmp_path, capsys):
    figures = tmp_path / "memory.json"
    argv = ["--sessions", "1", "--megabytes", "0.05", "--ttl", "2", "--watch", "3", "--json", str(figures)]
    assert on_own_thread(session_memory.main, argv) == 0
    found = json.loads(figures.read_text())["summary"]
    assert found["errors"] == []
    for phase in ("idle", "closed", "after_ttl"):
        assert found[phase]["rss_mb"] > 0 and found[phase]["traced_mb"] > 0, found[phase]
    assert "rss_after_trim_mb" in found["after_ttl"]  # the end asks glibc for its free pages back
    assert "Traceback" not in capsys.readouterr().out


def test_hostile_uploads_are_measured_on_the_real_server_beside_a_student(tmp_path, capsys):
    figures = tmp_path / "hostile.json"
    argv = ["--only", "run-doubling,text-box", *SMALL, "--json", str(figures)]
    assert on_own_thread(hostile_uploads.main, argv) == 0
    rows = {row["case"]: row for row in json.loads(figures.read_text())}
    assert "merge 13 makes a token of 8,192 bytes" in rows["run-doubling"]["shown"]
    assert rows["text-box"]["rss_peak_mb"] > 0 and "Traceback" not in capsys.readouterr().out


@pytest.mark.skipif(HAPROXY is None and os.environ.get("REQUIRE_BROWSER") != "1", reason="haproxy is not installed")
def test_hall_runs_drives_a_class_through_the_lecture_hall_and_prints_its_row(tmp_path, capsys):
    figures = tmp_path / "hall.json"
    # The classroom's own corpus and vocab (a student's uploaded text must reach its 20 steps
    # alone too), warmed for the link as a teacher starts it.
    argv = ["--runs", "1x2", "--json", str(figures)]
    argv += ["--merges", "1", "--rounds", "1", "--think", "0.1", "--jobs-per", "1000", "--model-steps", "10"]
    assert on_own_thread(hall_runs.main, argv) == 0
    (found,) = json.loads(figures.read_text())
    assert found["errors"] == [] and found["leaks"] == [] and found["lecture_hall_exit"] == 143
    assert found["sessions"] == 2 and found["latency"]["merge step"]["n"] == 2
    table = capsys.readouterr().out.split("| app processes |", 1)[1].splitlines()
    assert table[2].startswith("| 1 | 2 | ")  # the header, its rule, then one row per run
