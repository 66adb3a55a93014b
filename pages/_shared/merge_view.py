"""Merge by merge, block by block: the film's state and controls, one frame, the player.

The page (``pages/1_Merge_by_merge.py``) only arranges these. Stepping goes through
`teach.move_film`, so Step, Play and the keyboard also walk the algorithm's phases
when the panel is on, and Play stops at a step that waits for the class's guess.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from bpe.analysis.merge_log import count_change_rows, log_rows_around, why_stopped
from bpe.analysis.metrics import compression
from bpe.analysis.segments import Segment, merged_count, step_segments, window, window_around
from bpe.analysis.tie_rules import tie_rule_sentence
from bpe.run import TrainingRun
from bpe.text import pair_label

from .algorithm_panel import algorithm_html, scan_caption, scan_html
from .cache import prefix_tokenizer
from .figures import pair_frequency_figure, tied_with_winner
from .html import escape_markdown, merge_headline_html, segments_html
from .numbers import change_delta, count_columns
from .overlap import draw_counts
from .presenter import presented
from .quiz import chart_options, question_figure, quiz_box
from .run_compare import what_if_buttons
from .run_state import keep_with, run_identity
from .settings import Settings, bind, mirror_step
from .teach import (
    film_at_end,
    film_at_start,
    frame_view,
    move_film,
    next_merge,
    restart_film,
    scan_events,
    shown_length,
    shown_vocab,
    start_of_step,
    teach_state,
)

WINDOW_CHARS = 600
SPEEDS = [2.0, 1.0, 0.5, 0.25]  # seconds per step while playing


@dataclass(frozen=True)
class Film:
    """What every block of the page draws from: the settings, the run, its training text,
    and ``last``, the number of merges of the vocab size shown."""

    settings: Settings
    run: TrainingRun
    train_text: str
    last: int


def film_state(film: Film) -> None:
    ss = st.session_state
    keep_with(
        run_identity(film.settings), ["merges_step", "merges_playing", "merges_window"]
    )  # a new corpus starts at 1
    for key, default in dict(
        merges_step=1, merges_playing=False, merges_speed=0.5, merges_window=0, merges_follow=True
    ).items():
        ss.setdefault(key, default)  # plain keys: they survive a visit to another page
    ss.merges_step = min(max(int(ss.merges_step), 1), film.last)
    teach_state(film.settings)


def go(film: Film, delta: int) -> None:
    move_film(delta, film.last)
    st.session_state.merges_playing = False


def jump(key: str) -> None:
    st.session_state.merges_step = st.session_state[key]
    start_of_step()


def play_or_pause(film: Film) -> None:
    ss = st.session_state
    ss.merges_playing = not ss.merges_playing
    if ss.merges_playing and film_at_end(film.last):
        restart_film()  # play again from the start


def film_controls(film: Film) -> None:
    """Play/Pause (also space), the speed, and the text window. Step back and Step forward
    are in the player (`play`), so that a step reruns only the player."""
    ss, train_text = st.session_state, film.train_text
    # Play gets the wider column: its label and key hint ("Pause Space") must fit at 1024 px
    play_column, speed, _ = st.columns([1.3, 1, 1.2], vertical_alignment="bottom")
    play_column.button(
        "Pause" if ss.merges_playing else "Play",
        key="merges_play",
        on_click=play_or_pause,
        args=(film,),
        type="primary",
        shortcut="Space",
    )
    with speed:
        bind(st.select_slider, "Speed", "merges_speed", options=SPEEDS, format_func=lambda s: f"{s:g} s per step")
    if len(train_text) > WINDOW_CHARS:
        ss.merges_window = min(ss.merges_window, len(train_text) - WINDOW_CHARS)  # the corpus may have shrunk
        w1, w2 = st.columns([2, 3], vertical_alignment="bottom")
        with w1:
            bind(st.toggle, "Follow the merge", "merges_follow", help="Move the window to where the merge happens.")
        with w2:
            bind(
                st.slider,
                "Text window: first character",
                "merges_window",
                min_value=0,
                max_value=len(train_text) - WINDOW_CHARS,
                step=50,
                disabled=ss.merges_follow,
            )


def passage(film: Film) -> str:
    """The fixed passage the downloadable film shows: the text window, or the text's start."""
    ss = st.session_state
    return window(film.train_text, 0 if ss.merges_follow else ss.merges_window, WINDOW_CHARS)


def draw_step(film: Film, step) -> None:
    settings, run, last, train_text = film.settings, film.run, film.last, film.train_text
    ss = st.session_state
    k = step.number
    view = frame_view(step)
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Step", f"{k:,} of {last:,}")
    m2.metric("Vocab size", f"{shown_vocab(view, step):,}")
    length = shown_length(view, step, run)
    m3.metric("Sequence length", f"{length:,}", **change_delta(length - run.sequence_length(k - 1), ""))
    m4.metric(
        "Chars per token",
        f"{compression(run.training_characters, length):.2f}",
        help="compression so far: characters per token of the training text after this merge",
    )
    if view.shown.winner:
        st.html(merge_headline_html(step))
    quiz_box(step, settings, next_merge=next_merge, args=(last,))
    if view.shown.after:
        draw_counts(run, step)
    chart, changes = st.columns([3, 2])
    figure = pair_frequency_figure(step, settings.top_k, settings.tie_rule)
    chart.plotly_chart(
        presented(figure if view.shown.winner else question_figure(figure, step, asking=view.pending)),
        **chart_options(step, settings, view.pending),
    )
    if view.shown.winner:
        ties = len(tied_with_winner(step))
        chart.caption(
            (f"⚠️ {ties} pair(s) tie with the winner. " if ties else "")
            + f"Tie rule: {tie_rule_sentence(settings.tie_rule)}."
        )
        with chart:
            what_if_buttons(settings, k)
    if view.algorithm:
        changes.html(
            algorithm_html(
                step,
                view.phase,
                minimum=settings.min_freq,
                merged=run.merges_applied(k),
                tie_rule=settings.tie_rule,
                stop=run.stop_explanation if k == last else None,
                asking=view.pending,
            )
        )
    if view.shown.after:
        changes.markdown("**What the merge changed** (pair counts)")
        changes.dataframe(pd.DataFrame(count_change_rows(step)), hide_index=True, column_config=count_columns("change"))
    start = window_around(train_text, step.token, WINDOW_CHARS) if ss.merges_follow else ss.merges_window
    text = window(train_text, start, WINDOW_CHARS)
    before_tokenizer = prefix_tokenizer(settings, run, k - 1)
    before, after = step_segments(before_tokenizer, text, step)
    if view.algorithm and ss.get("teach_slow"):
        events = scan_events(before_tokenizer, text, step)
    if view.slow:
        scan = min(view.scan, len(events))
        st.markdown("**The merge, occurrence by occurrence** — left to right, each token used once")
        st.html(scan_html(before, events, scan, step.token, step.token_id))
        st.caption(escape_markdown(scan_caption(events, scan, pair_label(step.pair))))
    elif view.shown.outlines:
        st.markdown("**Before the merge** — the pairs it merges are outlined")
        st.html(segments_html(before))
        st.markdown(f"**After the merge** — {merged_count(after):,} new tokens in this window, outlined")
        st.html(segments_html(after))
    else:
        st.markdown("**The text as it stands** — before this merge")
        st.html(segments_html([Segment(s.token, s.token_id) for s in before]))
    st.markdown("**Merge log**")
    shown_log = k if view.shown.recorded else k - 1
    st.dataframe(
        pd.DataFrame(log_rows_around(run, max(shown_log, 1), shown_log)),
        hide_index=True,
        height="content",
        column_config=count_columns("step", "frequency", "merges applied", "sequence length", "vocab size"),
    )
    if k == last and view.shown.recorded:
        st.info(why_stopped(run, last))


def play(film: Film) -> None:
    """The player: a fragment that redraws one frame per tick while playing (the timer only
    exists while playing), with Step back, Step forward (also ←, →) and the step slider.

    A step reruns only this fragment, not the sidebar and the page around it: a third of
    the work, and what decides how many students one server keeps stepping without delay
    (tests/load/classroom.py)."""
    ss = st.session_state
    playing = ss.merges_playing  # when the fragment was defined (with or without its timer)

    @st.fragment(run_every=ss.merges_speed if ss.merges_playing else None)
    def player() -> None:
        if playing and not ss.merges_playing:
            st.rerun()  # a step stopped the film: a full rerun drops the timer and flips Play back
        if ss.merges_playing:  # one step (or phase) per tick; stop at the end or at a question
            if not move_film(1, film.last, wait_for_guess=True) or film_at_end(film.last):
                ss.merges_playing = False
                st.rerun()  # a full rerun redefines the fragment without a timer and flips the button
        back, forward, jump_to = st.columns([1.4, 1.6, 2.6], vertical_alignment="bottom")  # labels fit at 1024 px
        back.button(
            "Step back",
            key="merges_back",
            on_click=go,
            args=(film, -1),
            shortcut="Left",
            disabled=film_at_start() and not ss.merges_playing,
        )
        forward.button(
            "Step forward",
            key="merges_forward",
            on_click=go,
            args=(film, 1),
            disabled=film_at_end(film.last),
            shortcut="Right",
        )
        if film.last > 1:  # keyed by the step shown: a late tick carrying an older position then
            key = f"merges_jump_{ss.merges_step}"  # names a widget that is gone, and cannot move the step back
            jump_to.slider(
                "Jump to step",
                1,
                film.last,
                value=ss.merges_step,
                key=key,
                on_change=jump,
                args=(key,),
                disabled=ss.merges_playing,
            )
        mirror_step(ss.merges_step)
        draw_step(film, film.run.steps[ss.merges_step - 1])

    player()
