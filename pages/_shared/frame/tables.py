"""Tables every page draws the same way: `show_table` (a static `st.table` of cells
formatted by `render.numbers`, which wraps long cells instead of hiding columns off the
right edge) and `count_columns` (whole numbers in a sortable `st.dataframe`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import streamlit as st

from pages._shared.render.numbers import table_frame


def show_table(
    rows: Sequence[Mapping], *, decimals: Mapping[str, int] | None = None, empty: str = "Nothing to show."
) -> None:
    """A small summary table that fits the page: formatted cells, wrapped text, no index."""
    if not rows:
        if empty:
            st.caption(empty)
        return
    st.table(table_frame(rows, decimals), hide_index=True)


def count_columns(*names: str) -> dict:
    """`st.dataframe` column settings showing whole numbers with thousands separators (the
    column stays numeric, so clicking its header still sorts by value)."""
    return {name: st.column_config.NumberColumn(name, format="%,d") for name in names}
