"""Plotly figures drawn from training runs: one function per figure, never streamlit.

Token text in labels and hover text is HTML-escaped: plotly renders a subset of HTML
(``<b>``, ``<a href>``) in text, and token text is user text.
"""

from __future__ import annotations

import html
import math

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from bpe.analysis.languages import evenness_curve
from bpe.analysis.quiz import question_order
from bpe.analysis.tie_rules import tie_rule_sentence
from bpe.lm.report import RARE_COUNT
from bpe.steps import DEFAULT_TIE_RULE, MergeStep
from bpe.text import bidi_marked, pair_label
from bpe.variants.rules import pair_score
from bpe.wording import most_frequent_pairs, tie_with_winner

WINNER = "#dc2626"
TIED = "#f59e0b"
OTHER = "#94a3b8"
TIE_RULE = tie_rule_sentence(DEFAULT_TIE_RULE)  # the default rule's sentence (the tutorial's)


def plotly_text(text: str) -> str:
    """User text for plotly labels: plotly renders a little HTML, so <, > and & are escaped;
    quotes are left alone, since plotly would show '&quot;' literally; bidirectional
    controls are shown as marks (`bpe.text.bidi_marked`), so a label cannot reorder the chart's text."""
    return html.escape(bidi_marked(text), quote=False)


# Type a class can read from the back of a room (plotly's default ticks are 12 px).
BASE_FONT, TICK_FONT, TITLE_FONT = 15, 15, 18


PRESENTER_SCALE = 1.4  # presenter mode: type this much larger, charts a quarter taller
SLANTS = [0, -30, -45]  # x labels that do not fit flat slant, never stand on end


def readable(fig: go.Figure) -> go.Figure:
    """Larger type for every figure: text, ticks, titles and legend (presenter mode scales all
    but the legend, `enlarged`). The legend's is set apart: Streamlit's chart theme gives it a
    size of its own, which the layout's font would not change."""
    fig.update_layout(font=dict(size=BASE_FONT), title_font_size=TITLE_FONT, legend_font_size=BASE_FONT)
    fig.update_xaxes(tickfont_size=TICK_FONT, title_font_size=BASE_FONT, autotickangles=SLANTS)
    fig.update_yaxes(tickfont_size=TICK_FONT, title_font_size=BASE_FONT)
    return fig


def enlarged(fig: go.Figure, scale: float = PRESENTER_SCALE) -> go.Figure:
    """``fig`` with type ``scale`` times larger and a quarter taller (presenter mode)."""
    title_size = round(TITLE_FONT * 1.15)  # titles are long
    # (the legend keeps `readable`'s size: its entries name tokenizers and texts at length, and
    # larger they ran past a chart in half a 1024 px page)
    fig.update_layout(font_size=round(BASE_FONT * scale), title_font_size=title_size)
    if fig.layout.uniformtext.minsize:  # bar labels drawn this large or not at all (hover still tells)
        fig.update_layout(uniformtext_minsize=round(fig.layout.uniformtext.minsize * scale))
    fig.update_layout(height=round((fig.layout.height or 400) * 1.25))
    title = fig.layout.title
    if title.pad.t and title.yanchor == "top" and title.text:  # a hung title: its pad and margin grow with its type
        lines = title.text.count("<br>") + 1
        fig.update_layout(title_pad_t=title_pad(title_size), margin_t=title_margin(lines, title_size))
    fig.update_xaxes(tickfont_size=round(TICK_FONT * scale), title_font_size=round(BASE_FONT * scale))
    fig.update_yaxes(tickfont_size=round(TICK_FONT * scale), title_font_size=round(BASE_FONT * scale))
    return fig


# The pair chart's height, its title included: low enough that the chart ends on the stage's
# first screen at 1024x768 in presenter type (which makes it a quarter taller), under the
# controls and the headline (`views.merge_by_merge.stage`). The same at every step, a tie's
# longer title taking room from the bars: while the film plays, nothing under it moves.
PAIR_CHART_HEIGHT = 290
# Characters per title line that fit the pair chart at 1024 px, in presenter type too.
PAIR_TITLE_CHARS, PAIR_SUBTITLE_CHARS = 30, 46


def wrapped(text: str, width: int) -> list[str]:
    """``text`` broken at spaces into lines of at most ``width`` characters (a longer word
    stands alone): plotly draws a title on one line, cut by the chart's edge."""
    lines: list[str] = []
    for word in text.split(" "):
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


# Plotly places a title by its first line only (the others run on below it, into the bars
# when the margin is short) and spaces every line 1.3 times the title's font size apart, a
# smaller ``<sup>`` line too. So a wrapped title is hung from the chart's top edge, in a margin
# as tall as its lines: with ``yanchor="top"`` the first line's top sits one font size above
# the padding, so the padding adds that back.
TITLE_LINE_SPACING, TITLE_PAD = 1.3, 10


def title_pad(font_size: int) -> int:
    """The top padding that puts a hung title's first line `TITLE_PAD` below the chart's edge."""
    return TITLE_PAD + font_size


def title_margin(lines: int, font_size: int = TITLE_FONT) -> int:
    """Top margin for a title of ``lines`` lines hung from the top (`hung_title`)."""
    return 2 * TITLE_PAD + round(lines * TITLE_LINE_SPACING * font_size)


def hung_title(lines: list[str]) -> dict:
    """Layout for a title of these lines hung from the chart's top edge, and its margin."""
    return dict(
        title=dict(
            text="<br>".join(lines),
            font=dict(size=TITLE_FONT),
            y=1,
            yref="container",
            yanchor="top",
            pad=dict(t=title_pad(TITLE_FONT)),
        ),
        margin_t=title_margin(len(lines)),
    )


def whole_number_axis(largest: float, **axis) -> dict:
    """An axis of counts: thousands separators, and ticks only on whole numbers."""
    axis = dict(tickformat=",d", rangemode="tozero", **axis)
    if largest <= 10:
        axis["dtick"] = 1  # else plotly puts ticks at 0.5, printed as "0", "1", "1"...
    return axis


def tied_with_winner(step: MergeStep, weighted: bool = False) -> list[tuple]:
    """The pairs (other than the winner) counted as often as the winner, before the merge;
    ``weighted`` (length-weighted BPE): scored as high, by count × length."""
    best = pair_score(step.pair, step.frequency, weighted)
    return [pair for pair, count in step.top_pairs if pair_score(pair, count, weighted) == best and pair != step.pair]


# ==================== Merge by merge


def pair_frequency_figure(
    step: MergeStep, top_k: int, tie_rule: str = DEFAULT_TIE_RULE, *, weighted: bool = False
) -> go.Figure:
    """Bar chart of the ``top_k`` most frequent pairs *before* ``step``'s merge.

    The winner is red; pairs tied with it are amber and labelled "tie"; the title states
    run's ``tie_rule`` when there is a tie. Bars keep the recorded order (most frequent first,
    ties in the rule's order), so the winner is the leftmost bar.

    Drawn on every step of every student in a class, so it is written as a plain spec (with
    `readable`'s type sizes) and built without plotly's per-property validation, which
    costs most of a built figure's time (docs/speed.md); tests/app/test_figures.py checks
    the spec validates.

    ``weighted`` (length-weighted BPE, `bpe.variants.rules.pair_score`): the bars are each
    pair's score, its count × the length of the token it makes, which is what that rule ranks.
    """
    pairs = step.top_pairs[: max(top_k, 1)]
    tied = set(tied_with_winner(step, weighted))
    # plotly decodes only &lt; &gt; &amp; (not &quot;), so quotes stay as they are
    labels = [plotly_text(pair_label(pair)) for pair, _ in pairs]
    colours = [WINNER if pair == step.pair else TIED if pair in tied else OTHER for pair, _ in pairs]
    notes = ["winner" if pair == step.pair else "tie" if pair in tied else "" for pair, _ in pairs]
    # Positions, not labels, on the x axis: two pairs may print alike ('·' vs ' ').
    positions = list(range(len(pairs)))
    # The chart sits in three fifths of the page: about 330 px at 1024 px. Plotly does not
    # wrap titles, so they are broken into lines here (the tie subtitle is smaller type).
    # (length-weighted: "by count × length" takes the place of "before the merge", so the
    # title keeps the lines the chart's fixed height leaves it)
    heading = (
        f"the {len(pairs)} best pairs by count × length"
        if weighted
        else f"{most_frequent_pairs(len(pairs))} before the merge"
    )
    lines = wrapped(f"Step {step.number:,}: {heading}", PAIR_TITLE_CHARS)
    if tied:
        sentence = f"{tie_with_winner(len(tied))}: {tie_rule_sentence(tie_rule)}"
        lines += [f"<sup>{line}</sup>" for line in wrapped(sentence, PAIR_SUBTITLE_CHARS)]
    values = [pair_score(pair, count, weighted) for pair, count in pairs]
    bar = dict(
        type="bar",
        x=positions,
        y=values,
        marker=dict(color=colours),
        text=notes,
        textposition="outside",
        customdata=[[label, count] for label, (_, count) in zip(labels, pairs)] if weighted else labels,
        hovertemplate="%{customdata[0]}<br>count %{customdata[1]:,} × length = score %{y:,}<extra></extra>"
        if weighted
        else "%{customdata}<br>count %{y:,}<extra></extra>",
    )
    axis_type = dict(tickfont=dict(size=TICK_FONT))
    hung = hung_title(lines)
    layout = dict(
        title=hung["title"],
        height=PAIR_CHART_HEIGHT,
        font=dict(size=BASE_FONT),
        margin=dict(l=10, r=10, t=hung["margin_t"], b=10),
        showlegend=False,
        xaxis=dict(
            tickvals=positions,
            ticktext=labels,
            title=dict(text="pair", font=dict(size=BASE_FONT)),
            autotickangles=SLANTS,
            **axis_type,
        ),
        yaxis=dict(
            whole_number_axis(max(values, default=1)),
            # the title says "before the merge"
            title=dict(text="count × length" if weighted else "count", font=dict(size=BASE_FONT)),
            **axis_type,
        ),
    )
    return go.Figure(dict(data=[bar], layout=layout), _validate=False)


def question_figure(fig: go.Figure, step: MergeStep, *, asking: bool) -> go.Figure:
    """The pair chart with nothing that gives the winner away (the quiz): every bar alike,
    no labels; ``asking`` (a guess is awaited): the bars in the order of their labels
    (`bpe.analysis.quiz.question_order`), not by count, and a title that asks."""
    bar = fig.data[0]
    count = len(bar.y)
    bar.marker.color = [OTHER] * count
    bar.text = [""] * count
    if asking:
        asked = question_order(step.top_pairs[:count])
        recorded = [pair for pair, _count in step.top_pairs[:count]]
        order = [recorded.index(pair) for pair, _count in asked]
        bar.y = [bar.y[i] for i in order]
        bar.customdata = [bar.customdata[i] for i in order]
        fig.update_xaxes(ticktext=[fig.layout.xaxis.ticktext[i] for i in order])
    title = "which pair is merged next?" if asking else f"{most_frequent_pairs(count)}, counted"
    lines = wrapped(f"Step {step.number:,}: {title}", PAIR_TITLE_CHARS)
    # title_text and margin_t, not title= and margin=: the chart is built unvalidated, so those
    # would replace its title and margin objects with a bare string and a partial dict, and
    # presenter mode (which sets the title's font) then fails on the string
    fig.update_layout(title_text="<br>".join(lines), margin_t=hung_title(lines)["margin_t"])
    return fig


# ==================== What BPE buys: compression and context coverage

TRAIN_COLOUR = "#2563eb"
HELDOUT_COLOUR = "#dc2626"
OVERLAY_COLOURS = ["#16a34a", "#9333ea", "#ea580c", "#0891b2", "#be185d", "#65a30d", "#78716c", "#ca8a04"]
COVERAGE_COLOURS = ["#64748b", TRAIN_COLOUR, "#16a34a", "#9333ea", HELDOUT_COLOUR, "#ea580c"]
PRETRAINED_COLOURS = ["#111827", "#0d9488", "#a16207", "#7c3aed"]  # GPT-2, GPT-4, an upload: dotted


def compression_curve_figure(
    curve,
    *,
    parting=None,
    shown_vocab: int | None = None,
    overlays: dict | None = None,
    pretrained: dict | None = None,
    pretrained_text: str = "held-out text",
    marks: dict | None = None,
) -> go.Figure:
    """Characters per token against vocab size: training text (blue) and held-out text (red)
    from one run's `bpe.analysis.metrics.CurvePoint` list; a marker where the curves part; a dotted
    line at the vocab size shown. ``overlays`` ({label: curve}) adds other runs' curves,
    held-out when they have it (that is the comparable one), thin and dashed. ``pretrained``
    ({label: [`bpe.analysis.pretrained.PrefixPoint`]}) adds pretrained tokenizers cut to
    their first merges, measured on ``pretrained_text``, dotted with markers. ``marks``
    ({label: vocab size}) draws a labelled line where a training rule changes (SuperBPE's transition)."""
    fig = go.Figure()
    traces = [*_run_curves(curve), *_overlay_curves(overlays or {})]
    traces += _pretrained_curves(pretrained or {}, pretrained_text)
    if parting is not None:
        traces.append(_parting_mark(parting))
    for trace in traces:
        fig.add_trace(trace)
    for label, size in (marks or {}).items():
        fig.add_vline(
            x=size,
            line=dict(color="#7c3aed", dash="dash", width=2),
            annotation=dict(text=plotly_text(label), yref="paper", y=0.02, yanchor="bottom", xanchor="left"),
        )
    if shown_vocab is not None:
        fig.add_vline(
            x=shown_vocab,
            line=dict(color="#64748b", dash="dot"),
            # above the plot, not on it: inside, the label sat on the curves it marks
            annotation=dict(text=f"vocab {shown_vocab:,}", yref="paper", y=1, yanchor="bottom", showarrow=False),
        )
    fig.update_layout(
        title=dict(text="Compression vs vocab size", y=0.98, yanchor="top"),
        height=440,
        margin=dict(l=10, r=10, t=80, b=10),
        xaxis=dict(title="vocab size", tickformat=",d"),
        yaxis=dict(title="characters per token", **spaced_axis([y for trace in traces for y in trace.y or ()])),
        legend=dict(orientation="h", y=-0.25),
    )
    return readable(fig)


def spaced_axis(values, ticks: int = 6) -> dict:
    """Ticks for an axis of ``values`` (characters per token), with as many decimals as their
    spacing needs, so no two ticks read alike: a small corpus's curve from 1.00 to 1.09 gets
    ticks 0.02 apart, printed 1.00, 1.02, ... (one decimal printed 1.0, 1.0, 1.0, 1.1). The
    spacing is 1, 2 or 5 times a power of ten, at most ``ticks`` of them across the values."""
    found = [value for value in values if value is not None]
    span = max(found) - min(found) if found else 0.0
    if span <= 0:
        return dict(tickformat=".2f")
    rough = span / ticks
    power = 10 ** math.floor(math.log10(rough))
    step = next(power * factor for factor in (1, 2, 5, 10) if power * factor >= rough)
    decimals = max(1, -math.floor(math.log10(step) + 1e-9))
    return dict(dtick=step, tickformat=f".{decimals}f")


def _run_curves(curve) -> list[go.Scatter]:
    """The run's own curves: its training text, and its held-out text when it has one."""
    sizes = [p.vocab_size for p in curve]
    traces = [
        go.Scatter(
            x=sizes,
            y=[p.train_compression for p in curve],
            mode="lines",
            name="training text",
            line=dict(color=TRAIN_COLOUR, width=2.5),
            hovertemplate="vocab %{x:,}<br>%{y:.3f} characters/token<extra>training</extra>",
        )
    ]
    if any(p.heldout_compression is not None for p in curve):
        traces.append(
            go.Scatter(
                x=sizes,
                y=[p.heldout_compression for p in curve],
                mode="lines",
                name="held-out text",
                line=dict(color=HELDOUT_COLOUR, width=2.5),
                hovertemplate="vocab %{x:,}<br>%{y:.3f} characters/token<extra>held-out</extra>",
            )
        )
    return traces


def _overlay_curves(overlays: dict) -> list[go.Scatter]:
    """Other runs' curves, thin and dashed: held-out where a run has it (the comparable one)."""
    traces = []
    for (label, other), colour in zip(overlays.items(), OVERLAY_COLOURS):
        heldout = all(p.heldout_compression is not None for p in other)
        traces.append(
            go.Scatter(
                x=[p.vocab_size for p in other],
                y=[p.heldout_compression if heldout else p.train_compression for p in other],
                mode="lines",
                name=plotly_text(f"{label} ({'held-out' if heldout else 'training'})"),
                line=dict(color=colour, width=1.5, dash="dash"),
                hovertemplate="vocab %{x:,}<br>%{y:.3f} characters/token<extra></extra>",
            )
        )
    return traces


def _pretrained_curves(pretrained: dict, measured_on: str) -> list[go.Scatter]:
    """Pretrained tokenizers cut to their first merges, dotted with markers."""
    return [
        go.Scatter(
            x=[p.vocab_size for p in points],
            y=[p.compression for p in points],
            mode="lines+markers",
            name=plotly_text(f"{label}, first merges ({measured_on})"),
            line=dict(color=colour, width=1.5, dash="dot"),
            marker=dict(size=6, color=colour),
            hovertemplate=f"{plotly_text(label)}: vocab %{{x:,}}<br>%{{y:.3f}} characters/token<extra></extra>",
        )
        for (label, points), colour in zip(pretrained.items(), PRETRAINED_COLOURS)
    ]


def _parting_mark(parting) -> go.Scatter:
    """A diamond on each curve where they part, joined by a line."""
    return go.Scatter(
        x=[parting.vocab_size, parting.vocab_size],
        y=[parting.train_compression, parting.heldout_compression],
        mode="markers+lines",
        name=f"curves part (vocab {parting.vocab_size:,})",
        line=dict(color="#111827", width=1),
        marker=dict(size=9, symbol="diamond", color="#111827"),
        hovertemplate="the curves part at vocab %{x:,}<extra></extra>",
    )


TICK_RATIO = 2.5  # on the log axis, vocab sizes closer than this print over each other at 1024 px


def spaced_ticks(sizes: list[int]) -> list[int]:
    """The sorted vocab ``sizes`` to label on a log axis: each at least `TICK_RATIO` times the
    last one labelled (500 and 1,000, or GPT-2's 50,257 and GPT-4's 100,261, overlapped in
    presenter type). Every point is still named in the legend and its hover."""
    kept: list[int] = []
    for size in sizes:
        if not kept or size >= kept[-1] * TICK_RATIO:
            kept.append(size)
    return kept


def coverage_figure(rows, block_size: int, what: str) -> go.Figure:
    """Characters covered by ``block_size`` tokens, against vocab size (log axis): one marker
    per tokenizer (named in the legend, so close points never print over each other), the
    10th-90th percentile over windows as its error bar. ``rows`` are
    (label, vocab_size, `bpe.analysis.metrics.Coverage`). The y axis leaves room above the highest bar."""
    fig = go.Figure()
    for (label, size, c), colour in zip(rows, COVERAGE_COLOURS * 3):
        fig.add_trace(
            go.Scatter(
                x=[size],
                y=[c.mean],
                mode="markers",
                name=plotly_text(label),
                cliponaxis=False,
                marker=dict(size=14, color=colour, line=dict(color="#111827", width=1)),
                error_y=dict(
                    type="data",
                    symmetric=False,
                    array=[c.p90 - c.mean],
                    arrayminus=[c.mean - c.p10],
                    color=colour,
                    thickness=2.5,
                    width=8,
                ),
                customdata=[[c.p10, c.p90, c.windows]],
                hovertemplate=(
                    f"{plotly_text(label)}: vocab %{{x:,}}<br>mean %{{y:,.1f}} characters<br>"
                    "10th-90th percentile %{customdata[0]:,.0f}-%{customdata[1]:,.0f} "
                    "(%{customdata[2]:,} windows)<extra></extra>"
                ),
            )
        )
    top = max((c.p90 for _, _, c in rows), default=1.0)
    sizes = spaced_ticks(sorted({size for _, size, _ in rows}))
    fig.update_layout(
        title=f"Characters of {plotly_text(what)} covered by {block_size:,} tokens",
        height=420,
        margin=dict(l=10, r=10, t=50, b=10),
        showlegend=True,
        legend=dict(orientation="h", y=-0.3, title_text=""),
        xaxis=dict(
            type="log",
            title="vocab size (log scale)",
            tickvals=sizes,
            ticktext=[f"{size:,}" for size in sizes],
            tickangle=0,
        ),
        yaxis=dict(title="characters per window", range=[0, top * 1.15], tickformat=",d"),
    )
    return readable(fig)


# ==================== Does BPE help the model?

MODEL_COLOURS = ["#64748b", TRAIN_COLOUR, HELDOUT_COLOUR, *OVERLAY_COLOURS]
_CURVE_AXES = {
    "tokens": ("tokens processed (the work)", "%{x:,} tokens"),
    "chars": ("characters processed", "%{x:,} characters"),
}
_CURVE_X = {"tokens": lambda p: p.tokens_seen, "chars": lambda p: p.chars_seen}


def bits_per_char_curves(records, x: str = "tokens") -> go.Figure:
    """Held-out bits per character, one line per tokenizer, against tokens processed, the
    work every model is given alike (``x="tokens"``), or characters of training text
    processed (``x="chars"``). Never against seconds: a clock counts the machine's other load.

    ``records`` are `bpe.lm.experiment.ExperimentProgress` records that carry an evaluation, in order.
    """
    if x not in _CURVE_AXES:
        raise ValueError(f"x={x!r} must be 'tokens' or 'chars'")
    title, hover_x = _CURVE_AXES[x]
    by_name: dict[str, list] = {}
    for record in records:
        by_name.setdefault(record.tokenizer, []).append(record.progress)
    fig = go.Figure()
    for (name, points), colour in zip(by_name.items(), MODEL_COLOURS * 2):
        fig.add_trace(
            go.Scatter(
                x=[_CURVE_X[x](p) for p in points],
                y=[p.evaluation.bits_per_char for p in points],
                mode="lines+markers",
                name=plotly_text(name),
                line=dict(color=colour, width=2.5),
                marker=dict(size=5),
                customdata=[p.step for p in points],
                hovertemplate=(
                    f"{hover_x}<br>step %{{customdata:,}}<br>%{{y:.3f}} bits/char<extra>{plotly_text(name)}</extra>"
                ),
            )
        )
    fig.update_layout(
        title=f"Against {title}",
        height=400,  # the y axis names the quantity; fits half a page
        margin=dict(l=10, r=10, t=50, b=10),
        xaxis=dict(title=title, tickformat=",d"),
        yaxis=dict(title="held-out bits per character", tickformat=".2f"),
        legend=dict(orientation="h", y=-0.25),
    )
    return readable(fig)


# ==================== The same content in several languages


def language_cost_figure(costs_by_tokenizer: dict, baseline: str) -> go.Figure:
    """Tokens per language as a multiple of ``baseline``'s, one bar group per language and
    one bar per tokenizer (``{label: [bpe.analysis.languages.LanguageCost]}``); a line at 1."""
    fig = go.Figure()
    for (label, costs), colour in zip(costs_by_tokenizer.items(), [TRAIN_COLOUR, HELDOUT_COLOUR, *OVERLAY_COLOURS]):
        fig.add_trace(
            go.Bar(
                x=[plotly_text(c.language) for c in costs],
                y=[c.times_baseline for c in costs],
                name=plotly_text(label),
                marker_color=colour,
                text=[f"{c.times_baseline:.1f}×" for c in costs],
                textposition="outside",
                cliponaxis=False,
                customdata=[[c.tokens, c.baseline_tokens] for c in costs],
                hovertemplate="%{x}: %{customdata[0]:,} tokens, %{y:.2f}× "
                + plotly_text(baseline)
                + " (%{customdata[1]:,})<extra>"
                + plotly_text(label)
                + "</extra>",
            )
        )
    top = max((c.times_baseline for costs in costs_by_tokenizer.values() for c in costs), default=1.0)
    fig.add_hline(y=1, line=dict(color="#111827", dash="dot"))
    fig.update_layout(
        title=f"Tokens for the same paragraph, as a multiple of {plotly_text(baseline)}",
        barmode="group",
        height=440,
        margin=dict(l=10, r=10, t=50, b=10),
        yaxis=dict(title=f"× {plotly_text(baseline)}'s tokens", range=[0, top * 1.15], tickformat=".1f"),
        legend=dict(orientation="h", y=-0.25),
        # A label too wide for its bar is left out, not shrunk to a size no one reads (six bars a
        # language at 1024 px left 6 px): the axis, the hover and the table beside give the value.
        uniformtext=dict(minsize=TICK_FONT - 3, mode="hide"),
    )
    return readable(fig)


def evenness_figure(curves: dict, baseline: str, merges: int) -> go.Figure:
    """The costliest language's tokens over ``baseline``'s as merges grow, one line per rule
    (``{label: [bpe.analysis.languages.EvennessPoint]}``), with total tokens on hover; a
    marker at ``merges``, the count the bars above show."""
    fig = go.Figure()
    for (label, points), colour in zip(curves.items(), [TRAIN_COLOUR, HELDOUT_COLOUR, *OVERLAY_COLOURS]):
        fig.add_trace(
            go.Scatter(
                x=[p.merges for p in points],
                y=[p.worst_times_baseline for p in points],
                name=plotly_text(label),
                mode="lines",
                line=dict(color=colour, width=3),
                customdata=[[p.total_tokens, p.spread] for p in points],
                hovertemplate="%{x} merges: costliest language %{y:.2f}× "
                + plotly_text(baseline)
                + ", all languages %{customdata[0]:,} tokens<extra>"
                + plotly_text(label)
                + "</extra>",
            )
        )
    fig.add_vline(x=merges, line=dict(color="#6b7280", dash="dot"))
    fig.add_hline(y=1, line=dict(color="#111827", dash="dot"))
    fig.update_layout(
        title=dict(text=f"The costliest language, as a multiple of {plotly_text(baseline)}, as merges grow"),
        height=340,
        margin=dict(l=10, r=10, t=50, b=10),
        xaxis=dict(title="merges"),
        yaxis=dict(title=f"× {plotly_text(baseline)}'s tokens", tickformat=".1f", rangemode="tozero"),
        legend=dict(orientation="h", y=-0.3),
    )
    return readable(fig)


FILM_STEP = 10  # merges between two frames of the fairness film: 51 frames for 500 merges
FRAME_MS = 200  # how long Play shows each frame


def fairness_film_figure(runs: dict, baseline: str, merges: int, *, step: int = FILM_STEP) -> go.Figure:
    """The paragraph's cost per language (bars, × ``baseline``) beside the Gini coefficient
    of the languages' token counts as merges grow (lines, a marker where the bars are), one
    colour per rule (``{label: bpe.variants.parity.MultilingualRun}``, the baseline's language
    first). Frames every ``step`` merges, played in the browser by the figure's own Play
    button and slider (no rerun of the page a frame), starting at ``merges``."""
    last = max(len(run.steps) for run in runs.values())
    start = min(merges, last)
    shown = sorted({*range(0, last + 1, step), last, start})
    curves = {label: evenness_curve(run) for label, run in runs.items()}
    colours = dict(zip(runs, [TRAIN_COLOUR, HELDOUT_COLOUR, *OVERLAY_COLOURS]))
    languages = [plotly_text(language) for language in next(iter(runs.values())).languages]

    def bars(label: str, k: int) -> go.Bar:
        tokens = runs[label].tokens_after(k)
        times = [t / max(tokens[0], 1) for t in tokens]
        return go.Bar(
            x=languages,
            y=times,
            name=plotly_text(label),
            marker_color=colours[label],
            customdata=tokens,
            hovertemplate=f"%{{x}}: %{{customdata:,}} tokens, %{{y:.2f}}× {plotly_text(baseline)}"
            f"<extra>{plotly_text(label)}</extra>",
        )

    def marker(label: str, k: int) -> go.Scatter:
        point = curves[label][min(k, len(curves[label]) - 1)]
        return go.Scatter(
            x=[k],
            y=[point.gini],
            mode="markers",
            name=plotly_text(f"{label}: at {k} merges"),
            marker=dict(size=13, color=colours[label], line=dict(color="#111827", width=1)),
            showlegend=False,
            hovertemplate=f"{k} merges: Gini %{{y:.3f}}<extra>{plotly_text(label)}</extra>",
        )

    fig = make_subplots(rows=1, cols=2, column_widths=[0.58, 0.42], horizontal_spacing=0.12)
    for label in runs:
        fig.add_trace(bars(label, start), row=1, col=1)
    for label, curve in curves.items():
        fig.add_trace(_gini_line(label, curve, colours[label]), row=1, col=2)
    for label in runs:
        fig.add_trace(marker(label, start), row=1, col=2)
    moving = [*range(len(runs)), *range(2 * len(runs), 3 * len(runs))]  # the bars and the markers
    fig.frames = [
        go.Frame(name=str(k), data=[*(bars(label, k) for label in runs), *(marker(label, k) for label in runs)])
        for k in shown
    ]
    for frame in fig.frames:
        frame.traces = moving
    top = max(t / max(run.tokens_after(k)[0], 1) for run in runs.values() for k in shown for t in run.tokens_after(k))
    highest = max(p.gini for curve in curves.values() for p in curve)
    fig.update_layout(
        title=dict(text=f"Each language's cost (× {plotly_text(baseline)}) and the Gini of all, as merges grow"),
        height=580,
        margin=dict(l=10, r=10, t=50, b=190),  # below the plots: Play and Pause, and the slider under them
        barmode="group",
        legend=dict(orientation="h", y=1.0, yanchor="bottom", x=0),
        **_fairness_film_controls(shown, start),
    )
    fig.update_yaxes(
        title_text=f"× {plotly_text(baseline)}'s tokens", range=[0, top * 1.1], tickformat=".1f", row=1, col=1
    )
    fig.update_xaxes(title_text="merges", range=[0, last], row=1, col=2)
    fig.update_yaxes(title_text="Gini", range=[0, highest * 1.1], tickformat=".2f", side="right", row=1, col=2)
    return readable(fig)


def _gini_line(label: str, curve, colour: str) -> go.Scatter:
    """One rule's Gini coefficient as merges grow (the fairness film's right-hand plot)."""
    return go.Scatter(
        x=[p.merges for p in curve],
        y=[p.gini for p in curve],
        mode="lines",
        name=plotly_text(f"Gini, {label}"),
        line=dict(color=colour, width=3),
        showlegend=False,
        hovertemplate=f"%{{x}} merges: Gini %{{y:.3f}}<extra>{plotly_text(label)}</extra>",
    )


def _fairness_film_controls(shown: list[int], start: int) -> dict:
    """The fairness film's Play and Pause buttons and, under them, its slider of merges."""
    frame_args = dict(mode="immediate", frame=dict(duration=FRAME_MS, redraw=True), transition=dict(duration=0))
    return dict(
        updatemenus=[
            dict(
                type="buttons",
                direction="left",
                x=0,
                y=-0.42,
                xanchor="left",
                yanchor="top",
                showactive=False,
                buttons=[
                    dict(label="Play", method="animate", args=[None, {**frame_args, "fromcurrent": True}]),
                    dict(label="Pause", method="animate", args=[[None], frame_args]),
                ],
            )
        ],
        sliders=[
            dict(
                active=shown.index(start),
                x=0,
                len=1,
                y=-0.42,
                yanchor="top",
                pad=dict(t=60),  # under the buttons, never beside them: presenter type is wide
                currentvalue=dict(prefix="merges: ", xanchor="right"),
                steps=[dict(label=f"{k}", method="animate", args=[[str(k)], frame_args]) for k in shown],
            )
        ],
    )


UNDER_TRAINED = "#dc2626"


def embedding_scatter_figure(points, tokens: dict, label: str) -> go.Figure:
    """Each token of a trained model: how often its training ids held it (log axis) against
    its input-embedding row's norm (``points``: `bpe.lm.report.EmbeddingPoint`; ``tokens``:
    id -> text shown on hover). Tokens both rare and low-norm in red, the other rare ones amber."""
    fig = go.Figure()
    kinds = (
        ("learned", OTHER, lambda p: p.count >= RARE_COUNT),
        ("rare and low-norm", UNDER_TRAINED, lambda p: p.under_trained),
        (f"rare (seen under {RARE_COUNT} times)", TIED, lambda p: p.count < RARE_COUNT and not p.under_trained),
    )
    for name, colour, kind in kinds:
        flagged = colour != OTHER
        chosen = [p for p in points if kind(p)]
        fig.add_trace(
            go.Scattergl(
                x=[p.count + 1 for p in chosen],
                y=[p.norm for p in chosen],
                mode="markers",
                name=f"{name} ({len(chosen):,})",
                marker=dict(size=7 if flagged else 5, color=colour, opacity=0.9 if flagged else 0.5),
                customdata=[[p.id, plotly_text(tokens.get(p.id, "")), p.count] for p in chosen],
                hovertemplate="id %{customdata[0]}: '%{customdata[1]}'<br>seen %{customdata[2]:,} times"
                "<br>norm %{y:.3f}<extra></extra>",
            )
        )
    fig.update_layout(
        title=f"{plotly_text(label)}: training count against embedding norm",
        height=420,
        margin=dict(l=10, r=10, t=50, b=10),
        xaxis=dict(type="log", title="times in the training ids + 1 (log scale)"),
        yaxis=dict(title="input-embedding norm", rangemode="tozero"),
        legend=dict(orientation="h", y=-0.25),
    )
    return readable(fig)
