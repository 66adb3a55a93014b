"""Compression: how many characters a token carries as the vocabulary grows, and what that costs."""

import streamlit as st

from pages._shared.frame import setup_page
from pages._shared.views.compression import (
    draw_cost,
    draw_curve,
    draw_pretrained_table,
    draw_report_card,
    draw_size_table,
    shown_point,
)

settings, run = setup_page(
    "Compression",
    "Each merge makes the text shorter. The curve shows characters per token on the training text "
    "and on held-out text the tokenizer never saw, for every vocab size of **one** training run "
    "(a smaller vocab is a prefix of the same merges, so nothing is retrained).",
)
if run is None:
    st.stop()
curve, shown = shown_point(settings, run)
chart, cost = st.columns([3, 2])
with chart:
    draw_curve(settings, run, curve, shown)
with cost:
    width = draw_cost(run, shown)
st.subheader("Vocab sizes side by side")
draw_size_table(settings, run, width)
draw_pretrained_table(settings, shown.vocab_size)  # GPT-2, GPT-4, an upload: only those that are here
draw_report_card(settings, run)  # this run beside GPT-2 and GPT-4 on prose, code, maths, languages
