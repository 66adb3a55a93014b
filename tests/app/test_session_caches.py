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

from app_helpers import ROOT, SMALL_CORPUS, new_app
from streamlit.runtime import caching
from streamlit.testing.v1 import AppTest

import pages._shared.data.runs as runs
from bpe.scale.run_listing import RUNS_DIR, list_runs
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
    import pages._shared.views.context_window.window_coverage as context_page
    from pages._shared.data.shared_figures import shared_figure

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


# ==================== A session's own caches hold one own text's values (issue 25)
#
# In a class where every student brings a new text each round, each text's values joined the
# last ones up to each function's bound, and every process grew round after round. A new own
# text now lets the last one's values and runs go (`cache_scopes.hold_values_of`).

TEXT_A = "apples and pears, lower lowest newer newest " * 60
TEXT_B = "bananas and berries, wider widest faster fastest " * 60
EVERY_PAGE = ["app.py", *(f"pages/{p.name}" for p in sorted((ROOT / "pages").glob("[0-9]*_*.py")))]
VISITED = [page for page in EVERY_PAGE if "Model" not in page]  # a model job is not a page visit's


def _own_values_script():
    import streamlit as st
    from app_helpers import own_values_held

    st.session_state["held"] = own_values_held()


def own_values_now() -> dict[str, int]:
    """What the caches of AppTest's one session hold of its own, by function."""
    return AppTest.from_function(_own_values_script).run().session_state["held"]


def paste(at: AppTest, text: str) -> None:
    at.text_area(key="settings_paste_box").input(text)
    at.button(key="settings_use_paste").click().run()
    assert not at.exception and at.session_state["settings_corpus"] == "pasted text"


def visit_every_page(at: AppTest) -> None:
    for page in VISITED:
        at.switch_page(page).run()
        assert not at.exception, f"{page}: {at.exception}"


def counted_trainings(monkeypatch) -> list[str]:
    """The corpus of every training started from now on."""
    started, live_training = [], runs.LiveTraining
    monkeypatch.setattr(
        runs, "LiveTraining", lambda text, *a, **k: started.append(text[:8]) or live_training(text, *a, **k)
    )
    return started


def new_session_on(text: str):
    """A new session (the last one ended) on the class's corpus that pastes ``text`` and
    visits every page with it."""
    end_session()
    at = new_app(settings_corpus=SMALL_CORPUS)
    paste(at, text)
    visit_every_page(at)
    return at


def test_a_new_own_text_lets_the_last_ones_values_and_runs_go():
    """After text A then text B on every page, the session holds what a session that only
    ever had B holds: B's values, not A's beside them, and A's run is gone from the process."""
    at = new_session_on(TEXT_A)
    run_a = held_run(at)
    paste(at, TEXT_B)
    visit_every_page(at)
    after_a_then_b = own_values_now()
    gc.collect()
    assert run_a() is None
    del at
    new_session_on(TEXT_B)
    only_b = own_values_now()
    assert only_b and after_a_then_b == only_b
    end_session()


def test_a_shipped_corpus_in_between_keeps_the_own_texts_values(monkeypatch):
    end_session()
    trained = counted_trainings(monkeypatch)
    at = new_app(settings_corpus=SMALL_CORPUS)
    paste(at, TEXT_A)
    held = own_values_now()
    at.session_state["settings_corpus"] = SMALL_CORPUS
    at.run()
    at.session_state["settings_corpus"] = "pasted text"
    at.run()
    assert not at.exception
    assert trained.count(TEXT_A[:8]) == 1 and own_values_now() == held
    end_session()


def test_after_a_new_own_text_the_pages_train_its_run_only(monkeypatch):
    """The pages that offer the session's other runs (Tokenize's span diff, Compare runs' run
    B) offer those at hand: they never train again the run of an own text let go."""
    at = new_session_on(TEXT_A)
    trained = counted_trainings(monkeypatch)
    paste(at, TEXT_B)
    visit_every_page(at)
    assert trained == [TEXT_B[:8]]
    assert at.session_state["compare_b"].corpus == SMALL_CORPUS  # the class's run, at hand
    end_session()


def test_a_page_asking_seven_values_of_a_function_finds_them_all_on_its_next_run(monkeypatch):
    """Context window measures up to seven tokenizers in one run (characters, three vocab
    sizes, GPT-2, GPT-4, an upload): on a session's own text, with a session's cache of four
    values a function, the run's last values pushed out its first, and every run measured
    them all again."""
    import pages._shared.data.measures as measures
    from bpe.run import train_run

    end_session()
    measured, token_lengths = [], measures.token_lengths
    monkeypatch.setattr(measures, "token_lengths", lambda *a: measured.append(1) or token_lengths(*a))
    at = new_app("pages/4_Context_window.py", settings_corpus=SMALL_CORPUS)
    paste(at, (ROOT / "data" / "tinyshakespeare.txt").read_text(encoding="utf-8")[:20_000])  # sizes to choose
    at.session_state["vocab_uploaded"] = ("mine.json", train_run(TEXT_B, 300).tokenizer())
    sizes = at.multiselect(key="_w_context_sizes")
    sizes.set_value(sizes.options[-3:]).run()
    assert not at.exception and len(at.session_state["context_sizes"]) == 3
    assert len(measured) >= 5  # the characters, three sizes and the upload at least
    measured.clear()
    at.run()
    assert not at.exception and measured == []
    end_session()
