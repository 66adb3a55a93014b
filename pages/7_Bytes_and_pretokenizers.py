"""Bytes and pre-tokenizers: the same corpus trained four ways side by side, and GPT-2."""

import streamlit as st

from pages._shared.frame import corpus_texts, setup_page
from pages._shared.views.bytes_and_pretokenizers import (
    draw_controls,
    draw_gpt2_section,
    draw_merge_lists,
    draw_multibyte,
    draw_run_corpus,
    draw_summary,
    four_ways,
    measured_text,
    train_text_words,
)

settings, run = setup_page(
    "Bytes and pre-tokenizers",
    "The tutorial merges Unicode characters over the whole text. GPT-2 and its successors merge "
    "**bytes**, and first split the text with a regex so that merges never cross a word. Here the "
    "same text is trained both ways, for the same number of merges.",
)
if run is None:
    st.stop()
train_text, heldout_text = corpus_texts(settings)
draw_run_corpus(settings, train_text)  # a run file: its sample is measured; what its corpus holds
merges, gpt2_spelling = draw_controls()
comp, full_gpt2 = four_ways(settings, merges, train_text, heldout_text)
measured_on = measured_text(settings, comp, train_text)

st.subheader("Four tokenizers, one text")
draw_summary(comp, full_gpt2, measured_on)
st.subheader("Merge lists side by side")
draw_merge_lists(settings, comp, gpt2_spelling=gpt2_spelling)
st.subheader("Multi-byte characters under the byte alphabet")
draw_multibyte(settings, comp, train_text, measured_on)
draw_gpt2_section(train_text, train_text_words(settings, train_text))
