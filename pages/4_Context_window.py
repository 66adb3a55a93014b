"""Context window: how much text a block of T tokens holds, per tokenizer, and what attention costs."""

import streamlit as st

from pages._shared.frame import setup_page
from pages._shared.views.context_window import (
    draw_attention_cost,
    draw_controls,
    draw_coverage,
    draw_passages,
    measure,
    nothing_to_measure,
)

settings, run = setup_page(
    "Context window",
    "A model reads a fixed number of tokens at once: its block size *T*. The longer the tokens, "
    "the more text fits in that window. Here the same *T* is measured for several tokenizers.",
)
if run is None:
    st.stop()
block = draw_controls(settings, run)
found = measure(settings, run, block)
if nothing_to_measure(found):  # a run file that keeps no text
    st.stop()
draw_coverage(found, block)
st.subheader(f"The first {block:,} tokens of the same passage")
draw_passages(settings, found, block)
st.subheader("What attention costs")
draw_attention_cost(settings, found)
