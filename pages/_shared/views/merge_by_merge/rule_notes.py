"""Merge by merge under a training rule beyond the textbook (`bpe.variants`): what makes the
step different, said as it happens.

- SuperBPE: which stage the step is in, the transition marked at the first merge across
  chunks, and a superword token named as one;
- Picky BPE: the tokens the step removes, fading out, with their IoS and what they split into
  (the text below shows their occurrences fade and split, `data.step_window`);
- length-weighted BPE: the pair chart ranks by count × length, said to be an approximation.
"""

from __future__ import annotations

import streamlit as st

from bpe.run import TrainingRun
from bpe.variants.rule_runs import VariantRun
from bpe.variants.rules import LENGTH_WEIGHTED, PICKY, SUPERBPE
from pages._shared.render.html import removals_html, rule_badge_html
from pages._shared.state.settings import Settings


def weighted(settings: Settings) -> bool:
    """Whether the run ranks pairs by count × length (its pair chart shows that score)."""
    return getattr(settings, "variant", None) is not None and settings.variant.name == LENGTH_WEIGHTED


def draw_rule_notes(run: TrainingRun, step, *, after: bool) -> None:
    """SuperBPE's stage and transition, or Picky BPE's removals, at ``step``; ``after``: the
    merge's effects are shown (removals wait for it)."""
    if not isinstance(run, VariantRun):
        return
    name = run.variant.name
    if name == SUPERBPE:
        _superbpe(run, step)
    elif name == PICKY:
        if after and step.removed:
            st.html(removals_html(step.removed, run.variant.threshold))
        elif after:
            st.caption(
                f"Picky BPE: no part of this merge reached an IoS of {run.variant.threshold:g}; nothing is removed."
            )


def draw_score_note(run: TrainingRun) -> None:
    """Under the pair chart of a length-weighted run: what its bars rank by."""
    if isinstance(run, VariantRun) and run.variant.name == LENGTH_WEIGHTED:
        st.caption(
            "Length-weighted BPE: the chart ranks each pair by its count × the length of the token it would make "
            "(in base symbols), so a longer token can beat a more frequent short one. A labelled approximation of "
            "length-maximising tokenizers, not Length-MAX itself."
        )


def _superbpe(run: VariantRun, step) -> None:
    joined = run.joined_after
    if joined is None or step.number <= joined:
        left = f"; the chunks join after merge {joined:,}" if joined is not None else ""
        st.html(rule_badge_html("stage 1: inside the chunks", f"SuperBPE learns within pre-tokenizer chunks{left}."))
        return
    if step.number == joined + 1:
        st.html(
            rule_badge_html(
                "transition",
                f"From this merge on the chunks join across whitespace (within a document, never across a special "
                f"token): the first {joined:,} merges were learned inside them.",
                strong=True,
            )
        )
    if run.superword(step):
        st.html(rule_badge_html("superword", "This token spans more than one pre-tokenizer chunk: a superword."))
    else:
        st.html(rule_badge_html("stage 2: across the chunks", "Chunks are joined; this token still fits inside one."))
