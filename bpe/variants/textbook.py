"""The textbook loop, extended: the readable engine of length-weighted and Picky BPE.

`bpe.reference`'s loop, line for line: count every adjacent pair, pick one, merge it
everywhere, start again. Two rules change one line each:

- **length-weighted** (``weighted``): pairs are ranked by count × the length of the token
  they make (`bpe.variants.rules.pair_score`) instead of by count. A pair seen fewer than
  the minimum frequency is never taken, however long (else once-seen long pairs win).
- **Picky** (``threshold``): after the merge, each part that is not a base token and
  whose IoS (the pair's count ÷ its own count before the merge) reaches the threshold is
  removed, its remaining occurrences split into its parts (`bpe.variants.picky`). The
  vocabulary then counts live tokens: training goes on until they reach the target.

With neither, it is the reference engine exactly (tests/variants/test_engines.py). Slow:
it recounts the whole text every merge; it is the oracle `bpe.variants.incremental` is
checked against, merge for merge.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from bpe.pairs import count_pairs, merge_pair
from bpe.steps import (
    DEFAULT_TIE_RULE,
    HUGGINGFACE,
    MergeStep,
    StopReason,
    check_tie_rule,
    huggingface_order,
    make_step,
    over_budget,
    shared_token_ids,
)
from bpe.variants.picky import Removal, live_parts, picky_step, removes, split_token
from bpe.variants.rules import pair_score, pair_tie_key


def textbook_steps(
    words: list,
    base_tokens: list,
    *,
    target_vocab_size: int,
    minimum_pair_frequency: int,
    top_k: int,
    tie_rule: str = DEFAULT_TIE_RULE,
    max_vocab_characters: int | None = None,
    token_ids: dict | None = None,
    weighted: bool = False,
    threshold: float | None = None,
) -> Iterator[MergeStep]:
    """Yield one step per merge (a `bpe.variants.picky.PickyStep` under ``threshold``); return
    the `StopReason`. The arguments are `bpe.reference.reference_steps`' and the two rules'."""
    words = [(list(tokens), frequency) for tokens, frequency in words]
    vocab = list(base_tokens)  # ids are positions in this list: a removed token keeps its id
    token_ids = shared_token_ids(vocab, token_ids)
    # Hugging Face's numbering, under its rule only (it numbers single symbols; SuperBPE's second
    # stage starts from merged tokens)
    hf_ids = {token: i for i, token in enumerate(huggingface_order(vocab))} if tie_rule == HUGGINGFACE else {}
    tie_key = pair_tie_key(check_tie_rule(tie_rule), hf_ids)
    base, live = set(vocab), set(vocab)
    made_from: dict = {}  # token -> the pair it was last made from (what it splits into if removed)
    counts = count_pairs(words)
    number = held = 0
    while len(live) < target_vocab_size:
        if not counts:
            return StopReason.NO_PAIRS_LEFT
        ranked = rank_pairs(counts, minimum_pair_frequency, weighted, tie_key)
        pair, frequency = ranked[0]
        if frequency < minimum_pair_frequency:
            return StopReason.BELOW_MINIMUM_FREQUENCY
        if over_budget(held, len(pair[0]) + len(pair[1]), max_vocab_characters):
            return StopReason.VOCAB_CHARACTERS_REACHED
        token = pair[0] + pair[1]
        held += len(token)
        is_new = token not in live
        if token not in token_ids:
            token_ids[token] = len(vocab)
            hf_ids[token] = len(hf_ids)
            vocab.append(token)
        live.add(token)
        made_from[token] = pair
        own_counts = token_counts(words) if threshold is not None else None  # before the merge
        words = [(merge_pair(tokens, pair, token), f) for tokens, f in words]
        removed = []
        for part in dict.fromkeys(pair) if threshold is not None else ():
            if part in base or not removes(frequency, own_counts[part], threshold):
                continue
            live.discard(part)
            parts = live_parts(part, made_from, live)
            left = sum(tokens.count(part) * f for tokens, f in words)
            words = [(split_token(tokens, part, parts), f) for tokens, f in words]
            removed.append(Removal(part, token_ids[part], parts, left, frequency, own_counts[part]))
        new_counts = count_pairs(words)
        changed = {p for p, _ in counts.items() ^ new_counts.items()}
        changes = {p: new_counts[p] - counts[p] for p in changed}
        counts = new_counts
        number += 1
        step = make_step(
            number=number,
            pair=pair,
            token=token,
            token_id=token_ids[token],
            frequency=frequency,
            top_pairs=ranked[:top_k],
            changes=changes,
            sequence_length=sum(len(tokens) * f for tokens, f in words),
            vocab_size=len(live),
            new=is_new,
        )
        yield picky_step(step, removed) if threshold is not None else step
    return StopReason.TARGET_REACHED


def rank_pairs(counts: Counter, floor: int, weighted: bool, tie_key) -> list[tuple]:
    """Every pair with its count, best first: pairs at the minimum frequency before those
    below it, then by score (`pair_score`), then by the tie rule (``tie_key``; None: first
    occurrence, the order ``counts`` met them in, which a stable sort keeps)."""
    return sorted(
        counts.items(),
        key=lambda item: (
            item[1] < floor,
            -pair_score(item[0], item[1], weighted),
            tie_key(item[0]) if tie_key else 0,
        ),
    )


def token_counts(words: list) -> Counter:
    """How often each token occurs: [(['a', 'b', 'a'], 2)] -> {'a': 4, 'b': 2}."""
    found: Counter = Counter()
    for tokens, frequency in words:
        for token in tokens:
            found[token] += frequency
    return found
