"""The screen's view: presenter mode (larger type for a projector) and the sidebar hidden
for the lesson.

Two toggles at the top of the sidebar (`view_toggles`), declared with the other controls
(`state.controls.VIEW_CONTROLS`): a link and the address bar carry them, so reloading the
projector's page keeps them. When presenter mode is on, a style block
(`render.html.PRESENTER_CSS`) enlarges the token views, the merge headline, the algorithm
panel, text, captions, metrics, static tables and control labels; `presented` enlarges a
chart's type and height before it is drawn (`presented_once`: a chart built once and
shared by every session), and `frame.tables` draws tables in large type. When the sidebar
is hidden, a style block (`render.html.HIDDEN_SIDEBAR_CSS`) removes it and Streamlit's own
button to open it, and "Show the sidebar", pinned at the top left of the page, brings it
back. On every page, with or without them, control labels wrap instead of being cut
(`WHOLE_LABELS_CSS`). The keyboard shortcuts of Merge by merge (Space, ←, →) work either way.
"""

from __future__ import annotations

import streamlit as st

from pages._shared.data.shared_figures import shared_figure
from pages._shared.render.figures import enlarged
from pages._shared.render.html import (
    HIDDEN_SIDEBAR_CSS,
    PRESENTER_CSS,
    SEGMENTS_CSS,
    WHOLE_LABELS_CSS,
    font_faces_css,
)
from pages._shared.state.controls import PRESENTER, SIDEBAR_HIDDEN, VIEW_CONTROLS

SHOW_SIDEBAR = "view_show_sidebar"  # the button's own key (`HIDDEN_SIDEBAR_CSS` pins it by its class)


def view_toggles() -> None:
    """The sidebar's two toggles, the button that brings a hidden sidebar back, and the
    style blocks of what is on."""
    for view in VIEW_CONTROLS:
        view.setdefault()
    with st.sidebar:
        PRESENTER.draw(
            st.toggle,
            "Presenter mode: larger type",
            help="Larger type for everything the class reads (text, tables, charts, the algorithm), for a "
            "projector. On Merge by merge, Space plays or pauses and ← → step.",
        )
        SIDEBAR_HIDDEN.draw(
            st.toggle,
            "Hide the sidebar for the lesson",
            help="The page takes the whole width of the screen; “Show the sidebar”, at the top left, brings it back.",
        )
    hidden = bool(st.session_state[SIDEBAR_HIDDEN.key])
    if hidden:
        st.button("Show the sidebar", key=SHOW_SIDEBAR, icon=":material/left_panel_open:", on_click=_show_sidebar)
    st.html(font_faces_css())  # its own element, the same every run: sent once (see `font_faces_css`)
    st.html(
        WHOLE_LABELS_CSS
        + SEGMENTS_CSS
        + (PRESENTER_CSS if presenting() else "")
        + (HIDDEN_SIDEBAR_CSS if hidden else "")
    )


def _show_sidebar() -> None:
    st.session_state[SIDEBAR_HIDDEN.key] = False


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
    return bool(st.session_state.get(PRESENTER.key))
