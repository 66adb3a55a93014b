"""Compare runs' drawing: how many merges are compared, what differs in the two runs'
settings, the first step where their merges part and what decided it, their
vocabularies aligned by token, and lines of text the two tokenizers cut differently.
The comparison itself is `bpe.analysis.run_diff`, cached once per pair of runs and merge
count (`data.comparisons.run_comparison`).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from bpe.analysis.run_diff import (
    COUNTS,
    RULE,
    STOPPED,
    TIE,
    aligned_rows,
    first_divergence,
)
from bpe.run import TrainingRun
from bpe.wording import counted
from pages._shared.data.comparisons import RunComparison, run_comparison
from pages._shared.frame.tables import arrow_rows, grid_table
from pages._shared.render.html import escape_markdown, segments_html, two_merges_html
from pages._shared.state.settings import Settings, bind
from pages._shared.views.compare_runs.run_pair import FOCUS, MERGES, WIDEN

DECIDED = {
    TIE: "A tie rule decided",
    COUNTS: "The counts decided",
    STOPPED: "One run had stopped",
    RULE: "The training rule decided",
}


def merges_compared(run_a: TrainingRun, run_b: TrainingRun) -> int:
    """The slider: how many merges of each run to compare (all, unless opened at a step)."""
    state = st.session_state
    top = max(len(run_a.steps), len(run_b.steps), 1)
    if state.pop(WIDEN, False):  # opened from a tie at step FOCUS: include where the runs part
        divergence = first_divergence(run_a, run_b)
        state[MERGES] = max(int(state.get(MERGES) or 1), divergence.step if divergence else 0)
    state[MERGES] = min(max(int(state.get(MERGES) or top), 1), top)
    if top > 1:
        bind(st.slider, "Merges compared (the first … of each run)", MERGES, min_value=1, max_value=top)
    return state[MERGES]


def draw_differences(found: RunComparison) -> None:
    if not found.differences:
        st.info("The two runs have the same training settings.")
        return
    grid_table(pd.DataFrame(found.differences, columns=["setting", "run A", "run B"]), key="compare_settings_table")


def draw_divergence(found: RunComparison, merges: int) -> None:
    """The first step where the merges differ, what decided it, and the competing pairs."""
    divergence = found.divergence
    focus = st.session_state.get(FOCUS)
    if focus:
        st.caption(
            f"Opened from step {focus:,} of Merge by merge: the comparison covers the first {counted(merges, 'merge')}."
        )
    if divergence is None:
        st.success("The two runs learn the same merges, step for step.")
        return
    if divergence.step > merges:
        st.info(
            f"They agree on the first {merges:,} merges compared, and part ways later, at step {divergence.step:,}."
        )
    st.html(two_merges_html(divergence.step, divergence.pair_a, divergence.pair_b))
    st.markdown(f"**{DECIDED[divergence.decided_by]}.** {escape_markdown(divergence.explanation)}")
    if divergence.competitors:
        st.caption("The most frequent pairs before this step, counted in each run:")
        grid_table(pd.DataFrame(list(divergence.competitors)), key="compare_competitors")


def draw_vocabularies(found: RunComparison) -> None:
    vocab = found.vocabularies
    c1, c2, c3 = st.columns(3)
    c1.metric("Shared tokens", f"{vocab.count('shared'):,}")
    c2.metric("Only in A", f"{vocab.count('only A'):,}")
    c3.metric("Only in B", f"{vocab.count('only B'):,}")
    st.caption(
        "Merges aligned by token, not by step: a token learned at step 40 in one run and 43 in the other "
        "is one row (B − A = 3). Base tokens count in the totals above; the table lists learned tokens."
    )
    # Arrow keeps "B − A" whole numbers with gaps (a token in one run only): a pandas frame made
    # it a float column, which presenter mode's large-type table showed as 3.00
    grid_table(arrow_rows(aligned_rows(vocab)), key="compare_aligned")


def draw_samples(found: RunComparison) -> None:
    if not found.samples:
        st.info("No line of the training text is cut differently by the two tokenizers.")
        return
    st.caption("Tokens outlined in blue are cut differently by the other run.")
    for sample in found.samples:
        left, right = st.columns(2)
        left.markdown(f"**A** · {counted(len(sample.segments_a), 'token')}")
        left.html(segments_html(sample.segments_a, css_class="bpe-segments bpe-compare-a"))
        right.markdown(f"**B** · {counted(len(sample.segments_b), 'token')}")
        right.html(segments_html(sample.segments_b, css_class="bpe-segments bpe-compare-b"))


def draw_comparison(runs: tuple[tuple[Settings, TrainingRun], tuple[Settings, TrainingRun]]) -> None:
    """The merges slider, then what differs, where the runs part, their vocabularies, and
    text they cut differently."""
    merges = merges_compared(runs[0][1], runs[1][1])
    found = run_comparison(runs[0], runs[1], merges)
    st.subheader("What differs")
    draw_differences(found)
    st.subheader("Where they part ways")
    draw_divergence(found, merges)
    st.subheader("Vocabularies")
    draw_vocabularies(found)
    st.subheader("Text cut differently")
    draw_samples(found)
