"""`TrainingRun`: one training run, recorded step by step, answering every later question.

Training to vocab V yields an ordered list of merges; the tokenizer for any smaller vocab
is a prefix of it. So the app trains once, to the largest vocab the user may want, and
every later question (this step, that vocab size, held-out compression) is answered from
this record without retraining.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from bpe.alphabet import default_base_tokens, symbol_count
from bpe.errors import BpeError
from bpe.fast import HeldOutTracker
from bpe.steps import MergeStep, StopReason
from bpe.tokenizer import BPETokenizer, merges_for_vocab_size, prefix_tokenizer
from bpe.training import TrainingSettings, prepare_words, settings_from, train_steps

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

    @property
    def alphabet(self) -> str:
        return self.settings.alphabet

    @property
    def pretokenizer(self) -> str | None:
        return self.settings.pretokenizer

    @property
    def merges(self) -> list[tuple]:
        return [step.pair for step in self.steps]

    @property
    def final_vocab_size(self) -> int:
        return self.steps[-1].vocab_size if self.steps else len(self.base_tokens)

    def merge_count(self, vocab_size: int | None = None) -> int:
        """How many merges the tokenizer for ``vocab_size`` uses (all of them for None)."""
        if vocab_size is None:
            return len(self.steps)
        return merges_for_vocab_size(self.base_tokens, self.merges, vocab_size)

    def tokenizer(self, vocab_size: int | None = None, *, merges: int | None = None) -> BPETokenizer:
        """The tokenizer at ``vocab_size``, or after the first ``merges`` merges (0: base tokens
        only); neither: all of them. A prefix of this run's merges, no retraining; token ids
        agree across prefixes (base tokens first, then merge results in order)."""
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
            name="merges",
        )

    def sequence_length(self, merges: int) -> int:
        """Training sequence length after the first ``merges`` merges."""
        return self.steps[merges - 1].sequence_length if merges > 0 else self.initial_length

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
    settings = settings_from(settings, fields)
    if settings.base_tokens is None:
        settings = replace(settings, base_tokens=tuple(default_base_tokens(text + heldout_text, settings.alphabet)))
    started = time.perf_counter()
    stream = train_steps(text, settings)
    heldout = HeldOutTracker(
        prepare_words(heldout_text, settings.alphabet, settings.pretokenizer),
        stream.base_tokens,
        settings.target_vocab_size,
    )
    steps = []
    step_seconds = []
    for step in stream:
        steps.append(step)
        step_seconds.append(time.perf_counter() - started)
        heldout.apply(step)
        if progress is not None:
            progress(step, settings.target_vocab_size)
    elapsed = time.perf_counter() - started
    return TrainingRun(
        settings=settings,
        base_tokens=stream.base_tokens,
        steps=steps,
        stop_reason=stream.stop_reason,
        stop_explanation=stream.explain_stop(),
        training_seconds=elapsed,
        training_characters=len(text),
        initial_length=symbol_count(text, settings.alphabet),  # chunks join back
        heldout_characters=len(heldout_text),
        heldout_lengths=heldout.lengths,
        step_seconds=step_seconds,
    )
