"""Merge by merge, under the player: the merge log as CSV, and "Download this film
(HTML)", the first merges of the run as one file that plays offline (`render.film_html`)."""

from __future__ import annotations

import streamlit as st

from bpe.analysis.film import MAX_FRAMES, film_data
from bpe.analysis.merge_log import log_csv
from bpe.analysis.tie_rules import tie_rule_label
from bpe.pretokenize import pretokenizer_name
from bpe.run import TrainingRun
from pages._shared.render.film_html import film_html
from pages._shared.state.per_run import keep_with, run_identity
from pages._shared.state.settings import Replayed, Settings, bind
from pages._shared.views.merge_by_merge.film_player import passage
from pages._shared.views.merge_by_merge.step_frame import Film

FILM_MERGES = "teach_film_merges"  # plain key: how many merges the film holds
DEFAULT_MERGES = 50


def film_download(settings: Settings, run: TrainingRun, passage: str, last: int) -> None:
    """ "Merges in the film" and "Download this film (HTML)": the file is made on click."""
    top = min(last, MAX_FRAMES)
    state = st.session_state
    keep_with(run_identity(settings), [FILM_MERGES])  # another run starts from its own default
    state.setdefault(FILM_MERGES, min(DEFAULT_MERGES, top))
    state[FILM_MERGES] = min(max(int(state[FILM_MERGES]), 1), top)
    count, button = st.columns([1, 2], vertical_alignment="bottom")
    with count:
        bind(
            st.number_input,
            "Merges in the film",
            FILM_MERGES,
            min_value=1,
            max_value=top,
            help=f"The film holds the first merges of this run (at most {MAX_FRAMES}).",
        )
    merges = int(state[FILM_MERGES])  # read now: the file is made on click, outside this script run
    button.download_button(
        "Download this film (HTML)",
        lambda: film_file(settings, run, passage, merges),
        file_name="bpe_film.html",
        mime="text/html",
        key="teach_film_download",
        on_click="ignore",  # a rerun on click would drop the file's id before the browser asks for it
        help="One HTML file that plays offline: for slides and course pages.",
    )


def film_file(settings: Settings, run: TrainingRun, passage: str, merges: int) -> str:
    title = f"BPE, merge by merge: {settings.corpus}"
    data = film_data(run, passage, merges, top_k=settings.top_k, title=title)
    pretokenizer = pretokenizer_name(settings.training.pretokenizer) if settings.training.pretokenizer else "no"
    # a run file keeps no training text: its film plays on the held-out sample it keeps
    text_words = "the run's held-out sample" if isinstance(settings, Replayed) else "the training text"
    about = (
        f"The first {data['merges']:,} merges of BPE Lab's run on {settings.corpus!r}: {settings.training.alphabet}, "
        f"{pretokenizer} pre-tokenizer, minimum pair frequency {settings.training.minimum_pair_frequency:,}, ties by "
        f"{tie_rule_label(settings.training.tie_rule)}. The passage is {len(passage):,} characters of {text_words}."
    )
    return film_html(data, about)


def draw_downloads(film: Film) -> None:
    """The merge log as CSV beside the film as HTML, under the player."""
    log, film_column = st.columns([1, 2], vertical_alignment="bottom")
    log.download_button(
        "Download the merge log (CSV)",
        lambda: log_csv(film.run, film.last),
        file_name="merge_log.csv",
        mime="text/csv",
        key="merges_csv",
        on_click="ignore",
    )
    with film_column:
        film_download(film.settings, film.run, passage(film), film.last)
