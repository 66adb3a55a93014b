"""Vocabulary: every learned token, when it was learned and how much it is used; files to take away."""

import streamlit as st

from pages._shared.frame import setup_page
from pages._shared.views.vocabulary import (
    draw_downloads,
    draw_exports,
    draw_filters,
    draw_first_and_longest,
    draw_merges_vs_ranks,
    draw_summary,
    draw_token_table,
    draw_undertrained,
    draw_upload,
    learned_table,
)

settings, run = setup_page(
    "Vocabulary",
    "What training learned, token by token. *Uses* counts a token in the final encoding of the "
    "training text: a token created often but used rarely was absorbed by longer tokens learned later.",
)
if run is None:
    st.stop()
trained, rows, table = learned_table(settings, run)
draw_summary(rows, table)
draw_token_table(draw_filters(settings, table), len(rows))  # the filters start over with each run
draw_first_and_longest(run, len(trained.tokenizer.merges), table)
draw_undertrained(settings, run, trained.tokenizer, len(trained.tokenizer.merges))  # and GPT-2's glitch tokens
st.subheader("Take it with you")
draw_downloads(settings, run, trained)
draw_exports(trained)
draw_upload(settings, run)
draw_merges_vs_ranks(settings, trained.tokenizer)
