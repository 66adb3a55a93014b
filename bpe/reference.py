"""The reference engine: the textbook BPE loop, short enough to read on a projector.

Every step recounts all adjacent pairs, picks the most frequent, merges it everywhere,
and starts again. It is slow (each step reads the whole text) and it is the oracle: the
fast engine in `bpe.fast` must produce exactly these steps.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from heapq import nsmallest

from bpe.pairs import count_pairs, merge_pair
from bpe.steps import (
    DEFAULT_TIE_RULE,
    HUGGINGFACE,
    LEXICOGRAPHIC,
    LEXICOGRAPHIC_GREATEST,
    MergeStep,
    StopReason,
    check_tie_rule,
    descending_key,
    huggingface_order,
    make_step,
    over_budget,
    shared_token_ids,
)


def reference_steps(
    words: list,
    base_tokens: list,
    *,
    target_vocab_size: int,
    minimum_pair_frequency: int,
    top_k: int,
    tie_rule: str = DEFAULT_TIE_RULE,
    max_vocab_characters: int | None = None,
    token_ids: dict | None = None,
) -> Iterator[MergeStep]:
    """Yield one `MergeStep` per merge; return the `StopReason`. ``base_tokens`` are the
    tokens before any merge, ids in order: special tokens first when there are any
    (`bpe.specials.initial_tokens`), which no word holds. ``token_ids``: see
    `bpe.steps.shared_token_ids`."""
    # (a chunk of the byte alphabet may come as its UTF-8 bytes: each is the base token of its value)
    words = [([bytes((b,)) for b in tokens] if type(tokens) is bytes else list(tokens), f) for tokens, f in words]
    vocab = list(base_tokens)  # ids are positions in this list
    token_ids = shared_token_ids(vocab, token_ids)
    # how Hugging Face numbers them, under its rule only: it numbers single symbols, and a base of
    # merged tokens (SuperBPE's second stage, `bpe.variants.superbpe`) has none to number
    hf_ids = {token: i for i, token in enumerate(huggingface_order(vocab))} if tie_rule == HUGGINGFACE else {}
    descending = {token: descending_key(token) for token in vocab}  # (each new token's added when made)
    tie_key = {
        LEXICOGRAPHIC: lambda pair: pair,
        LEXICOGRAPHIC_GREATEST: lambda pair: (descending[pair[0]], descending[pair[1]]),
        HUGGINGFACE: lambda pair: (hf_ids[pair[0]], hf_ids[pair[1]]),
    }.get(check_tie_rule(tie_rule))
    counts = count_pairs(words)
    number = 0
    held = 0  # characters of the merges' tokens so far (`over_budget`)
    while len(vocab) < target_vocab_size:
        if not counts:
            return StopReason.NO_PAIRS_LEFT
        top_pairs = most_frequent(counts, max(top_k, 1), tie_key)
        pair, frequency = top_pairs[0]
        if frequency < minimum_pair_frequency:
            return StopReason.BELOW_MINIMUM_FREQUENCY
        if over_budget(held, len(pair[0]) + len(pair[1]), max_vocab_characters):
            return StopReason.VOCAB_CHARACTERS_REACHED
        token = pair[0] + pair[1]
        held += len(token)
        is_new = token not in token_ids
        if is_new:  # the vocabulary is a set: an existing string adds no token
            token_ids[token] = len(vocab)
            hf_ids[token] = len(hf_ids)
            descending[token] = descending_key(token)
            vocab.append(token)
        words = [(merge_pair(tokens, pair, token), frequency) for tokens, frequency in words]
        new_counts = count_pairs(words)
        # the pairs whose count changed: dict item views compare as sets (in C)
        changed = {p for p, _ in counts.items() ^ new_counts.items()}
        changes = {p: new_counts[p] - counts[p] for p in changed}
        counts = new_counts
        number += 1
        yield make_step(
            number=number,
            pair=pair,
            token=token,
            token_id=token_ids[token],
            frequency=frequency,
            top_pairs=top_pairs[:top_k],
            changes=changes,
            sequence_length=sum(len(tokens) * f for tokens, f in words),
            vocab_size=len(vocab),
            new=is_new,
        )
    return StopReason.TARGET_REACHED


def most_frequent(counts: Counter, n: int, tie_key: Callable | None) -> list:
    """The ``n`` most frequent pairs with their counts. Equal counts go by ``tie_key(pair)``,
    smallest first; without one, by first occurrence (``most_common`` is stable, and pairs
    were counted left to right)."""
    if tie_key is None:
        return counts.most_common(n)
    return nsmallest(n, counts.items(), key=lambda item: (-item[1], tie_key(item[0])))
