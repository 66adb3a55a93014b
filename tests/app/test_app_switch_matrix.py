"""AppTest: every page with presenter mode off and on, crossed with each teaching switch
(the quiz, the algorithm, the slow merge, all of them) and, on Merge by merge, with
stepping and playing. Any exception or error box fails: a switch is only done when it
works with every other switch on (issue 22: presenter mode with the quiz crashed at
every step, with the algorithm at every count phase)."""

from __future__ import annotations

import pytest
from app_helpers import ROOT, SMALL_CORPUS, new_app, plotly_specs, title_text

from bpe import train_steps
from bpe.corpora.builtin import BUILTIN_TEXTS
from bpe.text import pair_label

MERGES = "pages/1_Merge_by_merge.py"
PAGES = ["app.py", *(f"pages/{p.name}" for p in sorted((ROOT / "pages").glob("[0-9]*_*.py")))]
SWITCHES = {
    "plain": {},
    "quiz": {"teach_quiz": True},
    "algorithm": {"teach_algorithm": True},
    "slow merge": {"teach_algorithm": True, "teach_slow": True},
    "all": {"teach_quiz": True, "teach_algorithm": True, "teach_slow": True},
}
PRESENTER = {"presenter off": False, "presenter on": True}
STEPS = 9  # more than the four phases of a merge, and a slow scan's occurrences
TICKS = 9  # AppTest never fires a fragment's timer: each run() is one tick
# The merged pair of each step, so the quiz is answered right (a wrong guess is a red box by design).
SMALL_TEXT = next(t.text for t in BUILTIN_TEXTS if t.name == SMALL_CORPUS)
WINNERS = {s.number: pair_label(s.pair) for s in train_steps(SMALL_TEXT, target_vocab_size=1_000)}


def trouble(at) -> list[str]:
    """What a class would see go wrong: an exception or an error box."""
    return [e.message if hasattr(e, "message") else str(e.value) for e in at.exception] + [
        str(e.value) for e in at.error
    ]


def check(at, where: str) -> None:
    problems = trouble(at)
    assert not problems, f"{where}: {problems}"


def merges_app(presenter: bool, switches: dict):
    at = new_app(MERGES, settings_corpus=SMALL_CORPUS, presenter_large=presenter, **switches)
    check(at, "first frame")
    return at


@pytest.mark.parametrize("switch", SWITCHES, ids=str)
@pytest.mark.parametrize("presenter", PRESENTER, ids=str)
def test_stepping_through_merge_by_merge_never_errs(presenter, switch):
    at = merges_app(PRESENTER[presenter], SWITCHES[switch])
    start = at.session_state["merges_step"]
    for n in range(STEPS):
        at.button(key="merges_forward").click().run()
        check(at, f"after {n + 1} step(s) forward (step {at.session_state['merges_step']})")
    assert at.session_state["merges_step"] > start or SWITCHES[switch].get("teach_algorithm")
    for n in range(3):
        at.button(key="merges_back").click().run()
        check(at, f"after {n + 1} step(s) back")


@pytest.mark.parametrize("switch", SWITCHES, ids=str)
@pytest.mark.parametrize("presenter", PRESENTER, ids=str)
def test_playing_merge_by_merge_never_errs(presenter, switch):
    at = merges_app(PRESENTER[presenter], SWITCHES[switch])
    at.button(key="merges_play").click().run()
    check(at, "after Play")
    for n in range(TICKS):
        at.run()
        check(at, f"after {n + 1} tick(s) (step {at.session_state['merges_step']})")
        if SWITCHES[switch].get("teach_quiz") and not at.session_state["merges_playing"]:
            step = at.session_state["merges_step"]  # Play waits for the class's guess: answer it
            box = at.selectbox(key=f"teach_pick_{step}")
            box.set_value(box.options.index(WINNERS[step])).run()
            check(at, f"after answering step {step}")
            at.button(key="merges_play").click().run()
            check(at, "after Play again")


@pytest.mark.parametrize("switch", ["plain", "all"], ids=str)
@pytest.mark.parametrize("presenter", PRESENTER, ids=str)
@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.rsplit("/", 1)[-1])
def test_every_page_opens_with_every_switch(page, presenter, switch):
    at = new_app(page, settings_corpus=SMALL_CORPUS, presenter_large=PRESENTER[presenter], **SWITCHES[switch])
    check(at, page)


def test_the_quiz_chart_in_presenter_mode_asks_in_large_type():
    at = merges_app(True, SWITCHES["quiz"])
    spec = plotly_specs(at)[0]
    layout = spec["layout"]
    assert title_text(spec) == "Step 1: which pair is merged next?"
    assert layout["title"]["font"]["size"] > 18 and layout["margin"]["l"] == 10  # the margin kept its sides
