"""Pretrained tokenizers (GPT-2, GPT-4, a file the visitor uploaded) measured like a run.

A run has a compression point per vocab size. A pretrained tokenizer has one vocabulary,
but its first merges are what a shorter training run would have kept (`with_merges`),
so it has a curve too: characters per token of the same text at the same vocab sizes.
Its merges were learned on other text (WebText for GPT-2), so where the run's curve rises
above it, the run has learned pieces of this text in particular.

    >>> curve_sizes(256, 5_000, 4)
    [257, 691, 1859, 5000]
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bpe.analysis.metrics import compression
from bpe.tokenizer import BPETokenizer

CURVE_POINTS = 10


@dataclass(frozen=True)
class PrefixPoint:
    """``tokenizer.with_merges(merges)``: its vocab size and characters per token of the text."""

    merges: int
    vocab_size: int
    compression: float


def curve_sizes(low: int, high: int, count: int = CURVE_POINTS) -> list[int]:
    """Up to ``count`` distinct vocab sizes from just above ``low`` (a pretrained alphabet:
    no merges is no curve) to ``high``, evenly spread on a log scale, where the curve bends."""
    start = low + 1
    if high < start:
        return []
    if count < 2 or high == start:
        return [high]
    ratio = (high / start) ** (1 / (count - 1))
    return sorted({min(high, round(start * ratio**i)) for i in range(count)} | {high})


def prefix_curve(tokenizer, text: str, vocab_sizes) -> list[PrefixPoint]:
    """Characters per token of ``text`` for ``tokenizer`` cut to each of ``vocab_sizes``
    (sizes at or under its alphabet are skipped; a size past its merges keeps them all).
    Raises `BpeError` when the tokenizer cannot encode ``text`` (a character-level one)."""
    base = len(tokenizer.base_tokens)
    available = len(tokenizer.merges) if isinstance(tokenizer, BPETokenizer) else math.inf
    points = []
    for size in sorted(set(vocab_sizes)):
        if size <= base:
            continue
        merges = int(min(size - base, available))
        cut = tokenizer.with_merges(merges)
        points.append(PrefixPoint(merges, cut.vocab_size, compression(len(text), len(cut.encode(text)))))
    return points


def full_compression(tokenizer, text: str) -> float:
    """Characters per token of ``text`` with the whole vocabulary."""
    return compression(len(text), len(tokenizer.encode(text)))
