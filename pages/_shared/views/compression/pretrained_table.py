"""Compression's pretrained tokenizers beside the run: GPT-2, GPT-4 (cl100k) and an uploaded
tokenizer (`data.tokenizers.extra_tokenizers`).

Each has one vocabulary, but its first merges are what a shorter training run would have
kept: cut to vocab sizes in the run's range (`bpe.analysis.pretrained.prefix_curve`) they
draw a curve on the same axes, measured on the same text as the run's held-out curve.
Their whole vocabulary lies far to the right of most runs, so it goes in a table. When
none of them is here, nothing is drawn. Cached per tokenizer, corpus and sizes.
"""

from __future__ import annotations

import streamlit as st

from bpe.analysis.pretrained import PrefixPoint, curve_sizes
from bpe.errors import BpeError
from bpe.run import TrainingRun
from pages._shared.data.measures import (
    measured_text,
    pretrained_compression,
    pretrained_prefix_curve,
)
from pages._shared.data.tokenizers import Compared, extra_tokenizers, session_owns
from pages._shared.frame.tables import show_table
from pages._shared.render.html import escape_markdown
from pages._shared.state.settings import Settings


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
            whole = pretrained_compression(
                compared.key,
                settings.corpus_key(),
                _tokenizer=compared.tokenizer,
                _text=text,
                own=session_owns(settings, compared),
            )
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
        return pretrained_prefix_curve(
            compared.key,
            settings.corpus_key(),
            sizes,
            _tokenizer=compared.tokenizer,
            _text=text,
            own=session_owns(settings, compared),
        )
    except BpeError:
        return []
