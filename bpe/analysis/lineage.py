"""Where a token comes from: the tree of merges that built it, and the merges an encoding used.

A learned token is the result of one merge of two earlier tokens, each of which is a base
token (a leaf) or the result of an earlier merge, and so on down. Because the vocabulary
is a set, the same string can be produced again by a later merge of a different pair
('ab'+'c' at step 5, 'a'+'bc' at step 9); the lineage follows the step that *first*
created it, the one that gave the token its id.

Unlike `bpe.analysis.metrics` (numbers about a whole text), this module explains single tokens.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bpe.alphabet import symbols_of
from bpe.errors import BpeError
from bpe.pairs import merge_pair, merge_positions
from bpe.pretokenize import split
from bpe.text import printable


@dataclass(frozen=True)
class MergeNode:
    """One token in a lineage tree; ``left``/``right`` are None for a base token (a leaf)."""

    token: object
    step: int | None = None  # the 1-based training step that first created it; None for a leaf
    frequency: int | None = None  # the pair's count at that step; None for a leaf or unknown
    left: MergeNode | None = None
    right: MergeNode | None = None

    @property
    def is_leaf(self) -> bool:
        return self.left is None

    def steps(self) -> list[int]:
        """Every step in the tree, earliest first."""
        if self.is_leaf:
            return []
        return sorted({self.step, *self.left.steps(), *self.right.steps()})


def first_creations(merges: Sequence[tuple]) -> dict:
    """token -> index (0-based) of the first merge whose result is that token."""
    created: dict = {}
    for index, (left, right) in enumerate(merges):
        created.setdefault(left + right, index)
    return created


def merge_lineage(
    token, base_tokens: Sequence, merges: Sequence[tuple], frequencies: Sequence[int] | None = None
) -> MergeNode:
    """The tree of merges that built ``token``.

    Example: merges [('l','o'), ('lo','w')] -> 'low' = step 2 of ('lo' = step 1 of 'l','o'), 'w'.
    ``frequencies[i]`` is merge i's pair count when it was learned (a run's steps have them;
    a tokenizer file does not, so they may be omitted).
    """
    created = first_creations(merges)
    base = set(base_tokens)
    if token not in base and token not in created:
        raise BpeError(
            f"{printable(token)!r} is not in this vocabulary: neither a base token "
            f"nor the result of any of its {len(merges)} merges"
        )
    memo: dict = {}

    def build(piece) -> MergeNode:
        if piece in memo:
            return memo[piece]
        if piece in base:
            node = MergeNode(piece)
        else:
            index = created[piece]
            left, right = merges[index]
            node = MergeNode(
                piece, index + 1, frequencies[index] if frequencies is not None else None, build(left), build(right)
            )
        memo[piece] = node
        return node

    return build(token)


def lineage_of(run, token, merges: int | None = None) -> MergeNode:
    """`merge_lineage` of a token in a `TrainingRun` (first ``merges`` merges), with frequencies."""
    steps = run.steps[: len(run.steps) if merges is None else merges]
    return merge_lineage(token, run.base_tokens, [s.pair for s in steps], [s.frequency for s in steps])


def lineage_lines(node: MergeNode) -> list[str]:
    """The tree as indented text lines, whitespace made visible::

        'low'  step 2, pair count 7
        ├─ 'lo'  step 1, pair count 9
        │  ├─ 'l'  base
        │  └─ 'o'  base
        └─ 'w'  base

    A subtree already drawn is not drawn again ("as above"): '----------------' would
    otherwise repeat the tree of '--' eight times.
    """
    lines: list[str] = []
    drawn: set = set()

    def label(n: MergeNode) -> str:
        if n.is_leaf:
            return f"{printable(n.token)!r}  base"
        count = f", pair count {n.frequency:,}" if n.frequency is not None else ""
        return f"{printable(n.token)!r}  step {n.step}{count}"

    def walk(n: MergeNode, prefix: str, branch: str, child_prefix: str) -> None:
        if not n.is_leaf and n.token in drawn:
            lines.append(prefix + branch + label(n) + "  (as above)")
            return
        drawn.add(n.token)
        lines.append(prefix + branch + label(n))
        if not n.is_leaf:
            walk(n.left, prefix + child_prefix, "├─ ", "│  ")
            walk(n.right, prefix + child_prefix, "└─ ", "   ")

    walk(node, "", "", "")
    return lines


# ====================
# Which training steps an encoding used


@dataclass(frozen=True)
class AppliedMerge:
    step: int  # 1-based merge number (the training step that learned it)
    pair: tuple
    token: object
    times: int  # how often this merge fired while encoding the text


def applied_merges(tokenizer, text: str) -> list[AppliedMerge]:
    """The merges that fired when encoding ``text``, in learned order, with how often.

    Replays the merges one by one per pre-tokenizer chunk (the textbook encoder), counting
    applications; a merge whose halves are not both present is skipped without a pass, so
    a short text costs little even with thousands of merges.
    """
    fired = [0] * len(tokenizer.merges)
    tokenizer.encode(text)  # raises UnknownSymbolsError naming characters outside the alphabet
    for chunk in split(text, tokenizer.pretokenizer):
        tokens = list(symbols_of(chunk, tokenizer.alphabet))
        present = set(tokens)
        for index, (left, right) in enumerate(tokenizer.merges):
            if len(tokens) < 2:
                break
            if left not in present or right not in present:
                continue
            times = len(merge_positions(tokens, (left, right)))
            if times:
                fired[index] += times
                tokens = merge_pair(tokens, (left, right), left + right)
                present = set(tokens)
    return [
        AppliedMerge(index + 1, tokenizer.merges[index], tokenizer.merges[index][0] + tokenizer.merges[index][1], times)
        for index, times in enumerate(fired)
        if times
    ]
