"""Streamlit glue for the Vocabulary page's token table: its filters belong to the run.

The length filter is a range of token lengths in one run's vocabulary; kept as it was
for another run, it hides most of the new one ("732 of 887 shown" on a corpus whose
longest token is 16 while the filter still says 2-5). So the filters are kept with the
run and its length range (`run_state.keep_with`) and start over when either changes.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from bpe.text import printable

from .numbers import count_columns
from .run_state import keep_with, run_identity
from .settings import Settings, bind
from .undertrained_view import draw_undertrained as draw_undertrained  # the page's second table

COLUMNS = ["id", "token", "length", "step", "pair count at creation", "uses", "absorbed"]


def token_table(rows) -> pd.DataFrame:
    """`bpe.analysis.vocabulary.learned_tokens` rows as the page's table."""
    return pd.DataFrame(
        [
            {
                "id": r.id,
                "token": printable(r.token),
                "length": r.length,
                "step": r.step,
                "pair count at creation": r.frequency,
                "uses": r.uses,
                "absorbed": r.absorbed,
            }
            for r in rows
        ],
        columns=COLUMNS,
    )


def draw_filters(settings: Settings, table: pd.DataFrame) -> pd.DataFrame:
    """Search, token length and "only unused"; return the rows they keep."""
    state = st.session_state
    shortest, longest = (int(table["length"].min()), int(table["length"].max())) if len(table) else (0, 0)
    keep_with((run_identity(settings), shortest, longest), ["vocab_lengths"])  # another run: the whole range again
    state.setdefault("vocab_search", "")
    state.setdefault("vocab_lengths", (shortest, longest))
    state.setdefault("vocab_unused", False)
    state.vocab_lengths = tuple(min(max(int(end), shortest), longest) for end in state.vocab_lengths)
    f1, f2, f3 = st.columns([5, 5, 3], vertical_alignment="bottom")
    with f1:
        bind(st.text_input, "Search tokens (· for a space)", "vocab_search")
    with f2:
        if longest > shortest:
            bind(st.slider, "Token length (characters)", "vocab_lengths", min_value=shortest, max_value=longest)
    with f3:
        bind(st.checkbox, "Only unused tokens", "vocab_unused")
    shown = table[table["length"].between(*state.vocab_lengths)]
    if state.vocab_search:
        shown = shown[shown["token"].str.contains(state.vocab_search.replace(" ", "·"), regex=False)]
    if state.vocab_unused:
        shown = shown[shown["uses"] == 0]
    return shown


def draw_token_table(shown: pd.DataFrame, total: int) -> None:
    st.dataframe(
        shown,
        hide_index=True,
        key="vocab_table",
        column_config={
            **count_columns("id", "step", "pair count at creation", "uses"),
            "absorbed": st.column_config.ProgressColumn(
                "absorbed",
                help="share of its count at creation no longer used",
                format="percent",
                min_value=0.0,
                max_value=1.0,
            ),
        },
    )
    st.caption(f"{len(shown):,} of {total:,} learned tokens shown. Click a column header to sort.")
