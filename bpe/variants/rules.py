"""Which training rule a run follows, checked once: `Variant`.

    Variant()                                   # standard BPE: the textbook rule
    Variant("superbpe", transition=500)         # SuperBPE: chunks join after 500 merges
    Variant("picky", threshold=0.9)             # Picky BPE: removes parts whose IoS reaches 0.9
    Variant("length_weighted")                  # pairs scored by count × length

The engines: the textbook loop extended (`bpe.variants.textbook`) and its incremental twin
(`bpe.variants.incremental`) for Picky and length-weighted BPE, whose removals live in
`bpe.variants.picky`; SuperBPE's two stages in `bpe.variants.superbpe`. `bpe.variants.rule_runs`
trains and records a run under any of them. Ties between pairs ranked equal follow the tie rules of `bpe.steps` in every one
(`pair_tie_key`), as in the core engines.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass

from bpe.errors import BpeError
from bpe.specials import AllowedSpecial, encode_with_specials
from bpe.steps import HUGGINGFACE, LEXICOGRAPHIC, LEXICOGRAPHIC_GREATEST, descending_key
from bpe.storage import fingerprint_of
from bpe.text import shown_value
from bpe.tokenizer import BPETokenizer

STANDARD, SUPERBPE, PICKY, LENGTH_WEIGHTED = VARIANTS = ("standard", "superbpe", "picky", "length_weighted")
DEFAULT_THRESHOLD = 0.9  # Picky BPE's IoS threshold, its paper's choice for English
NAMES = {
    STANDARD: "standard BPE",
    SUPERBPE: "SuperBPE",
    PICKY: "Picky BPE",
    LENGTH_WEIGHTED: "length-weighted BPE",
}
# One line each: what the rule changes in the loop, for a page or --help.
WHAT_CHANGES = {
    STANDARD: "the most frequent pair wins",
    SUPERBPE: "the first merges stay inside pre-tokenizer chunks; after the transition, chunks join across "
    "whitespace (never across a document or special token) and superword tokens form (Liu et al., 2025)",
    PICKY: "after each merge, a part whose IoS (the pair's count ÷ its own count) reaches the threshold is "
    "removed from the vocabulary and its occurrences split back into its parts (Chizhov et al., 2024)",
    LENGTH_WEIGHTED: "a pair's score is its count × the length of the token it makes (in base symbols): an "
    "approximation of length-maximising tokenizers, not Length-MAX itself",
}


@dataclass(frozen=True)
class Variant:
    """A training rule and its one setting: ``transition`` (SuperBPE: merges learned inside
    chunks before they join) or ``threshold`` (Picky BPE: the IoS at which a token goes,
    0.9 by default). A setting the rule does not take is refused, not ignored."""

    name: str = STANDARD
    transition: int | None = None
    threshold: float | None = None

    def __post_init__(self) -> None:
        if self.name not in VARIANTS:
            raise BpeError(f"unknown training rule {shown_value(self.name)}: choose one of {', '.join(VARIANTS)}")
        transition, threshold = self.transition, self.threshold
        if self.name == SUPERBPE:
            if not isinstance(transition, int) or isinstance(transition, bool) or transition < 0:
                raise BpeError(
                    f"SuperBPE needs its transition, a whole number of merges of at least 0 "
                    f"(got {shown_value(transition)}): the merges learned inside chunks before they join"
                )
        elif transition is not None:
            raise BpeError(f"a transition is SuperBPE's setting; {NAMES[self.name]} takes none")
        if self.name == PICKY:
            if threshold is None:
                object.__setattr__(self, "threshold", DEFAULT_THRESHOLD)
            elif isinstance(threshold, bool) or not isinstance(threshold, int | float) or not 0 < threshold <= 1:
                raise BpeError(f"Picky BPE's threshold={shown_value(threshold)} must be a number above 0, at most 1")
            else:
                object.__setattr__(self, "threshold", float(threshold))
        elif threshold is not None:
            raise BpeError(f"a threshold is Picky BPE's setting; {NAMES[self.name]} takes none")

    @property
    def standard(self) -> bool:
        return self.name == STANDARD

    def label(self) -> str:
        """The rule as a legend names it: "SuperBPE (chunks join after 500 merges)"."""
        if self.name == SUPERBPE:
            return f"SuperBPE (chunks join after {self.transition:,} merges)"
        if self.name == PICKY:
            return f"Picky BPE (IoS threshold {self.threshold:g})"
        return NAMES[self.name]

    def as_json(self) -> dict:
        """What a run file and ``inspect --json`` record of it."""
        found: dict = {"rule": self.name}
        if self.transition is not None:
            found["transition"] = self.transition
        if self.threshold is not None:
            found["threshold"] = self.threshold
        return found


STANDARD_VARIANT = Variant()


def pair_tie_key(tie_rule: str, hf_ids: dict) -> Callable | None:
    """The tie rule as a key on pairs, smallest first; None for first occurrence, which the
    caller knows from where pairs occur. ``hf_ids`` is Hugging Face's numbering of tokens
    (`bpe.steps.huggingface_order`, each new token last), which the training loop extends."""
    if tie_rule == LEXICOGRAPHIC:
        return lambda pair: pair
    if tie_rule == LEXICOGRAPHIC_GREATEST:  # CS336's: the greatest pair first (`bpe.steps.descending_key`)
        return lambda pair: (descending_key(pair[0]), descending_key(pair[1]))
    if tie_rule == HUGGINGFACE:
        return lambda pair: (hf_ids[pair[0]], hf_ids[pair[1]])
    return None


def pair_score(pair: tuple, count: int, weighted: bool) -> int:
    """What ranks a pair: its count, or (length-weighted) its count × the length of the
    token it makes in base symbols (characters, or bytes): ('t', 'he') seen 10 times scores
    30, ('a', 'b') seen 14 times 28, so 'the' wins where standard BPE takes 'ab'."""
    return count * (len(pair[0]) + len(pair[1])) if weighted else count


def engine_options(settings) -> dict:
    """What an engine takes from a `bpe.training.TrainingSettings` besides its words and base tokens."""
    return dict(
        target_vocab_size=settings.target_vocab_size,
        minimum_pair_frequency=settings.minimum_pair_frequency,
        top_k=settings.top_k,
        tie_rule=settings.tie_rule,
    )


class RuleTokenizer(BPETokenizer):
    """A `BPETokenizer` that encodes by a rule its merges alone do not say (SuperBPE's
    transition, Picky's removals): BPE Lab's tokenizer file cannot hold it (``data`` says
    why, ``UNSAVED``), its fingerprint hashes the merges' with what the rule adds
    (`rule_state`), and two are equal only with the same rule state."""

    UNSAVED = "BPE Lab's tokenizer file holds merges only"

    def encode(
        self, text: str, *, allowed_special: AllowedSpecial = "all", disallowed_special: AllowedSpecial = "all"
    ) -> list[int]:
        """Text to ids: cut at its special tokens as `BPETokenizer.encode` cuts it (tiktoken's
        arguments, the same defaults), each special token its id, each stretch between two
        of them the rule's `encode_ordinary` (each subclass has its own)."""
        if not isinstance(text, str):
            raise BpeError(f"encode takes a str, got {type(text).__name__}")
        return encode_with_specials(
            text,
            self.special_tokens,
            self.encode_ordinary,
            allowed_special=allowed_special,
            disallowed_special=disallowed_special,
            name="this tokenizer",
        )

    def rule_state(self) -> list:
        """What the rule adds to the merges, as JSON values (each subclass says)."""
        raise NotImplementedError

    def data(self):
        raise BpeError(self.UNSAVED)

    def fingerprint(self) -> str:
        if self._fingerprint is None:
            both = json.dumps([fingerprint_of(super().data()), *self.rule_state()], separators=(",", ":"))
            self._fingerprint = hashlib.sha256(both.encode("utf-8")).hexdigest()
        return self._fingerprint

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and super().__eq__(other) and self.rule_state() == other.rule_state()

    __hash__ = None  # type: ignore[assignment]
