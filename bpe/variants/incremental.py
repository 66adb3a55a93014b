"""The fast engine of length-weighted and Picky BPE: `bpe.variants.textbook`'s steps, counted
incrementally.

The text is its distinct chunks, each with its count (as `bpe.training.prepare_words` gives
them), and three indexes kept up to date:

- each pair's count, and the chunks that may hold it (a superset: a chunk that lost the
  pair stays listed until it is next looked at);
- under Picky, each token's count and the chunks that may hold it, for its IoS and for
  splitting it when it is removed;
- one heap of candidates keyed by (below the minimum frequency, −score, pair), pushed again
  whenever a pair's score grows, checked against the count when popped (lazy invalidation).

A merge (or a removal) rewrites only the chunks that hold the pair (or the token), and in
each counts again only the pairs around the places it changed. Pairs of equal score are
told apart by the tie rule among the whole tied group, their first place found only then.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator
from heapq import heappop, heappush

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
from bpe.variants.picky import Removal, live_parts, picky_step, removes
from bpe.variants.rules import pair_score, pair_tie_key


class ChunkTable:
    """The text as distinct chunks of token ids, with pair (and token) counts and holders.

    A chunk is edited at its *sites* (where a merge or a split replaces tokens), and only the
    pairs around each site are counted again: text without a pre-tokenizer is one chunk of
    hundreds of thousands of tokens, and recounting it whole at every merge took minutes."""

    def __init__(self, words, token_ids: dict, *, tokens: bool) -> None:
        self.chunks = [[token_ids[t] for t in symbols] for symbols, _ in words]
        self.weights = [count for _, count in words]
        self.pairs: Counter = Counter()
        self.pair_holders: defaultdict = defaultdict(set)
        self.tokens: Counter | None = Counter() if tokens else None
        self.token_holders: defaultdict = defaultdict(set)
        self.length = 0
        for index, (chunk, weight) in enumerate(zip(self.chunks, self.weights)):
            self.length += len(chunk) * weight
            for pair in zip(chunk, chunk[1:]):
                self.pairs[pair] += weight
                self.pair_holders[pair].add(index)
            if self.tokens is not None:
                for token in chunk:
                    self.tokens[token] += weight
                    self.token_holders[token].add(index)

    def merge(self, pair: tuple, new_id: int, changes: Counter) -> None:
        """Merge ``pair`` into ``new_id`` in every chunk that holds it, left to right."""
        for index in sorted(self.pair_holders.pop(pair, ())):
            sites = merge_sites(self.chunks[index], pair)
            if sites:
                self._edit(index, [(i, 2, (new_id,)) for i in sites], changes)

    def split(self, token: int, parts: tuple, changes: Counter) -> None:
        """Replace ``token`` by ``parts`` in every chunk that holds it."""
        for index in sorted(self.token_holders.pop(token, ())):
            sites = token_sites(self.chunks[index], token)
            if sites:
                self._edit(index, [(i, 1, parts) for i in sites], changes)

    def _edit(self, index: int, sites: list[tuple], changes: Counter) -> None:
        """Rewrite chunk ``index``: each site ``(start, old length, replacement)`` (in order,
        apart) replaced. The pairs are counted again only in each stretch of the chunk from a
        site's left neighbour to its right one (stretches that touch are taken together)."""
        old, weight = self.chunks[index], self.weights[index]
        new: list = []
        copied = 0
        for start, length, replacement in sites:
            new += old[copied:start]
            new += replacement
            copied = start + length
        new += old[copied:]
        self.chunks[index] = new
        self.length += (len(new) - len(old)) * weight
        stretches: list[list[int]] = []  # [old first, old last, shift before it, shift after it]
        shift = 0
        for start, length, replacement in sites:
            low, high = max(start - 1, 0), min(start + length, len(old) - 1)
            grown = shift + len(replacement) - length
            if stretches and low <= stretches[-1][1]:
                stretches[-1][1], stretches[-1][3] = high, grown
            else:
                stretches.append([low, high, shift, grown])
            shift = grown
        pairs, holders = self.pairs, self.pair_holders
        for low, high, before, after in stretches:
            was, now = old[low : high + 1], new[low + before : high + after + 1]
            for pair in zip(was, was[1:]):
                left = pairs[pair] - weight
                if left:
                    pairs[pair] = left
                else:
                    del pairs[pair]
                changes[pair] -= weight
            for pair in zip(now, now[1:]):
                pairs[pair] += weight
                changes[pair] += weight
                holders[pair].add(index)
        if self.tokens is not None:
            for start, length, replacement in sites:
                for token in old[start : start + length]:
                    self.tokens[token] -= weight
                for token in replacement:
                    self.tokens[token] += weight
                    self.token_holders[token].add(index)

    def first_place(self, pair: tuple) -> tuple[int, int]:
        """(chunk, position) of the pair's first occurrence: the first-occurrence tie-break."""
        for index in sorted(self.pair_holders[pair]):
            sites = merge_sites(self.chunks[index], pair, first_only=True)
            if sites:
                return index, sites[0]
        raise AssertionError(f"pair {pair} is counted but occurs nowhere")


def merge_sites(tokens: list, pair: tuple, *, first_only: bool = False) -> list[int]:
    """Where `bpe.pairs.merge_pair` merges ``pair``: each merged occurrence's left half, found
    as it finds them (``list.index``, in C; no ``count`` first, a second pass over a long
    chunk). ['a', 'a', 'a'], ('a', 'a') -> [0]. ``first_only``: stop at the first."""
    first, second = pair
    found: list[int] = []
    free = 0  # tokens before this one are inside a merge just found
    last = len(tokens) - 1
    i = -1
    index = tokens.index
    while True:
        try:
            i = index(first, i + 1)
        except ValueError:
            return found
        if i >= free and i < last and tokens[i + 1] == second:
            found.append(i)
            if first_only:
                return found
            free = i + 2


def token_sites(tokens: list, token) -> list[int]:
    """Every position of ``token``: ['a', 'b', 'a'], 'a' -> [0, 2]."""
    found, i = [], -1
    index = tokens.index
    while True:
        try:
            i = index(token, i + 1)
        except ValueError:
            return found
        found.append(i)


def incremental_steps(
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
    """The steps of `bpe.variants.textbook.textbook_steps` for the same arguments."""
    vocab = list(base_tokens)
    token_ids = shared_token_ids(vocab, token_ids)
    # Hugging Face's numbering, under its rule only (it numbers single symbols; SuperBPE's second
    # stage starts from merged tokens)
    hf_ids = {token: i for i, token in enumerate(huggingface_order(vocab))} if tie_rule == HUGGINGFACE else {}
    tie_key = pair_tie_key(check_tie_rule(tie_rule), hf_ids)
    text = ChunkTable(words, token_ids, tokens=threshold is not None)
    floor = minimum_pair_frequency

    def names(pair: tuple) -> tuple:
        return vocab[pair[0]], vocab[pair[1]]

    def key(pair: tuple, count: int) -> tuple:
        return (count < floor, -pair_score(names(pair), count, weighted), pair)

    queue = [key(pair, count) for pair, count in text.pairs.items()]
    queue.sort()
    base, live = set(range(len(vocab))), set(range(len(vocab)))
    made_from: dict = {}  # token id -> the pair of ids it was last made from
    number = held = 0
    while len(live) < target_vocab_size:
        ranked = _ranked(queue, text, key, max(top_k, 1), tie_key, names)
        if not ranked:
            return StopReason.NO_PAIRS_LEFT
        pair, frequency = ranked[0]
        if frequency < floor:
            return StopReason.BELOW_MINIMUM_FREQUENCY
        a, b = names(pair)
        if over_budget(held, len(a) + len(b), max_vocab_characters):
            return StopReason.VOCAB_CHARACTERS_REACHED
        token = a + b
        held += len(token)
        new_id = token_ids.get(token)
        if new_id is None:
            new_id = token_ids[token] = len(vocab)
            hf_ids[token] = len(hf_ids)
            vocab.append(token)
        is_new = new_id not in live
        live.add(new_id)
        made_from[new_id] = pair
        own = {part: text.tokens[part] for part in pair} if text.tokens is not None else {}  # before the merge
        changes: Counter = Counter()
        text.merge(pair, new_id, changes)
        removed = []
        for part in dict.fromkeys(pair) if threshold is not None else ():
            if part in base or not removes(frequency, own[part], threshold):
                continue
            live.discard(part)
            parts = live_parts(part, made_from, live)
            left = text.tokens[part]
            text.split(part, parts, changes)
            removed.append(Removal(vocab[part], part, tuple(vocab[p] for p in parts), left, frequency, own[part]))
        for changed, delta in changes.items():  # a score that grew: its heap entry ranks too low
            if delta > 0 and changed in text.pairs:
                heappush(queue, key(changed, text.pairs[changed]))
        number += 1
        step = make_step(
            number=number,
            pair=(a, b),
            token=token,
            token_id=new_id,
            frequency=frequency,
            top_pairs=[(names(p), count) for p, count in ranked[:top_k]],
            changes={names(p): delta for p, delta in changes.items() if delta},
            sequence_length=text.length,
            vocab_size=len(live),
            new=is_new,
        )
        yield picky_step(step, removed) if threshold is not None else step
    return StopReason.TARGET_REACHED


def _ranked(queue: list, text: ChunkTable, key, wanted: int, tie_key, names) -> list[tuple]:
    """The ``wanted`` best pairs with their counts, in the textbook's order, and every pair
    tied with the last of them (found, then put back in the heap): ``[(pair, count), ...]``.

    A heap entry whose key is no longer its pair's goes back with the current one; equal
    keys (below the floor or not, and the score) are then ordered by the tie rule."""
    found: list = []
    taken: set = set()
    while queue:
        entry = queue[0]
        if len(found) >= wanted and entry[:2] != found[-1][:2]:
            break  # the group tied at the cut is complete
        heappop(queue)
        pair = entry[2]
        count = text.pairs.get(pair, 0)
        if not count or pair in taken:
            continue  # merged away, or a second entry of a pair found
        current = key(pair, count)
        if current != entry:
            heappush(queue, current)
            continue
        found.append(entry)
        taken.add(pair)
    for entry in found:
        heappush(queue, entry)

    tied = Counter(entry[:2] for entry in found)

    def order(entry: tuple) -> tuple:
        pair = entry[2]
        if tied[entry[:2]] == 1:  # alone at its rank: no tie to break (finding a first place costs)
            return entry[:2], ()
        return entry[:2], tie_key(names(pair)) if tie_key else text.first_place(pair)

    found.sort(key=order)
    return [(entry[2], text.pairs[entry[2]]) for entry in found[: max(wanted, 1)]]


class PickyHeldOut:
    """The held-out text's length after each step of a Picky BPE run: each merge and each
    removal applied to its chunks (`ChunkTable`), as training applied them to its own. Its
    chunks may start as tokens of several symbols (SuperBPE's second stage uses it too)."""

    def __init__(self, words, base_tokens: list) -> None:
        self._ids = {token: i for i, token in enumerate(base_tokens)}
        self._table = ChunkTable(words, self._ids, tokens=True)
        self._lengths = [self._table.length]

    def apply(self, step) -> None:
        ids, changes = self._ids, Counter()  # every token a step names was made before it, or is a base token
        ids.setdefault(step.token, step.token_id)
        self._table.merge((ids[step.pair[0]], ids[step.pair[1]]), step.token_id, changes)
        for removal in getattr(step, "removed", ()):
            self._table.split(ids[removal.token], tuple(ids[p] for p in removal.parts), changes)
        self._lengths.append(self._table.length)

    def lengths(self, merges: int | None = None) -> list[int]:
        return list(self._lengths if merges is None else self._lengths[: merges + 1])
