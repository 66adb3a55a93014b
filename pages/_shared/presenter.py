"""Presenter mode: larger type for the token segments and the charts, for a projector.

One toggle in the sidebar (`presenter_toggle`), kept in session state like every other
setting. When it is on, a style block enlarges every token view (`.bpe-segments`,
`.bpe-linked`, `.bpe-window`, the merge headline), and `presented` enlarges a chart's
type and height before it is drawn. The keyboard shortcuts of Merge by merge (Space, ←, →)
work with or without it.
"""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from .figures import BASE_FONT, TICK_FONT, TITLE_FONT
from .settings import bind

LARGE = "presenter_large"  # plain key: larger type on every page
SCALE = 1.4
LARGE_CSS = """<style>
.bpe-segments, .bpe-linked, .bpe-window { font-size: 1.45rem !important; line-height: 2.1 !important; }
.bpe-merge { font-size: 1.7rem !important; }
</style>"""


def presenter_toggle() -> None:
    """The sidebar toggle, and the style block when it is on."""
    st.session_state.setdefault(LARGE, False)
    with st.sidebar:
        bind(
            st.toggle,
            "Presenter mode: larger type",
            LARGE,
            help="Larger token segments and chart text, for a projector. On Merge by merge, Space plays or "
            "pauses and ← → step.",
        )
    if st.session_state[LARGE]:
        st.html(LARGE_CSS)


def presented(fig: go.Figure) -> go.Figure:
    """``fig`` with larger type and height when presenter mode is on, else unchanged."""
    if not st.session_state.get(LARGE):
        return fig
    fig.update_layout(
        font_size=round(BASE_FONT * SCALE),
        title_font_size=round(TITLE_FONT * 1.15),  # titles are long
        height=round((fig.layout.height or 400) * 1.25),
    )
    fig.update_xaxes(tickfont_size=round(TICK_FONT * SCALE), title_font_size=round(BASE_FONT * SCALE))
    fig.update_yaxes(tickfont_size=round(TICK_FONT * SCALE), title_font_size=round(BASE_FONT * SCALE))
    return fig
