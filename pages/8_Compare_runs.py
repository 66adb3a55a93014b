"""Compare runs: where two trainings of this session part ways, and what that changes."""

import streamlit as st

from pages._shared import setup_page
from pages._shared.run_compare import (
    chosen_runs,
    comparison,
    draw_differences,
    draw_divergence,
    draw_samples,
    draw_vocabularies,
    merges_compared,
)

settings, run = setup_page(
    "Compare runs",
    "Two BPE trainings of the same text can learn different vocabularies: another tie rule, "
    "pre-tokenizer, alphabet, minimum frequency or corpus prefix. Pick two runs of this session "
    "(every run you train is kept here) or train a variant of the current one, and see the first "
    "merge where they part ways, why, and what it changes.",
)
if run is None:
    st.stop()
runs = chosen_runs(settings)
if runs is None:
    st.info(
        "This session has trained one run so far. Train a variant above, or change a setting in "
        "the sidebar: every run you train is kept for comparison."
    )
    st.stop()
merges = merges_compared(runs[0][1], runs[1][1])
found = comparison(runs[0], runs[1], merges)

st.subheader("What differs")
draw_differences(found)
st.subheader("Where they part ways")
draw_divergence(found, merges)
st.subheader("Vocabularies")
draw_vocabularies(found)
st.subheader("Text cut differently")
draw_samples(found)
