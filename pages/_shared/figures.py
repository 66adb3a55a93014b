"""Plotly figures drawn from training runs: one function per figure, never streamlit.

Token text in labels and hover text is HTML-escaped: plotly renders a subset of HTML
(``<b>``, ``<a href>``) in text, and token text is user text.
"""
from __future__ import annotations

import html

import plotly.graph_objects as go

from bpe.text import printable
from bpe.steps import MergeStep

WINNER = "#dc2626"
TIED = "#f59e0b"
OTHER = "#94a3b8"
TIE_RULE = "ties go to the pair whose first occurrence in the text comes earliest"


def plotly_text(text: str) -> str:
    """User text for plotly labels: plotly renders a little HTML, so <, > and & are escaped;
    quotes are left alone, since plotly would show '&quot;' literally."""
    return html.escape(text, quote=False)


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
    # plotly decodes only &lt; &gt; &amp; (not &quot;), so quotes stay as they are
    labels = [plotly_text(f"{printable(a)} + {printable(b)}") for (a, b), _ in pairs]
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


# ==================== What BPE buys: compression and context coverage

TRAIN_COLOUR = "#2563eb"
HELDOUT_COLOUR = "#dc2626"
OVERLAY_COLOURS = ["#16a34a", "#9333ea", "#ea580c", "#0891b2", "#be185d", "#65a30d", "#78716c", "#ca8a04"]


def compression_curve_figure(curve, *, parting=None, shown_vocab: int | None = None,
                             overlays: dict | None = None) -> go.Figure:
    """Characters per token against vocab size: training text (blue) and held-out text (red)
    from one run's `bpe.metrics.CurvePoint` list; a marker where the curves part; a dotted
    line at the vocab size shown. ``overlays`` ({label: curve}) adds other runs' curves,
    held-out when they have it (that is the comparable one), thin and dashed."""
    fig = go.Figure()
    sizes = [p.vocab_size for p in curve]
    fig.add_trace(go.Scatter(x=sizes, y=[p.train_compression for p in curve], mode="lines", name="training text",
                             line=dict(color=TRAIN_COLOUR, width=2.5),
                             hovertemplate="vocab %{x:,}<br>%{y:.3f} characters/token<extra>training</extra>"))
    if any(p.heldout_compression is not None for p in curve):
        fig.add_trace(go.Scatter(x=sizes, y=[p.heldout_compression for p in curve], mode="lines",
                                 name="held-out text", line=dict(color=HELDOUT_COLOUR, width=2.5),
                                 hovertemplate="vocab %{x:,}<br>%{y:.3f} characters/token<extra>held-out</extra>"))
    for (label, other), colour in zip((overlays or {}).items(), OVERLAY_COLOURS):
        heldout = all(p.heldout_compression is not None for p in other)
        fig.add_trace(go.Scatter(
            x=[p.vocab_size for p in other],
            y=[p.heldout_compression if heldout else p.train_compression for p in other], mode="lines",
            name=plotly_text(f"{label} ({'held-out' if heldout else 'training'})"),
            line=dict(color=colour, width=1.5, dash="dash"),
            hovertemplate="vocab %{x:,}<br>%{y:.3f} characters/token<extra></extra>"))
    if parting is not None:
        fig.add_trace(go.Scatter(
            x=[parting.vocab_size, parting.vocab_size], y=[parting.train_compression, parting.heldout_compression],
            mode="markers+lines", name=f"curves part (vocab {parting.vocab_size:,})",
            line=dict(color="#111827", width=1), marker=dict(size=9, symbol="diamond", color="#111827"),
            hovertemplate="the curves part at vocab %{x:,}<extra></extra>"))
    if shown_vocab is not None:
        fig.add_vline(x=shown_vocab, line=dict(color="#64748b", dash="dot"),
                      annotation_text=f"vocab {shown_vocab:,}", annotation_position="top left")
    fig.update_layout(title="Compression against vocab size (one training run)", height=420,
                      margin=dict(l=10, r=10, t=50, b=10), xaxis_title="vocab size",
                      yaxis_title="characters per token", legend=dict(orientation="h", y=-0.2))
    return fig


def coverage_figure(rows, block_size: int, what: str) -> go.Figure:
    """Characters covered by ``block_size`` tokens, against vocab size (log axis): the mean as a
    marker, the 10th-90th percentile over windows as the error bar. ``rows`` are
    (label, vocab_size, `bpe.metrics.Coverage`)."""
    labels = [plotly_text(label) for label, _, _ in rows]
    fig = go.Figure(go.Scatter(
        x=[size for _, size, _ in rows], y=[c.mean for _, _, c in rows], mode="markers+text+lines",
        text=labels, textposition="top center", marker=dict(size=11, color=TRAIN_COLOUR),
        line=dict(color="#cbd5e1", width=1),
        error_y=dict(type="data", symmetric=False, array=[c.p90 - c.mean for _, _, c in rows],
                     arrayminus=[c.mean - c.p10 for _, _, c in rows], color="#64748b"),
        customdata=[[c.p10, c.p90, c.windows] for _, _, c in rows],
        hovertemplate=("%{text}: vocab %{x:,}<br>mean %{y:,.1f} characters<br>"
                       "10th-90th percentile %{customdata[0]:,.0f}-%{customdata[1]:,.0f} "
                       "(%{customdata[2]:,} windows)<extra></extra>")))
    fig.update_layout(title=f"Characters of {plotly_text(what)} covered by {block_size:,} tokens", height=400,
                      margin=dict(l=10, r=10, t=50, b=10), showlegend=False,
                      xaxis=dict(type="log", title="vocab size (log scale)"),
                      yaxis=dict(title="characters per window", rangemode="tozero"))
    return fig


# ==================== Does BPE help the model?

MODEL_COLOURS = ["#64748b", TRAIN_COLOUR, HELDOUT_COLOUR, *OVERLAY_COLOURS]
_CURVE_AXES = {"seconds": ("training seconds", "%{x:.1f} s"),
               "chars": ("characters processed", "%{x:,} characters")}


def bits_per_char_curves(records, x: str = "seconds") -> go.Figure:
    """Held-out bits per character, one line per tokenizer, against training seconds
    (``x="seconds"``) or characters of training text processed (``x="chars"``).

    ``records`` are `bpe.lm.ExperimentProgress` records that carry an evaluation, in order.
    """
    if x not in _CURVE_AXES:
        raise ValueError(f"x={x!r} must be 'seconds' or 'chars'")
    title, hover_x = _CURVE_AXES[x]
    by_name: dict[str, list] = {}
    for record in records:
        by_name.setdefault(record.tokenizer, []).append(record.progress)
    fig = go.Figure()
    for (name, points), colour in zip(by_name.items(), MODEL_COLOURS * 2):
        fig.add_trace(go.Scatter(
            x=[p.seconds if x == "seconds" else p.chars_seen for p in points],
            y=[p.evaluation.bits_per_char for p in points], mode="lines+markers", name=plotly_text(name),
            line=dict(color=colour, width=2.5), marker=dict(size=5), customdata=[p.step for p in points],
            hovertemplate=(f"{hover_x}<br>step %{{customdata:,}}<br>%{{y:.3f}} bits/char"
                           f"<extra>{plotly_text(name)}</extra>")))
    fig.update_layout(title=f"Held-out bits per character vs {title}", height=380,
                      margin=dict(l=10, r=10, t=50, b=10), xaxis_title=title,
                      yaxis_title="held-out bits per character", legend=dict(orientation="h", y=-0.2))
    return fig
