"""Model: does BPE help a language model? One tiny GPT per tokenizer, trained with equal work."""

import streamlit as st

from pages._shared.frame import setup_page
from pages._shared.views.model import draw_controls, draw_job, tokenizer_choices

settings, run = setup_page(
    "Model",
    "Does BPE help the model, or only shorten the text? Train the same tiny GPT on each tokenizer's "
    "ids for the same work (as many steps of the same batches of tokens), then compare how well each predicts held-out text, in **bits per character** "
    "and **bits per byte** (of its UTF-8 text: one scale for every alphabet and vocab size).",
)
if run is None:
    st.stop()
choices = tokenizer_choices(settings, run)
draw_controls(settings, choices)
draw_job(settings)  # progress and curves, on a timer while training; then the results
