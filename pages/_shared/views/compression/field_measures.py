"""Compression's "what the field measures": the figures of ``python -m bpe evaluate``
(`bpe.analysis.evaluation`) for this run, GPT-2, GPT-4 and an upload, on one report-card
text, and the Gini of their token counts across the lighthouse languages."""

from __future__ import annotations

import streamlit as st

from bpe.analysis.evaluation import DEFAULT_ALPHA, gini
from bpe.analysis.report_card import CardText
from pages._shared.data.measures import card_evaluation_of
from pages._shared.data.tokenizers import Compared, session_owns
from pages._shared.frame.tables import show_table
from pages._shared.render.numbers import cell
from pages._shared.state.controls import CARD_TEXT
from pages._shared.state.settings import Settings, bind

LANGUAGE = "language"  # the report card's kind of the lighthouse paragraphs
# (figure, column) of the table, in `bpe.analysis.evaluation.FIGURES`' order
# (figure, row, decimals) of the table: one row a figure, one column a tokenizer, so that it fits
# 1024 px in presenter type (a column a figure did not); characters per token is the card's own
ROWS = (
    ("tokens", "tokens", 0),
    ("bytes_per_token", "bytes per token", 3),
    ("chars_per_token", "characters per token", 3),
    ("fertility", "fertility (tokens per word)", 3),
    ("shannon_efficiency", "Shannon efficiency", 4),
    ("renyi_efficiency", f"Rényi efficiency (α {DEFAULT_ALPHA:g})", 4),
    ("utilisation", "utilisation", 4),
)
GINI = "Gini across the languages"
FIGURE = "figure"


def field_rows(settings: Settings, compared: list[Compared], texts: list[CardText], chosen: str) -> list[dict]:
    """One row per figure, one column per tokenizer: its figures on the text ``chosen``, then
    the Gini of its token counts across the lighthouse paragraphs (— where it cannot encode
    one of them, or the text)."""
    languages = [text.name for text in texts if text.kind == LANGUAGE]
    rows = [{FIGURE: label} for _, label, _ in ROWS] + [{FIGURE: GINI}]
    for c in compared:
        found = card_evaluation_of(
            c.key, settings.corpus_key(), _tokenizer=c.tokenizer, _texts=texts, own=session_owns(settings, c)
        )
        figures = found.texts.get(chosen)
        for row, (key, _, decimals) in zip(rows, ROWS):
            row[c.label] = cell(None if figures is None else getattr(figures, key), decimals)
        counts = [found.texts[name].tokens for name in languages if found.texts.get(name) is not None]
        rows[-1][c.label] = cell(gini(counts) if len(counts) == len(languages) else None, 4)
    return rows


def draw_field_measures(settings: Settings, compared: list[Compared], texts: list[CardText]) -> None:
    st.markdown(
        "**What the field measures** — the figures of `python -m bpe evaluate`, from each tokenizer's own ids "
        "of the text chosen: fertility (tokens per word), how evenly the vocabulary is used (Shannon and Rényi "
        "efficiency, 1 for perfectly even use) and how much of it is used at all (utilisation); and how "
        "unevenly each tokenizer prices **the same paragraph** in eleven languages (Gini, 0 for equal cost)."
    )
    names = [text.name for text in texts]
    state = st.session_state
    if state.get(CARD_TEXT.key) not in names:  # unset, or a link's name for a text this corpus lacks
        state[CARD_TEXT.key] = names[-1]  # the corpus's own text (held out, when it is): every tokenizer encodes it
    bind(st.selectbox, "Measured on", CARD_TEXT.key, options=names)
    rows = field_rows(settings, compared, texts, state[CARD_TEXT.key])
    show_table(rows)
    st.caption(
        "N tokens of V ids, p each id's share of them: Shannon efficiency H₁(p) ÷ log₂ V; Rényi efficiency "
        f"H_α(p) ÷ log₂ V at α = {DEFAULT_ALPHA:g}, which weighs the frequent ids most (Zouhar et al., 2023); "
        "utilisation: distinct ids ÷ V. Gini: Σᵢ Σⱼ |cᵢ − cⱼ| ÷ (2 n² mean c) over the paragraphs' token counts "
        "c, meaningful because they say the same thing. —: the tokenizer cannot encode the text (characters "
        "outside its alphabet)."
    )
