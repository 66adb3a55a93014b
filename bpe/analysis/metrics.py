"""What BPE buys, in numbers: compression, context-window coverage, embedding and attention cost.

Everything here reads a finished `TrainingRun` or a list of tokens; nothing retrains.
The compression curve comes from the step stream (training sequence length after each
merge) and from ``run.heldout_lengths`` (held-out length after each merge), so one run
gives every point of it.

Definitions used throughout:

- compression = characters / tokens ("characters per token"); 1.0 at character level.
- token-count reduction = 1 - tokens / characters: the share of character-level tokens saved.
- coverage of a block of T tokens = the characters those T tokens decode to. Windows are
  non-overlapping (tokens 0..T-1, T..2T-1, ...), only full windows count, and a text
  shorter than T tokens is one (partial) window: the same rule as ``python -m bpe build``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bpe.alphabet import symbols_of
from bpe.errors import BpeError
from bpe.specials import as_token, pieces
from bpe.text import token_characters

# Held-out compression "parts" from training compression once it is this much lower (relative).
DEFAULT_PARTING_GAP = 0.05


# ====================
# Compression


def compression(characters: int, tokens: int) -> float:
    """Characters per token. Example: 52 characters in 13 tokens -> 4.0 (0.0 for no tokens)."""
    return characters / tokens if tokens else 0.0


def token_count_reduction(characters: int, tokens: int) -> float:
    """Share of character-level tokens saved. Example: 52 characters, 13 tokens -> 0.75."""
    return 1 - tokens / characters if characters else 0.0


# ====================
# Cost: embedding parameters and attention


def embedding_parameters(vocab_size: int, d: int, *, tied: bool = True) -> int:
    """Parameters spent on the vocabulary: the embedding table is vocab_size × d; an untied
    output head (logits over the vocabulary) is another vocab_size × d, so untied doubles it."""
    if vocab_size < 1 or d < 1:
        raise BpeError(f"vocab_size={vocab_size} and d={d} must both be at least 1")
    return vocab_size * d * (1 if tied else 2)


def relative_attention_cost(tokens: int, baseline_tokens: int) -> float:
    """Attention over n tokens costs ∝ n²: the cost of ``tokens`` relative to ``baseline_tokens``.

    Example: 250 tokens against 1,000 characters -> 0.0625 (a sixteenth).
    """
    if baseline_tokens < 1:
        raise BpeError(f"baseline_tokens={baseline_tokens} must be at least 1")
    return (tokens / baseline_tokens) ** 2


# ====================
# Context-window coverage


def token_lengths(tokens: Iterable) -> list[int]:
    """Per-token character counts, e.g. from ``tokenizer.encode_tokens(text)``."""
    return [token_characters(token) for token in tokens]


@dataclass(frozen=True)
class Coverage:
    """Characters covered by windows of ``block_size`` consecutive tokens."""

    block_size: int
    windows: int  # how many windows were measured (full ones; 1 partial when the text is short)
    mean: float
    p10: float  # 10th percentile over windows
    p90: float
    tokens: int  # tokens in the whole text measured
    characters: int

    @property
    def partial(self) -> bool:
        """True when the text holds fewer than ``block_size`` tokens (one short window)."""
        return self.tokens < self.block_size


def context_coverage(lengths: Sequence[int], block_size: int) -> Coverage:
    """Coverage statistics from per-token character counts (see `token_lengths`).

    Example: lengths [1, 2, 3, 4, 5], block 2 -> windows [1+2, 3+4] (the lone 5 is not a
    full window): mean 5.0, p10 3.4, p90 6.6.
    """
    if block_size < 1:
        raise BpeError(f"block_size={block_size} must be at least 1")
    windows = [
        sum(lengths[start : start + block_size]) for start in range(0, len(lengths) - block_size + 1, block_size)
    ]
    if not windows:
        windows = [sum(lengths)]
    return Coverage(
        block_size,
        len(windows),
        sum(windows) / len(windows),
        percentile(windows, 10),
        percentile(windows, 90),
        len(lengths),
        sum(lengths),
    )


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile with linear interpolation between ranks (numpy's default).

    Example: percentile([3, 7], 10) -> 3.4.
    """
    if not values:
        raise BpeError("percentile of no values")
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


# ====================
# The compression curve of one run


@dataclass(frozen=True)
class CurvePoint:
    merges: int  # the tokenizer at this point uses the first `merges` merges
    vocab_size: int
    train_compression: float
    heldout_compression: float | None  # None when the run had no held-out text


def compression_curve(run) -> list[CurvePoint]:
    """Characters per token on training and held-out text at every vocab size of ``run``.

    One point per vocab size, from 0 merges (the alphabet) on. When a merge adds no token
    (its result already existed) the vocab size repeats; the point kept is the last merge at
    that size, which is exactly the tokenizer ``run.tokenizer(vocab_size)`` returns.
    """
    by_size: dict[int, CurvePoint] = {}
    sizes = [run.initial_vocab_size, *run.vocab_sizes()]
    for merges, vocab_size in enumerate(sizes):
        heldout = None
        if run.heldout_characters and merges < len(run.heldout_lengths):
            heldout = compression(run.heldout_characters, run.heldout_lengths[merges])
        by_size[vocab_size] = CurvePoint(
            merges, vocab_size, compression(run.training_characters, run.sequence_length(merges)), heldout
        )
    return sorted(by_size.values(), key=lambda point: point.vocab_size)


def parting_point(curve: Sequence[CurvePoint], relative_gap: float = DEFAULT_PARTING_GAP) -> CurvePoint | None:
    """The first point where held-out compression is more than ``relative_gap`` below training
    compression (0.05: 5 % fewer characters per token): where the tokenizer starts learning
    pieces particular to its training text. None if the curves never part (or no held-out)."""
    for point in curve:
        if point.heldout_compression is not None and point.train_compression > 0:
            if (point.train_compression - point.heldout_compression) / point.train_compression > relative_gap:
                return point
    return None


# ====================
# Token usage in the final encoding


def token_usage(run, training_text: str | None, merges: int | None = None) -> Counter:
    """How often each token occurs when the training text is encoded with the first ``merges``
    merges (all by default), without encoding it again. ``training_text`` None: a run
    trained from counts (or replayed from its file), which records its base-token counts.

    Each application of a merge removes one left and one right token and adds one merged
    token, and the training sequence shrinks by exactly one per application, so step k
    was applied ``length(k-1) - length(k)`` times. Starting from the base-symbol counts of
    the text, that bookkeeping gives the counts of the final encoding exactly.
    """
    count = len(run.steps) if merges is None else merges
    if not 0 <= count <= len(run.steps):
        raise BpeError(f"merges={merges} is outside 0..{len(run.steps)} (the run has {len(run.steps)} merges)")
    if training_text is None:
        if run.base_counts is None:
            raise BpeError("this run records no base-token counts: give its training text")
        usage = Counter(dict(zip(run.initial_tokens, run.base_counts)))
    else:  # a special token is one token of its own (`bpe.specials`)
        usage = Counter()
        for piece in pieces(training_text, run.special_tokens):
            if piece in run.special_tokens:
                usage[as_token(piece, run.alphabet)] += 1
            else:
                usage.update(symbols_of(piece, run.alphabet))
    previous = run.initial_length
    for step in run.steps[:count]:
        applied = previous - step.sequence_length
        previous = step.sequence_length
        left, right = step.pair
        usage[left] -= applied
        usage[right] -= applied
        usage[step.token] += applied
    return +usage  # drops tokens used zero times


# ====================
# One row of the tutorial's comparison table


@dataclass(frozen=True)
class SizeSummary:
    requested_vocab_size: int
    vocab_size: int  # what the run reaches at or under the request
    merges: int
    training_seconds: float  # time to reach this size within the run
    sequence_length: int
    compression: float
    reduction: float
    heldout_compression: float | None
    longest_tokens: tuple  # the 10 longest tokens, longest first, ties by id
    embedding_parameters: int


def size_summary(run, vocab_size: int, d: int = 128, *, longest: int = 10) -> SizeSummary:
    """The comparison-table row for ``vocab_size``, read from the one run (no retraining).

    Training time comes from ``run.step_seconds`` (cumulative seconds after each step).
    """
    tokenizer = run.tokenizer(vocab_size)
    merges = len(tokenizer.merges)
    length = run.sequence_length(merges)
    heldout = None
    if run.heldout_characters and merges < len(run.heldout_lengths):
        heldout = compression(run.heldout_characters, run.heldout_lengths[merges])
    seconds = run.step_seconds[merges - 1] if merges else 0.0
    return SizeSummary(
        vocab_size,
        tokenizer.vocab_size,
        merges,
        seconds,
        length,
        compression(run.training_characters, length),
        token_count_reduction(run.initial_length, length),
        heldout,
        tuple(token for _, token in longest_tokens(tokenizer, longest)),
        embedding_parameters(tokenizer.vocab_size, d),
    )


def longest_tokens(tokenizer, count: int, *, learned_only: bool = False) -> list[tuple[int, str | bytes]]:
    """The ``count`` longest tokens as (id, token), longest first (in characters, see
    `bpe.text.token_characters`), ties by id; ``learned_only`` skips the base tokens."""
    itos = tokenizer.itos
    base = set(tokenizer.base_tokens) if learned_only else set()
    # The ids in itos, not range(vocab_size): a pretrained tokenizer's ids may have gaps
    # (cl100k's special tokens sit at 100257 and on, with 100261-100275 unused).
    order = sorted((i for i, token in itos.items() if token not in base), key=lambda i: (-token_characters(itos[i]), i))
    return [(i, itos[i]) for i in order[:count]]
