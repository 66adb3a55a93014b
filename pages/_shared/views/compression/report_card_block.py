"""Compression's report card: this run beside GPT-2 and GPT-4 on fixed kinds of text.

The texts are `bpe.analysis.report_card.card_texts` (prose, code, maths, the lighthouse
languages, this corpus's two parts); the measures are cached per tokenizer and corpus, so
moving the vocab slider measures only the run's new prefix.
"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from bpe.analysis.metrics import compression
from bpe.analysis.report_card import CardRow, CardText, card_csv, card_texts
from bpe.run import TrainingRun
from pages._shared.data.measures import card_rows_of
from pages._shared.data.runs import corpus_parts, opened_run
from pages._shared.data.tokenizers import GPT2_LABEL, GPT4_LABEL, Compared, bpe_at, extra_tokenizers, session_owns
from pages._shared.frame.presenter import presented_once, presenting
from pages._shared.render.report_card_html import report_card_figure, report_card_html
from pages._shared.state.controls import CARD_UNIT
from pages._shared.state.settings import Replayed, Settings
from pages._shared.views.compression.field_measures import draw_field_measures

UNIT = CARD_UNIT.key


def report_texts(settings: Settings) -> list[CardText]:
    """The card's texts: the fixed ones, then the corpus's parts. A replayed run has a
    held-out row (its file's sample) and no training row."""
    train, heldout = corpus_parts(settings)
    replayed = isinstance(settings, Replayed)
    corpus = opened_run(settings).source.name if replayed else settings.corpus
    return card_texts(train, heldout, corpus=corpus, kept_sample=replayed)


def card_rows(settings: Settings, compared: list[Compared], texts: list[CardText]) -> list[CardRow]:
    """One row per text, with a measure for each of ``compared`` (each measured once, cached)."""
    parts = [
        card_rows_of(
            c.key, settings.corpus_key(), c.label, _tokenizer=c.tokenizer, _texts=texts, own=session_owns(settings, c)
        )
        for c in compared
    ]
    return [CardRow(rows[0].text, {k: v for r in rows for k, v in r.measures.items()}) for rows in zip(*parts)]


def draw_report_card(settings: Settings, run: TrainingRun) -> None:
    ss = st.session_state
    st.subheader("Report card")
    ours = bpe_at(settings, run, settings.vocab_size)
    ours = replace(ours, label=f"this run ({ours.vocab_size:,})")
    compared = [ours, *extra_tokenizers()]
    references = [c.label for c in compared[1:] if c.label in (GPT2_LABEL, GPT4_LABEL)] or [
        c.label for c in compared[1:]
    ]
    # name only the tokenizers that are here: without GPT-4's file the page never mentions it
    beside = " and ".join(references) if references else "nothing yet"
    st.markdown(
        f"Characters and bytes per token on fixed kinds of text, this run beside {beside}: "
        "where does its vocabulary pay off, and where does it fall short?"
    )
    texts = report_texts(settings)
    rows = card_rows(settings, compared, texts)
    CARD_UNIT.setdefault()
    CARD_UNIT.draw(
        st.radio,
        "Measure",
        format_func=lambda unit: f"{unit} per token",
        horizontal=True,
        help="Bytes per token compares alphabets fairly: a Chinese character is 3 bytes of UTF-8.",
    )
    st.html(report_card_html(rows, ours.label, references, ss[UNIT], large=presenting()))
    if isinstance(settings, Replayed):
        # the training part is graded by what the file records, for this run only
        merges = len(ours.tokenizer.merges)
        st.caption(
            f"A run file keeps no training text, so the card has no training row: on all "
            f"{run.training_characters:,} characters of its training part this run carries "
            f"{compression(run.training_characters, run.sequence_length(merges)):.2f} characters per token "
            "(the curve above), and no other tokenizer can be measured on that text here. "
            "The held-out row is the sample its file keeps."
        )
    if not references:
        st.caption("No other tokenizer is here (GPT-2's files and GPT-4's package are missing): nothing to compare.")
    else:
        st.caption(
            "Green: this run carries more per token than that tokenizer on the text (fewer tokens); red: fewer. "
            "* : measured on the part of the text the tokenizer covers (a few characters are outside its alphabet); "
            "— : it covers too little of the text to grade (hover for how much). "
            "Hover a text's name for its source."
        )
    unit, large = ss[UNIT], presenting()
    key = ("report card", settings.corpus_key(), tuple((c.label, c.key) for c in compared), unit)  # what rows holds
    own = session_owns(settings, *compared)
    figure = presented_once(key, lambda: report_card_figure(rows, unit, large=large), own=own)  # presenter: in the key
    st.plotly_chart(figure, key="compression_card_chart")
    st.download_button(
        "Report card (CSV)",
        card_csv(rows, ours.label, references),
        file_name=f"report_card_{ours.vocab_size}.csv",
        mime="text/csv",
        key="compression_card_csv",
        on_click="ignore",
    )
    draw_field_measures(settings, compared, texts)
