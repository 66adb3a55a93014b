"""The Model page's controls: which tokenizers, which model shape, how long, and the
Train and Stop buttons (with why Train is not offered, in words)."""

from __future__ import annotations

import streamlit as st

from bpe.lm.job import HELDOUT_CHARS, TRAIN_CHARS
from pages._shared.data.runs import corpus_texts
from pages._shared.data.tokenizers import Compared
from pages._shared.state.controls import SHAPE, STEPS
from pages._shared.state.settings import Settings, bind
from pages._shared.views.model.job_owner import (
    CHOSEN,
    keep_choice,
    other_results_note,
    start_blocked_reason,
    start_here,
)
from pages._shared.views.model.job_progress import shape_label
from pages._shared.views.model.training_job import CAVEATS, current_job, stop_job


def draw_controls(settings: Settings, choices: dict[str, Compared]) -> None:
    """The three choices in a row (fixed while a job trains), the buttons, and the caveats."""
    state = st.session_state
    keep_choice(choices)  # chosen again from the offer when it changes (another corpus, another vocab)
    SHAPE.setdefault()
    STEPS.setdefault()
    job = current_job()
    running = job is not None and job.running
    c1, c2, c3 = st.columns([3, 3, 1.4])
    with c1:
        bind(
            st.multiselect,
            "Tokenizers (one model each)",
            CHOSEN,
            options=list(choices),
            disabled=running,
            help="Characters is the run's alphabet with no merges; BPE sizes are prefixes of the sidebar's run.",
        )
    with c2:
        SHAPE.draw(
            st.selectbox, "Model shape (the same for every tokenizer)", format_func=shape_label, disabled=running
        )
    with c3:
        STEPS.draw(
            st.number_input,
            "Steps per model",
            step=50,
            disabled=running,
            help="Equal work for every model: this many optimizer steps, each on the same batch of windows of "
            "tokens. Not seconds: a clock counts whatever else the machine is doing.",
        )
    train, heldout = corpus_texts(settings)
    scored = (
        f"scored on {_first(HELDOUT_CHARS, len(heldout))} its held-out part"
        if heldout
        else "scored on the end of the training text: this text has no held-out part (set one in the sidebar; "
        "a text under 2,000 characters is never split), so the BPE tokenizer has seen what the models are scored on"
    )
    st.caption(
        f"Text: {_first(TRAIN_CHARS, len(train))} the sidebar's training text; {scored}. Runs on a GPU "
        "when there is one, else on the CPU."
    )
    b1, b2, _ = st.columns([2, 1, 3])  # "Train models" fits at 1024 px
    blocked = start_blocked_reason(choices, state[CHOSEN], running)
    b1.button(
        "Train models",
        key="model_start",
        type="primary",
        on_click=start_here,
        args=(settings, choices),
        disabled=running or blocked is not None,
    )
    b2.button("Stop", key="model_stop", on_click=stop_job, disabled=not running or job.stop_requested)
    if blocked or other_results_note(settings):
        st.info(blocked or other_results_note(settings))
    with st.expander("Is this a fair comparison?", expanded=job is None):
        st.markdown(CAVEATS)


def _first(most: int, characters: int) -> str:
    """How much of a text of ``characters`` the models take, when they take at most ``most``."""
    if characters <= most:
        return f"all {characters:,} characters of"
    return f"the first {most:,} of the {characters:,} characters of"
