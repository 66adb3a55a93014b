"""The Languages page's blocks: the lighthouse paragraph in eleven languages, its cost in
tokens per tokenizer (cached in `data.measures`), as a chart and a table."""

from __future__ import annotations

import streamlit as st

from bpe.analysis.languages import LanguageCost, encoded_costs
from pages._shared.data.measures import lighthouse_texts, trained_costs
from pages._shared.data.tokenizers import GPT2_LABEL, cached_gpt2
from pages._shared.frame.presenter import presented
from pages._shared.frame.tables import show_table
from pages._shared.render.figures import language_cost_figure
from pages._shared.state.settings import bind

BASELINE = "English"
MODE_LABELS = {"shared": "one tokenizer for all languages", "separate": "one tokenizer per language"}


def costs_by_tokenizer(merges: int, mode: str) -> dict[str, list[LanguageCost]]:
    """The trained BPE's costs, and GPT-2's when its files are here."""
    found = {f"BPE, {MODE_LABELS[mode]} ({merges:,} merges)": trained_costs(merges, mode, BASELINE)}
    gpt2 = cached_gpt2()
    if gpt2 is not None:
        found[GPT2_LABEL] = encoded_costs(lighthouse_texts(), gpt2, baseline=BASELINE)
    return found


def cost_rows(costs: dict[str, list[LanguageCost]]) -> list[dict]:
    """One row per language: its size, then each tokenizer's tokens and multiple of English."""
    rows = []
    for index, language in enumerate(lighthouse_texts()):
        first = next(iter(costs.values()))[index]
        row = {"language": language, "characters": first.characters, "UTF-8 bytes": first.utf8_bytes}
        for label, found in costs.items():
            short = "GPT-2" if label == GPT2_LABEL else "BPE"
            row[f"{short} tokens"] = found[index].tokens
            row[f"{short} × {BASELINE}"] = f"{found[index].times_baseline:.2f}×"
            row[f"{short} characters per token"] = found[index].characters_per_token
        rows.append(row)
    return rows


MERGES = "languages_merges"  # plain key: merges of every tokenizer
MODE = "languages_mode"  # plain key: one tokenizer for all languages, or one each (MODE_LABELS)
MERGE_CHOICES = [0, 50, 100, 200, 300, 500]


def draw_controls() -> tuple[int, str]:
    """Merges and the training mode; returns both."""
    state = st.session_state
    state.setdefault(MERGES, 200)
    state.setdefault(MODE, "shared")
    left, right = st.columns([3, 2])
    with left:
        bind(
            st.select_slider,
            "Merges (the same for every tokenizer)",
            MERGES,
            options=MERGE_CHOICES,
            help="0 merges: one token per UTF-8 byte.",
        )
    with right:
        bind(
            st.radio,
            "Train",
            MODE,
            options=list(MODE_LABELS),
            format_func=MODE_LABELS.get,
            help="Together: as a multilingual model's tokenizer is trained. Per language: each tokenizer is "
            "trained and measured on its own paragraph, with the same vocab size.",
        )
    return state[MERGES], state[MODE]


def draw_costs(merges: int, mode: str) -> None:
    """The chart and the table of tokens per language, and how to read them."""
    costs = costs_by_tokenizer(merges, mode)
    st.plotly_chart(presented(language_cost_figure(costs, BASELINE)), key="languages_chart")
    show_table(cost_rows(costs), decimals={"BPE characters per token": 2, "GPT-2 characters per token": 2})
    st.caption(
        f"× {BASELINE}: tokens for the paragraph divided by the English paragraph's tokens with the same kind "
        "of tokenizer. Byte-level tokenizers start from the 256 byte values, so every script is encodable; "
        "a character outside ASCII is 2 to 4 bytes before any merge. GPT-2 (when its files are here) was "
        "trained on mostly English web text."
    )
