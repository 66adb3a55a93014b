"""Which two runs Compare runs compares: every run this session trained is remembered
(`data.runs.seen_runs`); the page picks two of them, or trains a variant of run A (another
tie rule, pre-tokenizer, alphabet or minimum frequency) through the same cache. The two
runs, the step the comparison was opened from and the merges compared are kept in plain
keys that belong to the current run (`state.per_run.keep_with`).
"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from bpe.analysis.tie_rules import tie_rule_label
from bpe.errors import BpeError
from bpe.pretokenize import PRETOKENIZER_CHOICES, pretokenizer_name
from bpe.run import TrainingRun
from bpe.steps import TIE_RULES
from bpe.variants.rules import DEFAULT_THRESHOLD, NAMES, PICKY, SUPERBPE, VARIANTS, WHAT_CHANGES, Variant
from pages._shared.data.measures import run_label
from pages._shared.data.runs import alphabet_size, run_at_hand, run_for, seen_runs
from pages._shared.render.html import escape_markdown
from pages._shared.state.per_run import keep_with, run_identity
from pages._shared.state.settings import Settings, bind

RUN_A, RUN_B = "compare_a", "compare_b"  # plain keys: the Settings of the two runs compared
FOCUS = "compare_focus"  # plain key: the Merge-by-merge step the comparison was opened from
WIDEN = "compare_widen"  # plain key: just opened from Merge by merge, the merges compared not set yet
MERGES = "compare_merges"  # plain key: how many merges of each run are compared
# The comparison belongs to the current run: a new corpus or setting starts it afresh
# (run A becomes the new current run). "What if" records the owner before it sets them.
KEPT_WITH_RUN = [RUN_A, RUN_B, FOCUS, MERGES]


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
    text's values: `data.cache_scopes`) would be trained again on the first visit after each new
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
    training = base.training
    with st.expander("Train a variant to compare with", expanded=len(seen_runs()) < 2):
        with st.form("compare_variant_form", border=False):
            # two by two: four in a row left a tie rule's name cut ("lexicographi") at 1024 px
            c1, c2 = st.columns(2)
            c3, c4 = st.columns(2)
            rules = list(TIE_RULES)
            default_rule = next(r for r in rules if r != training.tie_rule)
            rule = c1.selectbox(
                "Tie rule",
                rules,
                index=rules.index(default_rule),
                format_func=tie_rule_label,
                key="compare_variant_rule",
            )
            choices = list(PRETOKENIZER_CHOICES)
            current = training.pretokenizer or "none"
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
                index=["characters", "bytes"].index(training.alphabet),
                key="compare_variant_alphabet",
            )
            minimum = c4.number_input(
                "Minimum pair frequency",
                min_value=1,
                value=training.minimum_pair_frequency,
                key="compare_variant_min_freq",
            )
            variant = _rule_inputs(base)
            if st.form_submit_button("Train and compare as run B", type="primary"):
                st.session_state[RUN_A] = base
                st.session_state[RUN_B] = _variant(
                    base,
                    tie_rule=rule,
                    pretokenizer=None if pre == "none" else pre,
                    alphabet=alphabet,
                    minimum_pair_frequency=int(minimum),
                ).with_variant(variant)
                st.session_state.pop(FOCUS, None)


def _variant(base: Settings, **training) -> Settings:
    """``base`` with the chosen training settings; across alphabets the vocab sizes move by
    the difference in base tokens, so both runs learn the same number of merges."""
    variant = base.with_training(**training)
    if variant.training.alphabet == base.training.alphabet:
        return variant
    shift = alphabet_size(variant) - alphabet_size(base)
    shifted = variant.with_training(target_vocab_size=base.training.target_vocab_size + shift)
    return replace(shifted, vocab_size=base.vocab_size + shift)


def _rule_inputs(base: Settings) -> Variant:
    """The training rule of run B (`bpe.variants`) and its setting, in the variant form."""
    c1, c2, c3 = st.columns(3)
    current = base.variant
    name = c1.selectbox(
        "Training rule",
        list(VARIANTS),
        index=list(VARIANTS).index(current.name),
        format_func=NAMES.get,
        key="compare_variant_name",
        help="\n\n".join(f"**{NAMES[rule]}**: {what}" for rule, what in WHAT_CHANGES.items()),
    )
    half = max((base.training.target_vocab_size - alphabet_size(base)) // 2, 0)
    transition = c2.number_input(
        "SuperBPE: chunks join after … merges",
        min_value=0,
        value=current.transition if current.transition is not None else half,
        key="compare_variant_transition",
    )
    threshold = c3.slider(
        "Picky BPE: IoS threshold",
        min_value=0.05,
        max_value=1.0,
        step=0.05,
        value=current.threshold if current.threshold is not None else DEFAULT_THRESHOLD,
        key="compare_variant_threshold",
    )
    if name == SUPERBPE:
        return Variant(name, transition=int(transition))
    if name == PICKY:
        return Variant(name, threshold=float(threshold))
    return Variant(name)
