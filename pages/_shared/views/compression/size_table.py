"""Compression's vocab sizes side by side: one row per size, each a prefix of the one run.

The sizes on offer come from the run (`bpe.analysis.vocab_sizes.spread_sizes`), so rows
never repeat because training stopped early; the chosen sizes belong to the run and are
chosen again when it changes (`state.per_run.keep_with`). The table fits a projector's
1024 px: the numbers a class compares, then the long tokens in a table of their own, wrapped.
"""

from __future__ import annotations

import streamlit as st

from bpe.analysis.metrics import SizeSummary
from bpe.analysis.vocab_sizes import spread_sizes
from bpe.run import TrainingRun
from bpe.text import printable
from pages._shared.data.measures import (
    size_summaries,
)
from pages._shared.frame.tables import show_table
from pages._shared.render.html import escape_markdown
from pages._shared.state.controls import COMPRESSION_SIZES
from pages._shared.state.per_run import keep_with, run_identity
from pages._shared.state.settings import Settings, bind

SIZES = COMPRESSION_SIZES.key  # plain key: the vocab sizes in the table


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
        if size < run.initial_vocab_size:
            st.warning(
                f"Vocab {size:,} is smaller than the alphabet ({run.initial_vocab_size:,} base and special tokens); skipped."
            )
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
