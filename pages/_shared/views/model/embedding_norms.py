"""The Model page's tokenizer-to-model loop: after the models train, each token's count in the
training ids against its input-embedding norm (`bpe.lm.report.embedding_points`), the tokens
both rare and low-norm marked: the student's own model's under-trained tokens."""

from __future__ import annotations

import streamlit as st

from bpe.lm.job import ExperimentJob
from bpe.lm.report import RARE_COUNT, embedding_points
from bpe.text import printable
from pages._shared.frame.presenter import presented
from pages._shared.render.figures import embedding_scatter_figure
from pages._shared.render.html import escape_markdown
from pages._shared.state.controls import MODEL_SCATTER
from pages._shared.state.settings import bind

SHOWN_TOKENS = 30  # the under-trained tokens named under the chart


def draw_embedding_norms(job: ExperimentJob, summaries: list) -> None:
    st.subheader("Which tokens did the model barely learn?")
    names = [summary.tokenizer for summary in summaries if summary.token_counts]
    if not names:
        return
    state = st.session_state
    if state.get(MODEL_SCATTER.key) not in names:
        state[MODEL_SCATTER.key] = names[-1]  # the last is a BPE tokenizer when one was trained
    bind(st.selectbox, "Model", MODEL_SCATTER.key, options=names)
    summary = next(s for s in summaries if s.tokenizer == state[MODEL_SCATTER.key])
    itos = job.tokenizer(summary.tokenizer).itos
    points = embedding_points(summary)
    tokens = {p.id: printable(itos[p.id]) for p in points if p.id in itos}
    st.plotly_chart(presented(embedding_scatter_figure(points, tokens, summary.tokenizer)), key="model_embeddings")
    flagged = sorted((p for p in points if p.under_trained), key=lambda p: (p.count, p.norm))
    st.caption(
        f"A model learns a token's input embedding only where the token occurs. Red: seen fewer than {RARE_COUNT} "
        "times, with a row whose norm is below the lower quartile of the frequent tokens' norms: the rare and "
        "low-norm indicator (after Land and Bartolo, 2024), on this model; amber: the other rare tokens. Here the "
        "embedding table is also the "
        "output layer, so a row the model never reads still moves with every prediction: look whether the rare "
        f"tokens sit apart from the others. {len(flagged):,} of {len(points):,} tokens are flagged."
    )
    if flagged:
        named = ", ".join(f"`{escape_markdown(tokens.get(p.id, str(p.id)))}`" for p in flagged[:SHOWN_TOKENS])
        more = f" and {len(flagged) - SHOWN_TOKENS:,} more" if len(flagged) > SHOWN_TOKENS else ""
        st.markdown(f"Flagged: {named}{more}.")
