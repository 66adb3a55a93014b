"""The tutorial's training loop, as written there: the yardstick for the engines' speed.

Each step recounts every adjacent pair with ``Counter(zip(...))``, takes
``most_common(1)`` (ties: the pair seen first in the text, since a Counter keeps
insertion order and ``most_common`` sorts stably) and merges it left to right without
overlap, building a new list. The rules are the project's (see `bpe.steps`): the whole
text is one sequence, training stops at the target size, when no pair is left, or when
the best pair occurs fewer than ``minimum_pair_frequency`` times, and a merge whose
result already exists adds no token but still counts as a merge.
"""

from __future__ import annotations

from collections import Counter


def tutorial_train(text: str, vocab_size: int, minimum_pair_frequency: int = 2) -> list[tuple[str, str]]:
    """The merges the tutorial's loop learns on ``text`` (base tokens: ``sorted(set(text))``)."""
    tokens = list(text)
    vocab = sorted(set(text))
    known = set(vocab)
    merges = []
    while len(vocab) < vocab_size:
        stats = Counter(zip(tokens, tokens[1:]))
        if not stats:
            break
        pair, freq = stats.most_common(1)[0]
        if freq < minimum_pair_frequency:
            break
        new_token = pair[0] + pair[1]
        merges.append(pair)
        if new_token not in known:  # the vocabulary is a set: a re-created token adds nothing
            known.add(new_token)
            vocab.append(new_token)
        tokens = _merge(tokens, pair, new_token)
    return merges


def _merge(tokens: list[str], pair: tuple[str, str], new_token: str) -> list[str]:
    """Replace each occurrence of ``pair``, left to right, no overlap."""
    merged = []
    i = 0
    while i < len(tokens):
        if i < len(tokens) - 1 and tokens[i] == pair[0] and tokens[i + 1] == pair[1]:
            merged.append(new_token)
            i += 2
        else:
            merged.append(tokens[i])
            i += 1
    return merged
