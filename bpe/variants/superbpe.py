"""SuperBPE (Liu et al., 2025): tokens that cross whitespace, learned after a transition.

Standard BPE with a pre-tokenizer never merges across its chunks, so no token holds two
words. SuperBPE trains in two stages: the first ``transition`` merges are learned inside
the chunks, as standard BPE learns them; then the chunks join back into their text, and
training goes on over the joined text, where pairs across the old chunk boundaries count
too: superword tokens such as " of the" or ", and" appear, and the text takes fewer tokens
(up to a third fewer at the same vocab size, on the paper's English).

Chunks join within a *segment*, never across one: a document is one segment, and a
special token (``<|endoftext|>``) cuts a document into segments (`segments`). The engines
are the core's (`bpe.reference` or `bpe.fast`), each stage one training over its own words:
stage 2's words are the segments as stage 1's merges left them. So the readable reference of
SuperBPE is the textbook loop run twice, and the fast engine the incremental one run twice;
they agree merge for merge because the core's engines do (tests/variants/test_engines.py).

Encoding does what training did: stage 1's merges inside each chunk, then stage 2's over
each segment (`SuperBPETokenizer`).

Here the second stage joins *every* chunk of a segment; the paper's own implementation
keeps some other splits in its second stage (the issue that asked for this one says: across
whitespace, never across a special token or a document).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace

from bpe.alphabet import symbols_of
from bpe.encoder import RankEncoder
from bpe.errors import BpeError
from bpe.fast import HeldOutTracker
from bpe.pretokenize import chunk_counts, split
from bpe.specials import (
    initial_tokens,
    ordinary_pieces,
    pieces,
    special_words,
)
from bpe.steps import HUGGINGFACE, MergeStep, StopReason
from bpe.tokenizer import BPETokenizer
from bpe.training import ENGINES, TrainingSettings
from bpe.variants.incremental import PickyHeldOut, incremental_steps
from bpe.variants.rules import RuleTokenizer, engine_options
from bpe.variants.textbook import textbook_steps


def check_superbpe(settings: TrainingSettings) -> None:
    """`BpeError` for settings SuperBPE cannot train with: no pre-tokenizer (no chunks to
    join: it would be standard BPE), or Hugging Face's tie rule (its numbering of tokens
    does not carry over from one stage's engine to the next)."""
    if settings.pretokenizer is None:
        raise BpeError(
            "SuperBPE joins pre-tokenizer chunks after its transition: choose a pre-tokenizer (whitespace, gpt2, "
            "gpt4), or without one every merge already crosses whitespace"
        )
    if settings.tie_rule == HUGGINGFACE:
        raise BpeError(
            "SuperBPE trains in two stages, and Hugging Face's numbering of tokens does not carry over from the "
            "first to the second: choose another tie rule (first_occurrence, lexicographic or lexicographic_greatest)"
        )


def segments(text: str, special_tokens: Sequence[str] = ()) -> list[str]:
    """The stretches whose chunks may join: the text cut at each special token (which is no
    segment's part). The seam where special tokens (and documents) end the joining:
    ``segments("a b<|endoftext|>c d", ["<|endoftext|>"]) == ["a b", "c d"]``."""
    return ordinary_pieces(text, special_tokens)  # the longest first where they overlap


def split_documents(documents: Sequence[str], special_tokens: Sequence[str]) -> tuple[Counter, Counter]:
    """(each distinct segment of ``documents`` with its count, each special token that
    occurs with its count): every document cut at the special tokens (`bpe.specials.pieces`,
    the longest first), so no segment spans two documents or holds a special token.
    ``["a b<|endoftext|>a b"]`` -> ``({"a b": 2}, {"<|endoftext|>": 1})``."""
    found: Counter = Counter()
    marks: Counter = Counter()
    for document in documents:
        for piece in pieces(document, special_tokens):
            (marks if piece in special_tokens else found)[piece] += 1
    return found, marks


def segment_words(documents: Sequence[str], settings: TrainingSettings) -> list:
    """The distinct chunks of all ``documents``' segments with their counts, first appearance
    first, as symbols (`bpe.training.prepare_words` of each segment, summed), then each
    special token that occurs as a word of one symbol (`bpe.specials.special_words`: it
    forms no pair, so no merge touches it): no chunk spans two documents or a special token."""
    found, marks = split_documents(documents, settings.special_tokens)
    counts: Counter = Counter()
    for piece, times in found.items():
        for chunk, n in chunk_counts(piece, settings.pretokenizer).items():
            counts[chunk] += n * times
    words = [(symbols_of(chunk, settings.alphabet), n) for chunk, n in counts.items()]
    return words + special_words(marks, settings.alphabet)


def joined_words(documents: Sequence[str], tokenizer: BPETokenizer) -> list:
    """Each distinct segment of ``documents`` with its count, as ``tokenizer`` (stage 1's)
    cuts it, its chunks joined, then each special token as one symbol: stage 2's words.
    A special token stays a word of its own, so nothing joins across it."""
    found, marks = split_documents(documents, tuple(tokenizer.special_tokens))
    itos = tokenizer.itos
    words = [([itos[i] for i in tokenizer.encode_ordinary(piece)], n) for piece, n in found.items()]
    return words + special_words(marks, tokenizer.alphabet)


def superbpe_steps(
    documents: Sequence[str],
    base: list,
    settings: TrainingSettings,
    transition: int,
    on_join: Callable[[int], None] | None = None,
) -> Iterator[MergeStep]:
    """Yield SuperBPE's steps over ``documents``, cut at the settings' special tokens
    (`split_documents`), with the settings' engine: the first ``transition`` merges inside
    chunks, the rest over joined segments (numbered on). Ids as the core numbers them: the
    special tokens first, then ``base`` (`bpe.specials.initial_tokens`). Returns the `StopReason`; stage 1 ending early (no pair left inside the
    chunks) goes on to stage 2, where the joins make new pairs. ``on_join(merges)`` is
    called when the chunks join, after that many merges."""
    check_superbpe(settings)
    engine = ENGINES[settings.engine]
    options = engine_options(settings)
    first = engine(
        segment_words(documents, settings),
        initial_tokens(settings.special_tokens, base, settings.alphabet),
        max_vocab_characters=settings.max_vocab_characters,
        **options,
    )
    merges: list[tuple] = []
    held = 0  # characters of the merges' tokens so far (`bpe.steps.over_budget`)
    try:
        while len(merges) < transition:
            step = next(first)
            merges.append(step.pair)
            held += len(step.token)
            yield step
    except StopIteration as stop:
        if stop.value in (StopReason.TARGET_REACHED, StopReason.VOCAB_CHARACTERS_REACHED):
            return stop.value
    finally:
        first.close()
    stage_one = BPETokenizer(
        base,
        merges,
        alphabet=settings.alphabet,
        pretokenizer=settings.pretokenizer,
        special_tokens=settings.special_tokens,
    )
    if len(stage_one.tokens) >= settings.target_vocab_size:
        return StopReason.TARGET_REACHED
    limit = settings.max_vocab_characters
    if limit is not None and limit - held < 1:
        return StopReason.VOCAB_CHARACTERS_REACHED
    # Stage 2 starts from tokens of several symbols, each one unit of its words, and may make a
    # string stage 1 made already (no new token: the vocabulary is a set). `bpe.fast` lays its
    # text out one slot per base symbol and cannot hold both; the engines of `bpe.variants` count
    # over tokens, whatever they spell.
    second = (textbook_steps if settings.engine == "reference" else incremental_steps)(
        joined_words(documents, stage_one),
        list(stage_one.tokens),
        max_vocab_characters=None if limit is None else limit - held,
        **options,
    )
    done = len(merges)
    if on_join is not None:
        on_join(done)
    try:
        while True:
            step = next(second)
            yield replace(step, number=step.number + done)
    except StopIteration as stop:
        return stop.value
    finally:
        second.close()


def is_superword(token, pretokenizer: str | None) -> bool:
    """Whether ``token`` spans two or more of the pre-tokenizer's chunks (" of the" under
    GPT-2's pattern is three: " of", " the"... so it could only be learned after the chunks
    joined). A byte token's text is read as UTF-8, a piece of a character as U+FFFD."""
    if pretokenizer is None:
        return False
    text = token.decode("utf-8", errors="replace") if isinstance(token, bytes) else token
    return len(split(text, pretokenizer)) > 1


class SuperBPEHeldOut:
    """The held-out text's length after each merge of a SuperBPE run: stage 1's merges applied
    to its chunks (`bpe.fast.HeldOutTracker`), then, from the transition, stage 2's to its
    segments as stage 1 left them (the held-out documents cut at the special tokens, as
    training cuts its own)."""

    def __init__(self, documents: Sequence[str], base: list, settings: TrainingSettings) -> None:
        self._documents, self._base, self._settings = list(documents), base, settings
        initial = initial_tokens(settings.special_tokens, base, settings.alphabet)
        self._tracker = HeldOutTracker(segment_words(self._documents, settings), initial, settings.target_vocab_size)
        self._merges: list[tuple] = []
        self._before: list[int] = []  # lengths of the finished stage (stage 1), when joined
        self.joined_after: int | None = None

    def join(self) -> None:
        """The chunks join here: stage 2's tracker starts from the segments as cut now."""
        settings = self._settings
        stage_one = BPETokenizer(
            self._base,
            self._merges,
            alphabet=settings.alphabet,
            pretokenizer=settings.pretokenizer,
            special_tokens=settings.special_tokens,
        )
        self._before = self._tracker.lengths()[:-1]
        # counted over tokens, as stage 2 trains (`superbpe_steps`): `HeldOutTracker` cannot either
        self._tracker = PickyHeldOut(joined_words(self._documents, stage_one), list(stage_one.tokens))
        self.joined_after = len(self._merges)

    def apply(self, step: MergeStep) -> None:
        self._merges.append(step.pair)
        self._tracker.apply(step)

    def lengths(self, merges: int | None = None) -> list[int]:
        found = self._before + self._tracker.lengths()
        return found if merges is None else found[: merges + 1]


class SuperBPETokenizer(RuleTokenizer):
    """A SuperBPE tokenizer: its first ``joined_after`` merges applied inside pre-tokenizer
    chunks, the rest over each stretch of text between two special tokens (a segment).
    Token ids are a `BPETokenizer`'s of the same merges and special tokens: each special
    token one id, numbered first, that no merge holds, so nothing joins across it."""

    UNSAVED = (
        "BPE Lab's tokenizer file holds merges applied inside pre-tokenizer chunks, and a SuperBPE tokenizer "
        "applies its later merges across them: its run file keeps it (python -m bpe train --run-output), and so "
        "does the app"
    )

    def __init__(self, base_tokens: Sequence, merges, *, joined_after: int, **options) -> None:
        super().__init__(base_tokens, merges, **options)
        if not 0 <= joined_after <= len(self.merges):
            raise BpeError(f"joined_after={joined_after} must be within the {len(self.merges)} merges")
        self.joined_after = joined_after
        self._inside = BPETokenizer(
            self.base_tokens,
            self.merges[:joined_after],
            alphabet=self.alphabet,
            pretokenizer=self.pretokenizer,
            tie_rule=self.tie_rule,
            special_tokens=tuple(self.special_tokens),
        )
        stoi = self.stoi
        self._across = RankEncoder([(stoi[a], stoi[b], stoi[a + b]) for a, b in self.merges[joined_after:]])

    def encode_ordinary(self, text: str) -> list[int]:
        """Stage 1's merges inside each chunk (the checks of `BPETokenizer.encode`), then stage
        2's over the segment, lowest rank first (`bpe.encoder.RankEncoder`: the same as in order).
        No special tokens: ``<|endoftext|>`` in the text is plain text."""
        return self._across.encode(self._inside.encode_ordinary(text))

    def encode_with_chunks(self, text: str) -> list[list[int]]:
        """One group: after the transition the chunks are joined."""
        return [self.encode(text)] if text else []

    def with_merges(self, count: int) -> BPETokenizer:
        """Its first ``count`` merges: a plain `BPETokenizer` before the chunks join."""
        if count < self.joined_after:
            return self._inside.with_merges(count)
        return SuperBPETokenizer(
            self.base_tokens,
            self.merges[:count],
            joined_after=self.joined_after,
            alphabet=self.alphabet,
            pretokenizer=self.pretokenizer,
            tie_rule=self.tie_rule,
            special_tokens=tuple(self.special_tokens),
        )

    def rule_state(self) -> list:
        return ["superbpe", self.joined_after]

    def rule_json(self, spelled) -> dict:
        return {"rule": "superbpe", "joined_after": self.joined_after}

    def __repr__(self) -> str:
        return f"SuperBPETokenizer(vocab_size={self.vocab_size}, merges={len(self.merges)}, joined_after={self.joined_after})"
