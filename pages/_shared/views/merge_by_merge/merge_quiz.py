"""Predict the next merge, on Merge by merge: the question, the guess, the answer, the score.

While a step waits for its guess, the frame hides the winner, the new token and the text
after the merge (see `teach_mode.frame_view`); the chart's bars all look alike. The learner
clicks a bar, picks a pair from the list, or types one; the answer and its reason
(`bpe.analysis.quiz.judge`) replace the question, and the score counts every step
answered in this run.
"""

from __future__ import annotations

from functools import partial

import streamlit as st

from bpe.analysis.quiz import Verdict, judge, parse_guess, question_order, score
from bpe.analysis.tie_rules import describe_tie_rule
from bpe.errors import BpeError
from bpe.steps import MergeStep
from bpe.text import pair_label
from pages._shared.render.html import escape_markdown
from pages._shared.state import controls
from pages._shared.state.settings import RECORDED_TOP_K, Settings

QUIZ = controls.QUIZ.key  # plain key: the quiz is on
ANSWERS = "teach_answers"  # plain key: {step number: Verdict} in this run (forgotten with the run)
TYPED_ERROR = "teach_typed_error"
JUST_ANSWERED = "teach_just_answered"  # the step answered in this rerun: a film in phases goes on from "pick"
SHOW = {"right": st.success, "tie": st.info, "wrong": st.error}
ICONS = {"right": ":material/check_circle:", "tie": ":material/balance:", "wrong": ":material/cancel:"}


def answers() -> dict[int, Verdict]:
    return st.session_state.setdefault(ANSWERS, {})


def quiz_pending(step: MergeStep) -> bool:
    """The quiz is on and this step has not been answered yet."""
    return bool(st.session_state.get(QUIZ)) and step.number not in answers()


def answer(step: MergeStep, guess: tuple, tie_rule: str) -> Verdict:
    verdict = judge(step, guess, tie_rule=f"ties go to {describe_tie_rule(tie_rule)}", recorded=RECORDED_TOP_K)
    answers()[step.number] = verdict
    st.session_state[JUST_ANSWERED] = step.number
    st.session_state.pop(TYPED_ERROR, None)
    return verdict


def _asked_pairs(step: MergeStep, top_k: int) -> list:
    return question_order(step.top_pairs[:top_k])


def chart_options(step: MergeStep, settings: Settings, pending: bool) -> dict:
    """Keyword arguments for the pair chart: clicking a bar answers while a guess is awaited.
    Each step gets its own key then, so a click on the same bar as last step still counts."""
    if not pending:
        return dict(key="merges_pairs")
    key = f"teach_chart_{step.number}"
    return dict(key=key, on_select=partial(_clicked, key, step, settings), selection_mode="points")


def _clicked(key: str, step: MergeStep, settings: Settings) -> None:
    points = st.session_state[key].selection.points
    asked = _asked_pairs(step, settings.top_k)
    if points and 0 <= int(points[0]["x"]) < len(asked):
        answer(step, asked[int(points[0]["x"])][0], settings.training.tie_rule)


def quiz_box(step: MergeStep, settings: Settings, *, next_merge, args: tuple = ()) -> None:
    """The question (while the step waits for a guess) or the answer, then the score.
    ``next_merge(*args)`` is the callback that moves the film on."""
    if not st.session_state.get(QUIZ):
        return
    verdict = answers().get(step.number)
    if verdict is None:
        _question(step, settings)
    else:
        SHOW[verdict.kind](escape_markdown(verdict.explanation), icon=ICONS[verdict.kind])
        st.button("Next merge", key=f"teach_next_{step.number}", on_click=next_merge, args=args, type="primary")
    st.caption(score(v.kind for v in answers().values()).line())


def _question(step: MergeStep, settings: Settings) -> None:
    pairs = [pair for pair, _count in _asked_pairs(step, settings.top_k)]
    st.markdown(
        f"**Predict merge {step.number:,}:** which pair is merged next? Click its bar in the chart, "
        "pick it here, or type it."
    )
    # one under the other: beside the chart, the stage's text column is too narrow for two boxes
    pick, typed = st.container(), st.container()
    pick.selectbox(
        "Pick a pair",
        options=range(len(pairs)),
        index=None,
        key=f"teach_pick_{step.number}",
        format_func=lambda i: pair_label(pairs[i]),
        placeholder="a pair from the chart",
        on_change=_picked,
        args=(step, settings, pairs),
    )
    typed.text_input(
        "Or type one (· for a space)",
        key=f"teach_typed_{step.number}",
        placeholder="t + h",
        on_change=_typed,
        args=(step, settings),
    )
    error = st.session_state.get(TYPED_ERROR)
    if error:
        st.error(escape_markdown(error), icon="⚠️")


def _picked(step: MergeStep, settings: Settings, pairs: list) -> None:
    chosen = st.session_state.get(f"teach_pick_{step.number}")
    if chosen is not None:
        answer(step, pairs[chosen], settings.training.tie_rule)


def _typed(step: MergeStep, settings: Settings) -> None:
    text = st.session_state.get(f"teach_typed_{step.number}", "")
    if not text.strip():
        return
    try:
        guess = parse_guess(text, step)
    except BpeError as error:
        st.session_state[TYPED_ERROR] = str(error)
        return
    answer(step, guess, settings.training.tie_rule)
