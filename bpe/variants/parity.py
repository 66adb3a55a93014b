"""Parity-aware BPE: every merge serves the language that is currently compressed worst.

Standard BPE takes the pair that is most frequent over all the training text, so the
languages (and scripts) with the most shared pairs get most of the merges, and the others
stay cut into many pieces: Petrov et al. (2023) measured up to 15x more tokens for the
same content. Given the same content in several languages (parallel texts), parity-aware
BPE (Foroutan et al., 2025) changes one line of the loop: at each step it finds the
language whose text now takes the most tokens, takes *that language's* most frequent
pair, and merges it in every language. The vocabulary stays one shared vocabulary; the
languages' token counts even out while the total barely moves.

Both rules run here on the same data, so a page can draw them side by side:

- ``standard``: the most frequent pair over all the languages' texts together (the texts
  are separate: no pair spans two of them). Exactly `bpe.reference` on the languages'
  chunks laid one after the other.
- ``parity``: the most frequent pair of the worst-compressed language. When that
  language has no pair left at the minimum frequency, the next worst one is asked, and
  so on; training stops when none has.

"Worst" compares raw token counts, so the texts must say the same thing (the lighthouse
paragraphs do). Equal counts go to the language given first.

Counting is incremental: a merge recounts only the chunks that hold the pair. Ties between
equally frequent pairs follow the tie rules of `bpe.steps`; under first occurrence the
earliest place in that language's text wins (chunks are kept in order of first
appearance, so the first chunk holding a pair is where it first occurs).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from bpe.alphabet import BYTES, check_alphabet, default_base_tokens
from bpe.errors import BpeError
from bpe.pairs import merge_pair
from bpe.steps import (
    DEFAULT_TIE_RULE,
    HUGGINGFACE,
    LEXICOGRAPHIC,
    LEXICOGRAPHIC_GREATEST,
    StopReason,
    check_tie_rule,
    descending_key,
    huggingface_order,
)
from bpe.tokenizer import BPETokenizer
from bpe.training import MAX_VOCAB_SIZE, prepare_words

PARITY = "parity"
STANDARD = "standard"
RULES = (STANDARD, PARITY)
# Every language's chunks are recounted where a merge touches them, so the time grows with
# the text times the merges. Past this the CLI says so up front.
MAX_CHARACTERS = 20_000_000


@dataclass(frozen=True)
class ParityStep:
    """One merge: which language it served, the pair, and every language's tokens after it."""

    number: int  # 1-based
    language: str  # the language whose counts chose the pair (standard: the one where it is most frequent)
    pair: tuple
    token: object
    frequency: int  # the pair's count in ``language``'s text, before the merge
    total_frequency: int  # its count over all the languages' texts
    tokens_after: tuple[int, ...]  # each language's token count after the merge, in the languages' order


@dataclass(frozen=True)
class MultilingualRun:
    """A training over several languages' texts under one rule, every step recorded."""

    rule: str
    languages: tuple[str, ...]
    base_tokens: tuple
    alphabet: str
    pretokenizer: str | None
    tie_rule: str
    initial_tokens: tuple[int, ...]  # each language's token count before any merge
    steps: tuple[ParityStep, ...]
    stop_reason: StopReason

    @property
    def merges(self) -> list[tuple]:
        return [step.pair for step in self.steps]

    def tokens_after(self, merges: int) -> tuple[int, ...]:
        """Each language's token count after the first ``merges`` merges."""
        merges = max(0, min(merges, len(self.steps)))
        return self.steps[merges - 1].tokens_after if merges else self.initial_tokens

    def tokenizer(self, merges: int | None = None) -> BPETokenizer:
        """The shared tokenizer after the first ``merges`` merges (all of them by default)."""
        chosen = self.merges if merges is None else self.merges[: max(0, merges)]
        return BPETokenizer(
            list(self.base_tokens),
            chosen,
            alphabet=self.alphabet,
            pretokenizer=self.pretokenizer,
            tie_rule=self.tie_rule,
        )


class _Language:
    """One language's distinct chunks, their pair counts, and where each pair occurs."""

    def __init__(self, words: list, total: Counter) -> None:
        self.words = [(list(symbols), count) for symbols, count in words]
        self.counts: Counter = Counter()
        self.total = total  # every language's counts summed, shared by all of them
        self.holders: defaultdict[tuple, set[int]] = defaultdict(set)  # pair -> indices of chunks holding it
        self.tokens = 0
        for index, (symbols, count) in enumerate(self.words):
            self._add(index, symbols, count)

    def _add(self, index: int, symbols: list, count: int) -> None:
        self.tokens += len(symbols) * count
        for pair in zip(symbols, symbols[1:]):
            self.counts[pair] += count
            self.total[pair] += count
            self.holders[pair].add(index)

    def _remove(self, index: int, symbols: list, count: int) -> None:
        self.tokens -= len(symbols) * count
        for pair in zip(symbols, symbols[1:]):
            self.total[pair] -= count
            if not self.total[pair]:
                del self.total[pair]
            left = self.counts[pair] - count
            if left:
                self.counts[pair] = left
            else:  # a pair gone from this language leaves no zero behind to be picked
                del self.counts[pair]
                self.holders.pop(pair, None)

    def merge(self, pair: tuple, token) -> None:
        for index in sorted(self.holders.get(pair, ())):
            symbols, count = self.words[index]
            merged = merge_pair(symbols, pair, token)
            if len(merged) == len(symbols):  # the chunk lost the pair to an earlier merge of this step
                continue
            self._remove(index, symbols, count)
            self.words[index] = (merged, count)
            self._add(index, merged, count)
        # chunks that no longer hold a pair stay listed in its holders; `first_place` and the
        # next merge skip them, which is cheaper than keeping the sets exact
        self.holders.pop(pair, None)

    def first_place(self, pair: tuple) -> tuple[int, int]:
        """Where ``pair`` first occurs: (chunk index, position in the chunk)."""
        for index in sorted(self.holders.get(pair, ())):
            symbols = self.words[index][0]
            for position, here in enumerate(zip(symbols, symbols[1:])):
                if here == pair:
                    return index, position
        raise KeyError(pair)  # not reached: `counts` lists only pairs that occur


def train_multilingual(
    texts: Mapping[str, str],
    *,
    merges: int,
    rule: str = PARITY,
    alphabet: str = BYTES,
    pretokenizer: str | None = None,
    minimum_pair_frequency: int = 2,
    tie_rule: str = DEFAULT_TIE_RULE,
) -> MultilingualRun:
    """Train one shared BPE on ``texts`` ({language: text saying the same thing}) for at
    most ``merges`` merges under ``rule`` (``"parity"`` or ``"standard"``).

    >>> run = train_multilingual({"en": "aaaa", "el": "ββββββ"}, merges=1, alphabet="characters")
    >>> run.steps[0].language, run.steps[0].pair, run.tokens_after(1)
    ('el', ('β', 'β'), (4, 3))
    """
    _check_settings(texts, merges, rule, minimum_pair_frequency)
    alphabet = check_alphabet(alphabet)
    tie_rule = check_tie_rule(tie_rule)
    names = tuple(texts)
    base = default_base_tokens("".join(texts.values()), alphabet)
    total: Counter = Counter()
    languages = [_Language(prepare_words(texts[name], alphabet, pretokenizer), total) for name in names]
    # Hugging Face numbers tokens in its own order, merge results as they are made
    hf_ids = {token: i for i, token in enumerate(huggingface_order(base))}
    tie_key = _tie_key(tie_rule, hf_ids)
    initial = tuple(language.tokens for language in languages)
    steps: list[ParityStep] = []
    stop = StopReason.TARGET_REACHED
    while len(steps) < merges:
        chosen = _choose(languages, total, rule, minimum_pair_frequency, tie_key)
        if chosen is None:
            stop = (
                StopReason.NO_PAIRS_LEFT
                if not any(language.counts for language in languages)
                else StopReason.BELOW_MINIMUM_FREQUENCY
            )
            break
        index, pair = chosen
        frequency = languages[index].counts[pair]
        total_frequency = total[pair]
        token = pair[0] + pair[1]
        hf_ids.setdefault(token, len(hf_ids))
        for language in languages:
            language.merge(pair, token)
        steps.append(
            ParityStep(
                number=len(steps) + 1,
                language=names[index],
                pair=pair,
                token=token,
                frequency=frequency,
                total_frequency=total_frequency,
                tokens_after=tuple(language.tokens for language in languages),
            )
        )
    return MultilingualRun(
        rule=rule,
        languages=names,
        base_tokens=tuple(base),
        alphabet=alphabet,
        pretokenizer=pretokenizer,
        tie_rule=tie_rule,
        initial_tokens=initial,
        steps=tuple(steps),
        stop_reason=stop,
    )


def _check_settings(texts: Mapping[str, str], merges: int, rule: str, minimum_pair_frequency: int) -> None:
    """A `BpeError` naming the first setting that cannot train: an unknown rule, no text or an
    empty one, a number of merges that is not a whole number within the vocabulary's bound,
    a minimum frequency below 1, more text than `MAX_CHARACTERS`."""
    if rule not in RULES:
        raise BpeError(f"rule={rule!r} must be one of {', '.join(RULES)}")
    if not texts:
        raise BpeError("parity-aware training needs at least one language's text")
    empty = [language for language, text in texts.items() if not text]
    if empty:
        raise BpeError(f"the text of {empty[0]!r} is empty: every language needs its text")
    if not isinstance(merges, int) or isinstance(merges, bool) or merges < 0:
        raise BpeError(f"merges={merges!r} must be a whole number, 0 or more")
    if merges > MAX_VOCAB_SIZE:  # the bound every vocabulary has here (`bpe.training.MAX_VOCAB_SIZE`)
        raise BpeError(f"merges={merges:,} is more than BPE Lab learns: at most {MAX_VOCAB_SIZE:,}")
    if minimum_pair_frequency < 1:
        raise BpeError(f"minimum_pair_frequency={minimum_pair_frequency} must be at least 1")
    characters = sum(len(text) for text in texts.values())
    if characters > MAX_CHARACTERS:
        raise BpeError(
            f"the texts hold {characters:,} characters; parity-aware training takes at most {MAX_CHARACTERS:,}"
        )


def _choose(languages: list[_Language], total: Counter, rule: str, floor: int, tie_key) -> tuple[int, tuple] | None:
    """(index of the language served, the pair), or None when no pair reaches ``floor``."""
    if rule == STANDARD:
        pair = _best(total, floor, tie_key, lambda pair: _first_place_overall(languages, pair))
        if pair is None:
            return None
        # the language where the winner is most frequent (the first of equals)
        index = max(range(len(languages)), key=lambda i: (languages[i].counts.get(pair, 0), -i))
        return index, pair
    worst_first = sorted(range(len(languages)), key=lambda i: (-languages[i].tokens, i))
    for index in worst_first:
        language = languages[index]
        pair = _best(language.counts, floor, tie_key, language.first_place)
        if pair is not None:
            return index, pair
    return None


def _best(counts: Counter, floor: int, tie_key, first_place: Callable) -> tuple | None:
    """The most frequent pair of ``counts`` at ``floor`` or more; equals by the tie rule."""
    if not counts:
        return None
    top = max(counts.values())
    if top < floor:
        return None
    tied = [pair for pair, count in counts.items() if count == top]
    if len(tied) == 1:
        return tied[0]
    return min(tied, key=tie_key or first_place)


def _first_place_overall(languages: list[_Language], pair: tuple) -> tuple[int, int, int]:
    """Where ``pair`` first occurs when the languages' texts are read one after the other."""
    for index, language in enumerate(languages):
        if pair in language.counts:
            return (index, *language.first_place(pair))
    raise KeyError(pair)


def _tie_key(tie_rule: str, hf_ids: dict):
    """The tie rule as a key on pairs (smallest wins); None means first occurrence.
    ``hf_ids`` is Hugging Face's numbering, which the training loop extends."""
    if tie_rule == LEXICOGRAPHIC:
        return lambda pair: pair
    if tie_rule == LEXICOGRAPHIC_GREATEST:
        return lambda pair: (descending_key(pair[0]), descending_key(pair[1]))
    if tie_rule == HUGGINGFACE:
        return lambda pair: (hf_ids[pair[0]], hf_ids[pair[1]])
    return None
