"""`Settings`: what every page trains on and shows, and where it lives between reruns.

State lives in plain `st.session_state` keys prefixed `settings_` (never in a widget's
own key: Streamlit drops those when their page is not rendered, so a value set on one
page would be lost on the next). Widgets get keys `_w_<plain key>` and copy their value
back in `on_change` (see `bind`). The shareable part is mirrored in the URL by
`state.link`, so a link reopens what the teacher showed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from bpe.corpora.shipped import TINY_SHAKESPEARE
from bpe.steps import DEFAULT_TIE_RULE

# The sidebar's plain keys, each named once here
CORPUS = "settings_corpus"
PREFIX_CAP = "settings_prefix_cap"
HELDOUT = "settings_heldout"
VOCAB = "settings_vocab"
TRAIN_UP_TO = "settings_train_up_to"
MIN_FREQ = "settings_min_freq"
ENGINE = "settings_engine"
ALPHABET = "settings_alphabet"
PRETOKENIZER = "settings_pretokenizer"
TOP_K = "settings_top_k"
TIE_RULE = "settings_tie_rule"

DEFAULTS = {
    CORPUS: TINY_SHAKESPEARE,  # real English prose (data/tinyshakespeare.txt)
    PREFIX_CAP: 500_000,  # characters, as in the tutorial
    HELDOUT: 0.1,
    VOCAB: 1_000,
    TRAIN_UP_TO: 1_000,
    MIN_FREQ: 2,
    ENGINE: "fast",
    ALPHABET: "characters",
    PRETOKENIZER: "none",
    TOP_K: 10,
    TIE_RULE: DEFAULT_TIE_RULE,
}

# How many competing pairs each step records; the top-k slider shows up to this many
# without retraining.
RECORDED_TOP_K = 20
# Texts shorter than this are never split: holding out part of "aaabdaaabac" would break
# the worked example. The sidebar says so.
MIN_CHARS_TO_SPLIT = 2_000


@dataclass(frozen=True)
class Settings:
    """One page's view of the sidebar: hashable, so it can key caches.

    ``vocab_size`` is the vocabulary shown; ``trained_vocab_size`` (>= vocab_size) is what
    the run was trained to, so any smaller vocab is a prefix of the same merges.
    ``engine`` is the engine actually used (the reference engine falls back to fast on
    large text). ``corpus_version`` identifies the text's content in caches: a hash of
    pasted or uploaded text, the file's stat (size, times, inode) for a listed corpus.
    """

    corpus: str
    corpus_version: str
    prefix_cap: int
    heldout_fraction: float
    vocab_size: int
    trained_vocab_size: int
    min_freq: int
    engine: str
    alphabet: str  # "characters" | "bytes"
    pretokenizer: str | None  # None | "whitespace" | "gpt2" | "gpt4"
    top_k: int
    tie_rule: str = DEFAULT_TIE_RULE  # which of equally frequent pairs wins (bpe.steps.TIE_RULES)

    def corpus_key(self) -> tuple:
        """What the (train, held-out) texts depend on."""
        return (self.corpus, self.corpus_version, self.prefix_cap, self.heldout_fraction)

    def training_key(self) -> tuple:
        """What the training run depends on: not vocab_size (a prefix) nor top_k (recorded)."""
        return (
            *self.corpus_key(),
            self.trained_vocab_size,
            self.min_freq,
            self.engine,
            self.alphabet,
            self.pretokenizer,
            self.tie_rule,
        )


def init_state() -> None:
    """Give every settings key its default (only where it has no value yet)."""
    state = st.session_state
    for key, value in DEFAULTS.items():
        state.setdefault(key, value)


def text_version(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]


def bind(widget: Callable, label: str, key: str, *, suffix: str = "", **kwargs):
    """Draw ``widget`` showing the plain state ``key``; a change is copied back to ``key``.

    Set the widget's own key from the plain key *before* creating it (allowed: it does
    not exist yet in this run), and never pass ``value=`` as well. Two widgets showing
    the same state (a slider and a number box) need different ``suffix`` values.
    """
    state = st.session_state
    widget_key = f"_w_{key}{suffix}"
    state[widget_key] = state[key]

    def copy_back() -> None:
        state[key] = state[widget_key]

    return widget(label, key=widget_key, on_change=copy_back, **kwargs)
