"""The stage of Merge by merge: what a class watches, laid out to fit the first screen of a
projector (1024x768 and 1280x800, presenter mode on or off), so pressing Play moves what
the class is looking at, not something below the fold.

    ┌ controls  Play · Step back · Step forward · the step slider · Lesson switches ┐
    │ headline  Step 40 of 937 · Merge 40: i + s· → is·, 1,216 times · chars/token │
    │ chart     the pair counts       │ text   before the merge / after the merge    │
    └──────────────────────────────────┴───────────────────────────────────────────────┘
    below     the other numbers, what the merge changed, the merge log

Each part is a slot (`Stage`) that the frame's blocks draw into, in any order: a block
added later (a switch of the lesson, a line under the chart) goes into the slot it belongs
to without moving the others. The slots keep their place from step to step, so while the
film plays the chart and the text redraw where they are. `render.html.STAGE_CSS` tightens
the page's margins and the title so the four rows fit; tests/e2e/test_browser_stage.py
measures them in chromium.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from pages._shared.frame.presenter import presenting
from pages._shared.render.html import STAGE_CSS, STAGE_PRESENTER_CSS

# The chart takes three fifths of the row, the text two: at 1024 px with the sidebar open
# (about 660 px of page) that is a 390 px chart, whose ten bars keep their labels, and a
# 260 px text column, whose first line is readable in presenter type.
CHART_SHARE, TEXT_SHARE = 3, 2


@dataclass(frozen=True)
class Stage:
    """The stage's slots, top to bottom (see the module doc)."""

    controls: DeltaGenerator
    headline: DeltaGenerator
    chart: DeltaGenerator
    text: DeltaGenerator
    below: DeltaGenerator


def open_stage() -> Stage:
    """The stage's slots, laid out once per frame, in the order they show."""
    st.html(STAGE_CSS + (STAGE_PRESENTER_CSS if presenting() else ""))
    controls = st.container(horizontal=True, vertical_alignment="bottom", gap="xsmall", key="stage_controls")
    headline = st.container(horizontal=True, vertical_alignment="center", gap="medium", key="stage_headline")
    chart, text = st.columns([CHART_SHARE, TEXT_SHARE], gap="medium")
    below = st.container(key="stage_below")
    return Stage(controls=controls, headline=headline, chart=chart, text=text, below=below)
