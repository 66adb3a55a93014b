"""Cached calls into `bpe`: corpus texts, the training run, tokenizers.

What is computed on a shipped corpus or a run file on disk is shared by every browser
session; what is computed on a session's own text (pasted, uploaded, a lesson file's, an
uploaded run file) is that session's alone (`data.cache_scopes`). Every key names the text's
*content* (`Trained.corpus_version`), never just a name two sessions could both use. The
texts themselves come from this session's state and are passed unhashed (`_text`).
"""

from __future__ import annotations

import uuid

import streamlit as st

from bpe.corpora.corpus import load_corpus, split_train_heldout
from bpe.errors import BpeError
from bpe.run import TrainingRun
from bpe.scale.run_file import RunFile, RunFileError, parse_run_file, read_run_file
from bpe.specials import base_tokens_of_texts
from bpe.steps import StopReason
from bpe.tokenizer import BPETokenizer
from bpe.training_memory import check_fits_in_memory
from pages._shared.data.cache_scopes import cache_data_by_owner, cache_resource_by_owner, cache_resource_per_session
from pages._shared.data.live_training import LiveTraining, SharedTrainings
from pages._shared.state.sessions import session_watch
from pages._shared.state.settings import MIN_CHARS_TO_SPLIT, TRAIN_UP_TO, VOCAB, Settings, Trained, UnreadableRun
from pages._shared.state.stores import (
    MAX_SEEN_RUNS,
    RUN_UPLOAD_PREFIX,
    SEEN_RUNS,
    is_own_text,
    recent,
    remember,
    run_uploads,
    user_texts,
)

RUN_MEMO = "settings_run_memo"  # (training key, run): this session's run, at hand
LIVE = "settings_live_training"  # (settings, LiveTraining): the training this session waits for
STOPPED_RUN = "settings_stopped_run"  # (training key, run or None): what this session kept when it pressed Stop
WATCHER = "settings_watcher"  # this session's name among a shared training's watchers
MAX_FINISHED_RUNS = 8  # finished runs the server keeps for every session
MAX_OWN_RUNS = 2  # finished runs on its own texts one session keeps (its current run is also at hand)
PROGRESS_SECONDS = 0.25  # how often a progress bar is redrawn: each update is a message to the browser


# ==================== Corpus


def corpus_texts(settings: Settings) -> tuple[str, str]:
    """(train_text, heldout_text) for these settings: the corpus cut to the prefix cap,
    then split (`cut_texts`). A replayed run has no corpus: its text is the held-out sample
    its file keeps. Raises `BpeError` (a `CorpusError`, a `RunFileError`) when the corpus
    or the run file cannot be read."""
    if not isinstance(settings, Trained):
        return opened_run(settings).sample, ""
    return cut_texts(settings.corpus_key())


def cut_texts(corpus_key: tuple) -> tuple[str, str]:
    """(train_text, heldout_text) of a listed corpus or this session's own text, by
    `Trained.corpus_key` (its name, version, prefix cap and held-out fraction): the text cut
    to the prefix cap, then split. Texts under `MIN_CHARS_TO_SPLIT` characters are not
    split. Cached. The sidebar asks before the settings are whole (the vocab it offers
    depends on the text)."""
    pasted = user_texts().get(corpus_key[0])
    return _corpus_texts(corpus_key, _text=pasted, own=pasted is not None)


def corpus_parts(settings: Settings) -> tuple[str, str]:
    """(training text, held-out text) as far as each is here, for a measuring view that must say which
    part it measured: `corpus_texts`, except that a replayed run's file keeps no training
    text and its sample is held-out text, so it is ``("", sample)``."""
    if not isinstance(settings, Trained):
        return "", opened_run(settings).sample
    return corpus_texts(settings)


# Two strings, which nothing can change: cache_resource hands every caller the same ones.
# cache_data unpickled a copy of the whole corpus on each call, several times a page.
@cache_resource_by_owner(show_spinner=False, max_entries=16)
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
    if not isinstance(settings, Trained):
        run = opened_run(settings).run
        return run.training_characters + run.heldout_characters
    pasted = user_texts().get(settings.corpus)
    return _corpus_length(settings.corpus_key()[:2], _text=pasted, own=pasted is not None)


@cache_data_by_owner(show_spinner=False, max_entries=16)
def _corpus_length(key: tuple, _text: str | None) -> int:
    return len(_text if _text is not None else load_corpus(key[0]))


def alphabet_size(settings: Settings) -> int:
    """How many tokens training will start from (the smallest possible vocab): the base
    tokens and the special tokens."""
    if not isinstance(settings, Trained):
        return opened_run(settings).run.initial_vocab_size
    specials = settings.training.special_tokens
    return base_size(settings.training.alphabet, settings.corpus_key(), specials) + len(specials)


def base_size(alphabet: str, corpus_key: tuple, special_tokens: tuple[str, ...] = ()) -> int:
    """How many base tokens training on the text of ``corpus_key`` (as `cut_texts`) starts
    from under ``alphabet``: 256 bytes, or the distinct characters of the text outside its
    ``special_tokens``. Cached."""
    train, heldout = cut_texts(corpus_key)  # read either way: a text that cannot be read says so
    if alphabet == "bytes":
        return 256
    return _distinct_characters(corpus_key, special_tokens, train, heldout, own=corpus_key[0] in user_texts())


@cache_data_by_owner(show_spinner=False, max_entries=16)
def _distinct_characters(key: tuple, special_tokens: tuple, _train: str, _heldout: str) -> int:
    # train_run takes its base characters from both parts, so count both
    try:
        return len(base_tokens_of_texts([_train, _heldout], "characters", special_tokens))
    except BpeError:  # nothing but special tokens: training says so
        return 1


# ==================== Training
#
# A run trains on a thread of its own (`data.live_training`), shared by every session that
# asks for the same settings, so a long training (50,000 merges) shows its progress and a
# Stop button instead of holding the page (`frame.training_progress` draws them). Finished
# runs are kept for every session; a run this session stopped is kept in this session
# only: to anyone else it is not the run of those settings.


class TrainingUnderway(Exception):
    """This session's run is still training: show its progress and Stop, come back later."""

    def __init__(self, training: LiveTraining) -> None:
        super().__init__("the run is still training")
        self.training = training


class StoppedBeforeFirstMerge(Exception):
    """This session pressed Stop while its text was still being prepared: no merge to show."""

    def __init__(self, target_vocab_size: int) -> None:
        super().__init__(f"training to {target_vocab_size:,} was stopped before its first merge")
        self.target_vocab_size = target_vocab_size


def trained_run(settings: Settings) -> TrainingRun:
    """The run for these settings, trained to ``settings.training.target_vocab_size`` at most once
    per process (one object shared by every session), or the merges this session kept
    when it stopped that training.

    The session keeps its current run at hand, so an ordinary rerun (a step, a smaller
    vocab) costs nothing. Raises `TrainingUnderway` while it trains, `BpeError` on
    impossible settings or a text that will not fit in memory.
    """
    if isinstance(settings, UnreadableRun):
        raise RunFileError(settings.error)
    key = settings.training_key()
    state = st.session_state
    run = _at_hand(settings)
    if run is None:
        live = state.get(LIVE)
        if live is None or live[0].training_key() != key or not live[1].watched_by(_watcher()):
            _stop_waiting()  # the session now wants another run: its last one goes on only for others
            state[LIVE] = (settings, _join(settings))
        training = state[LIVE][1]
        if not training.done:
            raise TrainingUnderway(training)
        _stop_waiting()
        run = _outcome(training)
    state[RUN_MEMO] = (key, run)
    remember(SEEN_RUNS, key, settings, MAX_SEEN_RUNS)
    return run


def run_for(settings: Settings) -> TrainingRun:
    """The run for any settings, this session's current ones or others (a run to compare
    with): shared as `trained_run`'s are, but it leaves the session's current run alone,
    and it waits for its training with a progress bar. Every run asked for is remembered
    for `seen_runs`."""
    run = _at_hand(settings)
    if run is None:
        training = _join(settings)
        bar = st.progress(0.0, text=f"Training to {settings.training.target_vocab_size:,} tokens…")
        try:
            while not training.wait(PROGRESS_SECONDS):
                fraction, said = progress_line(training)
                bar.progress(fraction, text=said)  # also where a click on the page interrupts the wait
        finally:
            training.leave(_watcher())
            bar.empty()
        run = _outcome(training)
    remember(SEEN_RUNS, settings.training_key(), settings, MAX_SEEN_RUNS)
    return run


def run_at_hand(settings: Settings) -> TrainingRun | None:
    """The run for any settings when it needs no training (this session's current run, a
    replayed run file, the run it stopped, or a finished run still kept), else None: for a
    page that offers runs to look at, where training each run offered would cost a visit
    one training for every run let go (past `MAX_FINISHED_RUNS`, past `MAX_OWN_RUNS`, or with
    the session's earlier own text: `data.cache_scopes`)."""
    return _at_hand(settings)


def seen_runs() -> list[Settings]:
    """The settings of every run this session trained or opened, most recent first (bounded)."""
    return list(recent(SEEN_RUNS).values())


def live_training() -> LiveTraining | None:
    """The training this session waits for as its current run, if any."""
    live = st.session_state.get(LIVE)
    return live[1] if live is not None else None


def stop_training() -> None:
    """Stop button callback: leave the session's training with the merges learned so far,
    kept for this session only ("stopped at N of M merges"). The training goes on for other
    sessions waiting for it, and stops if there is none.

    The merges kept are exactly those of a training to the vocab they reach, so the sidebar
    is set to train up to that vocab: every cache keyed by the settings then holds what the
    full run of those settings would give, and the run of the settings asked for is never
    confused with the stopped one. Stopped before the first merge, nothing is kept but the
    fact (the page says so and offers to train again)."""
    state = st.session_state
    live = state.get(LIVE)
    if live is None:
        return
    settings, training = live
    run = training.run_so_far()
    _stop_waiting()
    if training.error is not None:
        return  # the page says what went wrong
    state.pop(RUN_MEMO, None)
    if run is None or not run.steps:
        state[STOPPED_RUN] = (settings.training_key(), None)
        return
    if run.stop_reason is not StopReason.STOPPED:  # it had ended: the full run, shared as any other
        return
    reached = run.final_vocab_size
    state[TRAIN_UP_TO] = reached
    state[VOCAB] = min(int(state[VOCAB]), reached)  # the pages open on its last merge
    state[STOPPED_RUN] = (settings.with_training(target_vocab_size=reached).training_key(), run)


def train_again() -> None:
    """Button callback: drop the run this session stopped and train up to the vocab it was
    to reach, in full. A vocab left at the stopped run's last merge (where Stop put it) goes
    to the full run's last merge too: "Train to 50,000 again" then shows 50,000, not the
    vocab the Stop happened to reach; a smaller vocab the user chose stays."""
    state = st.session_state
    stopped = state.pop(STOPPED_RUN, None)
    state.pop(RUN_MEMO, None)
    if stopped is not None and stopped[1] is not None:
        run = stopped[1]
        state[TRAIN_UP_TO] = run.settings.target_vocab_size
        if int(state[VOCAB]) == run.final_vocab_size:
            state[VOCAB] = run.settings.target_vocab_size


def progress_line(training: LiveTraining) -> tuple[float, str]:
    """(fraction done, one line) for a training's progress bar: merges, pace, time left."""
    progress = training.progress()
    if progress.preparing:
        return 0.0, f"Preparing the text… ({progress.seconds:,.0f} s)"
    left = progress.seconds_left
    said = (
        f"Training: merge {progress.merges:,} of {progress.target_merges:,} · "
        f"{progress.merges_per_second:,.0f} merges/s"
    )
    if left is not None:
        said += f" · about {_duration(left)} left"
    return progress.fraction, said


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{max(seconds, 1):,.0f} s"
    return f"{seconds // 60:,.0f} min {seconds % 60:02.0f} s"


def _at_hand(settings: Settings) -> TrainingRun | None:
    """The run without training: this session's current one, a replayed run file, the run
    this session stopped, or a finished run of any session. None when it must train."""
    key = settings.training_key()
    state = st.session_state
    memo = state.get(RUN_MEMO)
    if memo is not None and memo[0] == key:
        return memo[1]
    if not isinstance(settings, Trained):  # replayed from its file: never retrained
        run = opened_run(settings).run
        _require_recorded_settings(settings, run)
        return run
    stopped = state.get(STOPPED_RUN)
    if stopped is not None and stopped[0] == key:
        if stopped[1] is None:
            raise StoppedBeforeFirstMerge(settings.training.target_vocab_size)
        return stopped[1]
    return shared_trainings(own=is_own_text(settings)).finished(key)


def _join(settings: Settings) -> LiveTraining:
    """The training of these settings, joined by this session (started if none is under
    way), once its text is known to fit in memory."""
    train_text, heldout_text = corpus_texts(settings)
    # in-memory training: refuse plainly what will not fit, rather than swap or die
    training = settings.training
    check_fits_in_memory(len(train_text) + len(heldout_text), training.alphabet, training.pretokenizer)
    return shared_trainings(own=is_own_text(settings)).join(
        settings.training_key(),
        lambda: LiveTraining(train_text, training, heldout_text=heldout_text),
        _watcher(),
        session_watch(),
    )


def _outcome(training: LiveTraining) -> TrainingRun:
    """The run of an ended training, or its error as a `BpeError`."""
    if training.result is not None:
        return training.result
    raise BpeError(training.error or "the training stopped before its end; train it again")


def _stop_waiting() -> None:
    live = st.session_state.pop(LIVE, None)
    if live is not None:
        live[1].leave(_watcher())


def _watcher() -> str:
    """This session's name among a training's watchers."""
    return st.session_state.setdefault(WATCHER, uuid.uuid4().hex)


def shared_trainings(*, own: bool = False) -> SharedTrainings:
    """The runs, finished and training, of the shipped corpora (one registry per process,
    shared by every session) or, ``own``, of this session's own texts (this session's
    registry, gone when the session disconnects: nobody else holds those texts)."""
    return _trainings(MAX_OWN_RUNS if own else MAX_FINISHED_RUNS, own=own)


# A TrainingRun is frozen and nothing mutates it: one object for everyone, where a copy
# per session would grow a class's memory, and the heap the collector walks, by a run a student.
@cache_resource_by_owner(show_spinner=False)
def _trainings(keep: int) -> SharedTrainings:
    return SharedTrainings(keep=keep)


# ==================== Run files


def _require_recorded_settings(settings: Settings, run: TrainingRun) -> None:
    """A run file holds one training: settings asking for another (a variant of it, on
    Compare runs) would need its corpus, which is not here."""
    asked, recorded = settings.training, run.settings
    wanted = {
        "alphabet": (asked.alphabet, recorded.alphabet),
        "pre-tokenizer": (asked.pretokenizer, recorded.pretokenizer),
        "tie rule": (asked.tie_rule, recorded.tie_rule),
        "minimum pair frequency": (asked.minimum_pair_frequency, recorded.minimum_pair_frequency),
        "vocab size": (asked.target_vocab_size, run.final_vocab_size),
    }
    differ = [name for name, (asked, has) in wanted.items() if asked != has]
    if differ:
        raise BpeError(
            f"this run was recorded once, from a corpus that is not here, so it cannot be trained again with "
            f"another {', '.join(differ)}; open another run file (or train on a text) to compare with it"
        )


def opened_run(settings: Settings) -> RunFile:
    """The run file these settings replay (`open_run_file`). Raises `BpeError` (a
    `RunFileError`) when it cannot be read."""
    if isinstance(settings, UnreadableRun):
        raise RunFileError(settings.error)
    return open_run_file(settings.run_file, settings.corpus_version)


def open_run_file(name: str, version: str) -> RunFile:
    """The run file ``name`` (a path, or `RUN_UPLOAD_PREFIX` + an upload's name) at
    ``version``: one listed on disk is read once per process and shared
    (`st.cache_resource`, as trained runs are); one uploaded in this session is parsed once
    for this session (up to 64 MB each: nobody else holds its bytes). Raises `BpeError` (a
    `RunFileError`) when it cannot be read."""
    if name.startswith(RUN_UPLOAD_PREFIX):
        found = run_uploads().get(name)
        if found is None:
            raise RunFileError(f"the uploaded run {name[len(RUN_UPLOAD_PREFIX) :]!r} is no longer in this session")
        return _parsed_run(found[0], _raw=found[1], _name=name[len(RUN_UPLOAD_PREFIX) :])
    return _read_run(name, version)


@st.cache_resource(show_spinner="Opening the run file…", max_entries=8)
def _read_run(path: str, version: str) -> RunFile:
    return read_run_file(path)


@cache_resource_per_session(show_spinner="Opening the run file…", max_entries=8)
def _parsed_run(content_hash: str, _raw: bytes, _name: str) -> RunFile:
    return parse_run_file(_raw, name=_name)


# ==================== Tokenizers


def prefix_tokenizer(settings: Settings, run: TrainingRun, merges: int) -> BPETokenizer:
    """The tokenizer after the run's first ``merges`` merges (0 = base tokens only). Cached."""
    return _merges_tokenizer(settings.training_key(), merges, _run=run, own=is_own_text(settings))


# Tokenizers are models, not data: cache_resource shares one object instead of
# unpickling a copy on every rerun. Nothing mutates them but their bounded chunk cache.
# Tokenize's span diff asks a session for up to 7 in one run: the run at four vocab sizes
# and each other run of its own text at hand (`MAX_OWN_RUNS` and one it stopped).
@cache_resource_by_owner(show_spinner=False, max_entries=64, session_entries=7)
def _merges_tokenizer(key: tuple, merges: int, _run: TrainingRun) -> BPETokenizer:
    return _run.tokenizer(merges=merges)
