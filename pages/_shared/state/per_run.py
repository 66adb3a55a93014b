"""Page state that belongs to one run: forgotten when the run it was set for changes.

A page's own widgets (the Merge-by-merge step, the Tokenize text, the Vocabulary length
filter, ...) hold values that only mean something for the corpus and settings they were
chosen on: step 14 of one corpus is not step 14 of another, a length range 2-5 hides most
of a vocabulary whose tokens run to 16 characters. So each page names what its state
belongs to (its *owner*: the corpus, the run, the choices it offers) and the keys to
forget when that changes::

    keep_with(run_identity(settings), ["merges_step", "merges_playing"])
    ss.setdefault("merges_step", 1)        # a new run starts from the defaults again

The first visit only records the owner, so state a link put there (``?step=14``) stays.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import streamlit as st

from pages._shared.state.settings import Settings

OWNERS = "runstate_owners"  # plain key: {tuple of keys: the owner they were last set for}


def corpus_identity(settings: Settings) -> tuple:
    """What the texts depend on: the corpus, its version, the prefix and the held-out part."""
    return settings.corpus_key()


def run_identity(settings: Settings) -> tuple:
    """What the merges depend on. Not the vocab sizes (a smaller one is a prefix of the
    same merges) nor the engine (both give the same merges)."""
    training = settings.training
    return (
        *settings.corpus_key(),
        training.minimum_pair_frequency,
        training.alphabet,
        training.pretokenizer,
        training.tie_rule,
        training.special_tokens,
    )


def keep_with(owner: Hashable, keys: Sequence[str]) -> bool:
    """Forget ``keys`` from session state when ``owner`` differs from the owner they were
    last kept with; return True when they were forgotten. The first call only records."""
    state = st.session_state
    owners = state.setdefault(OWNERS, {})
    name = tuple(keys)
    previous = owners.get(name)
    owners[name] = owner
    if previous is None or previous == owner:
        return False
    for key in keys:
        state.pop(key, None)
    return True
