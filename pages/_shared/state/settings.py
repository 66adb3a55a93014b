"""`Settings`: what every page trains on and shows, and where it lives between reruns.

`Settings` is one of three cases: a run `Trained` here (a corpus cut and split, and the
core's `TrainingSettings`), a run `Replayed` from a run file (the settings it records), or
a run file that cannot be read (`UnreadableRun`). The sidebar builds it once per script
run, from the state below.

State lives in plain `st.session_state` keys prefixed `settings_` (never in a widget's
own key: Streamlit drops those when their page is not rendered, so a value set on one
page would be lost on the next). Widgets get keys `_w_<plain key>` and copy their value
back in `on_change` (see `bind`). The shareable part is mirrored in the URL by
`state.link`, so a link reopens what the teacher showed; the keys and link parameters keep
the short names links and lesson files carry (``settings_min_freq``, ``min_freq``), each
the sidebar's input for one field of `TrainingSettings` (``minimum_pair_frequency``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, replace

import streamlit as st

from bpe.corpora.shipped import TINY_SHAKESPEARE
from bpe.steps import DEFAULT_TIE_RULE
from bpe.training import MAX_VOCAB_CHARACTERS, TrainingSettings

NO_PRESET = "none"

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
SPECIALS = "settings_special_tokens"
PRESET = "settings_preset"  # the preset the settings match ("none" when they match none); not linked

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
    SPECIALS: [],  # special tokens, e.g. ["<|endoftext|>"] (`bpe.specials`)
    PRESET: NO_PRESET,
}

# How many competing pairs each step records; the top-k slider shows up to this many
# without retraining.
RECORDED_TOP_K = 20
# Texts shorter than this are never split: holding out part of "aaabdaaabac" would break
# the worked example. The sidebar says so.
MIN_CHARS_TO_SPLIT = 2_000


# The fields of `TrainingSettings` the app sets itself, never the sidebar (`app_training`).
APP_TRAINING_FIELDS = ("top_k", "max_vocab_characters", "base_tokens")


def app_training(**fields) -> TrainingSettings:
    """The core's `TrainingSettings` as the app trains: every step records `RECORDED_TOP_K`
    competing pairs, and a run's tokens hold at most `MAX_VOCAB_CHARACTERS` characters
    together, whatever a link or a lesson asks."""
    return TrainingSettings(top_k=RECORDED_TOP_K, max_vocab_characters=MAX_VOCAB_CHARACTERS, **fields)


@dataclass(frozen=True, kw_only=True)
class Trained:
    """A run trained here: on a corpus cut to its first ``prefix_cap`` characters, the last
    ``heldout_fraction`` of them held out, with the core's `TrainingSettings` (``training``:
    its ``target_vocab_size`` is what the run trains to, so every smaller vocab is a prefix
    of the same merges). ``corpus_version`` identifies the text's content in caches: a hash
    of a pasted or uploaded text, a listed file's stat (size, times, inode).

    What the pages show of the run: ``vocab_size`` (at most the trained size) and
    ``top_k``, the competing pairs drawn beside a step (the run records `RECORDED_TOP_K`).
    For example the defaults: Tiny Shakespeare, 500,000 characters, a tenth held out,
    trained to 1,000 tokens with a minimum pair frequency of 2, shown at 1,000.
    """

    corpus: str
    corpus_version: str
    prefix_cap: int
    heldout_fraction: float
    training: TrainingSettings
    vocab_size: int
    top_k: int

    def corpus_key(self) -> tuple:
        """What the (train, held-out) texts depend on."""
        return (self.corpus, self.corpus_version, self.prefix_cap, self.heldout_fraction)

    def training_key(self) -> tuple:
        """What the training run depends on: not the vocab shown (a prefix) nor top_k (recorded)."""
        return _training_key(self.corpus_key(), self.training)

    def with_training(self, **changes) -> Trained:
        """These settings with other training settings (a variant to compare with)."""
        return replace(self, training=replace(self.training, **changes))


@dataclass(frozen=True, kw_only=True)
class Replayed:
    """A run replayed from a run file, never trained here: ``run_file`` is the file's path
    (listed) or `RUN_UPLOAD_PREFIX` + name (uploaded in this session), ``corpus_version``
    its size and times (or its bytes' hash), and ``training`` the settings the file records,
    its ``target_vocab_size`` the vocab the run reached. Its text is the held-out sample the
    file keeps. ``vocab_size`` and ``top_k`` as for `Trained`."""

    corpus: str
    corpus_version: str
    run_file: str
    training: TrainingSettings
    vocab_size: int
    top_k: int

    def corpus_key(self) -> tuple:
        """What the run's text depends on: its file (the sample it keeps: no prefix, no split)."""
        return (self.corpus, self.corpus_version, self.run_file)

    def training_key(self) -> tuple:
        """What the run depends on: its file and the settings it records."""
        return _training_key(self.corpus_key(), self.training)

    def with_training(self, **changes) -> Replayed:
        """These settings with other training settings: a run nobody can replay (a file holds
        one training), which opening says in words. The recorded base tokens go: they are
        the recorded alphabet's, and another alphabet would refuse them."""
        return replace(self, training=replace(self.training, base_tokens=None, **changes))


@dataclass(frozen=True, kw_only=True)
class UnreadableRun:
    """A run file picked in the sidebar that cannot be read (damaged, gone, too large):
    ``error`` says why. It has no settings to train or show: the page says the error and
    stops (`data.runs.trained_run` raises it)."""

    corpus: str
    corpus_version: str
    run_file: str
    error: str

    def corpus_key(self) -> tuple:
        return (self.corpus, self.corpus_version, self.run_file)


# The sidebar's value, built once per script run (`frame.sidebar.draw_sidebar`): hashable,
# so its keys can key caches.
Settings = Trained | Replayed | UnreadableRun


def _training_key(corpus_key: tuple, training: TrainingSettings) -> tuple:
    return (
        *corpus_key,
        training.target_vocab_size,
        training.minimum_pair_frequency,
        training.engine,
        training.alphabet,
        training.pretokenizer,
        training.tie_rule,
        training.special_tokens,
    )


def init_state() -> None:
    """Give every settings key its default (only where it has no value yet)."""
    state = st.session_state
    for key, value in DEFAULTS.items():
        state.setdefault(key, value)


def text_version(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]


def bind(widget: Callable, label: str, key: str, *, suffix: str = "", then: Callable | None = None, **kwargs):
    """Draw ``widget`` showing the plain state ``key``; a change is copied back to ``key``
    (and ``then`` called after it, where a change sets other state too).

    Set the widget's own key from the plain key *before* creating it (allowed: it does
    not exist yet in this run), and never pass ``value=`` as well. Two widgets showing
    the same state (a slider and a number box) need different ``suffix`` values.
    """
    state = st.session_state
    widget_key = f"_w_{key}{suffix}"
    state[widget_key] = state[key]

    def copy_back() -> None:
        state[key] = state[widget_key]
        if then is not None:
            then()

    return widget(label, key=widget_key, on_change=copy_back, **kwargs)
