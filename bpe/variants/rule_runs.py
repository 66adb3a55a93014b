"""A training under any rule of this package, recorded: `VariantRun`, and the training
(`start_training`, `train_variant_run`) that makes one, as `bpe.run` does for standard BPE.

    run = train_variant_run(text, TrainingSettings(target_vocab_size=1_000, pretokenizer="gpt2"),
                            Variant("superbpe", transition=600), heldout_text=heldout)
    run.joined_after            # 600: the merges learned before the chunks joined
    run.tokenizer(800)          # a SuperBPETokenizer of the first merges that reach 800 tokens

A `VariantRun` is a `bpe.run.TrainingRun` (every page reads it the same way) that also knows
its rule: its tokenizers encode as the rule trained (`bpe.variants.superbpe.SuperBPETokenizer`,
`bpe.variants.picky.PickyTokenizer`; length-weighted BPE's is a plain `BPETokenizer`), and a
Picky run's vocabulary counts only live tokens. Standard BPE stays `bpe.run`'s own: a
`VariantRun` of the standard rule is never made.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, replace
from functools import cached_property

from bpe.alphabet import require_unicode
from bpe.errors import BpeError
from bpe.fast import HeldOutTracker
from bpe.recorded import RecordedSteps
from bpe.run import ProgressCallback, RunInTraining, TrainingRun, start_run
from bpe.specials import base_tokens_of_texts, initial_tokens
from bpe.steps import StepStream
from bpe.tokenizer import BPETokenizer
from bpe.training import (
    TrainingSettings,
    check_vocab_size,
    engine_steps,
    prepare_base_tokens,
    settings_from,
)
from bpe.variants.incremental import PickyHeldOut, incremental_steps
from bpe.variants.picky import PickySteps, PickyTokenizer, Removal, largest_prefix
from bpe.variants.rules import (
    LENGTH_WEIGHTED,
    PICKY,
    STANDARD_VARIANT,
    SUPERBPE,
    Variant,
    engine_options,
)
from bpe.variants.superbpe import (
    SuperBPEHeldOut,
    SuperBPETokenizer,
    check_superbpe,
    is_superword,
    segment_words,
    superbpe_steps,
)
from bpe.variants.textbook import textbook_steps


@dataclass(frozen=True)
class VariantRun(TrainingRun):
    """A `TrainingRun` under a rule beyond the textbook (``variant``). ``joined_after``:
    SuperBPE's merges learned before the chunks joined (None: they never did)."""

    variant: Variant = STANDARD_VARIANT
    joined_after: int | None = None

    @property
    def picky(self) -> bool:
        return self.variant.name == PICKY

    def tokenizer(self, vocab_size: int | None = None, *, merges: int | None = None) -> BPETokenizer:
        """As `TrainingRun.tokenizer`, encoding as the rule trained."""
        if merges is None:
            merges = self.merge_count(vocab_size)
        elif vocab_size is not None:
            raise BpeError("give vocab_size or merges, not both")
        plain = super().tokenizer(merges=merges)  # checks the count
        options = dict(
            alphabet=self.alphabet,
            pretokenizer=self.pretokenizer,
            tie_rule=self.settings.tie_rule,
            special_tokens=self.special_tokens,
        )
        if self.variant.name == SUPERBPE and self.joined_after is not None and merges >= self.joined_after:
            return SuperBPETokenizer(self.base_tokens, plain.merges, joined_after=self.joined_after, **options)
        if self.picky:
            removals = [(number, r.token, r.parts) for number, found in self.removals.items() for r in found]
            kept = [removal for removal in removals if removal[0] <= merges]
            return PickyTokenizer(
                self.base_tokens, plain.merges, removals=kept, threshold=self.variant.threshold, **options
            )
        return plain

    def merge_count(self, vocab_size: int | None = None) -> int:
        """As `TrainingRun.merge_count`; a Picky run's vocabulary shrinks at its removals, so
        its prefix for ``vocab_size`` ends before the first step that passes it."""
        if not self.picky or vocab_size is None:
            return super().merge_count(vocab_size)
        check_vocab_size(self.base_tokens, vocab_size)
        return largest_prefix(self.vocab_sizes(), vocab_size)

    def merges_applied(self, number: int) -> int:
        """As `TrainingRun.merges_applied`: a removal lengthened the text after the merge."""
        added = sum(r.count * (len(r.parts) - 1) for r in self.removals.get(number, ()))
        return super().merges_applied(number) + added

    @cached_property
    def removals(self) -> dict[int, tuple[Removal, ...]]:
        """Step number -> the tokens Picky BPE removed right after it (none for other rules)."""
        if not self.picky:
            return {}
        if isinstance(self.steps, PickySteps):
            return self.steps.removals
        return {step.number: step.removed for step in self.steps if step.removed}

    def removal_events(self) -> dict[int, list[tuple]]:
        """Step number -> (token, parts, occurrences split) of each removal: what
        `bpe.analysis.junk.run_junk` needs to follow counts through a Picky run."""
        return {number: [(r.token, r.parts, r.count) for r in found] for number, found in self.removals.items()}

    def removed_at(self, merges: int | None = None) -> dict:
        """{token: the step after which it was removed} of the tokens not in the vocabulary
        after the first ``merges`` merges (all by default): removed, not made again."""
        merges = len(self.steps) if merges is None else merges
        gone: dict = {}
        for number in sorted(n for n in self.removals if n <= merges):
            for removal in self.removals[number]:
                gone[removal.token] = number
        for step in self.steps[:merges]:
            if step.token in gone and step.number > gone[step.token]:
                del gone[step.token]  # made again after its removal
        return gone

    def superword(self, step) -> bool:
        """Whether ``step`` (a SuperBPE run's) made a token across chunks, after they joined."""
        return (
            self.variant.name == SUPERBPE
            and self.joined_after is not None
            and step.number > self.joined_after
            and is_superword(step.token, self.pretokenizer)
        )

    def rule_json(self) -> dict:
        """What a run file records of the rule (`restored` reads it back)."""
        found = self.variant.as_json()
        if self.joined_after is not None:
            found["joined_after"] = self.joined_after
        if self.picky:
            ids = _token_ids(self)
            found["removals"] = [
                [number, ids[r.token], r.count, r.pair_count, r.own_count, [ids[p] for p in r.parts]]
                for number, removed in sorted(self.removals.items())
                for r in removed
            ]
        return found


def _token_ids(run: TrainingRun) -> dict:
    ids = {token: i for i, token in enumerate(run.initial_tokens)}
    for step in run.steps:
        ids.setdefault(step.token, step.token_id)
    return ids


def restored(run: TrainingRun, recorded: dict) -> VariantRun:
    """The `VariantRun` of ``run`` (read from a run file, its steps a `RecordedSteps`) and what
    the file records of its rule (`VariantRun.rule_json`), every value checked: `BpeError`
    naming the first that is wrong."""
    variant = recorded_variant(recorded)
    joined = recorded.get("joined_after")
    if joined is not None and (
        variant.name != SUPERBPE
        or not isinstance(joined, int)
        or isinstance(joined, bool)
        or not 0 <= joined <= min(variant.transition, len(run.steps))
    ):
        raise BpeError(f"joined_after={str(joined)[:20]} does not fit its rule and its {len(run.steps):,} merges")
    steps = run.steps
    if variant.name == PICKY:
        if not isinstance(steps, RecordedSteps):
            raise BpeError("a Picky run's steps must be recorded")
        steps = PickySteps(steps, _removals(steps, recorded.get("removals")))
    elif "removals" in recorded:
        raise BpeError(f"removals belong to Picky BPE, not to {variant.label()}")
    return VariantRun(
        **{f.name: getattr(run, f.name) for f in fields(TrainingRun)} | {"steps": steps},
        variant=variant,
        joined_after=joined,
    )


def recorded_variant(recorded) -> Variant:
    """The `Variant` a run file records (`VariantRun.rule_json`), checked: `BpeError` in one line."""
    if not isinstance(recorded, dict):
        raise BpeError("its training rule is not an object")
    try:
        return Variant(str(recorded.get("rule")), recorded.get("transition"), recorded.get("threshold"))
    except TypeError:
        raise BpeError("its training rule holds a value of the wrong kind") from None


def _removals(steps: RecordedSteps, listed) -> dict[int, tuple[Removal, ...]]:
    """The removals a run file lists, each checked against the steps: its step exists, its
    token and parts exist by then, its counts are whole numbers, its IoS within 0..1."""
    if not isinstance(listed, list) or len(listed) > 2 * len(steps):
        raise BpeError("removals must be a list of at most two a merge")
    found: dict[int, list[Removal]] = {}
    vocab = steps.vocab
    for entry in listed:
        if not (isinstance(entry, list) and len(entry) == 6 and all(isinstance(v, int) for v in entry[:5])):
            raise BpeError("each removal is [step, token id, count, pair count, own count, [part ids]]")
        number, token_id, count, pair_count, own, parts = entry
        if not 1 <= number <= len(steps) or (found and number < max(found)):
            raise BpeError(f"a removal names step {number}, out of order or outside the {len(steps):,} merges")
        known = steps.vocab_size_after(number)  # the ids that exist by then
        if not (0 <= token_id < known and isinstance(parts, list) and 2 <= len(parts) <= 64):
            raise BpeError(f"the removal after step {number} names a token or parts that do not exist then")
        if not all(isinstance(p, int) and 0 <= p < known for p in parts) or token_id < steps.base_size:
            raise BpeError(f"the removal after step {number} names a part that does not exist then, or a base token")
        if count < 0 or not 1 <= pair_count <= own:
            raise BpeError(f"the removal after step {number} has counts no training gives")
        token = vocab[token_id]
        spelled = tuple(vocab[p] for p in parts)
        if type(token)().join(spelled) != token:
            raise BpeError(f"the removal after step {number} splits a token into parts that do not spell it")
        found.setdefault(number, []).append(Removal(token, token_id, spelled, count, pair_count, own))
    return {number: tuple(removed) for number, removed in found.items()}


# ==================== Training


def start_training(
    text: str | Sequence[str],
    settings: TrainingSettings,
    variant: Variant = STANDARD_VARIANT,
    *,
    heldout_text: str | Sequence[str] = "",
) -> RunInTraining:
    """`bpe.run.start_run` under ``variant``: one merge per iteration of what it returns,
    `run` the run of the merges so far (a `VariantRun` under any rule but the standard).
    ``text`` (and ``heldout_text``) may be a list of documents: no chunk spans two, and
    SuperBPE never joins across them. The settings' special tokens are taken as standard
    BPE takes them (`bpe.specials`): each document is cut at them before pre-tokenization,
    so no merge learns from or crosses one (SuperBPE's second stage stops at them as at a
    document's end), and each is one token, numbered first and counted in the vocab size."""
    documents, heldout = _documents(text), _documents(heldout_text)
    if variant.standard and len(documents) <= 1 and len(heldout) <= 1:
        return start_run("".join(documents), settings, heldout_text="".join(heldout))
    settings = settings_from(settings, {})
    if settings.base_tokens is None and documents:  # (no text: `VariantInTraining` says so)
        base = base_tokens_of_texts([*documents, *heldout], settings.alphabet, settings.special_tokens)
        settings = replace(settings, base_tokens=tuple(base))
    return VariantInTraining(documents, settings, heldout, variant)


def _documents(text: str | Sequence[str]) -> list[str]:
    if isinstance(text, str):
        return [text] if text else []
    if not all(isinstance(document, str) for document in text):
        raise BpeError("the documents must be texts (str)")
    return [document for document in text if document]


def train_variant_run(
    text: str | Sequence[str],
    settings: TrainingSettings,
    variant: Variant = STANDARD_VARIANT,
    *,
    heldout_text: str | Sequence[str] = "",
    progress: ProgressCallback | None = None,
) -> TrainingRun:
    """`bpe.run.train_run` under ``variant``; ``text``: a text or its documents (`start_training`)."""
    training = start_training(text, settings, variant, heldout_text=heldout_text)
    for step in training:
        if progress is not None:
            progress(step, settings.target_vocab_size)
    return training.run()


class VariantInTraining(RunInTraining):
    """`bpe.run.RunInTraining` of a rule of this package, over documents: its engine's steps,
    its held-out curve."""

    def __init__(self, documents: list[str], settings: TrainingSettings, heldout: list[str], variant: Variant) -> None:
        self.variant = variant
        self.joined_after: int | None = None
        stream, tracker = self._opened(documents, settings, heldout)
        super().__init__("".join(documents), settings, "".join(heldout), stream=stream, heldout=tracker)

    def _opened(self, documents: list[str], settings: TrainingSettings, heldout: list[str]) -> tuple:
        text = "".join(documents)
        if not text:
            raise BpeError("the training text is empty: give at least one character")
        require_unicode(text, "the training text")
        specials = settings.special_tokens
        base = prepare_base_tokens(text, settings.base_tokens, settings.alphabet, specials)
        check_vocab_size(base, settings.target_vocab_size, name="target_vocab_size", special_tokens=specials)
        variant = self.variant
        if variant.name == SUPERBPE:
            check_superbpe(settings)
            tracker = SuperBPEHeldOut(heldout, base, settings)

            def joined(merges: int) -> None:
                tracker.join()
                self.joined_after = merges

            steps = superbpe_steps(documents, base, settings, variant.transition, on_join=joined)
            return StepStream(steps, base_tokens=base, settings=settings), tracker
        words = segment_words(documents, settings)  # the special tokens last, a word of one symbol each
        initial = initial_tokens(specials, base, settings.alphabet)  # the special tokens first
        if variant.standard:  # documents of standard BPE: the core's engines over their chunks
            stream = engine_steps(words, base, settings)
        else:
            engine: Callable = textbook_steps if settings.engine == "reference" else incremental_steps
            steps = engine(
                words,
                initial,
                **engine_options(settings),
                max_vocab_characters=settings.max_vocab_characters,
                weighted=variant.name == LENGTH_WEIGHTED,
                threshold=variant.threshold,
            )
            stream = StepStream(steps, base_tokens=base, settings=settings)
        held = segment_words(heldout, settings)
        if variant.name == PICKY:
            tracker = PickyHeldOut(held, initial)
        else:
            tracker = HeldOutTracker(held, initial, settings.target_vocab_size)
        return stream, tracker

    def run(self) -> TrainingRun:
        run = super().run()
        if self.variant.standard:
            return run
        return VariantRun(
            **{f.name: getattr(run, f.name) for f in fields(TrainingRun)},
            variant=self.variant,
            joined_after=self.joined_after,
        )
