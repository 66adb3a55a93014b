"""Merge by merge: play BPE training like a film, one merge per step, without retraining."""

import streamlit as st

from bpe.analysis.merge_log import why_stopped
from pages._shared.frame import corpus_texts, setup_page
from pages._shared.views.merge_by_merge import Film, draw_downloads, film_state, play

settings, run = setup_page(
    "Merge by merge",
    "Each step merges the most frequent adjacent pair into one new token. Play it, or step through it.",
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
play(film)  # the stage: its controls, the step, the pair chart and the text, one frame a step
draw_downloads(film)  # the merge log (CSV) and the film (HTML)
