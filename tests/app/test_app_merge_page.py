"""AppTest: pages/1_Merge_by_merge.py, the training played merge by merge."""

from __future__ import annotations

import pytest
import streamlit as st
from app_helpers import SMALL_CORPUS, metric, new_app, plotly_specs, title_text

import pages._shared.data.runs

PAGE = "pages/1_Merge_by_merge.py"
SMALL = dict(settings_corpus=SMALL_CORPUS)  # 17 merges at minimum frequency 2


@pytest.fixture
def fresh_caches():
    # For a test that needs a cache miss: st.cache_data outlives AppTest instances.
    st.cache_data.clear()
    st.cache_resource.clear()


def jump_slider(at):
    # keyed by the step it shows (see the page), so found by its label
    return next(slider for slider in at.slider if slider.label == "Jump to step")


def shown(at):
    """What the user sees of the current step: step metric, chart bars, segment HTML."""
    spec = plotly_specs(at)[0]
    title = title_text(spec)
    return metric(at, "Step"), spec["data"][0]["y"], title, at.html[1].value, at.html[2].value


def test_opens_at_step_one_with_chart_segments_and_log():
    at = new_app(PAGE, **SMALL)
    assert not at.exception
    assert metric(at, "Step") == "1 of 17"
    fig = plotly_specs(at)[0]
    assert fig["data"][0]["type"] == "bar" and fig["data"][0]["marker"]["color"][0] == "#dc2626"
    assert any("Tie rule: ties go to the pair whose first occurrence" in c.value for c in at.caption)
    headline = 'Merge 1: <code>e</code> + <code>s</code> → <code class="bpe-new-token">es</code>, 9 times'
    assert headline in at.html[0].value
    before, after = at.html[1].value, at.html[2].value
    assert 'class="tok pair-left"' in before and 'class="tok merged"' in after
    assert after.count('class="tok merged"') == 9  # 'es' in 6 x newest, 3 x widest
    log = at.dataframe[1].value
    assert list(log.columns) == [
        "",
        "step",
        "pair",
        "new token",
        "frequency",
        "merges applied",
        "sequence length",
        "vocab size",
    ]
    assert log.iloc[0][""] == "▶" and log.iloc[0]["new token"] == "es"
    changes = at.dataframe[0].value
    assert set(changes["what happened"]) == {"merged away", "consumed", "created"}
    assert at.get("download_button")


def test_step_forward_back_and_jump_change_step_chart_and_segments():
    at = new_app(PAGE, **SMALL)
    first = shown(at)
    at.button(key="merges_forward").click().run()
    second = shown(at)
    assert second[0] == "2 of 17"
    assert second[2] != first[2] and second[3] != first[3] and second[4] != first[4]
    jump_slider(at).set_value(9).run()
    assert metric(at, "Step") == "9 of 17" and at.query_params["step"] == "9"
    at.button(key="merges_back").click().run()
    assert metric(at, "Step") == "8 of 17"
    assert at.dataframe[1].value.set_index("step").loc[8, ""] == "▶"


def test_play_advances_one_step_per_tick_and_stops_at_the_end():
    at = new_app(PAGE, **SMALL)
    at.button(key="merges_play").click().run()  # fragments never tick in AppTest: one run() is one tick
    assert at.session_state["merges_playing"] and metric(at, "Step") == "2 of 17"
    assert at.button(key="merges_play").label == "Pause"
    for _ in range(20):
        at.run()
    assert not at.session_state["merges_playing"] and metric(at, "Step") == "17 of 17"
    assert at.button(key="merges_play").label == "Play"
    assert "Training stopped after 17 merges" in at.info[0].value
    assert not at.exception


@pytest.fixture
def trainings(monkeypatch):
    """Every real training the app starts (cache misses), recorded by wrapping `LiveTraining`."""
    calls = []
    real = pages._shared.data.runs.LiveTraining

    def counting(text, settings, **kwargs):
        calls.append(settings.target_vocab_size)
        return real(text, settings, **kwargs)

    monkeypatch.setattr(pages._shared.data.runs, "LiveTraining", counting)
    return calls


def test_smaller_vocab_is_a_prefix_and_never_retrains(trainings):
    at = new_app(PAGE, **SMALL)
    trained = len(trainings)
    top = at.sidebar.slider(key="_w_settings_vocab").value  # 1,000: the run stopped at 17 merges
    assert top == 1000
    base = at.sidebar.slider(key="_w_settings_vocab").min
    at.sidebar.slider(key="_w_settings_vocab").set_value(base + 5).run()
    assert metric(at, "Step") == "1 of 5"
    jump_slider(at).set_value(5).run()
    assert "the first 5 of the run's 17 merges" in at.info[0].value
    at.sidebar.number_input(key="_w_settings_vocab_exact").set_value(base + 9).run()
    assert metric(at, "Step") == "5 of 9"
    assert len(trainings) == trained  # no retraining: the same run, cut shorter
    assert at.sidebar.number_input(key="_w_settings_train_up_to").value == 1000


@pytest.mark.usefixtures("fresh_caches")
def test_vocab_above_the_trained_maximum_retrains_once(trainings):
    at = new_app(
        PAGE,
        settings_corpus="Python language reference",
        settings_vocab=150,
        settings_train_up_to=150,
        settings_prefix_cap=20_000,
    )
    trained = len(trainings)
    assert not at.exception
    at.sidebar.slider(key="_w_settings_vocab").set_value(180).run()
    assert len(trainings) == trained + 1
    assert at.sidebar.number_input(key="_w_settings_train_up_to").value == 180
    at.sidebar.slider(key="_w_settings_vocab").set_value(160).run()
    assert len(trainings) == trained + 1  # back down: a prefix of the 180 run


def test_top_k_changes_the_bars_without_retraining(trainings):
    at = new_app(PAGE, **SMALL)
    trained = len(trainings)
    at.sidebar.slider(key="_w_settings_top_k").set_value(3).run()
    assert len(plotly_specs(at)[0]["data"][0]["y"]) == 3
    assert len(trainings) == trained


def test_a_link_opens_the_same_step():
    at = new_app(PAGE, query={"corpus": SMALL_CORPUS, "step": "4"})
    assert metric(at, "Step") == "4 of 17"
    assert at.query_params["corpus"] == SMALL_CORPUS and at.query_params["step"] == "4"


def test_token_text_is_html_escaped():
    evil = "<script>alert(1)</script> <img src=x onerror=alert(1)> " * 4
    at = new_app(
        PAGE,
        settings_user_corpora={"pasted text": evil},
        settings_corpus="pasted text",
        settings_min_freq=1,
        settings_vocab=60,
    )
    assert not at.exception
    for _ in range(3):
        at.button(key="merges_forward").click().run()
    for element in at.html:
        assert "<script" not in element.value and "<img" not in element.value
    assert "&lt;script&gt;" in at.html[1].value or "&lt;" in at.html[1].value
    labels = " ".join(plotly_specs(at)[0]["layout"]["xaxis"]["ticktext"])
    assert "<" not in labels


def test_stepping_through_the_python_reference():
    """The classroom case: 500,000-character cap, vocab 1,000 (render times: tests/app/measure_render.py)."""
    at = new_app(PAGE, settings_corpus="Python language reference", settings_vocab=1000)  # trains once
    assert metric(at, "Step") == "1 of 897"
    for _ in range(5):
        at.button(key="merges_forward").click().run()
    assert metric(at, "Step") == "6 of 897"
    assert not at.exception


def test_text_window_moves_and_follows_a_corpus_that_shrinks():
    at = new_app(PAGE, settings_corpus="Python language reference", settings_prefix_cap=20_000, settings_vocab=150)
    jump_slider(at).set_value(40).run()
    assert 'class="tok merged"' in at.html[2].value  # following the merge: an occurrence is in view
    at.toggle(key="_w_merges_follow").set_value(False).run()
    first = at.html[1].value
    at.slider(key="_w_merges_window").set_value(15_000).run()
    assert at.html[1].value != first
    at.sidebar.selectbox(key="_w_settings_corpus").set_value(SMALL_CORPUS).run()
    assert not at.exception
    assert metric(at, "Step").endswith(" of 17")
