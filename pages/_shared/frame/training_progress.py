"""While this session's run trains: its progress (merges done, merges per second, time
left) and a Stop button; after a Stop, what the pages show instead of the full run.

The training runs on its own thread (`data.runs`), so the page can wait for it in its
script run, redrawing the bar, for up to `LIVE_WAIT_SECONDS` (a click on Stop, or on
anything else, interrupts the wait at the next redraw: Streamlit's fast reruns), and then
end its run and leave the bar to a fragment on a timer, which reruns the page when the
training has ended. Stopping keeps the merges learned so far as this session's run of
these settings: each of them is exactly a merge of the full run, a user who presses Stop
on a long training wants to look at what it learned, and going back to the previous run
would throw that away ("Train again" trains the full run when wanted).
"""

from __future__ import annotations

import time

import streamlit as st

from bpe.run import TrainingRun
from pages._shared.data.live_training import LiveTraining
from pages._shared.data.runs import PROGRESS_SECONDS, live_training, progress_line, stop_training, train_again

QUICK_SECONDS = 0.3  # a training this short shows no bar at all
LIVE_WAIT_SECONDS = 15.0  # then the page's run ends and a fragment keeps the bar moving
TICK_SECONDS = 0.5
STOP_KEY = "live_training_stop"


def wait_for_training(training: LiveTraining) -> bool:
    """Draw the progress and Stop while ``training`` runs, waiting for it; True once it has
    ended (take its run now), False when the page should end its run and come back."""
    if training.wait(QUICK_SECONDS):
        return True
    box = st.empty()
    with box.container():
        area = st.container()
        st.button(
            "Stop training",
            key=STOP_KEY,
            on_click=stop_training,
            help="Keep the merges learned so far: every page shows them. Nothing is lost for others.",
        )
    bar = area.empty()
    deadline = time.monotonic() + LIVE_WAIT_SECONDS
    while not training.wait(PROGRESS_SECONDS):
        fraction, said = progress_line(training)
        bar.progress(fraction, text=said)  # where a click on Stop interrupts this run
        if time.monotonic() > deadline:
            bar.empty()
            with area:
                _ticking()
            return False
    box.empty()
    return True


@st.fragment(run_every=TICK_SECONDS)
def _ticking() -> None:
    training = live_training()
    if training is None or training.done:
        st.rerun()  # the whole page, now with its run (or its error)
    fraction, said = progress_line(training)
    st.progress(fraction, text=said)


def stopped_note(run: TrainingRun) -> None:
    """Say that the run shown is a stopped one, how far it got, and offer to train it in full."""
    target = run.settings.target_vocab_size - run.initial_vocab_size
    st.info(
        f"Training stopped at {len(run.steps):,} of {target:,} merges (you pressed Stop). Every page shows "
        f"the merges learned so far, up to a vocab of {run.final_vocab_size:,}; each is exactly a merge of the "
        "full run."
    )
    _train_again(run.settings.target_vocab_size)


def budget_note(run: TrainingRun) -> None:
    """Say that the run stopped early at the bound on its tokens' characters, and why."""
    target = run.settings.target_vocab_size - run.initial_vocab_size
    st.info(f"Training stopped at {len(run.steps):,} of {target:,} merges: {run.stop_explanation}.")


def stopped_before_first_merge(target_vocab_size: int) -> None:
    """Stop was pressed while the text was still being prepared: nothing to show."""
    st.info(
        "Training stopped before its first merge (you pressed Stop while the text was being prepared): "
        "there is nothing to show. Change the settings in the sidebar, or train again."
    )
    _train_again(target_vocab_size)


def _train_again(target_vocab_size: int) -> None:
    st.button(f"Train to {target_vocab_size:,} again", key="live_training_again", on_click=train_again)
