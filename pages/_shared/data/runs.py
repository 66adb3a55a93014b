"""Cached calls into `bpe`: corpus texts, the training run, tokenizers.

The caches are process-wide (shared by every browser session), so every key names the
text's *content* (`Settings.corpus_version`), never just a name two sessions could both
use: an upload is only ever found again by a session holding the very same text. The
texts themselves come from this session's state and are passed unhashed (`_text`).
"""

from __future__ import annotations

import streamlit as st

from bpe.corpora.corpus import load_corpus, split_train_heldout
from bpe.errors import BpeError
from bpe.run import TrainingRun, train_run
from bpe.runfile import RunFile, RunFileError, parse_run_file, read_run_file
from bpe.tokenizer import BPETokenizer
from pages._shared.state.settings import MIN_CHARS_TO_SPLIT, RECORDED_TOP_K, Settings
from pages._shared.state.stores import (
    MAX_SEEN_RUNS,
    RUN_UPLOAD_PREFIX,
    SEEN_RUNS,
    recent,
    remember,
    run_uploads,
    user_texts,
)

RUN_MEMO = "settings_run_memo"  # (training key, run): this session's run, at hand
PROGRESS_UPDATES = 20  # the bar moves in 5% steps: each update is a message to the browser


# ==================== Corpus


def corpus_texts(settings: Settings) -> tuple[str, str]:
    """(train_text, heldout_text) for these settings: the corpus cut to the prefix cap,
    then split. Texts under `MIN_CHARS_TO_SPLIT` characters are not split. Cached.
    A replayed run has no corpus: its text is the held-out sample its file keeps.
    Raises `BpeError` (a `CorpusError`) when the corpus cannot be read."""
    if settings.run_file is not None:
        return opened_run(settings).sample, ""
    pasted = user_texts().get(settings.corpus)
    return _corpus_texts(settings.corpus_key(), _text=pasted)


def corpus_parts(settings: Settings) -> tuple[str, str]:
    """(training text, held-out text) as far as each is here, for a lens that must say which
    part it measured: `corpus_texts`, except that a replayed run's file keeps no training
    text and its sample is held-out text, so it is ``("", sample)``."""
    if settings.run_file is not None:
        return "", opened_run(settings).sample
    return corpus_texts(settings)


@st.cache_data(show_spinner=False, max_entries=16)
def _corpus_texts(key: tuple, _text: str | None) -> tuple[str, str]:
    name, _version, prefix_cap, heldout_fraction = key
    text = _text if _text is not None else load_corpus(name)
    text = text[:prefix_cap]
    if len(text) < MIN_CHARS_TO_SPLIT:
        return text, ""
    return split_train_heldout(text, heldout_fraction)


def corpus_length(settings: Settings) -> int:
    """Characters in the whole corpus, before the prefix cap cuts it. Cached. A replayed
    run's corpus is not here: its size is what the run file records it trained on."""
    if settings.run_file is not None:
        run = opened_run(settings).run
        return run.training_characters + run.heldout_characters
    pasted = user_texts().get(settings.corpus)
    return _corpus_length(settings.corpus_key()[:2], _text=pasted)


@st.cache_data(show_spinner=False, max_entries=16)
def _corpus_length(key: tuple, _text: str | None) -> int:
    return len(_text if _text is not None else load_corpus(key[0]))


def alphabet_size(settings: Settings) -> int:
    """How many base tokens training will start from (the smallest possible vocab)."""
    if settings.run_file is not None:
        return len(opened_run(settings).run.base_tokens)
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
    elif settings.run_file is not None:  # replayed from its file: never retrained
        run = opened_run(settings).run
        _require_recorded_settings(settings, run)
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


# ==================== Run files


def _require_recorded_settings(settings: Settings, run: TrainingRun) -> None:
    """A run file holds one training: settings asking for another (a variant of it, on
    Compare runs) would need its corpus, which is not here."""
    recorded = run.settings
    wanted = {
        "alphabet": (settings.alphabet, recorded.alphabet),
        "pre-tokenizer": (settings.pretokenizer, recorded.pretokenizer),
        "tie rule": (settings.tie_rule, recorded.tie_rule),
        "minimum pair frequency": (settings.min_freq, recorded.minimum_pair_frequency),
        "vocab size": (settings.trained_vocab_size, run.final_vocab_size),
    }
    differ = [name for name, (asked, has) in wanted.items() if asked != has]
    if differ:
        raise BpeError(
            f"this run was recorded once, from a corpus that is not here, so it cannot be trained again with "
            f"another {', '.join(differ)}; open another run file (or train on a text) to compare with it"
        )


def opened_run(settings: Settings) -> RunFile:
    """The run file these settings replay (listed on disk, or uploaded in this session),
    read once per process and shared (`st.cache_resource`, as trained runs are).
    Raises `BpeError` (a `RunFileError`) when it cannot be read."""
    name = settings.run_file
    assert name is not None
    if name.startswith(RUN_UPLOAD_PREFIX):
        found = run_uploads().get(name)
        if found is None:
            raise RunFileError(f"the uploaded run {name[len(RUN_UPLOAD_PREFIX) :]!r} is no longer in this session")
        return _parsed_run(found[0], _raw=found[1], _name=name[len(RUN_UPLOAD_PREFIX) :])
    return _read_run(name, settings.corpus_version)


@st.cache_resource(show_spinner="Opening the run file…", max_entries=8)
def _read_run(path: str, version: str) -> RunFile:
    return read_run_file(path)


@st.cache_resource(show_spinner="Opening the run file…", max_entries=8)
def _parsed_run(content_hash: str, _raw: bytes, _name: str) -> RunFile:
    return parse_run_file(_raw, name=_name)


# ==================== Tokenizers


def prefix_tokenizer(settings: Settings, run: TrainingRun, merges: int) -> BPETokenizer:
    """The tokenizer after the run's first ``merges`` merges (0 = base tokens only). Cached."""
    return _merges_tokenizer(settings.training_key(), merges, _run=run)


# Tokenizers are models, not data: cache_resource shares one object instead of
# unpickling a copy on every rerun. Nothing mutates them but their bounded chunk cache.
@st.cache_resource(show_spinner=False, max_entries=64)
def _merges_tokenizer(key: tuple, merges: int, _run: TrainingRun) -> BPETokenizer:
    return _run.tokenizer(merges=merges)
