"""Merge by merge: the frame of one step. The numbers, the headline, the quiz, the pair
chart (with "what if" another tie rule), the algorithm panel, the text before and after
the merge (or the slow scan), and the merge log, as far as the frame's phase reveals.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from bpe.analysis.merge_log import count_change_rows, log_rows_around, why_stopped
from bpe.analysis.metrics import compression
from bpe.analysis.segments import step_segments, window, window_around
from bpe.analysis.tie_rules import tie_rule_sentence
from bpe.run import TrainingRun
from bpe.text import pair_label
from bpe.wording import tie_with_winner
from pages._shared.data.runs import prefix_tokenizer
from pages._shared.data.step_window import step_window
from pages._shared.frame.presenter import presented_once
from pages._shared.frame.tables import rows_table
from pages._shared.render.algorithm_html import algorithm_html, scan_caption, scan_html
from pages._shared.render.figures import pair_frequency_figure, question_figure, tied_with_winner
from pages._shared.render.html import escape_markdown, hidden_merge_html, merge_headline_html
from pages._shared.render.numbers import change_delta
from pages._shared.state.controls import FOLLOW, WINDOW
from pages._shared.state.settings import Settings
from pages._shared.state.stores import is_own_text
from pages._shared.views.compare_runs.what_if import what_if_buttons
from pages._shared.views.merge_by_merge.merge_quiz import chart_options, quiz_box
from pages._shared.views.merge_by_merge.pair_counts import draw_counts
from pages._shared.views.merge_by_merge.stage import Stage
from pages._shared.views.merge_by_merge.teach_mode import frame_view, next_merge, scan_events, shown_length, shown_vocab

WINDOW_CHARS = 600


@dataclass(frozen=True)
class Film:
    """What every block of the page draws from: the settings, the run, its training text,
    and ``last``, the number of merges of the vocab size shown."""

    settings: Settings
    run: TrainingRun
    train_text: str
    last: int


def draw_step(film: Film, step, stage: Stage) -> None:
    """The frame of ``step`` on the stage, as far as its phase reveals
    (`teach_mode.frame_view`): the step and the merge in the headline; the pair chart and,
    under it, the algorithm and the numbers, beside the text before and after the merge (the
    quiz over the text); below them what the merge changed and the merge log."""
    view = frame_view(step)
    with stage.headline:
        st.metric("Step", f"{step.number:,} of {film.last:,}", width="content")
        st.html(merge_headline_html(step) if view.shown.winner else hidden_merge_html(step, asking=view.pending))
    with stage.chart:
        _draw_chart(film, step, view)
        _draw_numbers(film, step, view)
    with stage.text:
        quiz_box(step, film.settings, next_merge=next_merge, args=(film.last,))
        _draw_text(film, step, view)
    with stage.below:
        _draw_changes(step, view)
        _draw_log(film, step, view)


def _draw_numbers(film: Film, step, view) -> None:
    """The vocab size, the sequence length and the compression so far, as the frame shows
    them, and the pair count beside the merges applied."""
    run, k = film.run, step.number
    with st.container(horizontal=True, gap="medium", key="stage_numbers"):
        st.metric("Vocab size", f"{shown_vocab(view, step):,}", width="content")
        length = shown_length(view, step, run)
        delta = change_delta(length - run.sequence_length(k - 1), "")
        st.metric("Sequence length", f"{length:,}", width="content", **delta)
        st.metric(
            "Chars per token",
            f"{compression(run.training_characters, length):.2f}",
            help="compression so far: characters per token of the training text after this merge",
            width="content",
        )
    if view.shown.after:
        draw_counts(run, step)


def _draw_chart(film: Film, step, view) -> None:
    """The pair chart (with "what if" another tie rule, when one decided the step) and,
    under it, the algorithm panel."""
    settings, run, k = film.settings, film.run, step.number
    st.plotly_chart(
        pair_chart(settings, step, winner=view.shown.winner, asking=view.pending),
        **chart_options(step, settings, view.pending),
    )
    ties = len(tied_with_winner(step))
    if view.shown.winner and ties:  # the tie rule decided this step: say so, and offer the other rules
        st.caption(f"⚠️ {tie_with_winner(ties)}. Tie rule: {tie_rule_sentence(settings.training.tie_rule)}.")
        what_if_buttons(settings, k)
    if view.algorithm:
        st.html(
            algorithm_html(
                step,
                view.phase,
                minimum=settings.training.minimum_pair_frequency,
                merged=run.merges_applied(k),
                tie_rule=settings.training.tie_rule,
                stop=run.stop_explanation if k == film.last else None,
                asking=view.pending,
            )
        )


def _draw_changes(step, view) -> None:
    if view.shown.after:
        st.markdown("**What the merge changed** (pair counts)")
        rows_table(count_change_rows(step), counts=["change"])


def _draw_text(film: Film, step, view) -> None:
    """The text window: the slow scan, occurrence by occurrence; or the text before and
    after the merge, its pairs outlined; or the text as it stands before the merge."""
    settings, run, train_text, k = film.settings, film.run, film.train_text, step.number
    ss = st.session_state
    start = window_around(train_text, step.token, WINDOW_CHARS) if ss[FOLLOW.key] else ss[WINDOW.key]
    text = window(train_text, start, WINDOW_CHARS)
    if view.slow:
        before_tokenizer = prefix_tokenizer(settings, run, k - 1)
        before, _ = step_segments(before_tokenizer, text, step)
        events = scan_events(before_tokenizer, text, step)
        scan = min(view.scan, len(events))
        st.markdown("**The merge, occurrence by occurrence** — left to right, each token used once")
        st.html(scan_html(before, events, scan, step.token, step.token_id))
        st.caption(escape_markdown(scan_caption(events, scan, pair_label(step.pair))))
    elif view.shown.outlines:
        shown = step_window(settings, run, step, text, start, outlines=True)
        st.markdown("**Before the merge** — the pairs it merges are outlined")
        st.html(shown.before)
        st.markdown(f"**After the merge** — {shown.merged:,} new tokens in this window, outlined")
        st.html(shown.after)
    else:
        st.markdown("**The text as it stands** — before this merge")
        st.html(step_window(settings, run, step, text, start, outlines=False).before)


def _draw_log(film: Film, step, view) -> None:
    """The merge log around the step as far as it is recorded, and why training stopped at the last."""
    run, last, k = film.run, film.last, step.number
    shown_log = k if view.shown.recorded else k - 1
    if shown_log:  # nothing recorded yet (step 1 before its record phase, or awaiting a guess): no empty table
        st.markdown("**Merge log**")
        rows_table(
            log_rows_around(run, shown_log, shown_log),
            counts=["step", "frequency", "merges applied", "sequence length", "vocab size"],
            height="content",
        )
    if k == last and view.shown.recorded:
        st.info(why_stopped(run, last))


def pair_chart(settings: Settings, step, *, winner: bool, asking: bool):
    """The step's pair chart (the quiz's when the winner is not shown), built once per
    setting and step and shared by every session at that step (`frame.presenter.presented_once`)."""

    def build():
        figure = pair_frequency_figure(step, settings.top_k, settings.training.tie_rule)
        return figure if winner else question_figure(figure, step, asking=asking)

    key = (
        "pair chart",
        settings.training_key(),
        step.number,
        settings.top_k,
        settings.training.tie_rule,
        winner,
        asking,
    )
    return presented_once(key, build, own=is_own_text(settings))
