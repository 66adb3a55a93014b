"""Languages: the same paragraph in eleven languages, and what each costs in tokens."""

import streamlit as st

from pages._shared import bind, setup_page
from pages._shared.figures import language_cost_figure
from pages._shared.languages_view import BASELINE, MODE_LABELS, cost_rows, costs_by_tokenizer
from pages._shared.numbers import show_table
from pages._shared.presenter import presented

MERGE_CHOICES = [0, 50, 100, 200, 300, 500]

setup_page(
    "Languages",
    "The same short paragraph (a lighthouse keeper's evening) written in eleven languages. A byte-level BPE "
    "is trained on them with the same number of merges; how many tokens does **the same content** cost in "
    "each language? A model pays for every token in context length and compute.",
)  # this page does not use the sidebar's corpus: it compares the built-in paragraphs
ss = st.session_state
ss.setdefault("languages_merges", 200)
ss.setdefault("languages_mode", "shared")
left, right = st.columns([3, 2])
with left:
    bind(
        st.select_slider,
        "Merges (the same for every tokenizer)",
        "languages_merges",
        options=MERGE_CHOICES,
        help="0 merges: one token per UTF-8 byte.",
    )
with right:
    bind(
        st.radio,
        "Train",
        "languages_mode",
        options=list(MODE_LABELS),
        format_func=MODE_LABELS.get,
        help="Together: as a multilingual model's tokenizer is trained. Per language: each tokenizer is "
        "trained and measured on its own paragraph, with the same vocab size.",
    )
costs = costs_by_tokenizer(ss.languages_merges, ss.languages_mode)
st.plotly_chart(presented(language_cost_figure(costs, BASELINE)), key="languages_chart")
show_table(cost_rows(costs), decimals={"BPE characters per token": 2, "GPT-2 characters per token": 2})
st.caption(
    f"× {BASELINE}: tokens for the paragraph divided by the English paragraph's tokens with the same kind "
    "of tokenizer. Byte-level tokenizers start from the 256 byte values, so every script is encodable; "
    "a character outside ASCII is 2 to 4 bytes before any merge. GPT-2 (when its files are here) was "
    "trained on mostly English web text."
)
