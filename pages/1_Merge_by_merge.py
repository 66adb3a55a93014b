"""Merge by merge: play BPE training like a film, one merge per step, without retraining."""

import streamlit as st

from bpe.analysis.merge_log import why_stopped
from pages._shared.frame import corpus_texts, setup_page
from pages._shared.views.merge_by_merge import Film, draw_downloads, film_controls, film_state, play, teach_controls

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
draw_downloads(film)  # the merge log (CSV) and the film (HTML)
