"""Tokenize: any text cut into tokens, side by side per tokenizer, and where each token came from."""

import streamlit as st

from pages._shared.frame import setup_page
from pages._shared.views.tokenize_page import draw_lineage, draw_special_tokens, draw_tokenizers, text_box

settings, run = setup_page(
    "Tokenize",
    "Type any text and see how each tokenizer cuts it. Hover a token to see its id (and the id "
    "lights up in the list below it); hover an id to find its token. Spaces show as ·, newlines as ↵.",
)
if run is None:
    st.stop()
text = text_box(settings)  # starts as a sentence of this corpus; presets come from it too
trained, ids = draw_tokenizers(settings, run, text)
draw_special_tokens()  # only when GPT-2's files are here
st.subheader("Merge lineage")
draw_lineage(run, trained.tokenizer, ids, text)
