"""Compression: how many characters a token carries as the vocabulary grows, and what that costs."""

import streamlit as st

from bpe.analysis.metrics import embedding_parameters, parting_point
from pages._shared import bind, setup_page
from pages._shared.analysis import run_curve, seen_curves
from pages._shared.compression_view import draw_size_table
from pages._shared.figures import compression_curve_figure
from pages._shared.numbers import change_delta
from pages._shared.presenter import presented
from pages._shared.pretrained_view import draw_pretrained_table, pretrained_curves
from pages._shared.report_card_view import draw_report_card

settings, run = setup_page(
    "Compression",
    "Each merge makes the text shorter. The curve shows characters per token on the training text "
    "and on held-out text the tokenizer never saw, for every vocab size of **one** training run "
    "(a smaller vocab is a prefix of the same merges, so nothing is retrained).",
)
if run is None:
    st.stop()
ss = st.session_state
ss.setdefault("compression_d", 128)
ss.setdefault("compression_gap", 5)
ss.setdefault("compression_overlays", [])

curve = run_curve(settings, run)
others = seen_curves(settings)
ss.compression_overlays = [label for label in ss.compression_overlays if label in others]
merges = run.merge_count(settings.vocab_size)
shown = next(p for p in reversed(curve) if p.merges <= merges)

chart, cost = st.columns([3, 2])
with chart:
    bind(
        st.slider,
        "Curves part when held-out compression is lower by more than (%)",
        "compression_gap",
        min_value=1,
        max_value=30,
    )
    parting = parting_point(curve, ss.compression_gap / 100)
    bind(
        st.multiselect,
        "Overlay other runs from this session",
        "compression_overlays",
        options=list(others),
        help="Train on another corpus, minimum frequency or alphabet in the sidebar, then come back.",
    )
    st.plotly_chart(
        presented(
            compression_curve_figure(
                curve,
                parting=parting,
                shown_vocab=shown.vocab_size,
                overlays={k: others[k] for k in ss.compression_overlays},
                **pretrained_curves(settings, run),
            )
        ),
        key="compression_chart",
    )
    if shown.heldout_compression is None:
        st.caption("Nothing is held out for this corpus, so there is no held-out curve.")
    elif parting is None:
        st.caption(
            f"The curves stay within {ss.compression_gap}% of each other up to vocab "
            f"{curve[-1].vocab_size:,}: what was learned carries over to unseen text."
        )
    else:
        st.caption(
            f"From vocab {parting.vocab_size:,} on, held-out text compresses more than "
            f"{ss.compression_gap}% worse than training text ({parting.heldout_compression:.2f} vs "
            f"{parting.train_compression:.2f} characters/token): new merges start to fit this text's quirks."
        )
with cost:
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
    bind(st.number_input, "Embedding width d", "compression_d", min_value=1, max_value=16_384, step=64)
    params = embedding_parameters(shown.vocab_size, ss.compression_d)
    st.metric("Embedding parameters (vocab × d)", f"{params:,}")
    st.caption(
        f"With the output head tied to the embedding, that is all the vocabulary costs; an untied "
        f"head adds as much again: {embedding_parameters(shown.vocab_size, ss.compression_d, tied=False):,}."
    )

st.subheader("Vocab sizes side by side")
draw_size_table(settings, run, ss.compression_d)
draw_pretrained_table(settings, shown.vocab_size)  # GPT-2, GPT-4, an upload: only those that are here
draw_report_card(settings, run)  # this run beside GPT-2 and GPT-4 on prose, code, maths, languages
