"""Tables, every one of them: the one door through which a page draws a table (no other
module of the app calls `st.table` or `st.dataframe`: tests/app/test_pages_shape.py).

- `show_table`: a static table of cells formatted by `render.numbers`, which wraps long
  cells instead of hiding columns off the right edge; presenter mode enlarges it;
- `rows_table`: rows a class reads whole (the merge log, a step's pair counts): a sortable
  grid, or in presenter mode a static table in large type;
- `grid_table`: a table a reader scrolls, sorts and searches (the vocabulary, thousands of
  rows): Streamlit's grid; in presenter mode its first rows in large type, the grid under them;
- `count_columns`: whole numbers with thousands separators in a grid, still sortable;
  `arrow_rows`: rows as an Arrow table, as a grid takes them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import pandas as pd
import pyarrow as pa
import streamlit as st

from pages._shared.frame.presenter import presenting
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


def rows_table(rows: Sequence[Mapping], *, counts: Sequence[str] = (), **dataframe_options) -> None:
    """Rows a class reads: a sortable `st.dataframe` (``counts``: its whole-number columns),
    or in presenter mode a static `st.table` of formatted cells, which the presenter style
    enlarges (a dataframe is drawn on a canvas, in the theme's small type)."""
    if presenting():
        show_table(rows, empty="")
        return
    st.dataframe(arrow_rows(rows), hide_index=True, column_config=count_columns(*counts), **dataframe_options)


PRESENTED_ROWS = 10  # rows of a grid shown in large type in presenter mode


def grid_table(
    data,
    *,
    counts: Sequence[str] = (),
    columns: Mapping | None = None,
    presented: Sequence[str] | None = None,
    **dataframe_options,
) -> None:
    """A table a reader scrolls, sorts and searches: Streamlit's grid, no index; ``counts``
    its whole-number columns (`count_columns`), ``columns`` more column settings (a progress
    bar, a width). In presenter mode the grid's canvas keeps its small type, which a class
    cannot read from the back of a room: its first `PRESENTED_ROWS` rows are shown as a
    static table in large type instead (only the ``presented`` columns, for a table too wide
    for large type at 1024 px), and the whole grid, to scroll, sort and search, is one click
    away under it (a grid may hold thousands of rows, which no page of large type holds)."""
    config = {**count_columns(*counts), **(columns or {})}
    if not presenting():
        st.dataframe(data, hide_index=True, column_config=config or None, **dataframe_options)
        return
    rows = _first_rows(data, PRESENTED_ROWS)
    if presented is not None:
        rows = [{name: row[name] for name in presented if name in row} for row in rows]
    show_table(rows, empty="Nothing to show.")
    total, every_column = len(data), presented is None or len(presented) >= len(_column_names(data))
    if total > len(rows) or not every_column:
        shown = f"The first {len(rows):,} of {total:,} rows" if total > len(rows) else f"{total:,} rows"
        more = "" if every_column else ", every column"
        with st.expander(f"{shown}: the whole table{more}, to scroll, sort and search"):
            st.dataframe(data, hide_index=True, column_config=config or None, **dataframe_options)


def _column_names(data) -> list[str]:
    return list(data.column_names) if isinstance(data, pa.Table) else list(data.columns)


def _first_rows(data, count: int) -> list[dict]:
    """The first ``count`` rows of a grid's data (an Arrow table or a pandas frame) as dicts."""
    if isinstance(data, pa.Table):
        return data.slice(0, count).to_pylist()
    return data.head(count).to_dict("records")


def arrow_rows(rows: Iterable[Mapping], *, columns: Sequence[str] = ()) -> pa.Table | pd.DataFrame:
    """The rows as an Arrow table, which Streamlit sends as it is, where a pandas frame is
    built and then converted to Arrow on every draw (twice a merge step, for every student:
    docs/speed.md). A column that mixes types (a count and a "—") has no Arrow type: those
    rows go through pandas, whose object column Streamlit shows as text. ``columns``: the
    header an empty table still shows (rows name their own), e.g. ``arrow_rows([],
    columns=("id", "token"))`` is an empty table with those two columns."""
    rows = list(rows)
    if not rows and columns:
        return pa.table({column: pa.array([], pa.null()) for column in columns})
    if rows and any(row.keys() != rows[0].keys() for row in rows):
        return pd.DataFrame(rows)  # Arrow would take the first row's columns for all
    try:
        return pa.Table.from_pylist(rows)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return pd.DataFrame(rows)
