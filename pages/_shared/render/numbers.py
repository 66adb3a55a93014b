"""One number style for every page: thousands separators, a fixed number of decimals per
quantity, a word or "—" where there is no value, and changes said in words.

Tables that a class reads from the back of the room go through `frame.tables.show_table`:
numbers are formatted here (so every page agrees), missing values become "—", and token
text in cells (user text; `st.table` renders Markdown) is escaped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pyarrow as pa

from pages._shared.render.html import escape_markdown

MISSING = "—"
DEFAULT_DECIMALS = 2


def cell(value, decimals: int = DEFAULT_DECIMALS, *, markdown: bool = True) -> str:
    """One table cell as text: None -> "—", 1234 -> "1,234", 3.14159 -> "3.14" (``decimals``),
    True/False -> "yes"/"no", text escaped for Markdown (``markdown``: for `st.table`, which
    renders it; an `st.dataframe` shows cells as they are, backslashes included)."""
    if value is None:
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if value != value:  # NaN: no value
            return MISSING
        return f"{value:,.{decimals}f}"
    text = str(value)
    if not text:
        return MISSING
    return escape_markdown(text) if markdown else text


def table_frame(
    rows: Sequence[Mapping], decimals: Mapping[str, int] | None = None, *, markdown: bool = True
) -> pa.Table:
    """Rows of plain values as a table of display text (see `cell`; ``markdown=False`` for
    an `st.dataframe`), columns in row order. An Arrow table, which Streamlit sends as it
    is: a pandas frame would be built and then converted to Arrow, on every visit of every
    page that shows one."""
    decimals = decimals or {}
    columns = list(rows[0]) if rows else []
    return pa.table(
        {
            column: pa.array(
                [cell(row.get(column), decimals.get(column, DEFAULT_DECIMALS), markdown=markdown) for row in rows],
                pa.string(),
            )
            for column in columns
        }
    )


def change_delta(change: int, unit: str, *, than: str = "") -> dict:
    """`st.metric` keyword arguments that say a change in words, one arrow and no minus
    sign: -10509 -> "10,509 fewer tokens" with a green down arrow (shorter is better). An
    empty ``unit`` leaves it to the metric's label: "10,509 fewer"."""
    tail = (f" {unit}" if unit else "") + (f" {than}" if than else "")
    if change < 0:
        return dict(delta=f"{-change:,} fewer{tail}", delta_arrow="down", delta_color="green")
    if change > 0:
        return dict(delta=f"{change:,} more{tail}", delta_arrow="up", delta_color="red")
    return dict(delta=0, delta_description=f"no change{tail}")
