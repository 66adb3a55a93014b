"""Presenter mode: larger type for the token segments and the charts, for a projector.

One toggle in the sidebar (`presenter_toggle`), kept in session state like every other
setting. When it is on, a style block enlarges every token view (`.bpe-segments`,
`.bpe-linked`, `.bpe-window`, the merge headline), and `presented` enlarges a chart's
type and height before it is drawn. The keyboard shortcuts of Merge by merge (Space, ←, →)
work with or without it.
"""

from __future__ import annotations

import streamlit as st

from pages._shared.render.figures import enlarged
from pages._shared.render.html import PRESENTER_CSS
from pages._shared.state.settings import bind

LARGE = "presenter_large"  # plain key: larger type on every page


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
        st.html(PRESENTER_CSS)


def presented(fig):
    """``fig`` with larger type and height when presenter mode is on, else unchanged."""
    return enlarged(fig) if st.session_state.get(LARGE) else fig
