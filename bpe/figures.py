"""Plotly figures drawn from training runs: one function per figure, never streamlit.

Token text in labels and hover text is HTML-escaped: plotly renders a subset of HTML
(``<b>``, ``<a href>``) in text, and token text is user text.
"""
from __future__ import annotations

import html

import plotly.graph_objects as go

from .display import printable
from .steps import MergeStep

WINNER = "#dc2626"
TIED = "#f59e0b"
OTHER = "#94a3b8"
TIE_RULE = "ties go to the pair whose first occurrence in the text comes earliest"


def tied_with_winner(step: MergeStep) -> list[tuple]:
    """The pairs (other than the winner) counted as often as the winner, before the merge."""
    return [pair for pair, count in step.top_pairs if count == step.frequency and pair != step.pair]


# ==================== Merge by merge


def pair_frequency_figure(step: MergeStep, top_k: int) -> go.Figure:
    """Bar chart of the ``top_k`` most frequent pairs *before* ``step``'s merge.

    The winner is red; pairs tied with it are amber and labelled "tie"; the title states
    the tie rule when there is a tie. Bars keep the recorded order (most frequent first,
    ties by first occurrence), so the winner is the leftmost bar.
    """
    pairs = step.top_pairs[:max(top_k, 1)]
    tied = set(tied_with_winner(step))
    labels = [html.escape(f"{printable(a)} + {printable(b)}") for (a, b), _ in pairs]
    colours = [WINNER if pair == step.pair else TIED if pair in tied else OTHER for pair, _ in pairs]
    notes = ["winner" if pair == step.pair else "tie" if pair in tied else "" for pair, _ in pairs]
    # Positions, not labels, on the x axis: two pairs may print alike ('·' vs ' ').
    positions = list(range(len(pairs)))
    fig = go.Figure(go.Bar(
        x=positions, y=[count for _, count in pairs], marker_color=colours, text=notes,
        textposition="outside", customdata=labels,
        hovertemplate="%{customdata}<br>count %{y:,}<extra></extra>",
    ))
    title = f"Step {step.number}: the {len(pairs)} most frequent pairs before the merge"
    if tied:
        title += f"<br><sup>{len(tied)} pair(s) tie with the winner: {TIE_RULE}</sup>"
    fig.update_layout(
        title=title, height=360, margin=dict(l=10, r=10, t=70 if tied else 50, b=10),
        xaxis=dict(tickvals=positions, ticktext=labels, title="pair"),
        yaxis=dict(title="count before the merge"), showlegend=False,
    )
    return fig
