"""Presenter mode: larger type for everything the class reads, for a projector.

One toggle in the sidebar (`presenter_toggle`), kept in session state like every other
setting. When it is on, a style block (`render.html.PRESENTER_CSS`) enlarges the token
views, the merge headline, the algorithm panel, text, captions, metrics, static tables and
control labels; `presented` enlarges a chart's type and height before it is drawn
(`presented_once`: a chart built once and shared by every session), and
`frame.tables.rows_table` draws a static table instead of a canvas one. On every page,
with or without it, control labels wrap instead of being cut (`WHOLE_LABELS_CSS`). The
keyboard shortcuts of Merge by merge (Space, ←, →) work with or without it.
"""

from __future__ import annotations

import streamlit as st

from pages._shared.data.shared_figures import shared_figure
from pages._shared.render.figures import enlarged
from pages._shared.render.html import PRESENTER_CSS, SEGMENTS_CSS, WHOLE_LABELS_CSS
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
            help="Larger type for everything the class reads (text, tables, charts, the algorithm), for a "
            "projector. On Merge by merge, Space plays or pauses and ← → step.",
        )
    st.html(WHOLE_LABELS_CSS + SEGMENTS_CSS + (PRESENTER_CSS if st.session_state[LARGE] else ""))


def presented(fig):
    """``fig`` with larger type and height when presenter mode is on, else unchanged."""
    return enlarged(fig) if presenting() else fig


def presented_once(key: tuple, build, *, own: bool = False):
    """`presented(build())`, built once per server process for each ``key`` and presenter
    mode and shared by every session (`data.shared_figures.shared_figure`): for a chart that shows
    only what ``key`` names. Draw it; never change it. ``own``: the chart shows this session's
    own text (`state.stores.is_own_text`), so it is kept for this session only."""
    return shared_figure(key, presenting(), _build=build, own=own)


def presenting() -> bool:
    """Whether presenter mode is on: what every view asks before sizing for a projector."""
    return bool(st.session_state.get(LARGE))
