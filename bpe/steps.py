"""What one training step records, and the rules every engine shares.

Training yields one `MergeStep` per merge. The record holds what a display needs (the
winning pair, the competing pairs before the merge, how pair counts changed), so pages and
the command line draw from the same stream and the engines never print.

The rules, identical in both engines:

- the most frequent adjacent pair wins; among equally frequent pairs the tie rule decides
  (`TIE_RULES`; by default the pair whose first occurrence in the current sequence is
  earliest, what ``Counter.most_common`` does on pairs counted left to right);
- training stops when the vocabulary reaches the target, when no pair is left, when
  the best pair occurs fewer than ``minimum_pair_frequency`` times, or when its token would
  take the merges' tokens past ``max_vocab_characters`` characters in all (`over_budget`);
- the vocabulary is a *set* of strings: a merge whose result already exists adds no token.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from enum import Enum

from bpe.alphabet import Token, bytes_to_unicode
from bpe.errors import BpeError
from bpe.io.memory import return_free_memory

Pair = tuple[Token, Token]

# How a tie between equally frequent pairs is broken (the engines' ``tie_rule``):
# - "first_occurrence": the pair that occurs first in the current sequence (the tutorial's
#   ``Counter.most_common``);
# - "lexicographic": the smallest (left, right) pair of token strings (bytes for the byte
#   alphabet), so the result does not depend on where pairs occur;
# - "lexicographic_greatest": the greatest such pair, as Stanford CS336's assignment breaks
#   ties (its handout: "es" and "st" tie, take "st"). Characters compare by their UTF-8
#   bytes, which is the order of their code points, so ('é', 'a') > ('e', 'z');
# - "huggingface": the smallest (left id, right id) pair as Hugging Face `tokenizers`'
#   BpeTrainer numbers tokens: its special tokens first, then the base alphabet by
#   character code, then each new token in the order it was made (see `huggingface_order`).
FIRST_OCCURRENCE, LEXICOGRAPHIC, LEXICOGRAPHIC_GREATEST, HUGGINGFACE = TIE_RULES = (
    "first_occurrence",
    "lexicographic",
    "lexicographic_greatest",
    "huggingface",
)
DEFAULT_TIE_RULE = FIRST_OCCURRENCE

# How many pair-count changes a step keeps (largest first): enough to show what a merge did.
CHANGES_KEPT = 16


def over_budget(held: int, token_length: int, max_vocab_characters: int | None) -> bool:
    """Whether a merge's token of ``token_length`` would take the ``held`` characters of
    the merges' tokens so far past ``max_vocab_characters`` (None: no bound).

    What a run holds grows with its tokens' strings: every step keeps its token, and each
    tokenizer built from the run spells every token out again. Real settings keep tokens
    short (a few characters on average); merging pairs seen once (minimum pair frequency
    1) on text without a pre-tokenizer grows one token by a symbol a merge, so 50,000
    merges of 540,000 characters hold about 3 billion characters. The bound is checked
    before the merge, so the run stops at its last merge within it: a prefix of the
    unbounded run, the same in every engine."""
    return max_vocab_characters is not None and held + token_length > max_vocab_characters


class StopReason(str, Enum):
    TARGET_REACHED = "target_reached"
    NO_PAIRS_LEFT = "no_pairs_left"
    BELOW_MINIMUM_FREQUENCY = "below_minimum_frequency"
    STOPPED = "stopped"  # asked to stop before any of the above (a Stop button): a prefix of the full run
    # the next merge's token would take all merges' tokens past ``max_vocab_characters``:
    # a prefix of the unbounded run, as STOPPED is
    VOCAB_CHARACTERS_REACHED = "vocab_characters_reached"

    def explain(
        self, *, target_vocab_size: int, minimum_pair_frequency: int, max_vocab_characters: int | None = None
    ) -> str:
        # plain words, shown to a class: no parameter names, thousands separators
        if self is StopReason.TARGET_REACHED:
            return f"reached the target vocabulary of {target_vocab_size:,} tokens"
        if self is StopReason.NO_PAIRS_LEFT:
            return "no adjacent pair is left to merge (every chunk is a single token)"
        if self is StopReason.STOPPED:
            return f"it was stopped before reaching the target vocabulary of {target_vocab_size:,} tokens"
        if self is StopReason.VOCAB_CHARACTERS_REACHED:
            limit = f"{max_vocab_characters:,} " if max_vocab_characters is not None else ""
            # a run stops here only when tokens grow long: each merge of once-seen pairs
            # makes a longer token than the last, and those lengths add up quadratically
            advice = "; a minimum pair frequency of 2 keeps tokens short" if minimum_pair_frequency < 2 else ""
            return (
                f"the next merge would take its tokens past {limit}characters in all, "
                f"the most one run may hold here{advice}"
            )
        return f"the most frequent pair occurs fewer than {minimum_pair_frequency:,} times (the minimum pair frequency)"

    def explain_for(self, settings) -> str:
        """`explain` with the figures of a training's settings (`bpe.training.TrainingSettings`
        or any object with its three fields): the one way runs, run files and streams say it."""
        return self.explain(
            target_vocab_size=settings.target_vocab_size,
            minimum_pair_frequency=settings.minimum_pair_frequency,
            max_vocab_characters=settings.max_vocab_characters,
        )


@dataclass(frozen=True)
class MergeStep:
    """One merge of a training run.

    ``top_pairs`` are the most frequent pairs *before* the merge (the winner first), ties
    in the order of the run's tie rule. ``count_changes`` are the pair counts the merge
    changed, largest change first: the merged pair disappears (negative), the new
    neighbour pairs appear (positive). ``sequence_length`` and ``vocab_size`` are *after* the merge.
    """

    number: int
    pair: Pair
    token: Token
    token_id: int
    frequency: int
    top_pairs: tuple[tuple[Pair, int], ...]
    count_changes: tuple[tuple[Pair, int], ...]
    sequence_length: int
    vocab_size: int

    new_token: bool  # False when the merged string already existed (the vocabulary is a set)


def make_step(
    *, number, pair, token, token_id, frequency, top_pairs, changes, sequence_length, vocab_size, new
) -> MergeStep:
    return MergeStep(
        number,
        pair,
        token,
        token_id,
        frequency,
        tuple(top_pairs),
        keep_largest_changes(changes),
        sequence_length,
        vocab_size,
        new,
    )


def keep_largest_changes(changes: dict) -> tuple[tuple[Pair, int], ...]:
    """The `CHANGES_KEPT` largest count changes, in an order both engines reproduce."""
    nonzero = [(pair, delta) for pair, delta in changes.items() if delta]
    nonzero.sort(key=lambda item: (-abs(item[1]), -item[1], item[0]))
    return tuple(nonzero[:CHANGES_KEPT])


def shared_token_ids(base_tokens: list, token_ids: dict | None) -> dict:
    """The map an engine keeps of every token so far to its id, as steps number them (the
    base tokens first, then each new token in the order it is made): ``token_ids`` when the
    caller gives one, to be extended, else a new one. A caller that records steps by id
    (`bpe.recorded.RecordedSteps`) needs the same map: at 50,000 merges one is megabytes,
    so engine and record share it."""
    if token_ids is None:
        return {token: i for i, token in enumerate(base_tokens)}
    if len(token_ids) != len(base_tokens) or any(token_ids.get(t) != i for i, t in enumerate(base_tokens)):
        raise BpeError("a shared token map must hold the base tokens, numbered in order, and nothing else")
    return token_ids


def check_tie_rule(tie_rule: str) -> str:
    if tie_rule not in TIE_RULES:
        raise BpeError(f"unknown tie_rule {tie_rule!r}: choose one of {', '.join(TIE_RULES)}")
    return tie_rule


def huggingface_order(initial_tokens: list) -> list:
    """The tokens before any merge in the order Hugging Face's BpeTrainer numbers them: its
    special tokens first, as given (the only tokens of more than one symbol here, see
    `bpe.specials.initial_tokens`), then its alphabet by character code. Byte tokens go by
    the code of their GPT-2 spelling, as its ByteLevel alphabet does."""
    specials = [token for token in initial_tokens if len(token) > 1]
    return specials + sorted((token for token in initial_tokens if len(token) == 1), key=_huggingface_code)


# Each byte b as the character 255 - b, so that larger bytes sort first.
_DESCENDING = {value: 255 - value for value in range(256)}
_END = chr(256)  # after every token's characters: above all of them (see `descending_key`)


def descending_key(token: Token) -> str:
    """A key that sorts tokens from the lexicographically greatest to the smallest, compared
    in C as strings: each UTF-8 byte b becomes the character 255 - b, and a last character
    above all of them ends the key, so a token sorts after every token it is a prefix of
    (``"s" < "st"``, so ``descending_key("st") < descending_key("s")``). Two tokens' keys
    never have one as a prefix of the other, so a pair's key can be compared part by part.

    >>> sorted(["es", "st", "s"], key=descending_key)
    ['st', 's', 'es']
    """
    raw = token if isinstance(token, bytes) else token.encode("utf-8")
    return raw.decode("latin-1").translate(_DESCENDING) + _END


def _huggingface_code(token: Token) -> int:
    return ord(bytes_to_unicode()[token[0]]) if isinstance(token, bytes) else ord(token)


def log_line(step: MergeStep) -> str:
    """The tutorial's log line: ``Merge    1: ('l', 'o') → 'lo', frequency=2, ...``."""
    return (
        f"Merge {step.number:4d}: {step.pair!r} → {step.token!r}, frequency={step.frequency}, "
        f"sequence length={step.sequence_length:,}, vocab size={step.vocab_size}"
    )


def should_log(number: int) -> bool:
    """The tutorial logs the first 20 merges, then every 100th."""
    return number <= 20 or number % 100 == 0


class StepStream:
    """An iterator of `MergeStep` that also says why it stopped.

    ``base_tokens`` is known before the first step; ``stop_reason`` once the stream is
    exhausted (``None`` until then).
    """

    def __init__(self, steps: Generator[MergeStep, None, StopReason], *, base_tokens: list, settings) -> None:
        self._steps = steps
        self.base_tokens = base_tokens
        self.settings = settings
        self.stop_reason: StopReason | None = None

    def __iter__(self) -> StepStream:
        return self

    def __next__(self) -> MergeStep:
        try:
            return next(self._steps)
        except StopIteration as stop:
            self.stop_reason = stop.value
            # The engine has freed its arrays: given back, they do not keep the process as
            # large as the training at its busiest (a server's sessions train in turn).
            return_free_memory()
            raise StopIteration from None

    def close(self) -> None:
        """Stop early: the engine lets go of what it holds (see `bpe.fast`)."""
        self._steps.close()
        return_free_memory()

    def explain_stop(self) -> str:
        if self.stop_reason is None:
            return "training has not finished"
        return self.stop_reason.explain_for(self.settings)
