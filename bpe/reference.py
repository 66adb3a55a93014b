"""The reference engine: the textbook BPE loop, short enough to read on a projector.

Every step recounts all adjacent pairs, picks the most frequent, merges it everywhere,
and starts again. It is slow (each step reads the whole text) and it is the oracle: the
fast engine in `bpe.fast` must produce exactly these steps.
"""
from __future__ import annotations

from typing import Iterator

from .pairs import count_pairs, merge_pair
from .steps import MergeStep, StopReason, make_step


def reference_steps(words: list, base_tokens: list, *, target_vocab_size: int,
                    minimum_pair_frequency: int, top_k: int) -> Iterator[MergeStep]:
    """Yield one `MergeStep` per merge; return the `StopReason`."""
    words = [(list(tokens), frequency) for tokens, frequency in words]
    vocab = list(base_tokens)  # ids are positions in this list
    token_ids = {token: i for i, token in enumerate(vocab)}
    counts = count_pairs(words)
    number = 0
    while len(vocab) < target_vocab_size:
        if not counts:
            return StopReason.NO_PAIRS_LEFT
        # most_common is stable: equal counts keep first-occurrence order.
        top_pairs = counts.most_common(max(top_k, 1))
        pair, frequency = top_pairs[0]
        if frequency < minimum_pair_frequency:
            return StopReason.BELOW_MINIMUM_FREQUENCY
        token = pair[0] + pair[1]
        is_new = token not in token_ids
        if is_new:  # the vocabulary is a set: an existing string adds no token
            token_ids[token] = len(vocab)
            vocab.append(token)
        words = [(merge_pair(tokens, pair, token), frequency) for tokens, frequency in words]
        new_counts = count_pairs(words)
        changes = {p: new_counts[p] - counts[p] for p in counts.keys() | new_counts.keys()}
        counts = new_counts
        number += 1
        yield make_step(
            number=number, pair=pair, token=token, token_id=token_ids[token], frequency=frequency,
            top_pairs=top_pairs[:top_k], changes=changes,
            sequence_length=sum(len(tokens) * f for tokens, f in words),
            vocab_size=len(vocab), new=is_new,
        )
    return StopReason.TARGET_REACHED
