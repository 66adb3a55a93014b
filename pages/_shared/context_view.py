"""Streamlit glue for the Context window page: which BPE vocab sizes it offers.

The offered sizes are sizes the run really reaches (`reached_vocab_size`), so the chip
a teacher picks reads the same as the row it adds ("BPE 12", never a chip "995" beside a
row "BPE 12" on a corpus where training stopped at 12). The choice belongs to the run:
a new corpus offers its own sizes and starts from its own default
(`run_state.keep_with`), so a size missing from one small corpus is back on the next.
"""

from __future__ import annotations

import streamlit as st

from bpe.analysis.vocab_sizes import reached_vocab_size
from bpe.run import TrainingRun

from .run_state import keep_with, run_identity
from .settings import Settings

LADDER = [300, 500, 1_000, 2_000, 5_000, 10_000]
DEFAULT_COMPARED = 500  # the tutorial's vocab, beside the one the sidebar shows
SIZES = "context_sizes"
MAX_COMPARED = 3


def size_choices(settings: Settings, run: TrainingRun) -> list[int]:
    """The vocab sizes on offer: the ladder, the sidebar's vocab and the run's final vocab,
    each as the size the run really reaches, once."""
    wanted = [size for size in LADDER if size > len(run.base_tokens)] + [settings.vocab_size, run.final_vocab_size]
    return sorted({reached_vocab_size(run, size) for size in wanted})


def chosen_sizes(settings: Settings, run: TrainingRun, choices: list[int]) -> list[int]:
    """The sizes compared (session state, reset when the run or its choices change)."""
    state = st.session_state
    keep_with((run_identity(settings), tuple(choices)), [SIZES])
    shown = reached_vocab_size(run, settings.vocab_size)
    state.setdefault(SIZES, sorted({reached_vocab_size(run, DEFAULT_COMPARED), shown}))
    state[SIZES] = [size for size in state[SIZES] if size in choices][:MAX_COMPARED] or [shown]
    return state[SIZES]
