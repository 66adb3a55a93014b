"""Merge by merge: the film's state and switches, and the player that draws the stage and
one frame (`step_frame.draw_step`) per step.

Stepping goes through `teach_mode.move_film`, so Step, Play and the keyboard also walk the algorithm's phases
when the panel is on, and Play stops at a step that waits for the class's guess.
"""

from __future__ import annotations

import time

import streamlit as st

from bpe.analysis.segments import window
from pages._shared.frame.navigation import current_page
from pages._shared.state.controls import FOLLOW, STEP, WINDOW
from pages._shared.state.link import mirror_controls
from pages._shared.state.per_run import keep_with, run_identity
from pages._shared.state.settings import bind
from pages._shared.views.merge_by_merge.stage import open_stage
from pages._shared.views.merge_by_merge.step_frame import WINDOW_CHARS, Film, draw_step
from pages._shared.views.merge_by_merge.teach_mode import (
    film_at_end,
    film_at_start,
    move_film,
    restart_film,
    start_of_step,
    teach_state,
    teach_switches,
)

SPEEDS = [2.0, 1.0, 0.5, 0.25]  # seconds per step while playing
PLAYING = "merges_playing"  # plain key: the film plays
SPEED = "merges_speed"  # plain key: seconds per step while playing
PLAY_CLOCK = "merges_play_clock"  # plain key: (when playing started, its speed, steps moved since)
MAX_STEPS_PER_TICK = 4


def film_state(film: Film) -> None:
    ss = st.session_state
    keep_with(run_identity(film.settings), [STEP.key, PLAYING, WINDOW.key])  # a new corpus starts at 1
    for linked in (STEP, WINDOW, FOLLOW):
        linked.setdefault()  # plain keys: they survive a visit to another page
    ss.setdefault(PLAYING, False)
    ss.setdefault(SPEED, 0.5)
    ss[STEP.key] = min(max(int(ss[STEP.key]), 1), film.last)
    teach_state(film.settings)


def go(film: Film, delta: int) -> None:
    move_film(delta, film.last)
    st.session_state[PLAYING] = False
    st.session_state.pop(PLAY_CLOCK, None)


def jump(key: str) -> None:
    st.session_state[STEP.key] = st.session_state[key]
    start_of_step()


def steps_due(speed: float) -> int:
    """How many steps this tick moves so that playing keeps the speed it names.

    The browser's timer asks for a tick every ``speed`` seconds, but a tick that arrives
    while the page is still drawing the last frame is late, so one step per tick would play
    slower than the speed it names. The steps are counted against the clock since Play
    instead: at 0.25 s a step, a tick 0.5 s after the last moves two (never more than
    `MAX_STEPS_PER_TICK`: a film far behind, after a pause of the browser, drops the backlog
    rather than jumping through it)."""
    ss, now = st.session_state, time.monotonic()
    started, clock_speed, moved = ss.get(PLAY_CLOCK) or (None, None, 0)
    if started is None or clock_speed != speed:
        started, moved = now - speed, 0  # the first tick is due at once
    due = int((now - started) / speed) - moved
    steps = min(max(due, 1), MAX_STEPS_PER_TICK)
    if due > MAX_STEPS_PER_TICK:  # far behind: drop the backlog instead of racing to catch it up
        started = now - speed * (moved + steps)
    ss[PLAY_CLOCK] = (started, speed, moved + steps)
    return steps


def play_or_pause(film: Film) -> None:
    ss = st.session_state
    ss.pop(PLAY_CLOCK, None)  # the clock starts again with the next tick
    ss[PLAYING] = not ss[PLAYING]
    if ss[PLAYING] and film_at_end(film.last):
        restart_film()  # play again from the start


def film_switches(film: Film) -> None:
    """The film's switches in the stage's popover: the speed, and the text window (it
    follows the merge, or starts at a chosen character)."""
    ss, train_text = st.session_state, film.train_text
    bind(st.select_slider, "Speed", SPEED, options=SPEEDS, format_func=lambda s: f"{s:g} s per step")
    if len(train_text) > WINDOW_CHARS:
        ss[WINDOW.key] = min(ss[WINDOW.key], len(train_text) - WINDOW_CHARS)  # the corpus may have shrunk
        FOLLOW.draw(st.toggle, "Follow the merge", help="Move the window to where the merge happens.")
        bind(
            st.slider,
            "Text window: first character",
            WINDOW.key,
            min_value=WINDOW.low,
            max_value=len(train_text) - WINDOW_CHARS,
            step=50,
            disabled=ss[FOLLOW.key],
        )


def passage(film: Film) -> str:
    """The fixed passage the downloadable film shows: the text window, or the text's start."""
    ss = st.session_state
    return window(film.train_text, 0 if ss[FOLLOW.key] else ss[WINDOW.key], WINDOW_CHARS)


def play(film: Film) -> None:
    """The player: a fragment that draws the stage (`stage.Stage`) and redraws one frame per
    tick while playing (the timer only exists while playing). Its controls row holds Play
    (also Space), Step back and Step forward (also ←, →), the step slider and the lesson's
    switches, all in the fragment, so a step reruns only the stage.

    A step reruns only this fragment, not the sidebar and the page around it: a third of
    the work, and what decides how many students one server keeps stepping without delay
    (pages/_shared/lecture_hall/load/classroom.py). What the page outside it depends on
    (the timer: playing and its speed; the downloadable film's passage: the text window)
    changed in the fragment takes a full rerun."""
    ss = st.session_state
    defined = _outside_state()  # as the page around the fragment was drawn

    @st.fragment(run_every=ss[SPEED] if ss[PLAYING] else None)
    def player() -> None:
        if _outside_state() != defined:
            st.rerun()  # Play, Pause, the speed or the window changed: redefine the timer, redraw the page
        if ss[PLAYING]:  # the steps (or phases) due by now; stop at the end or at a question
            for _ in range(steps_due(ss[SPEED])):
                if not move_film(1, film.last, wait_for_guess=True) or film_at_end(film.last):
                    ss[PLAYING] = False
                    st.rerun()  # a full rerun redefines the fragment without a timer and flips the button
        stage = open_stage()
        with stage.controls:
            _stepping_controls(film)
            with st.popover("Lesson switches", icon=":material/tune:", key="merges_switches"):
                film_switches(film)
                teach_switches()
        mirror_controls(current_page())  # the step, phase and scan follow in the address bar
        draw_step(film, film.run.steps[ss[STEP.key] - 1], stage)

    player()


def _outside_state() -> tuple:
    ss = st.session_state
    return ss[PLAYING], ss[SPEED], ss[FOLLOW.key], ss[WINDOW.key]


def _stepping_controls(film: Film) -> None:
    """Play/Pause, Step back, Step forward and the step slider, in the stage's controls row."""
    ss = st.session_state
    st.button(
        "Pause" if ss[PLAYING] else "Play",
        key="merges_play",
        on_click=play_or_pause,
        args=(film,),
        type="primary",
        shortcut="Space",
    )
    st.button(
        "Step back",
        key="merges_back",
        on_click=go,
        args=(film, -1),
        shortcut="Left",
        disabled=film_at_start() and not ss[PLAYING],
    )
    st.button(
        "Step forward",
        key="merges_forward",
        on_click=go,
        args=(film, 1),
        disabled=film_at_end(film.last),
        shortcut="Right",
    )
    if film.last > 1:  # keyed by the step shown: a late tick carrying an older position then
        key = f"merges_jump_{ss[STEP.key]}"  # names a widget that is gone, and cannot move the step back
        st.slider(
            "Jump to step",
            1,
            film.last,
            value=ss[STEP.key],
            key=key,
            on_change=jump,
            args=(key,),
            disabled=ss[PLAYING],
            label_visibility="collapsed",  # the step is said beside it, in the headline
        )
