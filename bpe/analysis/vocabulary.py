"""What a run learned, token by token: the rows of the Vocabulary page's table.

Unlike `bpe.analysis.lineage` (how one token was built), this lists every learned token once, with
when it was learned and how much of it survives in the final encoding: a token created
often and used rarely was absorbed by longer tokens learned later.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from bpe.analysis.lineage import first_creations
from bpe.text import token_characters


@dataclass(frozen=True)
class LearnedToken:
    id: int
    token: object
    length: int  # characters
    step: int  # the training step that first created it
    frequency: int  # the pair's count at that step
    uses: int  # occurrences in the final encoding of the training text

    @property
    def absorbed(self) -> float:
        """Share of its count at creation no longer used at the end (0 when all survive)."""
        return max(0.0, 1 - self.uses / self.frequency) if self.frequency else 0.0


def learned_tokens(run, merges: int, usage: Counter) -> list[LearnedToken]:
    """The tokens the first ``merges`` merges of ``run`` added, in id order.

    ``usage`` is `bpe.analysis.metrics.token_usage` for the same prefix.
    """
    steps = run.steps[:merges]
    created = first_creations([s.pair for s in steps])
    rows = []
    next_id = run.initial_vocab_size  # (special tokens and base tokens come first)
    for token, index in sorted(created.items(), key=lambda item: item[1]):
        step = steps[index]
        rows.append(
            LearnedToken(next_id, token, token_characters(token), step.number, step.frequency, usage.get(token, 0))
        )
        next_id += 1
    return rows


def first_merges(run, count: int = 50) -> list[tuple[int, tuple, object, int]]:
    """(step, pair, token, frequency) of the first ``count`` merges, as the tutorial's exercise lists them."""
    return [(s.number, s.pair, s.token, s.frequency) for s in run.steps[:count]]
