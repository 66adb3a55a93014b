"""The report card as a table (HTML) and a chart (plotly), from `bpe.analysis.report_card` rows.

A figure measured on part of the text (characters outside a character alphabet left out)
carries a star, with the share in its tooltip. The table shows one unit at a time (characters or bytes per token) so that it fits at
1024 px; the CSV download has both. The run's relative difference against each reference
is green where the run compresses better (more per token), red where worse, and "—" with
the reason where a tokenizer cannot encode the text.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import plotly.graph_objects as go

from bpe.analysis.report_card import CardRow, Measure
from bpe.wording import counted
from pages._shared.render.figures import plotly_text
from pages._shared.render.html import text_html

CHARACTERS, BYTES = "characters", "bytes"
BETTER = "background:#dcfce7;color:#166534"
WORSE = "background:#fee2e2;color:#991b1b"
BAR_COLOURS = ["#2563eb", "#111827", "#0d9488", "#a16207", "#7c3aed"]


def per_token(found: Measure, unit: str) -> float | None:
    return found.characters_per_token if unit == CHARACTERS else found.bytes_per_token


def report_card_html(
    rows: Sequence[CardRow], ours: str, references: Sequence[str], unit: str = CHARACTERS, *, large: bool = False
) -> str:
    """Text, its length, each tokenizer's figure per token, then ``ours`` against each reference;
    ``large``: presenter mode's type."""
    labels = list(rows[0].measures) if rows else []
    others = [r for r in references if r != ours and r in labels]
    head = ["text", unit] + [f"{label}" for label in labels] + [f"vs {ref}" for ref in others]
    cell = "padding:2px 5px;text-align:right;border-bottom:1px solid #e2e8f0"
    lines = ["<tr>" + "".join(f'<th style="{cell};text-align:center">{text_html(h)}</th>' for h in head) + "</tr>"]
    for row in rows:
        size = len(row.text.text) if unit == CHARACTERS else len(row.text.text.encode("utf-8"))
        cells = [
            f'<td style="{cell};text-align:left;white-space:nowrap" title="{text_html(row.text.source)}">'
            f"{text_html(row.text.name)}</td>",
            f'<td style="{cell}">{size:,}</td>',
        ]
        for label in labels:
            found = row.measures[label]
            value = per_token(found, unit)
            if value is None:
                why = f"cannot encode it: {counted(found.unknown, 'kind')} of character outside its alphabet"
                cells.append(f'<td class="none" style="{cell}" title="{html.escape(why, quote=True)}">—</td>')
            elif found.unknown:
                why = (
                    f"measured on the {found.coverage:.1%} of the text it can encode: {counted(found.unknown, 'kind')} "
                    "of character are outside its alphabet"
                )
                cells.append(
                    f'<td class="part" style="{cell}" title="{html.escape(why, quote=True)}">{value:.2f}*</td>'
                )
            else:
                cells.append(f'<td style="{cell}">{value:.2f}</td>')
        for reference in others:
            relative = row.relative(ours, reference)
            if relative is None:
                cells.append(f'<td class="none" style="{cell}">—</td>')
            else:
                kind, style = ("better", BETTER) if relative > 0 else ("worse", WORSE) if relative < 0 else ("same", "")
                cells.append(f'<td class="{kind}" style="{cell};{style}">{relative:+.0%}</td>')
        lines.append("<tr>" + "".join(cells) + "</tr>")
    return (
        '<div style="overflow-x:auto">'
        f'<table class="bpe-card" style="border-collapse:collapse;font-size:{"1.05rem" if large else "0.9rem"};'
        f'width:100%">{"".join(lines)}</table></div>'
    )


def report_card_figure(rows: Sequence[CardRow], unit: str = CHARACTERS, *, large: bool = False) -> go.Figure:
    """Grouped bars: per text, each tokenizer's characters (or bytes) per token. ``large``
    (presenter mode): the bars lie across and the texts' names read across beside them, one
    under the other: at a slant the larger type of sixteen names overlaps at 1024 px, and
    names standing on end are hard to read from the back of a room."""
    labels = list(rows[0].measures) if rows else []
    names = [plotly_text(row.text.name) for row in rows]
    fig = go.Figure()
    for index, label in enumerate(labels):
        values = [per_token(row.measures[label], unit) for row in rows]
        if large:
            bars = dict(x=values, y=names, orientation="h")
            hover = f"%{{y}}<br>%{{x:.2f}} {unit} per token<extra>{plotly_text(label)}</extra>"
        else:
            bars = dict(x=names, y=values)
            hover = f"%{{x}}<br>%{{y:.2f}} {unit} per token<extra>{plotly_text(label)}</extra>"
        fig.add_bar(
            name=plotly_text(label), marker_color=BAR_COLOURS[index % len(BAR_COLOURS)], hovertemplate=hover, **bars
        )
    # across the chart (presenter mode) the axis title takes two lines, or it runs past the edge at 1024 px
    per_token_axis = dict(title=f"{unit} per token{'<br>' if large else ' '}(higher: fewer tokens)", rangemode="tozero")
    fig.update_layout(
        barmode="group",
        margin=dict(l=10, r=10, t=30, b=10),
        legend=dict(orientation="h", y=1.02, yanchor="bottom", x=0),
    )
    if large:  # the first text on top, as in the table; each text's group of bars a line of its own
        fig.update_layout(
            height=120 + len(rows) * (14 * len(labels) + 16),
            xaxis=per_token_axis,
            yaxis=dict(autorange="reversed"),
        )
    else:
        fig.update_layout(height=420, yaxis=per_token_axis, xaxis=dict(tickangle=-35))
    return fig
