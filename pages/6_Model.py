"""Model: does BPE help a language model? One tiny GPT per tokenizer, trained at equal compute."""

import streamlit as st

from bpe.lm.job import DEFAULT_SHAPE, HELDOUT_CHARS, MODEL_SHAPES, TRAIN_CHARS
from pages._shared import bind, setup_page
from pages._shared.model import CAVEATS, current_job, stop_job, tokenizer_choices
from pages._shared.model_owner import (
    belongs_here,
    draw_results,
    keep_choice,
    other_results_note,
    start_blocked_reason,
    start_here,
)
from pages._shared.model_view import draw_live, shape_label

settings, run = setup_page(
    "Model",
    "Does BPE help the model, or only shorten the text? Train the same tiny GPT on each tokenizer's "
    "ids for the same time, then compare how well each predicts held-out text, in **bits per character** "
    "and **bits per byte** (of its UTF-8 text: one scale for every alphabet and vocab size).",
)
if run is None:
    st.stop()
choices = tokenizer_choices(settings, run)
ss = st.session_state
keep_choice(choices)  # chosen again from the offer when it changes (another corpus, another vocab)
ss.setdefault("model_shape", DEFAULT_SHAPE)
ss.setdefault("model_seconds", 60)
job = current_job()
running = job is not None and job.running

c1, c2, c3 = st.columns([3, 3, 1])
with c1:
    bind(
        st.multiselect,
        "Tokenizers (one model each)",
        "model_tokenizers",
        options=list(choices),
        disabled=running,
        help="Characters is the run's alphabet with no merges; BPE sizes are prefixes of the sidebar's run.",
    )
with c2:
    bind(
        st.selectbox,
        "Model shape (the same for every tokenizer)",
        "model_shape",
        options=list(MODEL_SHAPES),
        format_func=shape_label,
        disabled=running,
    )
with c3:
    bind(st.number_input, "Seconds per model", "model_seconds", min_value=1, max_value=900, step=10, disabled=running)
st.caption(
    f"Text: the first {TRAIN_CHARS:,} characters of the sidebar's training text; scored on the first "
    f"{HELDOUT_CHARS:,} characters of its held-out part. Runs on a GPU when there is one, else on the CPU."
)
b1, b2, _ = st.columns([2, 1, 3])  # "Train models" fits at 1024 px
blocked = start_blocked_reason(choices, ss.model_tokenizers, running)
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
draw_live(settings, running)  # progress and curves, on a timer while training
if job is not None and not running and belongs_here(job, settings):
    draw_results(job, settings)  # only on the settings that produced them
