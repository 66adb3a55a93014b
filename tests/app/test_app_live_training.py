"""AppTest: live training to 50,000 with progress and a Stop button that keeps the merges
learned so far for this session only (another session's training of the same settings
goes on, and nobody else is handed the stopped run), and a text that will not fit in
memory refused in one line before any training."""

from __future__ import annotations

import pytest
import streamlit as st
from app_helpers import new_app, unescape_markdown

from pages._shared.data.runs import LIVE, STOPPED_RUN, shared_trainings

PAGE = "pages/1_Merge_by_merge.py"
LONG = dict(settings_vocab=50_000, settings_prefix_cap=600_000)  # 540,000 characters to train on


@pytest.fixture(autouse=True)
def no_waiting(monkeypatch):
    """The page waits for its training in its run at most `LIVE_WAIT_SECONDS`, then ends
    its run with the progress and Stop on screen: here at once (AppTest runs no timers)."""
    import pages._shared.frame.training_progress as live

    monkeypatch.setattr(live, "QUICK_SECONDS", 0.0)
    monkeypatch.setattr(live, "LIVE_WAIT_SECONDS", 0.0)
    st.cache_data.clear()
    shared_trainings().clear()
    yield
    shared_trainings().clear()


def progress_texts(at) -> list[str]:
    return [element.proto.text for element in at.get("progress")]


def stop(at):
    return at.button(key="live_training_stop")


def test_stop_keeps_the_merges_so_far_for_this_session_only():
    at = new_app(PAGE, **LONG)
    assert not at.exception, at.exception
    assert at.sidebar.slider(key="_w_settings_vocab").max == 50_000  # the live limit, on a long enough text
    assert any(text.startswith("Training: merge") and "merges/s" in text for text in progress_texts(at)) or any(
        text.startswith("Preparing the text") for text in progress_texts(at)
    ), progress_texts(at)
    asked, training = at.session_state[LIVE]
    while training.progress().merges < 20:
        assert not training.wait(0.05), "trained to the end before the test could press Stop"
    stop(at).click().run()
    assert not at.exception, at.exception
    kept_key, kept = at.session_state[STOPPED_RUN]
    merges, target = len(kept.steps), 50_000 - len(kept.base_tokens)
    assert 20 <= merges < target
    notes = [info.value for info in at.info]
    assert any(f"Training stopped at {merges:,} of {target:,} merges" in note for note in notes), notes
    assert next(s for s in at.slider if s.label == "Jump to step").max == merges  # the pages show what it learned
    assert at.sidebar.slider(key="_w_settings_vocab").value == kept.final_vocab_size
    # kept as the run to the vocab it reached (the same merges), never as the run to 50,000
    assert at.sidebar.number_input(key="_w_settings_train_up_to").value == kept.final_vocab_size
    assert kept_key != asked.training_key()
    assert training.wait(10) and training.result is None  # nobody else waited: it stopped
    assert shared_trainings().finished(asked.training_key()) is None  # never the run of these settings for others
    other = new_app(PAGE, **LONG)  # another session: trains afresh, is not handed the stopped run
    assert not any("Training stopped at" in info.value for info in other.info)
    assert other.session_state[LIVE][1] is not training
    stop(other).click().run()
    # "Train again" drops the stopped run: the full run trains
    at.button(key="live_training_again").click().run()
    assert STOPPED_RUN not in at.session_state and stop(at) is not None
    assert at.sidebar.number_input(key="_w_settings_train_up_to").value == 50_000
    # the vocab Stop put at the stopped run's last merge goes back to the full run's
    assert at.sidebar.slider(key="_w_settings_vocab").value == 50_000
    stop(at).click().run()


def test_one_sessions_stop_leaves_another_sessions_training_of_the_same_settings():
    first = new_app(PAGE, **LONG)
    second = new_app(PAGE, **LONG)
    training = first.session_state[LIVE][1]
    assert second.session_state[LIVE][1] is training  # one training for both
    stop(first).click().run()
    assert any("Training stopped at" in info.value for info in first.info)
    assert training.wait(120) and training.result is not None  # it ran to its end, for the second session
    second.run()
    assert not any("Training stopped at" in info.value for info in second.info)
    assert next(s for s in second.slider if s.label == "Jump to step").max == len(training.result.steps)
    assert shared_trainings().finished(second.session_state["settings_run_memo"][0]) is training.result


def test_stop_before_the_first_merge_says_so_and_trains_again_on_request(monkeypatch):
    import threading

    import pages._shared.data.live_training as live_training_module

    prepared = threading.Event()  # the text's preparation, held until the test lets it go
    real = live_training_module.start_training  # (bpe.variants.rule_runs: any rule)

    def slow_start(*args, **kwargs):
        prepared.wait(30)
        return real(*args, **kwargs)

    monkeypatch.setattr(live_training_module, "start_training", slow_start)
    at = new_app(PAGE, **LONG)
    assert any(text.startswith("Preparing the text") for text in progress_texts(at)), progress_texts(at)
    training = at.session_state[LIVE][1]
    stop(at).click().run()
    prepared.set()
    assert not at.exception, at.exception
    assert any("Training stopped before its first merge" in info.value for info in at.info)
    assert not at.get("progress") and not any(s.label == "Jump to step" for s in at.slider)
    assert training.wait(10) and training.result is None
    at.run()  # a rerun does not train again behind the user's back
    assert not at.get("progress")
    at.button(key="live_training_again").click().run()
    assert stop(at) is not None  # trains again, as asked
    stop(at).click().run()


def test_a_text_that_will_not_fit_in_memory_is_refused_in_one_line(monkeypatch):
    monkeypatch.setattr("bpe.training_memory.available_memory_bytes", lambda: 30 << 20)
    at = new_app(PAGE)
    assert not at.exception, at.exception
    errors = [unescape_markdown(error.value) for error in at.error]
    assert errors == [
        "training 500,000 characters in memory needs about 46 MiB, and this machine has 30 MiB available: "
        "train on fewer characters"
    ], errors
    assert not at.get("progress") and LIVE not in at.session_state  # nothing started


def test_a_run_whose_tokens_pass_the_bound_stops_there_and_says_why(monkeypatch):
    # Pairs seen once, no pre-tokenizer: each merge grows one token, and the tokens' lengths
    # add up quadratically. The app's bound (made small here) stops the run at the last
    # merge within it, and every page says so.
    import pages._shared.state.settings as app_settings

    monkeypatch.setattr(app_settings, "MAX_VOCAB_CHARACTERS", 20_000)
    state = dict(
        settings_prefix_cap=20_000,
        settings_min_freq=1,
        settings_pretokenizer="none",
        settings_vocab=5_000,
        settings_train_up_to=5_000,
    )
    at = new_app(PAGE, **state)
    assert not at.exception, at.exception
    training = at.session_state[LIVE][1]
    assert training.wait(120), "the bounded run did not end"
    run = training.result
    assert run.stop_reason.value == "vocab_characters_reached"
    held = sum(len(step.token) for step in run.steps)
    assert 0 < held <= 20_000
    at.run()
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    target = 5_000 - len(run.base_tokens)
    notes = [info.value for info in at.info]
    said = (
        f"Training stopped at {len(run.steps):,} of {target:,} merges: the next merge would take its tokens past "
        "20,000 characters in all, the most one run may hold here; a minimum pair frequency of 2 keeps tokens short."
    )
    assert said in notes, notes
    other = new_app("pages/5_Vocabulary.py", **state)  # every page: the run is shared, and so is the note
    assert not other.exception, other.exception
    assert said in [info.value for info in other.info]
