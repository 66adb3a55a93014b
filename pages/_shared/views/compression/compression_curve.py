"""Compression's curve and what the vocabulary costs: characters per token on the training
and held-out text for every vocab size of the one run, where the two curves part, other
runs of this session overlaid, pretrained tokenizers' curves beside it; and, at the vocab
size shown, the embedding's parameters for a width the visitor picks.
"""

from __future__ import annotations

import streamlit as st

from bpe.analysis.metrics import CurvePoint, embedding_parameters, parting_point
from bpe.run import TrainingRun
from bpe.variants.rule_runs import VariantRun
from pages._shared.data.measures import (
    run_curve,
    seen_curves,
)
from pages._shared.data.tokenizers import extra_tokenizers, session_owns
from pages._shared.frame.presenter import presented, presented_once
from pages._shared.render.figures import compression_curve_figure
from pages._shared.render.numbers import change_delta
from pages._shared.state.controls import GAP, WIDTH
from pages._shared.state.settings import Settings, bind
from pages._shared.views.compression.pretrained_table import pretrained_curves

OVERLAYS = "compression_overlays"  # plain key: labels of other runs drawn over this one


def shown_point(settings: Settings, run: TrainingRun) -> tuple[list[CurvePoint], CurvePoint]:
    """The run's curve, and its point at the vocab size shown."""
    curve = run_curve(settings, run)
    merges = run.merge_count(settings.vocab_size)
    return curve, next(p for p in reversed(curve) if p.merges <= merges)


def draw_curve(settings: Settings, run: TrainingRun, curve: list[CurvePoint], shown: CurvePoint) -> None:
    """The parting threshold, the overlays of other runs, the chart and what it shows."""
    state = st.session_state
    GAP.setdefault()
    state.setdefault(OVERLAYS, [])
    others = seen_curves(settings)
    state[OVERLAYS] = [label for label in state[OVERLAYS] if label in others]
    GAP.draw(st.slider, "Curves part when held-out compression is lower by more than (%)")
    gap = state[GAP.key]
    parting = parting_point(curve, gap / 100)
    bind(
        st.multiselect,
        "Overlay other runs from this session",
        OVERLAYS,
        options=list(others),
        help="Train on another corpus, minimum frequency or alphabet in the sidebar, then come back.",
    )
    overlays = {k: others[k] for k in state[OVERLAYS]}

    marks = rule_marks(run)

    def build():
        return compression_curve_figure(
            curve,
            parting=parting,
            shown_vocab=shown.vocab_size,
            overlays=overlays,
            marks=marks,
            **pretrained_curves(settings, run),
        )

    if overlays:  # this session's other runs: a chart of its own
        figure = presented(build())
    else:  # what every student of the class sees: one chart per run, threshold, size shown and tokenizers here
        pretrained = tuple(c.key for c in extra_tokenizers())
        figure = presented_once(
            ("compression curve", settings.training_key(), gap, shown.vocab_size, pretrained),
            build,
            own=session_owns(settings),
        )
    st.plotly_chart(figure, key="compression_chart")
    if marks:
        size = next(iter(marks.values()))
        st.caption(
            f"SuperBPE: up to vocab {size:,} its merges stayed inside pre-tokenizer chunks; after, the chunks join "
            "and superword tokens (across whitespace) let the curve climb on where standard BPE's flattens."
        )
    if shown.heldout_compression is None:
        st.caption("Nothing is held out for this corpus, so there is no held-out curve.")
    elif parting is None:
        st.caption(
            f"The curves stay within {gap}% of each other up to vocab "
            f"{curve[-1].vocab_size:,}: what was learned carries over to unseen text."
        )
    else:
        st.caption(
            f"From vocab {parting.vocab_size:,} on, held-out text compresses more than "
            f"{gap}% worse than training text ({parting.heldout_compression:.2f} vs "
            f"{parting.train_compression:.2f} characters/token): new merges start to fit this text's quirks."
        )


def draw_cost(run: TrainingRun, shown: CurvePoint) -> int:
    """Compression at the vocab shown, the training text's length, and the embedding's
    parameters for a width the visitor picks; returns that width."""
    state = st.session_state
    WIDTH.setdefault()
    st.metric(
        "Characters per token",
        f"{shown.train_compression:.2f}",  # short labels: they fit at 1024 px
        help=f"At vocab {shown.vocab_size:,}: the training text's characters divided by its tokens.",
    )
    if shown.heldout_compression is not None:
        st.metric("Held-out characters per token", f"{shown.heldout_compression:.2f}")
    length = run.sequence_length(shown.merges)
    st.metric(
        "Tokens in the training text",
        f"{length:,}",
        **change_delta(length - run.initial_length, ""),
        help=f"{run.initial_length:,} with no merges (one per character or byte).",
    )
    WIDTH.draw(st.number_input, "Embedding width d", step=64)
    width = state[WIDTH.key]
    st.metric("Embedding parameters (vocab × d)", f"{embedding_parameters(shown.vocab_size, width):,}")
    st.caption(
        f"With the output head tied to the embedding, that is all the vocabulary costs; an untied "
        f"head adds as much again: {embedding_parameters(shown.vocab_size, width, tied=False):,}."
    )
    return width


def rule_marks(run: TrainingRun) -> dict[str, int]:
    """{label: vocab size} of what a training rule marks on the curve: SuperBPE's transition."""
    if isinstance(run, VariantRun) and run.joined_after is not None and run.joined_after < len(run.steps):
        return {"chunks join (SuperBPE)": run.vocab_size_after(run.joined_after)}
    return {}
