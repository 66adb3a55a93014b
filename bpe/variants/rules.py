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

from collections.abc import Callable
from dataclasses import dataclass

from bpe.errors import BpeError
from bpe.steps import HUGGINGFACE, LEXICOGRAPHIC
from bpe.text import shown_value

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
    if tie_rule == HUGGINGFACE:
        return lambda pair: (hf_ids[pair[0]], hf_ids[pair[1]])
    return None


def pair_score(pair: tuple, count: int, weighted: bool) -> int:
    """What ranks a pair: its count, or (length-weighted) its count × the length of the
    token it makes in base symbols (characters, or bytes): ('t', 'he') seen 10 times scores
    30, ('a', 'b') seen 14 times 28, so 'the' wins where standard BPE takes 'ab'."""
    return count * (len(pair[0]) + len(pair[1])) if weighted else count
