"""Streamlit glue for comparing two runs: which two, the way in from Merge by merge, drawing.

Every run this session trained is remembered (`data.runs.seen_runs`); the Compare runs page
picks two of them, or trains a variant of run A (another tie rule, pre-tokenizer,
alphabet or minimum frequency) through the same cache. The comparison itself is
`bpe.analysis.run_diff`, computed once per pair of runs and merge count (cached).
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import streamlit as st
from streamlit.errors import StreamlitAPIException

from bpe.analysis.run_diff import (
    COUNTS,
    STOPPED,
    TIE,
    aligned_rows,
    first_divergence,
)
from bpe.analysis.tie_rules import describe_tie_rule, tie_rule_label
from bpe.errors import BpeError
from bpe.pretokenize import PRETOKENIZER_CHOICES, pretokenizer_name
from bpe.run import TrainingRun
from bpe.steps import TIE_RULES
from bpe.wording import counted
from pages._shared.data.comparisons import RunComparison, run_comparison
from pages._shared.data.measures import run_label
from pages._shared.data.runs import alphabet_size, run_at_hand, run_for, seen_runs
from pages._shared.render.html import escape_markdown, segments_html, two_merges_html
from pages._shared.state.per_run import keep_with, run_identity
from pages._shared.state.settings import Settings, bind

COMPARE_PAGE = "pages/8_Compare_runs.py"
RUN_A, RUN_B = "compare_a", "compare_b"  # plain keys: the Settings of the two runs compared
FOCUS = "compare_focus"  # plain key: the Merge-by-merge step the comparison was opened from
WIDEN = "compare_widen"  # plain key: just opened from Merge by merge, the merges compared not set yet
MERGES = "compare_merges"  # plain key: how many merges of each run are compared
# The comparison belongs to the current run: a new corpus or setting starts it afresh
# (run A becomes the new current run). "What if" records the owner before it sets them.
KEPT_WITH_RUN = [RUN_A, RUN_B, FOCUS, MERGES]
DECIDED = {TIE: "A tie rule decided", COUNTS: "The counts decided", STOPPED: "One run had stopped"}


# ==================== The way in from Merge by merge


def what_if_buttons(settings: Settings, step: int) -> None:
    """One button per other tie rule: open Compare runs on this run against that rule's,
    at ``step``. The other run trains (once, cached) when the page opens."""
    others = [rule for rule in TIE_RULES if rule != settings.tie_rule]
    for column, rule in zip(st.columns(len(others)), others):
        if column.button(
            f"What if {tie_rule_label(rule)}? Compare →",
            key=f"compare_whatif_{rule}",
            help=f"Train the same settings with ties going to {describe_tie_rule(rule)}, "
            f"and see where the two runs part ways.",
        ):
            state = st.session_state
            keep_with(run_identity(settings), KEPT_WITH_RUN)
            state[RUN_A], state[RUN_B] = settings, replace(settings, tie_rule=rule)
            state[FOCUS] = state[MERGES] = step
            state[WIDEN] = True  # Compare runs then shows the merges up to where the runs part
            try:
                st.switch_page(COMPARE_PAGE)
            except StreamlitAPIException:  # a server started before the page was added has not registered it
                st.warning("Open **Compare runs** in the page list: both runs are ready there.")


# ==================== Which two runs


def chosen_runs(settings: Settings) -> tuple[tuple[Settings, TrainingRun], tuple[Settings, TrainingRun]] | None:
    """Draw the variant form and the two run pickers; return runs A and B as (settings,
    run), trained or taken from the cache, or None while the session has only one run.
    Defaults: A the current run, B the most recent other one at hand (`_most_recent_at_hand`)."""
    state = st.session_state
    keep_with(run_identity(settings), KEPT_WITH_RUN)
    _variant_form(settings)
    for key in (RUN_A, RUN_B):  # a run asked for (a variant, "what if"): train it now, once
        wanted = state.get(key)
        if wanted is not None and _in(wanted, seen_runs()) is None:
            try:
                run_for(wanted)
            except BpeError as error:
                st.error(f"Cannot train that run: {escape_markdown(str(error))}", icon="⚠️")
                state.pop(key)
    seen = seen_runs()
    state[RUN_A] = _in(state.get(RUN_A), seen) or _in(settings, seen)
    others = [s for s in seen if s.training_key() != state[RUN_A].training_key()]
    state[RUN_B] = _in(state.get(RUN_B), others) or _most_recent_at_hand(others)
    if state[RUN_B] is None:
        return None
    left, right = st.columns(2)
    with left:
        bind(st.selectbox, "Run A", RUN_A, options=seen, format_func=run_label)
    with right:
        bind(st.selectbox, "Run B", RUN_B, options=seen, format_func=run_label)
    return (state[RUN_A], run_for(state[RUN_A])), (state[RUN_B], run_for(state[RUN_B]))


def _most_recent_at_hand(others: list[Settings]) -> Settings | None:
    """Run B by default: the most recent other run that needs no training, else the most
    recent one (trained). A run let go (a session's runs on its earlier own text go with that
    text's values: `data.owned`) would be trained again on the first visit after each new
    text, where a run at hand (the class's) costs nothing."""
    for other in others:
        try:
            if run_at_hand(other) is not None:
                return other
        except BpeError:
            continue  # a run file that cannot be read: picking it says so
    return others[0] if others else None


def _in(wanted: Settings | None, seen: list[Settings]) -> Settings | None:
    """The remembered settings of the same run as ``wanted`` (the vocab shown and top-k
    aside: they do not change the run), or None."""
    if wanted is None:
        return None
    return next((s for s in seen if s.training_key() == wanted.training_key()), None)


def _variant_form(settings: Settings) -> None:
    """Train a variant of run A (the current run unless another is picked) as run B."""
    base = st.session_state.get(RUN_A) or settings
    with st.expander("Train a variant to compare with", expanded=len(seen_runs()) < 2):
        with st.form("compare_variant_form", border=False):
            c1, c2, c3, c4 = st.columns(4)
            rules = list(TIE_RULES)
            default_rule = next(r for r in rules if r != base.tie_rule)
            rule = c1.selectbox(
                "Tie rule",
                rules,
                index=rules.index(default_rule),
                format_func=tie_rule_label,
                key="compare_variant_rule",
            )
            choices = list(PRETOKENIZER_CHOICES)
            current = base.pretokenizer or "none"
            pre = c2.selectbox(
                "Pre-tokenizer",
                choices,
                index=choices.index(current) if current in choices else 0,
                format_func=pretokenizer_name,
                key="compare_variant_pre",
            )
            alphabet = c3.selectbox(
                "Alphabet",
                ["characters", "bytes"],
                index=["characters", "bytes"].index(base.alphabet),
                key="compare_variant_alphabet",
            )
            min_freq = c4.number_input(
                "Minimum pair frequency", min_value=1, value=base.min_freq, key="compare_variant_min_freq"
            )
            if st.form_submit_button("Train and compare as run B", type="primary"):
                st.session_state[RUN_A] = base
                st.session_state[RUN_B] = _variant(base, rule, None if pre == "none" else pre, alphabet, int(min_freq))
                st.session_state.pop(FOCUS, None)


def _variant(base: Settings, rule: str, pretokenizer: str | None, alphabet: str, min_freq: int) -> Settings:
    """``base`` with the chosen settings; across alphabets the vocab sizes move by the
    difference in base tokens, so both runs learn the same number of merges."""
    variant = replace(base, tie_rule=rule, pretokenizer=pretokenizer, alphabet=alphabet, min_freq=min_freq)
    if alphabet == base.alphabet:
        return variant
    shift = alphabet_size(variant) - alphabet_size(base)
    return replace(variant, vocab_size=base.vocab_size + shift, trained_vocab_size=base.trained_vocab_size + shift)


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


# ==================== Drawing


def draw_differences(found: RunComparison) -> None:
    if not found.differences:
        st.info("The two runs have the same training settings.")
        return
    st.dataframe(
        pd.DataFrame(found.differences, columns=["setting", "run A", "run B"]),
        hide_index=True,
        key="compare_settings_table",
    )


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
        st.dataframe(pd.DataFrame(list(divergence.competitors)), hide_index=True, key="compare_competitors")


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
    st.dataframe(pd.DataFrame(aligned_rows(vocab)), hide_index=True, key="compare_aligned")


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
