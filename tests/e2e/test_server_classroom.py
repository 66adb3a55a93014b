"""The classroom load script, kept working (issue 15): a small class through the whole
lesson on the real server, with no errors and no session seeing another's text; and a
merge step reruns only the player fragment (the fix that let 30 students step at once)."""

from __future__ import annotations

import asyncio
import json
import os

import pytest
from helpers import on_own_thread

from pages._shared.lecture_hall.load.classroom import Report, Session, free_port, start_server, stop_server
from pages._shared.lecture_hall.load.classroom import main as classroom

pytestmark = pytest.mark.e2e


def test_a_small_class_runs_the_whole_lesson_cleanly(tmp_path):
    figures = tmp_path / "class.json"
    status = on_own_thread(
        classroom,
        [
            "--sessions",
            "3",
            "--merges",
            "3",
            "--think",
            "0.2",
            "--jobs-per",
            "3",
            "--model-steps",
            "10",
            "--json",
            str(figures),
        ],
    )
    found = json.loads(figures.read_text())
    assert status == 0, found["errors"]
    assert found["errors"] == [] and found["leaks"] == []
    assert found["latency"]["merge step"]["n"] == 9 and found["latency"]["merge step (round 2)"]["n"] == 9
    assert found["latency"]["upload a text"]["n"] == 3 and len(found["jobs"]) == 1
    assert found["server_exit"] == 0


def test_a_merge_step_reruns_only_the_player():
    port = free_port()
    server = start_server(port, dict(os.environ))

    async def step() -> tuple[int, str, float]:
        session = Session(0, port, "", "", Report(), {0: b"unused marker"})
        await session.open("corpus=low+lower+newest+widest&vocab=40")
        await session.rerun("open", page="")
        await session.rerun("merge page", page=session.pages["Merge by merge"])
        fragment = session.widget_fragments["merges_forward"]
        await session.click("step", "merges_forward")
        await session.close()
        return len(session.report.errors), fragment, session.last_status

    try:
        errors, fragment, status = on_own_thread(asyncio.run, step())
    finally:
        stop_server(server)
    assert errors == 0 and fragment, "Step forward is not inside a fragment"
    assert status == "FINISHED_FRAGMENT_RUN_SUCCESSFULLY"
