"""The Compression page's blocks: the curve, the embedding cost, vocab sizes side by side,
and pretrained tokenizers beside the run.

The sizes on offer come from the run (`bpe.analysis.vocab_sizes.spread_sizes`), so rows
never repeat because training stopped early; the chosen sizes belong to the run and are
chosen again when it changes (`state.per_run.keep_with`). The table fits a projector's
1024 px: the numbers a class compares, then the long tokens in a table of their own, wrapped.
"""

from __future__ import annotations

import streamlit as st

from bpe.analysis.metrics import CurvePoint, SizeSummary, embedding_parameters, parting_point
from bpe.analysis.pretrained import PrefixPoint, curve_sizes
from bpe.analysis.vocab_sizes import spread_sizes
from bpe.errors import BpeError
from bpe.run import TrainingRun
from bpe.text import printable
from pages._shared.data.measures import (
    measured_text,
    pretrained_compression,
    pretrained_prefix_curve,
    run_curve,
    seen_curves,
    size_summaries,
)
from pages._shared.data.tokenizers import Compared, extra_tokenizers, session_owns
from pages._shared.frame.presenter import presented, presented_once
from pages._shared.frame.tables import show_table
from pages._shared.render.figures import compression_curve_figure
from pages._shared.render.html import escape_markdown
from pages._shared.render.numbers import change_delta
from pages._shared.state.controls import COMPRESSION_SIZES, GAP, WIDTH
from pages._shared.state.per_run import keep_with, run_identity
from pages._shared.state.settings import Settings, bind
from pages._shared.views.report_card_view import draw_report_card as draw_report_card  # the page's last block

SIZES = COMPRESSION_SIZES.key  # plain key: the vocab sizes in the table
OVERLAYS = "compression_overlays"  # plain key: labels of other runs drawn over this one


def size_rows(summaries: list[SizeSummary], d: int) -> list[dict]:
    """One row per vocab size, read from the one run (a prefix of its merges each)."""
    rows = []
    for row in summaries:
        size = row.requested_vocab_size
        reached = "" if row.vocab_size == size else f" (training stopped at {row.vocab_size:,})"
        rows.append(
            {
                "vocab size": f"{size:,}{reached}",
                "characters per token": row.compression,
                "held-out characters per token": row.heldout_compression,
                "tokens in the training text": row.sequence_length,
                "fewer tokens than characters": f"{row.reduction:.1%}",
                f"embedding parameters (d = {d:,})": row.embedding_parameters,
                "seconds to train": row.training_seconds,
            }
        )
    return rows


def longest_rows(summaries: list[SizeSummary]) -> list[dict]:
    """The 10 longest tokens per vocab size: a table of its own, where long tokens wrap."""
    return [
        {
            "vocab size": f"{row.requested_vocab_size:,}",
            "10 longest tokens": "  ".join(repr(printable(t)) for t in row.longest_tokens),
        }
        for row in summaries
    ]


def typed_sizes(entries: list) -> tuple[list[int], list[str]]:
    """The box's entries as vocab sizes (at most the list a link may carry), and a note for
    each that is not one. A size typed into the box arrives as the text typed ("700",
    "1,000"); the offered ones are numbers."""
    largest, most = int(COMPRESSION_SIZES.high), COMPRESSION_SIZES.length[1]
    sizes, notes = [], []
    for entry in entries:
        digits = str(entry).strip().replace(",", "").replace("_", "")
        if isinstance(entry, bool) or not (digits.isascii() and digits.isdigit()):
            notes.append(f"'{escape_markdown(str(entry)[:40])}' is not a vocab size (a whole number such as 700)")
            continue
        size = int(digits)
        if size in sizes:  # "1,000" typed beside the offered 1000
            continue
        if size > largest:
            notes.append(f"{size:,} is above the largest vocab size, {largest:,}")
        elif len(sizes) == most:
            notes.append(f"the table shows at most {most} sizes: {size:,} left out")
        else:
            sizes.append(size)
    return sizes, notes


def draw_size_table(settings: Settings, run: TrainingRun, d: int) -> None:
    """The size picker (sizes the run reaches; others may be typed) and the table."""
    state = st.session_state
    offered = spread_sizes(run)
    keep_with((run_identity(settings), tuple(offered)), [SIZES])
    state.setdefault(SIZES, offered)
    state[SIZES], notes = typed_sizes(state[SIZES])
    for note in notes:
        st.warning(f"{note[0].upper()}{note[1:]}; skipped.")
    bind(
        st.multiselect,
        "Vocab sizes",
        SIZES,
        accept_new_options=True,
        options=sorted(set(offered) | set(state[SIZES])),
        format_func=lambda size: f"{size:,}",  # every option is a number (`typed_sizes`)
        help=f"Offered: sizes this run reaches, up to where training stopped ({run.final_vocab_size:,}). "
        "Type another size to add it.",
    )
    chosen = []
    for size in sorted(set(state[SIZES])):
        if size < len(run.base_tokens):
            st.warning(f"Vocab {size:,} is smaller than the alphabet ({len(run.base_tokens):,} base tokens); skipped.")
        else:
            chosen.append(size)
    summaries = size_summaries(settings, run, tuple(chosen), d)
    show_table(
        size_rows(summaries, d),
        decimals={"characters per token": 2, "held-out characters per token": 2, "seconds to train": 2},
        empty="Choose at least one vocab size.",
    )
    show_table(longest_rows(summaries), empty="")
    if not run.heldout_characters:
        st.caption("Nothing is held out for this corpus, so the held-out column is empty (—).")


# ==================== Pretrained tokenizers beside the run
#
# GPT-2, GPT-4 (cl100k) and an uploaded tokenizer (`data.tokenizers.extra_tokenizers`) each
# have one vocabulary, but their first merges are what a shorter training run would have
# kept: cut to vocab sizes in the run's range (`bpe.analysis.pretrained.prefix_curve`) they
# draw a curve on the same axes, measured on the same text as the run's held-out curve.
# Their whole vocabulary lies far to the right of most runs, so it goes in a table. When
# none of them is here, nothing is drawn. Cached per tokenizer, corpus and sizes.


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


# ==================== The curve and what the vocabulary costs


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

    def build():
        return compression_curve_figure(
            curve, parting=parting, shown_vocab=shown.vocab_size, overlays=overlays, **pretrained_curves(settings, run)
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
