"""`TrainingRun`: one training run, recorded step by step, answering every later question.

Training to vocab V yields an ordered list of merges; the tokenizer for any smaller vocab
is a prefix of it. So the app trains once, to the largest vocab the user may want, and
every later question (this step, that vocab size, held-out compression) is answered from
this record without retraining.
"""

from __future__ import annotations

import threading
import time
from array import array
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property

from bpe.errors import BpeError
from bpe.fast import HeldOutTracker
from bpe.recorded import RecordedSteps
from bpe.specials import base_tokens_of_texts, initial_length, initial_tokens
from bpe.steps import MergeStep, StepStream, StopReason
from bpe.tokenizer import BPETokenizer, prefix_tokenizer
from bpe.training import (
    TrainingSettings,
    check_vocab_size,
    engine_words,
    settings_from,
    train_steps,
)

ProgressCallback = Callable[[MergeStep, int], None]  # (latest step, target vocab size)


@dataclass(frozen=True)
class TrainingRun:
    settings: TrainingSettings
    base_tokens: list
    steps: list[MergeStep]
    stop_reason: StopReason
    stop_explanation: str
    training_seconds: float
    training_characters: int
    initial_length: int  # training sequence length before any merge (symbols)
    heldout_characters: int = 0
    # held-out sequence length after k merges; index 0 is before any merge
    heldout_lengths: list[int] = field(default_factory=list)
    # seconds from the start of training to the end of each step (a prefix's training time)
    step_seconds: list[float] = field(default_factory=list)
    # how often each token before any merge occurs in the training text, in id order (the
    # special tokens first, then the base tokens: `initial_tokens`): a run trained from counts
    # has no text, and token usage starts from these (None: use the text)
    base_counts: tuple[int, ...] | None = None

    @property
    def alphabet(self) -> str:
        return self.settings.alphabet

    @property
    def pretokenizer(self) -> str | None:
        return self.settings.pretokenizer

    @property
    def special_tokens(self) -> tuple[str, ...]:
        return getattr(self.settings, "special_tokens", ())  # (a record made by hand may leave them out)

    @property
    def initial_tokens(self) -> list:
        """The tokens before any merge, in id order: the special tokens, then the base tokens
        (`bpe.specials.initial_tokens`); without special tokens, the base tokens."""
        return initial_tokens(self.special_tokens, self.base_tokens, self.alphabet)

    @property
    def initial_vocab_size(self) -> int:
        """The vocab size before any merge: the base tokens and the special tokens."""
        return len(self.base_tokens) + len(self.special_tokens)

    # A run does not change once made, and the pages ask it for its merges and for the
    # merges of a vocab size many times a visit (each a pass over every merge, spelling
    # every token). Both are kept once found.
    @cached_property
    def _pairs(self) -> tuple[tuple, ...]:
        if isinstance(self.steps, RecordedSteps):  # without building every step
            return tuple(self.steps.pairs())
        return tuple(step.pair for step in self.steps)

    @cached_property
    def _sizes_after(self) -> array:
        return array("Q", self.vocab_sizes())  # never falls: a merge adds one token or none

    @property
    def merges(self) -> list[tuple]:
        return list(self._pairs)

    @property
    def final_vocab_size(self) -> int:
        return self.steps[-1].vocab_size if self.steps else self.initial_vocab_size

    def merge_count(self, vocab_size: int | None = None) -> int:
        """How many merges the tokenizer for ``vocab_size`` uses (all of them for None)."""
        if vocab_size is None:
            return len(self.steps)
        check_vocab_size(self.base_tokens, vocab_size, special_tokens=self.special_tokens)
        # the merges whose vocabulary stays within it: the size after each merge never falls
        # (a merge adds one token or none), so a bisection finds the last one that fits
        return bisect_right(self._sizes_after, vocab_size)

    def tokenizer(self, vocab_size: int | None = None, *, merges: int | None = None) -> BPETokenizer:
        """The tokenizer at ``vocab_size``, or after the first ``merges`` merges (0: base tokens
        only); neither: all of them. A prefix of this run's merges, no retraining; token ids
        agree across prefixes (special tokens first, then base tokens, then merge results in order)."""
        if merges is None:
            merges = self.merge_count(vocab_size)
        elif vocab_size is not None:
            raise BpeError("give vocab_size or merges, not both")
        return prefix_tokenizer(
            self.base_tokens,
            self.merges,
            merges,
            alphabet=self.alphabet,
            pretokenizer=self.pretokenizer,
            tie_rule=self.settings.tie_rule,
            special_tokens=self.special_tokens,
            name="merges",
            # a run's tokens can be long (up to `TrainingSettings.max_vocab_characters` in
            # all): each prefix's tokenizer holds the run's strings, not a copy of them
            merged=self.steps.tokens(merges)
            if isinstance(self.steps, RecordedSteps)
            else [step.token for step in self.steps[:merges]],
        )

    def sequence_length(self, merges: int) -> int:
        """Training sequence length after the first ``merges`` merges."""
        if merges <= 0:
            return self.initial_length
        if isinstance(self.steps, RecordedSteps):  # one number, not a whole step built
            return self.steps.sequence_lengths[merges - 1]
        return self.steps[merges - 1].sequence_length

    def vocab_size_after(self, merges: int) -> int:
        """The vocab size after the first ``merges`` merges."""
        if merges <= 0:
            return self.initial_vocab_size
        if isinstance(self.steps, RecordedSteps):
            return self.steps.vocab_size_after(merges)
        return self.steps[merges - 1].vocab_size

    def vocab_sizes(self) -> list[int]:
        """The vocab size after each merge, in order (a recorded run reads them from its arrays)."""
        if isinstance(self.steps, RecordedSteps):
            return self.steps.vocab_sizes()
        return [step.vocab_size for step in self.steps]

    def merges_applied(self, number: int) -> int:
        """How many times step ``number`` (1-based) really merged: how much shorter the
        sequence got. Below the step's pair count when the pair overlaps itself: 'aaaaa'
        holds four ('a', 'a') pairs, counted all, but left to right only two merge."""
        return self.sequence_length(number - 1) - self.sequence_length(number)


def train_run(
    text: str,
    settings: TrainingSettings | int | None = None,
    /,
    *,
    heldout_text: str = "",
    progress: ProgressCallback | None = None,
    **fields,
) -> TrainingRun:
    """Train and record every step; track the held-out text's length after each merge.

    Settings as for `bpe.training.train_steps`: a `TrainingSettings`, its fields by
    keyword, or the target vocab size first. Base characters come from the training and held-out text together (as the
    tutorial takes them from all splits), so held-out text never holds an unknown character.
    """
    training = start_run(text, settings, heldout_text=heldout_text, **fields)
    for step in training:
        if progress is not None:
            progress(step, training.settings.target_vocab_size)
    return training.run()


def start_run(
    text: str, settings: TrainingSettings | int | None = None, /, *, heldout_text: str = "", **fields
) -> RunInTraining:
    """`train_run`, one merge per iteration of what it returns, for a caller that may stop
    it part way (see `RunInTraining`). Raises `BpeError` on bad settings before any merge."""
    return RunInTraining(text, settings_from(settings, fields), heldout_text)


class RunInTraining:
    """A run being trained: each iteration learns one merge and records it (its step, its
    time, the held-out length after it); `run` is the `TrainingRun` of the merges so far.

    Steps are recorded as a few numbers each (`RecordedSteps`), not kept as `MergeStep`
    objects: with ten runners-up a step those are 3 KB each, 150 MB for 50,000 merges,
    more than the training itself holds for a text of 16 M characters.

    `stop` ends the training early (on the thread that iterates: the engine is a
    generator). `run` may be called from any thread while another iterates — a page's Stop
    button takes the merges learned so far while the training goes on for others. A run
    taken before the end says `StopReason.STOPPED`: its merges are exactly the first ones
    of the full run (training to a larger vocab only adds merges after them).
    """

    def __init__(
        self,
        text: str,
        settings: TrainingSettings,
        heldout_text: str,
        *,
        stream: StepStream | None = None,
        heldout=None,
    ) -> None:
        """``stream`` and ``heldout``, when given, are a training rule's own (`bpe.variants`):
        its steps, and what applies each to the held-out text (``apply(step)``, ``lengths(merges)``).
        Without them, base tokens the settings do not name are the characters of both texts."""
        if stream is None and settings.base_tokens is None:
            # the texts' characters together, without joining two big strings
            base = base_tokens_of_texts([text, heldout_text], settings.alphabet, settings.special_tokens)
            settings = replace(settings, base_tokens=tuple(base))
        self._started = time.perf_counter()
        # A rule of `bpe.variants` keeps its steps whole (Picky's carry their removals) and
        # applies each to its own held-out tracker; the core's are recorded as numbers.
        self._rule = heldout is not None
        self._steps: RecordedSteps | list[MergeStep] = []
        if stream is None:
            # The record and the engine share one map of tokens to ids: at 50,000 merges a
            # second one took 2.6 MB, and twice that at once when both grew past 43,690
            # tokens, where a dict doubles its table.
            self._steps = RecordedSteps(
                initial_tokens(settings.special_tokens, list(settings.base_tokens), settings.alphabet)
            )
            stream = train_steps(text, settings, token_ids=self._steps.ids)
        elif not self._rule:
            self._steps = RecordedSteps(initial_tokens(settings.special_tokens, stream.base_tokens, settings.alphabet))
        self._stream = stream
        self.settings = settings
        self._heldout = (
            heldout
            if heldout is not None
            else HeldOutTracker(
                engine_words(heldout_text, settings.alphabet, settings.pretokenizer, settings.special_tokens),
                initial_tokens(settings.special_tokens, self._stream.base_tokens, settings.alphabet),
                settings.target_vocab_size,
            )
        )
        self._sizes = (len(text), initial_length(text, settings.alphabet, settings.special_tokens), len(heldout_text))
        self._step_seconds = array("d")
        self._lock = threading.Lock()  # a step is recorded whole before `run` may see it
        self._ended: float | None = None
        self._reason: StopReason | None = None  # why it ended, once it has (with the last step recorded)

    def __iter__(self) -> RunInTraining:
        return self

    def __next__(self) -> MergeStep:
        try:
            step = next(self._stream)
        except StopIteration:  # the end: the stream knows why
            with self._lock:
                self._ended = self._ended or time.perf_counter()
                self._reason = self._stream.stop_reason
            raise
        seconds = time.perf_counter() - self._started
        with self._lock:
            self._steps.append(step)
            self._step_seconds.append(seconds)
            if self._rule:
                self._heldout.apply(step)
            else:
                self._heldout.apply_ids(self._steps.lefts[-1], self._steps.rights[-1], step.token_id)
        return step

    @property
    def merges(self) -> int:
        """How many merges are learned so far."""
        return len(self._steps)

    def stop(self) -> None:
        """End the training now: the engine lets go of its arrays; `run` says it was stopped."""
        self._stream.close()
        with self._lock:
            self._ended = self._ended or time.perf_counter()

    def run(self) -> TrainingRun:
        """The run of the merges learned so far (all of them once training has ended)."""
        with self._lock:
            steps = list(self._steps) if self._rule else self._steps.prefix(len(self._steps))
            step_seconds = self._step_seconds.tolist()
            heldout_lengths = self._heldout.lengths(len(steps))
            reason, ended = self._reason or StopReason.STOPPED, self._ended
        if ended is not None:
            seconds = ended - self._started
        else:  # taken while training goes on: the time to its last merge
            seconds = step_seconds[-1] if step_seconds else 0.0
        settings = self.settings
        characters, initial_length, heldout_characters = self._sizes
        return TrainingRun(
            settings=settings,
            base_tokens=self._stream.base_tokens,
            steps=steps,
            stop_reason=reason,
            stop_explanation=reason.explain_for(settings),
            training_seconds=seconds,
            training_characters=characters,
            initial_length=initial_length,
            heldout_characters=heldout_characters,
            heldout_lengths=heldout_lengths,
            step_seconds=step_seconds,
        )
