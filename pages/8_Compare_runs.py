"""Compare runs: where two trainings of this session part ways, and what that changes."""

import streamlit as st

from pages._shared.frame import setup_page
from pages._shared.views.compare_runs import chosen_runs, draw_comparison, draw_homework_check

settings, run = setup_page(
    "Compare runs",
    "Two BPE trainings of the same text can learn different vocabularies: another tie rule, "
    "pre-tokenizer, alphabet, minimum frequency or corpus prefix. Pick two runs of this session "
    "(every run you train is kept here) or train a variant of the current one, and see the first "
    "merge where they part ways, why, and what it changes. Below: check merges your own code learned.",
)
if run is None:
    st.stop()
runs = chosen_runs(settings)
if runs is None:
    st.info(
        "This session has trained one run so far. Train a variant above, or change a setting in "
        "the sidebar: every run you train is kept for comparison."
    )
else:
    draw_comparison(runs)
draw_homework_check(settings)
