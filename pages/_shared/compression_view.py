"""Streamlit glue for the Compression page's table: vocab sizes side by side.

The sizes on offer come from the run (`bpe.analysis.vocab_sizes.spread_sizes`), so rows
never repeat because training stopped early; the chosen sizes belong to the run and are
chosen again when it changes (`run_state.keep_with`). The table fits a projector's
1024 px: the numbers a class compares, then the long tokens in a table of their own, wrapped.
"""

from __future__ import annotations

import streamlit as st

from bpe.analysis.metrics import size_summary
from bpe.analysis.vocab_sizes import spread_sizes
from bpe.run import TrainingRun
from bpe.text import printable

from .numbers import show_table
from .run_state import keep_with, run_identity
from .settings import Settings, bind

SIZES = "compression_sizes"


def size_rows(run: TrainingRun, sizes, d: int) -> list[dict]:
    """One row per vocab size, read from the one run (a prefix of its merges each)."""
    rows = []
    for size in sizes:
        row = size_summary(run, size, d)
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


def longest_rows(run: TrainingRun, sizes) -> list[dict]:
    """The 10 longest tokens per vocab size: a table of its own, where long tokens wrap."""
    return [
        {
            "vocab size": f"{size:,}",
            "10 longest tokens": "  ".join(repr(printable(t)) for t in size_summary(run, size).longest_tokens),
        }
        for size in sizes
    ]


def draw_size_table(settings: Settings, run: TrainingRun, d: int) -> None:
    """The size picker (sizes the run reaches; others may be typed) and the table."""
    state = st.session_state
    offered = spread_sizes(run)
    keep_with((run_identity(settings), tuple(offered)), [SIZES])
    state.setdefault(SIZES, offered)
    bind(
        st.multiselect,
        "Vocab sizes",
        SIZES,
        accept_new_options=True,
        options=sorted(set(offered) | set(state[SIZES])),
        format_func=lambda s: f"{int(s):,}" if str(s).isdigit() else str(s),
        help=f"Offered: sizes this run reaches, up to where training stopped ({run.final_vocab_size:,}). "
        "Type another size to add it.",
    )
    chosen = []
    for size in sorted({int(s) for s in state[SIZES] if str(s).isdigit()}):
        if size < len(run.base_tokens):
            st.warning(f"Vocab {size:,} is below the alphabet ({len(run.base_tokens):,} base tokens); skipped.")
        else:
            chosen.append(size)
    show_table(
        size_rows(run, chosen, d),
        decimals={"characters per token": 2, "held-out characters per token": 2, "seconds to train": 2},
        empty="Choose at least one vocab size.",
    )
    show_table(longest_rows(run, chosen), empty="")
    if not run.heldout_characters:
        st.caption("Nothing is held out for this corpus, so the held-out column is empty (—).")
