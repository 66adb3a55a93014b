"""Languages: the lighthouse paragraph in eleven languages, its cost in tokens per
tokenizer (cached in `data.measures`), as a chart and a table; and parity-aware BPE beside
standard BPE, the languages evening out as the merges grow."""

from __future__ import annotations

import streamlit as st

from bpe.analysis.languages import LanguageCost, evenness_curve, run_costs, served_counts
from bpe.variants.parity import PARITY, STANDARD
from pages._shared.data.measures import gpt2_costs, lighthouse_texts, multilingual_runs, trained_costs
from pages._shared.data.tokenizers import GPT2_LABEL, cached_gpt2
from pages._shared.frame.presenter import presented_once
from pages._shared.frame.tables import show_table
from pages._shared.render.figures import evenness_figure, language_cost_figure
from pages._shared.state.controls import LANGUAGES_MERGES, LANGUAGES_MODE, LANGUAGES_PARITY

BASELINE = "English"
MODE_LABELS = {"shared": "one tokenizer for all languages", "separate": "one tokenizer per language"}


def costs_by_tokenizer(merges: int, mode: str) -> dict[str, list[LanguageCost]]:
    """The trained BPE's costs, and GPT-2's when its files are here."""
    found = {f"BPE, {MODE_LABELS[mode]} ({merges:,} merges)": trained_costs(merges, mode, BASELINE)}
    gpt2 = cached_gpt2()
    if gpt2 is not None:
        found[GPT2_LABEL] = gpt2_costs(BASELINE, gpt2)
    return found


def cost_rows(costs: dict[str, list[LanguageCost]]) -> list[dict]:
    """One row per language: its size, then each tokenizer's tokens and multiple of English
    (not characters per token, which the first columns give: nine columns do not fit 1024 px)."""
    rows = []
    for index, language in enumerate(lighthouse_texts()):
        first = next(iter(costs.values()))[index]
        row = {"language": language, "characters": first.characters, "UTF-8 bytes": first.utf8_bytes}
        for label, found in costs.items():
            short = "GPT-2" if label == GPT2_LABEL else "BPE"
            row[f"{short} tokens"] = found[index].tokens
            row[f"{short} × {BASELINE}"] = f"{found[index].times_baseline:.2f}×"
        rows.append(row)
    return rows


RULE_LABELS = {
    STANDARD: "standard BPE (most frequent pair overall)",
    PARITY: "parity-aware BPE (worst language's pair)",
}


def draw_controls() -> tuple[int, str, bool]:
    """Merges, the training mode and the parity switch; returns all three."""
    state = st.session_state
    for control in (LANGUAGES_MERGES, LANGUAGES_MODE, LANGUAGES_PARITY):
        control.setdefault()
    LANGUAGES_PARITY.draw(
        st.toggle,
        "Parity-aware BPE beside standard BPE",
        help="Each merge takes the most frequent pair of the language whose paragraph now costs the most tokens "
        "(Foroutan et al., 2025), and merges it in every language: one shared vocabulary.",
    )
    left, right = st.columns([3, 2])
    with left:
        LANGUAGES_MERGES.draw(
            st.select_slider,
            "Merges (the same for every tokenizer)",
            help="0 merges: one token per UTF-8 byte.",
        )
    with right:
        if state[LANGUAGES_PARITY.key]:  # said in words, not a radio that no longer answers
            st.markdown(
                "**Train:** one tokenizer for all. Parity-aware BPE picks each merge for the costliest language "
                "and shares one vocabulary, so both rules are trained on every language together."
            )
        else:
            LANGUAGES_MODE.draw(
                st.radio,
                "Train",
                format_func=MODE_LABELS.get,
                help="Together: as a multilingual model's tokenizer is trained. Per language: each tokenizer is "
                "trained and measured on its own paragraph, with the same vocab size.",
            )
    return state[LANGUAGES_MERGES.key], state[LANGUAGES_MODE.key], state[LANGUAGES_PARITY.key]


def parity_costs(merges: int) -> dict[str, list[LanguageCost]]:
    """Standard and parity-aware BPE's costs after ``merges`` merges (one training to the
    largest choice; smaller counts are its prefixes)."""
    runs = multilingual_runs(max(LANGUAGES_MERGES.options))
    texts = lighthouse_texts()
    return {
        f"{RULE_LABELS[rule]}, {min(merges, len(run.steps)):,} merges": run_costs(
            run, merges, texts=texts, baseline=BASELINE
        )
        for rule, run in runs.items()
    }


def cost_chart(costs: dict[str, list[LanguageCost]]):
    """The bars of ``costs``, built once for every session that shows the same costs (the
    key is the costs themselves: a few numbers per language)."""
    key = ("languages costs", BASELINE, tuple((label, tuple(found)) for label, found in costs.items()))
    return presented_once(key, lambda: language_cost_figure(costs, BASELINE))


def draw_parity(merges: int) -> None:
    """Both rules side by side: the bars, the totals, the curve as merges grow, who was served."""
    runs = multilingual_runs(max(LANGUAGES_MERGES.options))
    costs = parity_costs(merges)
    st.plotly_chart(cost_chart(costs), key="languages_parity_chart")
    columns = st.columns(len(runs))
    for column, (rule, found) in zip(columns, zip(runs, costs.values())):
        worst = max(found, key=lambda c: c.times_baseline)
        column.metric(f"All languages, {RULE_LABELS[rule].split(' (')[0]}", f"{sum(c.tokens for c in found):,} tokens")
        column.caption(f"Costliest: {worst.language}, {worst.times_baseline:.2f}× {BASELINE}")
    st.plotly_chart(
        presented_once(
            ("languages evenness", max(LANGUAGES_MERGES.options), merges, BASELINE),  # the runs' merges, the marker
            lambda: evenness_figure(
                {RULE_LABELS[rule].split(" (")[0]: evenness_curve(run) for rule, run in runs.items()}, BASELINE, merges
            ),
        ),
        key="languages_parity_curve",
    )
    served = served_counts(runs[PARITY], merges)
    show_table(
        [{"language": language, "merges chosen from its counts": count} for language, count in served.items()],
        empty="",
    )
    st.caption(
        "Standard BPE serves the pairs most languages share; parity-aware BPE serves the costliest language each "
        "step, so the bars even out while the total barely moves. The texts must say the same thing, as these do."
    )


def draw_costs(merges: int, mode: str, parity: bool = False) -> None:
    """The chart and the table of tokens per language, and how to read them."""
    if parity:
        draw_parity(merges)
        return
    costs = costs_by_tokenizer(merges, mode)
    st.plotly_chart(cost_chart(costs), key="languages_chart")
    show_table(cost_rows(costs))
    st.caption(
        f"× {BASELINE}: tokens for the paragraph divided by the English paragraph's tokens with the same kind "
        "of tokenizer. Byte-level tokenizers start from the 256 byte values, so every script is encodable; "
        "a character outside ASCII is 2 to 4 bytes before any merge. GPT-2 (when its files are here) was "
        "trained on mostly English web text."
    )
