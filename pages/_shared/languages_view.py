"""Streamlit glue for the Languages page: the lighthouse paragraphs, costs cached."""

from __future__ import annotations

import streamlit as st

from bpe.analysis.languages import LanguageCost, encoded_costs, language_costs
from bpe.corpora.builtin import LIGHTHOUSE

from .analysis import GPT2_LABEL, cached_gpt2

BASELINE = "English"
MODE_LABELS = {"shared": "one tokenizer for all languages", "separate": "one tokenizer per language"}


def lighthouse_texts() -> dict[str, str]:
    """{language name: the lighthouse paragraph}, English first (the original)."""
    return {name: text for name, text in LIGHTHOUSE.values()}


@st.cache_data(show_spinner="Training byte-level BPE on the paragraphs…", max_entries=16)
def trained_costs(merges: int, mode: str) -> list[LanguageCost]:
    return language_costs(lighthouse_texts(), merges=merges, mode=mode, baseline=BASELINE)


def costs_by_tokenizer(merges: int, mode: str) -> dict[str, list[LanguageCost]]:
    """The trained BPE's costs, and GPT-2's when its files are here."""
    found = {f"BPE, {MODE_LABELS[mode]} ({merges:,} merges)": trained_costs(merges, mode)}
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
