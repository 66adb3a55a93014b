"""The merge phase: train on a chunk table, on one machine, exactly as on the text itself.

A corpus too big to hold is counted first (`bpe.scale.count_phase`): its distinct chunks
in order of first occurrence, each with its count. Training on that table gives the same
merges as training on the text: a pair's count is the sum over the chunks holding it of
its occurrences times the chunk's count. ``"low low lower"`` (whitespace split) is the
words ``[(l o w, 1), ( l o w, 1), ( l o w e r, 1)]``; the pair ``(l, o)`` counts 3 here
as in the text, and the first merge is ``l + o`` either way.

The engine is the fast one (`bpe.fast`) over these weighted words, or its loop in compiled
code (`bpe.scale.compiled_merges`: the same steps; by default from 100 M characters up,
where numba is installed), and the run is recorded compactly (`bpe.recorded.RecordedSteps`,
spilled to a temporary file as it grows), so a run of 100,000 merges fits beside the engine. The held-out part of the
table gives the held-out curve as `bpe.run.train_run` gives it for held-out text.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable
from itertools import chain

from bpe.alphabet import CHARACTERS
from bpe.errors import BpeError
from bpe.fast import HeldOutTracker
from bpe.recorded import RecordedSteps, SpilledColumn
from bpe.run import ProgressCallback, TrainingRun
from bpe.scale.chunk_counts import ChunkCounts
from bpe.scale.compiled_merges import compiled_by_default, compiled_step_stream
from bpe.specials import NOTHING_BUT_SPECIALS, initial_tokens, special_words
from bpe.steps import DEFAULT_TIE_RULE
from bpe.training import DEFAULT_ENGINE, DEFAULT_TOP_K, TrainingSettings, check_vocab_size, engine_steps


def train_run_from_counts(
    counts: ChunkCounts,
    *,
    target_vocab_size: int,
    minimum_pair_frequency: int = 2,
    tie_rule: str = DEFAULT_TIE_RULE,
    top_k: int = DEFAULT_TOP_K,
    engine: str = DEFAULT_ENGINE,
    max_vocab_characters: int | None = None,
    compiled: bool | None = None,
    progress: ProgressCallback | None = None,
) -> TrainingRun:
    """The merge phase: train on a counts table (`bpe.scale.chunk_counts`), as `train_run` trains on
    the text it was counted from, held-out part included: the same steps, merge for merge.
    ``compiled``: the merges in compiled code (needs numba and the first-occurrence tie
    rule; `bpe.scale.compiled_merges`), or not; None: compiled where
    `bpe.scale.compiled_merges.compiled_by_default` says so (a big corpus).

    Base characters come from the training and held-out parts together, as `train_run`
    takes them from the training and held-out text."""
    base = list(counts.base_tokens)
    if counts.alphabet == CHARACTERS:
        base = sorted(set(base).union(*counts.heldout_chunks))
        if not base:  # (a text counted is never empty: it held special tokens only)
            raise BpeError(NOTHING_BUT_SPECIALS)
    settings = TrainingSettings(
        target_vocab_size=target_vocab_size,
        minimum_pair_frequency=minimum_pair_frequency,
        engine=engine,
        top_k=top_k,
        alphabet=counts.alphabet,
        pretokenizer=counts.training_pretokenizer,
        base_tokens=tuple(base),
        tie_rule=tie_rule,
        max_vocab_characters=max_vocab_characters,
        special_tokens=counts.special_tokens,  # what the text was cut at when it was counted
    )
    alphabet = counts.alphabet
    specials = special_words(dict(zip(counts.special_tokens, counts.special_counts)), alphabet)
    heldout_specials = special_words(dict(zip(counts.special_tokens, counts.heldout_special_counts)), alphabet)
    return train_run_from_words(
        chain(counts.stream_words(), specials),
        settings,
        training_characters=counts.characters,
        heldout_words=chain(counts.stream_words(heldout=True), heldout_specials),
        heldout_characters=counts.heldout_characters,
        compiled=compiled,
        progress=progress,
    )


def train_run_from_words(
    words: Iterable,
    settings: TrainingSettings,
    /,
    *,
    training_characters: int,
    heldout_words: Iterable = (),
    heldout_characters: int = 0,
    compiled: bool | None = None,
    progress: ProgressCallback | None = None,
) -> TrainingRun:
    """Train on distinct chunks and their counts (the merge phase of a corpus too big to
    hold, see `bpe.scale.chunk_counts`) and record the run compactly (`RecordedSteps`).

    ``words`` are ``(symbols, count)`` in order of first occurrence, as
    `bpe.training.prepare_words` makes them from a text: then the steps are exactly those
    of `train_run` on that text. It may be a generator (read once). ``settings`` must
    name its base tokens (the corpus's alphabet); ``training_characters`` is the corpus's
    length, for compression figures. ``heldout_words`` are the held-out text's, in the same
    form (their symbols must be base tokens), for the held-out curve. ``compiled``: the
    merges in compiled code (`train_run_from_counts`).
    """
    if settings.base_tokens is None:
        raise BpeError("training from counts needs the base tokens: the counts file records them")
    base = list(settings.base_tokens)
    check_vocab_size(base, settings.target_vocab_size, name="target_vocab_size", special_tokens=settings.special_tokens)
    started = time.perf_counter()
    counted = _CountedWords(words)
    # The record's runners-up and count changes go to a temporary file as they come: at
    # tens of thousands of merges they weigh as much as the engine (`RecordedSteps`). Its
    # map of tokens to ids is the engine's (`bpe.steps.shared_token_ids`): the special
    # tokens first, then the base tokens.
    initial = initial_tokens(settings.special_tokens, base, settings.alphabet)
    recorded = RecordedSteps(initial, spill=True)
    if compiled is None:
        compiled = compiled_by_default(settings, training_characters)
    steps = compiled_step_stream if compiled else engine_steps
    stream = steps(counted, base, settings, token_ids=recorded.ids)
    heldout = HeldOutTracker(heldout_words, initial, settings.target_vocab_size)
    lefts, rights = recorded.lefts, recorded.rights
    step_seconds = SpilledColumn("d")
    try:
        for step in stream:
            recorded.append(step)
            step_seconds.append(time.perf_counter() - started)
            heldout.apply_ids(lefts[-1], rights[-1], step.token_id)  # the record's ids: no map of its own
            if progress is not None:
                progress(step, settings.target_vocab_size)
    finally:
        stream.close()  # stopped early (Ctrl-C): the engine lets go of its arrays now
    return TrainingRun(
        settings=settings,
        base_tokens=base,
        steps=recorded,
        stop_reason=stream.stop_reason,
        stop_explanation=stream.explain_stop(),
        training_seconds=time.perf_counter() - started,
        training_characters=training_characters,
        initial_length=counted.symbols,
        heldout_characters=heldout_characters,
        base_counts=tuple(counted.base_counts.get(token, 0) for token in initial),
        heldout_lengths=heldout.lengths(),
        step_seconds=step_seconds,
    )


class _CountedWords:
    """The words passed through once, adding up how many base symbols they stand for, and
    how often each base symbol occurs (what token usage starts from).

    A word's symbols are its base tokens, or a chunk's UTF-8 bytes (see
    `bpe.scale.chunk_counts.ChunkCounts.stream_words`). Symbols are counted in C, words of
    equal count together: a million chunks' worth one `Counter` at a time rather than one
    per chunk. Those that occur once, ``[(b"ab", 1), (b"b", 1), (b"a", 4)]``, are joined
    into ``b"abb"`` and counted as such; ``b"a"`` is counted apart and its counts taken 4 times.
    """

    PENDING_SYMBOLS = 1 << 20  # symbols held before they are counted

    def __init__(self, words: Iterable) -> None:
        self.words = words
        self.symbols = 0
        self._counted: Counter = Counter()  # a symbol (a character, a token, or a byte's value) -> count
        self._pending: dict[tuple, list] = {}  # (kind of symbols, word count) -> the symbols of such words
        self._pending_symbols = 0

    def __iter__(self):
        pending = self._pending
        for symbols, count in self.words:
            self.symbols += len(symbols) * count
            key = (type(symbols), count)
            group = pending.get(key)
            if group is None:
                group = pending[key] = []
            group.append(symbols)
            self._pending_symbols += len(symbols)
            if self._pending_symbols >= self.PENDING_SYMBOLS:
                self._count_pending()
            yield symbols, count
        self._count_pending()

    def _count_pending(self) -> None:
        counted = self._counted
        for (kind, count), group in self._pending.items():
            joined = kind().join(group) if kind in (bytes, str) else [s for symbols in group for s in symbols]
            for symbol, times in Counter(joined).items():
                counted[symbol] += times * count
        self._pending.clear()
        self._pending_symbols = 0

    @property
    def base_counts(self) -> dict:
        """How often each base token occurs: a byte's value counted stands for its token."""
        return {bytes((symbol,)) if type(symbol) is int else symbol: n for symbol, n in self._counted.items()}
