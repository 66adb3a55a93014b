"""Merge by merge: play BPE training like a film, one merge per step, without retraining."""

import streamlit as st

from bpe.analysis.merge_log import log_csv, why_stopped
from pages._shared import corpus_texts, setup_page
from pages._shared.film import film_download
from pages._shared.merge_view import Film, film_controls, film_state, passage, play
from pages._shared.teach import teach_controls

settings, run = setup_page(
    "Merge by merge",
    "Each step counts every adjacent pair, merges the most frequent one into a new token, "
    "and re-segments the text. Play it, or step through it.",
)
if run is None:
    st.stop()
train_text, _ = corpus_texts(settings)
last = run.merge_count(settings.vocab_size)
if last == 0:
    st.info(why_stopped(run, 0))
    st.stop()
film = Film(settings, run, train_text, last)
film_state(film)
film_controls(film)
teach_controls()
play(film)
log, film_file = st.columns([1, 2], vertical_alignment="bottom")
log.download_button(
    "Download the merge log (CSV)",
    lambda: log_csv(run, last),
    file_name="merge_log.csv",
    mime="text/csv",
    key="merges_csv",
)
with film_file:
    film_download(settings, run, passage(film), last)
