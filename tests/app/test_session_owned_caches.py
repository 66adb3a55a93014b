"""What a closed session leaves in the process (issue 23): what was computed on its own
text goes with it; what was computed on a shipped corpus stays, computed once for all.

Streamlit empties a session's ``scope="session"`` caches when the session disconnects
(`AppSession.clear_session_caches`); `end_session` does the same for AppTest's session.
A run trained on a pasted text or replayed from an uploaded run file must then be gone
from the process, since nobody else holds that text; in the process-wide caches it stayed
until newer entries pushed it out. A run on a shipped corpus must survive the session and
be the very object the next session gets.
"""

from __future__ import annotations

import gc
import weakref

from app_helpers import SMALL_CORPUS, new_app
from streamlit.runtime import caching
from streamlit.testing.v1 import AppTest

import pages._shared.data.runs as runs
from bpe.runfile import RUNS_DIR, list_runs
from pages._shared.data.runs import RUN_MEMO

SHIPPED = list_runs([RUNS_DIR])[0]  # the run file data/ ships
OWN_TEXT = "a session's own text: lower lowest newer newest " * 40


def _session_id_script():
    import streamlit as st
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    st.session_state["session_id"] = get_script_run_ctx().session_id


def end_session() -> None:
    """What Streamlit does when a session disconnects. Every AppTest runs as one session id."""
    session_id = AppTest.from_function(_session_id_script).run().session_state["session_id"]
    caching.clear_session_data_cache(session_id)
    caching.clear_session_resource_cache(session_id)


def held_run(at: AppTest) -> weakref.ref:
    """The run ``at``'s session holds, weakly: it lives while something else holds it."""
    return weakref.ref(at.session_state[RUN_MEMO][1])


def gone_after_the_session(run: weakref.ref) -> bool:
    """End the session (whose AppTest the caller has let go of): is ``run`` then gone?"""
    end_session()
    gc.collect()
    return run() is None


def test_a_run_on_a_pasted_text_goes_when_its_session_ends():
    at = new_app(settings_corpus=SMALL_CORPUS)
    at.text_area(key="settings_paste_box").input(OWN_TEXT)
    at.button(key="settings_use_paste").click().run()
    assert not at.exception
    assert at.session_state["settings_corpus"] == "pasted text"
    run = held_run(at)
    del at
    assert gone_after_the_session(run)


def test_a_run_replayed_from_an_uploaded_file_goes_when_its_session_ends():
    name = "upload:shakespeare (mine.bperun)"
    at = new_app(
        settings_run_uploads={name: ("cafe0123", SHIPPED.path.read_bytes())},
        settings_corpus="run upload: shakespeare (mine.bperun)",
    )
    assert not at.exception and not at.error
    run = held_run(at)
    del at
    assert gone_after_the_session(run)


def test_a_run_on_a_shipped_corpus_is_trained_once_and_outlives_its_session(monkeypatch):
    trained = []
    live_training = runs.LiveTraining
    monkeypatch.setattr(runs, "LiveTraining", lambda *a, **k: trained.append(1) or live_training(*a, **k))
    runs.shared_trainings().clear()  # a run an earlier test left here would hide the training
    first = new_app(settings_corpus=SMALL_CORPUS)
    run = held_run(first)
    del first
    assert not gone_after_the_session(run)
    second = new_app(settings_corpus=SMALL_CORPUS)
    assert second.session_state[RUN_MEMO][1] is run()
    assert trained == [1]


def test_a_chart_of_a_pasted_text_is_drawn_for_its_session_only(monkeypatch):
    """A chart shared by the class (built once per setting) is, for a session's own text,
    that session's: two students pasting the same text each build it; on the shipped corpus
    the second student is handed the first one's."""
    import pages._shared.views.context_page as context_page
    from pages._shared.data.figures import shared_figure

    shared_figure.shared.clear()
    builds, real = [], context_page.coverage_figure
    monkeypatch.setattr(context_page, "coverage_figure", lambda *a: builds.append(1) or real(*a))
    page = "pages/4_Context_window.py"
    for _ in range(2):
        at = new_app(page, settings_corpus=SMALL_CORPUS)
        assert not at.exception
    assert len(builds) == 1
    for _ in range(2):
        at = new_app(page, settings_corpus=SMALL_CORPUS)
        at.text_area(key="settings_paste_box").input(OWN_TEXT)
        at.button(key="settings_use_paste").click().run()
        assert not at.exception and at.session_state["settings_corpus"] == "pasted text"
        end_session()
    assert len(builds) == 3
