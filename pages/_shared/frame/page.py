"""`setup_page`: what every page does first, in one call."""

from __future__ import annotations

import streamlit as st

from bpe.errors import BpeError
from bpe.run import TrainingRun
from bpe.steps import StopReason
from pages._shared.data.measures import corpus_hash, run_curve
from pages._shared.data.runs import StoppedBeforeFirstMerge, TrainingUnderway, trained_run
from pages._shared.frame.lesson_links import lesson_finish, lesson_frame_ok, lesson_start
from pages._shared.frame.navigation import current_page, draw_navigation
from pages._shared.frame.presenter import view_toggles
from pages._shared.frame.sidebar import draw_sidebar
from pages._shared.frame.training_progress import (
    budget_note,
    stopped_before_first_merge,
    stopped_note,
    wait_for_training,
)
from pages._shared.render.html import escape_markdown
from pages._shared.state.link import link_notes, mirror_in_url, read_link_once
from pages._shared.state.settings import Settings, init_state


def setup_page(title: str, intro: str) -> tuple[Settings, TrainingRun | None]:
    """Configure the page (wide), draw the shared sidebar, title and intro (Markdown,
    written by the page, not user text), and get the cached run, training it with a
    progress bar on a cache miss.

    Returns ``(settings, run)``; ``run`` is None when the corpus cannot be read or the
    settings cannot be trained, after an ``st.error`` naming the problem. Every page
    continues with the same guard line::

        settings, run = setup_page("Tokenize", "How a text is cut into tokens.")
        if run is None: st.stop()
    """
    st.set_page_config(page_title=f"{title} · BPE Lab", page_icon="🧩", layout="wide")
    init_state()
    draw_navigation()  # "Home", not "app"
    read_link_once(current_page())  # a session's first run: whatever its address carries
    view_toggles()  # presenter mode and the sidebar hidden (after the link: it may set them)
    copy_link = lesson_start()  # draws "Copy link to this frame"
    settings, listed = draw_sidebar()
    mirror_in_url(current_page(), corpus=settings.corpus if listed else None, text_hash=_hash_or_none(settings, listed))
    lesson_finish(settings, listed, copy_link)
    st.title(title)
    st.markdown(intro)
    for note in link_notes():  # what was wrong with the link or a lesson file: here, once
        st.warning(escape_markdown(note))
    if not lesson_frame_ok(settings):  # the lesson's text differs from the one here: say so, stop
        return settings, None
    try:
        run = _run_shown(settings)
    except BpeError as error:
        st.error(escape_markdown(str(error)), icon="⚠️")
        return settings, None
    except StoppedBeforeFirstMerge as stopped:
        stopped_before_first_merge(stopped.target_vocab_size)
        return settings, None
    if run is None:  # still training: the progress and Stop are drawn, the page comes back
        return settings, None
    if run.stop_reason is StopReason.STOPPED:
        stopped_note(run)
    elif run.stop_reason is StopReason.VOCAB_CHARACTERS_REACHED:
        budget_note(run)
    run_curve(settings, run)  # every run trained in this session can be overlaid on Compression
    return settings, run


def _run_shown(settings: Settings) -> TrainingRun | None:
    """The session's run, waited for with its progress and Stop (see `frame.training_progress`);
    None while it goes on training past the wait."""
    # The progress's place, held on every run (trained now, or at hand): an emptied bar on
    # the first run and no element on the next would move every element below it, and the
    # browser then draws them all anew, dropping the keyboard's focus.
    slot = st.empty()
    try:
        return trained_run(settings)
    except TrainingUnderway as underway:
        with slot.container():
            if not wait_for_training(underway.training):
                return None
        slot.empty()  # the progress's container, emptied: the page below keeps its place on the next run
    try:
        return trained_run(settings)
    except TrainingUnderway:  # ended for want of watchers and started again: wait on the next run
        return None


def _hash_or_none(settings: Settings, listed: bool) -> str | None:
    """The text's hash for the address bar (a listed corpus only), or None when it cannot be read."""
    if not listed:
        return None
    try:
        return corpus_hash(settings)
    except BpeError:
        return None  # setup_page says what is wrong with the corpus
