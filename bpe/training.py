"""Training entry point: check the settings, prepare the text, run an engine.

`TrainingSettings` says what to learn; `train_steps` is what pages and the command line
iterate; `BPETokenizer.train` and `bpe.run.train_run` are built on it. The engines (`bpe.reference`, `bpe.fast`) receive
text already split into distinct chunks with their frequencies, and never validate.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from bpe.alphabet import (
    BYTES,
    CHARACTERS,
    check_alphabet,
    check_base_tokens,
    default_base_tokens,
    require_covered,
    require_unicode,
    symbols_of,
)
from bpe.errors import BpeError
from bpe.fast import fast_steps
from bpe.pretokenize import check_pretokenizer, chunk_counts
from bpe.reference import reference_steps
from bpe.steps import DEFAULT_TIE_RULE, StepStream, check_tie_rule
from bpe.text import shown_value

ENGINES = {"reference": reference_steps, "fast": fast_steps}

# The bound the app (and, by default, the command line) trains under: all merges' tokens
# together hold at most this many characters (`TrainingSettings.max_vocab_characters`).
# Real settings stay below it: at a minimum pair frequency of 2, Tiny Shakespeare whole
# holds 255,274 characters of tokens and WikiText-2 validation 340,491; the Python
# language reference, whose topics repeat long passages, holds the most of the shipped
# corpora: 28,030,039 (its longest token 13,557). Merging pairs seen once without a
# pre-tokenizer grows one token a symbol a merge and would hold billions; under the bound
# it stops after a few thousand merges. A run and each tokenizer built from it spell out
# at most this many characters (a byte each in ASCII, at most 4).
MAX_VOCAB_CHARACTERS = 64_000_000

# The largest vocabulary BPE Lab trains or reads (the file readers' bound too,
# `bpe.formats.fileio.MAX_TOKENS`): past it are no tokenizers anyone trains (Gemma has
# 262k tokens). Without a bound, a size of 2**31 passed every check and overflowed the
# fast engine's C arrays of token ids.
MAX_VOCAB_SIZE = 1_000_000
# The most competing pairs a step records (`TrainingSettings.top_k`): what a run file
# holds per step (`bpe.scale.run_file`) and the command line's `--top-k` allows. More would
# train a run that writes a file its own reader refuses.
MAX_TOP_K = 100
# What training takes when not told: the fast engine, and ten runners-up a step (what the
# film shows beside each merge).
DEFAULT_ENGINE = "fast"
DEFAULT_TOP_K = 10


@dataclass(frozen=True, kw_only=True)
class TrainingSettings:
    """Everything that decides which merges training learns, checked once.

    One type for every way training starts (`train_steps`, `bpe.run.train_run`,
    `BPETokenizer.train`, the step stream and the run it records), so settings travel
    as one hashable value instead of a row of positional parameters.
    """

    target_vocab_size: int
    minimum_pair_frequency: int = 2
    engine: str = DEFAULT_ENGINE
    top_k: int = DEFAULT_TOP_K  # competing pairs recorded per step (0: none, for speed)
    alphabet: str = CHARACTERS
    pretokenizer: str | None = None  # None, "whitespace", "gpt2", "gpt4" or a custom regex
    base_tokens: tuple | None = None  # None: the alphabet's default for the text
    tie_rule: str = DEFAULT_TIE_RULE  # which of equally frequent pairs wins (`bpe.steps.TIE_RULES`)
    # The most characters (bytes, for the byte alphabet) all merges' tokens may hold
    # together; training stops before the merge that would pass it (`bpe.steps.over_budget`).
    # None: no bound. The app sets one, so no settings can take a server's memory.
    max_vocab_characters: int | None = None

    def __post_init__(self) -> None:
        size = self.target_vocab_size
        if not isinstance(size, int) or isinstance(size, bool) or size < 1:
            raise BpeError(f"target_vocab_size={shown_value(size)} must be a positive whole number")
        if size > MAX_VOCAB_SIZE:
            raise BpeError(
                f"target_vocab_size={shown_value(size)} is more than the {MAX_VOCAB_SIZE:,} tokens a vocabulary may hold"
            )
        frequency = self.minimum_pair_frequency
        if not isinstance(frequency, int) or isinstance(frequency, bool) or frequency < 1:
            raise BpeError(f"minimum_pair_frequency={shown_value(frequency)} must be a whole number of at least 1")
        if not isinstance(self.engine, str) or self.engine not in ENGINES:  # a list is not even hashable
            raise BpeError(
                f"unknown engine {shown_value(self.engine)} ({type(self.engine).__name__}): choose one of {', '.join(ENGINES)}"
            )
        top_k = self.top_k
        if not isinstance(top_k, int) or isinstance(top_k, bool) or not 0 <= top_k <= MAX_TOP_K:
            raise BpeError(f"top_k={shown_value(top_k)} must be a whole number from 0 to {MAX_TOP_K}")
        check_alphabet(self.alphabet)
        object.__setattr__(self, "pretokenizer", check_pretokenizer(self.pretokenizer))
        check_tie_rule(self.tie_rule)
        limit = self.max_vocab_characters
        if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
            raise BpeError(
                f"max_vocab_characters={shown_value(limit)} must be a positive whole number or None (no bound)"
            )
        if self.base_tokens is not None:
            object.__setattr__(self, "base_tokens", tuple(check_base_tokens(self.base_tokens, self.alphabet)))


def check_vocab_size(base_tokens: Sequence, vocab_size: int, *, name: str = "vocab_size") -> None:
    """`BpeError` when ``vocab_size`` (the argument ``name``) is below the alphabet: no
    tokenizer is that small. Training, training from counts and cutting a tokenizer to a
    size all refuse it in these words."""
    if vocab_size < len(base_tokens):
        raise BpeError(
            f"{name}={vocab_size} is smaller than the alphabet ({len(base_tokens)} base tokens): "
            f"choose at least {len(base_tokens)}"
        )


def train_steps(text: str, settings: TrainingSettings | int | None = None, /, **fields) -> StepStream:
    """Train BPE on ``text`` one merge at a time.

    Pass a `TrainingSettings`, or its fields by keyword, or the target vocab size first as
    the tutorial does: ``train_steps(text, 300)`` is
    ``train_steps(text, target_vocab_size=300)``; ``train_steps(text, 300, engine="reference")``.
    Returns a `StepStream`: iterate it for `MergeStep` records; afterwards its
    ``stop_reason`` says why training stopped. Raises `BpeError` on bad settings before
    any work is done.
    """
    settings = settings_from(settings, fields)
    if not isinstance(text, str):
        raise BpeError(f"text must be a str, got {type(text).__name__}")
    if not text:
        raise BpeError("the training text is empty: give at least one character")
    require_unicode(text, "the training text")
    base = prepare_base_tokens(text, settings.base_tokens, settings.alphabet)
    check_vocab_size(base, settings.target_vocab_size, name="target_vocab_size")
    return engine_steps(engine_words(text, settings.alphabet, settings.pretokenizer), base, settings)


def engine_steps(words, base: list, settings: TrainingSettings, *, token_ids: dict | None = None) -> StepStream:
    """The settings' engine over ``words`` (``(symbols, count)`` pairs in order of first
    occurrence, as `prepare_words` makes them) from the base tokens ``base``, as a
    `StepStream`. ``token_ids``: the map of tokens to ids to share (see
    `bpe.steps.shared_token_ids`)."""
    steps = ENGINES[settings.engine](
        words,
        base,
        target_vocab_size=settings.target_vocab_size,
        minimum_pair_frequency=settings.minimum_pair_frequency,
        top_k=settings.top_k,
        tie_rule=settings.tie_rule,
        max_vocab_characters=settings.max_vocab_characters,
        token_ids=token_ids,
    )
    return StepStream(steps, base_tokens=base, settings=settings)


def settings_from(settings: TrainingSettings | int | None, fields: dict) -> TrainingSettings:
    """The settings given: a `TrainingSettings`, keyword fields, or the target vocab size
    (a whole number) with other fields by keyword."""
    if settings is None:
        return TrainingSettings(**fields)
    if isinstance(settings, int) and not isinstance(settings, bool):
        if "target_vocab_size" in fields:
            raise BpeError(
                f"the target vocab size is given twice: {settings!r} and "
                f"target_vocab_size={fields['target_vocab_size']!r}; give one"
            )
        return TrainingSettings(target_vocab_size=settings, **fields)
    if not isinstance(settings, TrainingSettings):
        raise BpeError(
            f"after the text comes a TrainingSettings or the target vocab size, got "
            f"{type(settings).__name__} {settings!r:.60}; write for example target_vocab_size=300"
        )
    if fields:
        named = ", ".join(f"{key}={value!r:.40}" for key, value in sorted(fields.items()))
        raise BpeError(
            f"give a TrainingSettings or its fields by keyword, not both (got the settings and {named}); "
            f"write dataclasses.replace(settings, {named}) to change a field"
        )
    return settings


def prepare_base_tokens(text: str, base_tokens, alphabet: str) -> list:
    """The given base tokens, checked to cover the text; else the alphabet's default."""
    if base_tokens is None:
        return default_base_tokens(text, alphabet)
    base = check_base_tokens(base_tokens, alphabet)
    if alphabet == BYTES:
        if len(base) != 256:
            raise BpeError(f"a byte alphabet needs all 256 byte values as base tokens, got {len(base)}")
    else:
        require_covered(text, set(base), what="the training text")
    return base


def prepare_words(text: str, alphabet: str, pretokenizer: str | None) -> list:
    """Distinct chunks as base-token sequences with their frequencies, first appearance first."""
    return [(symbols_of(chunk, alphabet), n) for chunk, n in chunk_counts(text, pretokenizer).items()]


def engine_words(text: str, alphabet: str, pretokenizer: str | None) -> Iterator[tuple]:
    """`prepare_words` one at a time, in the form the engines read cheapest: a chunk of
    the byte alphabet as its UTF-8 bytes (each byte the base token of its value), of
    characters as its string. No list of a byte token per byte: trained whole, a text of
    10 M characters would hold 80 MB of pointers in one."""
    for chunk, n in chunk_counts(text, pretokenizer).items():
        yield (chunk.encode("utf-8") if alphabet == BYTES else chunk), n
