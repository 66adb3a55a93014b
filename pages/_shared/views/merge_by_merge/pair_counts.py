"""Merge by merge: the pair count training compared, beside the merges that really happened.

Training counts every adjacent occurrence of a pair, overlapping ones included; merging
then goes left to right and uses each token once. The two differ only where the pair
overlaps itself ('aaaaa': four 'a + a' counted, two merges), and the page says so there.
"""

from __future__ import annotations

import streamlit as st

from bpe.analysis.merge_log import overlap_note
from bpe.run import TrainingRun
from bpe.steps import MergeStep
from pages._shared.render.html import escape_markdown


def draw_counts(run: TrainingRun, step: MergeStep) -> None:
    applied = run.merges_applied(step.number)
    st.caption(
        f"Pair count **{step.frequency:,}** (every occurrence, overlapping ones included: what training "
        f"compares) · merges applied **{applied:,}** (how much shorter the sequence got)"
    )
    note = overlap_note(step, applied)
    if note:
        st.warning(escape_markdown(note), icon="⚠️")
