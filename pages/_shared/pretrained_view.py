"""Streamlit glue for pretrained tokenizers beside the run: Tokenize's columns, and the
Compression page's curves and table.

Tokenize shows a column per tokenizer; with GPT-2, GPT-4 and an upload beside the
characters and the run that is five, too narrow at 1024 px for the numbers in them. So
`tokenizer_columns` keeps one row for up to `PER_ROW`, and otherwise puts the run's
tokenizers in one row and the pretrained ones (GPT-2 beside GPT-4) in the next.

GPT-2, GPT-4 (cl100k) and an uploaded tokenizer (`analysis.extra_tokenizers`) each have
one vocabulary, but their first merges are what a shorter training run would have kept:
cut to vocab sizes in the run's range (`bpe.analysis.pretrained.prefix_curve`) they draw
a curve on the same axes, measured on the same text as the run's held-out curve. Their
whole vocabulary lies far to the right of most runs, so it goes in a table. When none of
them is here, nothing is drawn. Cached per tokenizer, corpus and sizes.
"""

from __future__ import annotations

import streamlit as st

from bpe.analysis.pretrained import PrefixPoint, curve_sizes, full_compression, prefix_curve
from bpe.errors import BpeError
from bpe.run import TrainingRun

from .analysis import Compared, extra_tokenizers, measured_text
from .html import escape_markdown
from .numbers import show_table
from .settings import Settings

PER_ROW = 3  # tokenizer columns a row: each keeps room for "Characters/token" and its value at 1024 px


def tokenizer_columns(trained: int, pretrained: int) -> list:
    """A column for each of ``trained`` + ``pretrained`` tokenizers: one row when they are
    `PER_ROW` or fewer; else the trained ones in a row, then the pretrained ones, at most
    `PER_ROW` a row (every row as wide as the widest, so columns line up)."""
    count = trained + pretrained
    if count <= PER_ROW:
        return list(st.columns(max(count, 1)))[:count]
    width = min(PER_ROW, max(trained, pretrained))
    columns = list(st.columns(width))[:trained]
    while len(columns) < count:
        columns += st.columns(width)
    return columns[:count]


def pretrained_curves(settings: Settings, run: TrainingRun) -> dict:
    """`figures.compression_curve_figure`'s ``pretrained`` ({label: points}, for each
    pretrained tokenizer that can encode the measured text and has merges inside the run's
    range of vocab sizes) and ``pretrained_text`` (which text they were measured on)."""
    curves = {}
    for compared in extra_tokenizers():
        sizes = tuple(curve_sizes(len(compared.tokenizer.base_tokens), run.final_vocab_size))
        points = _points(settings, compared, sizes)
        if points:
            curves[compared.label] = points
    what, _text = measured_text(settings)
    return {"pretrained": curves, "pretrained_text": what}


def draw_pretrained_table(settings: Settings, vocab_size: int) -> None:
    """Each pretrained tokenizer's characters per token with its whole vocabulary, and cut
    to ``vocab_size`` (the run's vocab shown above)."""
    what, text = measured_text(settings)
    rows, left_out = [], []
    for compared in extra_tokenizers():
        try:
            whole = _whole(compared.key, settings.corpus_key(), _tokenizer=compared.tokenizer, _text=text)
        except BpeError as error:  # an uploaded character tokenizer lacking characters of this text
            left_out.append(f"{compared.label} is left out: {error}")
            continue
        cut = _points(settings, compared, (vocab_size,))
        rows.append(
            {
                "tokenizer": compared.label,
                "vocab size": compared.vocab_size,
                "characters per token": whole,
                f"with its first merges, at vocab {vocab_size:,}": cut[0].compression if cut else None,
            }
        )
    if not rows and not left_out:
        return
    st.subheader("Pretrained tokenizers on the same text")
    show_table(rows, decimals={"characters per token": 2, f"with its first merges, at vocab {vocab_size:,}": 2})
    st.caption(
        escape_markdown(
            f"Measured on {len(text):,} characters of {what}. Their merges were learned on other text (WebText for "
            "GPT-2): where the run's curve rises above theirs, the run has learned pieces of this text in particular. "
            "— means the size is at or under that tokenizer's alphabet."
        )
    )
    for note in left_out:
        st.caption(escape_markdown(note))


def _points(settings: Settings, compared: Compared, sizes: tuple) -> list[PrefixPoint]:
    _what, text = measured_text(settings)
    try:
        return _curve(compared.key, settings.corpus_key(), sizes, _tokenizer=compared.tokenizer, _text=text)
    except BpeError:
        return []


@st.cache_data(show_spinner=False, max_entries=64)
def _curve(tokenizer_key: tuple, corpus_key: tuple, sizes: tuple, _tokenizer, _text: str) -> list[PrefixPoint]:
    return prefix_curve(_tokenizer, _text, sizes)


@st.cache_data(show_spinner=False, max_entries=16)
def _whole(tokenizer_key: tuple, corpus_key: tuple, _tokenizer, _text: str) -> float:
    return full_compression(_tokenizer, _text)
