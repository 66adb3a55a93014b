"""Counting and merging adjacent pairs: the two operations BPE is made of.

Shared by the reference engine, the tests and anything that wants the textbook answer.
A "word" here is a chunk of text as a list of tokens with the number of times the chunk
occurs; without a pre-tokenizer the whole text is one word that occurs once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from bpe.alphabet import Token

Word = tuple[list, int]  # (tokens of one distinct chunk, how often that chunk occurs)


def count_pairs(words: Iterable[Word]) -> Counter:
    """Adjacent pair counts, in order of first occurrence.

    Example: [(['a', 'a', 'a', 'b'], 1)] -> Counter({('a', 'a'): 2, ('a', 'b'): 1})
    Overlapping pairs count each time ('aaa' holds two ('a', 'a')), as ``zip`` sees them;
    merging, below, then takes them left to right without overlap.
    """
    counts: Counter = Counter()
    for tokens, frequency in words:
        if frequency == 1:
            counts.update(zip(tokens, tokens[1:]))  # Counter counts an iterable in C: the tutorial's speed
        else:
            for pair in zip(tokens, tokens[1:]):
                counts[pair] += frequency
    return counts


def merge_pair(tokens: Sequence[Token], pair: tuple, new_token: Token) -> list:
    """Replace every occurrence of ``pair`` with ``new_token``, left to right, no overlap.

    Example: ['a', 'a', 'a'], ('a', 'a'), 'aa' -> ['aa', 'a']
    Only the occurrences of the pair's left half are visited (``index`` finds each in C);
    the tokens between merges are copied a stretch at a time.
    """
    first, second = pair
    merged: list = []
    copied = 0  # tokens[:copied] are in `merged` already
    i = -1
    for _ in range(tokens.count(first)):
        i = tokens.index(first, i + 1)
        if i >= copied and i + 1 < len(tokens) and tokens[i + 1] == second:  # not inside a merge just made
            merged += tokens[copied:i]
            merged.append(new_token)
            copied = i + 2
    merged += tokens[copied:]
    return merged


def merge_positions(tokens: Sequence[Token], pair: tuple) -> list[int]:
    """Where merging ``pair`` takes place, scanning left to right without overlap: the index
    of each merged occurrence's left half. What `merge_pair` replaces, and how many times.

    Example: ['a', 'a', 'a', 'a', 'a'], ('a', 'a') -> [0, 2]   ('aaaaa' -> 'aa aa a': four
    overlapping pairs are counted, two merges happen)
    """
    first, second = pair
    positions = []
    i, last = 0, len(tokens) - 1
    while i < last:
        if tokens[i] == first and tokens[i + 1] == second:
            positions.append(i)
            i += 2
        else:
            i += 1
    return positions
