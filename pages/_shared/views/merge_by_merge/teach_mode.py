"""Teach mode on Merge by merge: the quiz and the algorithm beside the film, and how they
change stepping and what a frame shows.

With the algorithm panel on, each merge plays in phases (count → pick → merge → record),
and with "slow" the merge phase goes occurrence by occurrence; Step, Play and the
keyboard move through them. With the quiz on, a step that waits for its guess shows only
what counting shows, and Play stops there until the class has answered. All of it is
plain session state under ``teach_`` keys, forgotten when the run changes, and carried
by lesson links (`state.controls.PAGE_CONTROLS`).
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from bpe.analysis.algorithm import PHASES, Cursor, ScanEvent, Shown, advance, scan_merge, shown
from bpe.run import TrainingRun
from bpe.steps import MergeStep
from bpe.tokenizer import BPETokenizer
from pages._shared.state import controls
from pages._shared.state.per_run import keep_with, run_identity
from pages._shared.state.settings import Settings
from pages._shared.views.merge_by_merge.merge_quiz import ANSWERS, JUST_ANSWERED, answers, quiz_pending

# The plain keys, declared (with their defaults and bounds) in `state.controls`: the step;
# the quiz is on; the panel is shown and merges play in phases; the phase (an index into
# PHASES); occurrences merged so far in the slow merge phase; the merge phase goes
# occurrence by occurrence.
STEP, QUIZ, ALGORITHM, PHASE, SCAN, SLOW = (
    c.key for c in (controls.STEP, controls.QUIZ, controls.ALGORITHM, controls.PHASE, controls.SCAN, controls.SLOW)
)
SCAN_LENGTH = "teach_scan_length"  # occurrences in the frame drawn last: how far the scan can go
TEACH_CONTROLS = (controls.QUIZ, controls.ALGORITHM, controls.PHASE, controls.SCAN, controls.SLOW)


def teach_state(settings: Settings) -> None:
    """Defaults, and a clean slate (answers, phase) when the run changes."""
    keep_with(run_identity(settings), [ANSWERS, PHASE, SCAN, SCAN_LENGTH])
    for linked in TEACH_CONTROLS:  # their defaults are declared with them
        linked.setdefault()


def teach_switches() -> None:
    """The three teaching switches, one under the other (in the stage's popover)."""
    controls.QUIZ.draw(
        st.toggle,
        "Predict the merge",
        help="Predict the next merge: the winner stays hidden until the class has guessed (click a bar, "
        "pick or type a pair); the answer is explained and the score kept over the steps.",
    )
    controls.ALGORITHM.draw(
        st.toggle,
        "Show the algorithm",
        help="The training loop beside the film: each merge plays in phases (count → pick → merge → "
        "record), the line being executed lit.",
    )
    controls.SLOW.draw(
        st.toggle,
        "Slow merge",
        disabled=not st.session_state[ALGORITHM],
        help="With the algorithm shown: the merge phase scans the text window left to right, one "
        "occurrence at a time, so 'aaaaa' visibly becomes 'aa aa a', not three 'aa'.",
    )


# ==================== Stepping


def _cursor() -> Cursor:
    ss = st.session_state
    return Cursor(int(ss[STEP]), int(ss.get(PHASE, 0)), int(ss.get(SCAN, 0)))


def _phased() -> bool:
    return bool(st.session_state.get(ALGORITHM))


def film_at_end(last: int) -> bool:
    """Nothing left to play: the last merge, in its last phase when merges play in phases."""
    cursor = _cursor()
    return cursor.step >= last and (not _phased() or cursor.phase == len(PHASES) - 1)


def film_at_start() -> bool:
    cursor = _cursor()
    return cursor.step <= 1 and (not _phased() or (cursor.phase == 0 and cursor.scan == 0))


def move_film(delta: int, last: int, *, wait_for_guess: bool = False) -> bool:
    """One step (or phase) forward or back. Returns False when the film did not move: at
    its end, or, with ``wait_for_guess`` (Play), while this step waits for the class's
    guess. Step forward skips a question unanswered: the teacher decides."""
    ss = st.session_state
    if delta > 0 and wait_for_guess and waiting_for_guess():
        return False
    if not _phased():
        target = min(max(int(ss[STEP]) + delta, 1), last)
        moved = target != ss[STEP]
        ss[STEP] = target
        return moved
    length = int(ss.get(SCAN_LENGTH, 0)) if ss.get(SLOW) else 0
    before = _cursor()
    after = advance(before, delta, last=last, scan_length=length)
    ss[STEP], ss[PHASE], ss[SCAN] = after.step, after.phase, after.scan
    return after != before


def next_merge(last: int) -> None:
    """The quiz's "Next merge": the start of the next merge, whatever the phase."""
    st.session_state[STEP] = min(int(st.session_state[STEP]) + 1, last)
    start_of_step()


def start_of_step() -> None:
    """A step reached by a jump starts at its first phase."""
    st.session_state.update({PHASE: 0, SCAN: 0})


def restart_film() -> None:
    st.session_state.update({STEP: 1, PHASE: 0, SCAN: 0})


def waiting_for_guess() -> bool:
    ss = st.session_state
    return bool(ss.get(QUIZ)) and int(ss[STEP]) not in answers()


# ==================== What a frame shows


@dataclass(frozen=True)
class View:
    """What the frame of one step shows: its phase ("record" when merges do not play in
    phases), which parts that reveals, whether a guess is awaited, and the slow scan."""

    phase: str
    shown: Shown
    pending: bool
    algorithm: bool
    slow: bool
    scan: int


def frame_view(step: MergeStep) -> View:
    ss = st.session_state
    pending = quiz_pending(step)
    algorithm = _phased()
    if algorithm and ss.pop(JUST_ANSWERED, None) == step.number:
        ss[PHASE] = max(int(ss[PHASE]), PHASES.index("pick"))  # the answer is the pick: go on from there
    phase = "count" if pending else PHASES[int(ss[PHASE])] if algorithm else "record"
    slow = algorithm and bool(ss.get(SLOW)) and phase == "merge"
    return View(phase, shown(phase), pending, algorithm, slow, int(ss.get(SCAN, 0)))


def scan_events(before: BPETokenizer, text: str, step: MergeStep) -> list[ScanEvent]:
    """The merge's occurrences in ``text`` in scan order; remembered so stepping knows how
    many frames the slow merge phase has."""
    pair = (before.stoi[step.pair[0]], before.stoi[step.pair[1]])
    events = scan_merge(before.encode_with_chunks(text), pair)
    st.session_state[SCAN_LENGTH] = len(events)
    return events


def shown_vocab(view: View, step: MergeStep) -> int:
    """The vocab size on screen: it grows in the record phase."""
    return step.vocab_size if view.shown.recorded else step.vocab_size - int(step.new_token)


def shown_length(view: View, step: MergeStep, run: TrainingRun) -> int:
    """The sequence length on screen: it shrinks in the merge phase."""
    return step.sequence_length if view.shown.after else run.sequence_length(step.number - 1)
