"""Bytes and pre-tokenizers: the same corpus trained four ways side by side, and GPT-2."""

import streamlit as st

from pages._shared import bind, corpus_texts, setup_page
from pages._shared.analysis import cached_gpt2
from pages._shared.bytes_view import draw_gpt2_parity, draw_merge_lists, draw_multibyte, draw_summary, four_ways

MERGE_CHOICES = [50, 100, 200, 300, 500, 1000]

settings, run = setup_page(
    "Bytes and pre-tokenizers",
    "The tutorial merges Unicode characters over the whole text. GPT-2 and its successors merge "
    "**bytes**, and first split the text with a regex so that merges never cross a word. Here the "
    "same corpus is trained both ways, for the same number of merges.",
)
if run is None:
    st.stop()
train_text, heldout_text = corpus_texts(settings)
ss = st.session_state
ss.setdefault("bytes_merges", 300)
ss.setdefault("bytes_gpt2_spelling", False)
c1, c2 = st.columns([3, 2], vertical_alignment="bottom")
with c1:
    bind(st.select_slider, "Merges per tokenizer", "bytes_merges", options=MERGE_CHOICES)
with c2:
    bind(st.toggle, "Spell bytes as GPT-2's files do (Ġ is a space)", "bytes_gpt2_spelling")
comp, full_gpt2 = four_ways(settings, ss.bytes_merges, train_text, heldout_text)

st.subheader("Four tokenizers, one text")
draw_summary(comp, full_gpt2)
st.subheader("Merge lists side by side")
draw_merge_lists(comp, gpt2_spelling=ss.bytes_gpt2_spelling)
st.subheader("Multi-byte characters under the byte alphabet")
draw_multibyte(comp, train_text)
if cached_gpt2() is not None:
    st.subheader("GPT-2, id for id like tiktoken")
    draw_gpt2_parity(train_text)
