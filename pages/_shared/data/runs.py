"""Cached calls into `bpe`: corpus texts, the training run, tokenizers.

The caches are process-wide (shared by every browser session), so every key names the
text's *content* (`Settings.corpus_version`), never just a name two sessions could both
use: an upload is only ever found again by a session holding the very same text. The
texts themselves come from this session's state and are passed unhashed (`_text`).
"""

from __future__ import annotations

import streamlit as st

from bpe.corpora.corpus import load_corpus, split_train_heldout
from bpe.run import TrainingRun, train_run
from bpe.tokenizer import BPETokenizer
from pages._shared.state.settings import MIN_CHARS_TO_SPLIT, RECORDED_TOP_K, Settings
from pages._shared.state.stores import MAX_SEEN_RUNS, SEEN_RUNS, recent, remember, user_texts

RUN_MEMO = "settings_run_memo"  # (training key, run): this session's run, at hand
PROGRESS_UPDATES = 20  # the bar moves in 5% steps: each update is a message to the browser


# ==================== Corpus


def corpus_texts(settings: Settings) -> tuple[str, str]:
    """(train_text, heldout_text) for these settings: the corpus cut to the prefix cap,
    then split. Texts under `MIN_CHARS_TO_SPLIT` characters are not split. Cached.
    Raises `BpeError` (a `CorpusError`) when the corpus cannot be read."""
    pasted = user_texts().get(settings.corpus)
    return _corpus_texts(settings.corpus_key(), _text=pasted)


@st.cache_data(show_spinner=False, max_entries=16)
def _corpus_texts(key: tuple, _text: str | None) -> tuple[str, str]:
    name, _version, prefix_cap, heldout_fraction = key
    text = _text if _text is not None else load_corpus(name)
    text = text[:prefix_cap]
    if len(text) < MIN_CHARS_TO_SPLIT:
        return text, ""
    return split_train_heldout(text, heldout_fraction)


def alphabet_size(settings: Settings) -> int:
    """How many base tokens training will start from (the smallest possible vocab)."""
    return _base_size(settings.alphabet, settings.corpus_key(), *corpus_texts(settings))


def _base_size(alphabet: str, corpus_key: tuple, train: str, heldout: str) -> int:
    return 256 if alphabet == "bytes" else _distinct_characters(corpus_key, train, heldout)


@st.cache_data(show_spinner=False, max_entries=16)
def _distinct_characters(key: tuple, _train: str, _heldout: str) -> int:
    # train_run takes its base characters from both parts, so count both
    return len(set(_train) | set(_heldout))


# ==================== Training


def trained_run(settings: Settings) -> TrainingRun:
    """The run for these settings, trained to ``settings.trained_vocab_size`` at most once
    per process (`st.cache_resource`: one object shared by every session), with a progress
    bar while it trains.

    The session keeps its current run at hand, so an ordinary rerun (a step, a smaller
    vocab) costs nothing. Raises `BpeError` on impossible settings.
    """
    run = run_for(settings)
    st.session_state[RUN_MEMO] = (settings.training_key(), run)
    return run


def run_for(settings: Settings) -> TrainingRun:
    """The run for any settings, this session's current ones or others (a run to compare
    with): cached as `trained_run` is, but it leaves the session's current run alone.
    Every run asked for is remembered for `seen_runs`."""
    key = settings.training_key()
    memo = st.session_state.get(RUN_MEMO)
    if memo is not None and memo[0] == key:
        run = memo[1]
    else:
        train_text, heldout_text = corpus_texts(settings)
        run = _train(key, _train_text=train_text, _heldout_text=heldout_text)
    remember(SEEN_RUNS, key, settings, MAX_SEEN_RUNS)
    return run


def seen_runs() -> list[Settings]:
    """The settings of every run this session trained or opened, most recent first (bounded)."""
    return list(recent(SEEN_RUNS).values())


# One run object for every session (cache_resource, not cache_data): a copy per session
# cost a class ~6 MB of memory per student and an unpickling per visit, and a bigger heap
# for the garbage collector to walk. A TrainingRun is frozen and nothing mutates it.
@st.cache_resource(show_spinner=False, max_entries=8)
def _train(key: tuple, _train_text: str, _heldout_text: str) -> TrainingRun:
    # The bar is created in here on purpose: Streamlit replays a cached function's
    # elements on a hit, and a bar made outside would not exist to replay onto.
    *_corpus, target, min_freq, engine, alphabet, pretokenizer, tie_rule = key
    bar = st.progress(0.0, text=f"Training to {target:,} tokens…")
    base = _base_size(alphabet, tuple(_corpus), _train_text, _heldout_text)
    shown = [0]

    def progress(step, target_vocab_size):
        done = min((step.vocab_size - base) / max(target_vocab_size - base, 1), 1.0)
        if int(done * PROGRESS_UPDATES) > shown[0]:
            shown[0] = int(done * PROGRESS_UPDATES)
            bar.progress(done, text=f"Training: merge {step.number:,}, vocab {step.vocab_size:,} of {target:,}")

    try:
        return train_run(
            _train_text,
            target_vocab_size=target,
            minimum_pair_frequency=min_freq,
            engine=engine,
            top_k=RECORDED_TOP_K,
            alphabet=alphabet,
            pretokenizer=pretokenizer,
            tie_rule=tie_rule,
            heldout_text=_heldout_text,
            progress=progress,
        )
    finally:
        bar.empty()


# ==================== Tokenizers


def prefix_tokenizer(settings: Settings, run: TrainingRun, merges: int) -> BPETokenizer:
    """The tokenizer after the run's first ``merges`` merges (0 = base tokens only). Cached."""
    return _merges_tokenizer(settings.training_key(), merges, _run=run)


# Tokenizers are models, not data: cache_resource shares one object instead of
# unpickling a copy on every rerun. Nothing mutates them but their bounded chunk cache.
@st.cache_resource(show_spinner=False, max_entries=64)
def _merges_tokenizer(key: tuple, merges: int, _run: TrainingRun) -> BPETokenizer:
    return _run.tokenizer(merges=merges)
