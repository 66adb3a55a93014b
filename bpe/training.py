"""Training entry point: check the settings, prepare the text, run an engine.

`TrainingSettings` says what to learn; `train_steps` is what pages and the command line
iterate; `BPETokenizer.train` and `bpe.run.train_run` are built on it. The engines (`bpe.reference`, `bpe.fast`) receive
text already split into distinct chunks with their frequencies, and never validate.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from bpe.alphabet import (
    BYTES,
    CHARACTERS,
    check_alphabet,
    check_base_tokens,
    require_covered,
    require_unicode,
    symbols_of,
)
from bpe.errors import BpeError
from bpe.fast import fast_steps
from bpe.io.memory import return_free_memory
from bpe.pretokenize import ChunkTally, check_pretokenizer
from bpe.reference import reference_steps
from bpe.specials import (
    ENDOFTEXT,
    base_tokens_of_texts,
    check_special_tokens,
    initial_tokens,
    ordinary_pieces,
    special_words,
)
from bpe.steps import DEFAULT_TIE_RULE, LEXICOGRAPHIC_GREATEST, StepStream, check_tie_rule
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
    # Strings such as "<|endoftext|>": the text is cut at each before pre-tokenization, and
    # each is one token of its own, numbered first and counted in the vocab size (`bpe.specials`).
    special_tokens: tuple[str, ...] = ()

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
        object.__setattr__(self, "special_tokens", check_special_tokens(self.special_tokens))


def check_vocab_size(
    base_tokens: Sequence, vocab_size: int, *, name: str = "vocab_size", special_tokens: Sequence[str] = ()
) -> None:
    """`BpeError` when ``vocab_size`` (the argument ``name``) is below the alphabet and the
    special tokens: no tokenizer is that small. Training, training from counts and cutting
    a tokenizer to a size all refuse it in these words."""
    smallest = len(base_tokens) + len(special_tokens)
    if vocab_size < smallest:
        specials = f" and {len(special_tokens)} special" if special_tokens else ""
        raise BpeError(
            f"{name}={vocab_size} is smaller than the alphabet{' and the special tokens' if special_tokens else ''} "
            f"({len(base_tokens)} base tokens{specials}): choose at least {smallest}"
        )


def train_steps(
    text: str, settings: TrainingSettings | int | None = None, /, *, token_ids: dict | None = None, **fields
) -> StepStream:
    """Train BPE on ``text`` one merge at a time.

    Pass a `TrainingSettings`, or its fields by keyword, or the target vocab size first as
    the tutorial does: ``train_steps(text, 300)`` is
    ``train_steps(text, target_vocab_size=300)``; ``train_steps(text, 300, engine="reference")``.
    ``token_ids``: the map of tokens to ids the engine extends (`engine_steps`).
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
    base = prepare_base_tokens(text, settings.base_tokens, settings.alphabet, settings.special_tokens)
    check_vocab_size(base, settings.target_vocab_size, name="target_vocab_size", special_tokens=settings.special_tokens)
    words = engine_words(text, settings.alphabet, settings.pretokenizer, settings.special_tokens)
    return engine_steps(words, base, settings, token_ids=token_ids)


def engine_steps(words, base: list, settings: TrainingSettings, *, token_ids: dict | None = None) -> StepStream:
    """The settings' engine over ``words`` (``(symbols, count)`` pairs in order of first
    occurrence, as `prepare_words` makes them) from the base tokens ``base``, as a
    `StepStream`. The engine numbers the settings' special tokens first, then ``base``
    (`bpe.specials.initial_tokens`). ``token_ids``: the map of tokens to ids to share (see
    `bpe.steps.shared_token_ids`: it holds those tokens, in that order)."""
    steps = ENGINES[settings.engine](
        words,
        initial_tokens(settings.special_tokens, base, settings.alphabet),
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


def prepare_base_tokens(text: str, base_tokens, alphabet: str, special_tokens: Sequence[str] = ()) -> list:
    """The given base tokens, checked to cover the text outside its special tokens; else the
    alphabet's default for that text (`bpe.specials.base_tokens_of_texts`)."""
    if base_tokens is None:
        return base_tokens_of_texts([text], alphabet, special_tokens)
    base = check_base_tokens(base_tokens, alphabet)
    if alphabet == BYTES:
        if len(base) != 256:
            raise BpeError(f"a byte alphabet needs all 256 byte values as base tokens, got {len(base)}")
    else:
        require_covered("".join(ordinary_pieces(text, special_tokens)), set(base), what="the training text")
    return base


def prepare_words(text: str, alphabet: str, pretokenizer: str | None, special_tokens: Sequence[str] = ()) -> list:
    """Distinct chunks as base-token sequences with their frequencies, first appearance
    first. With special tokens the text is cut at them first, so no chunk holds one, and
    each special token that occurs comes last as a word of one symbol (`bpe.specials.special_words`)."""
    tally = _tally(text, pretokenizer, special_tokens)
    words = [(symbols_of(chunk, alphabet), n) for chunk, n in tally.counts().items()]
    return words + special_words(tally.special_counts(), alphabet)


def engine_words(
    text: str, alphabet: str, pretokenizer: str | None, special_tokens: Sequence[str] = ()
) -> Iterator[tuple]:
    """`prepare_words` one at a time, in the form the engines read cheapest: a chunk of
    the byte alphabet as its UTF-8 bytes (each byte the base token of its value), of
    characters as its string. No list of a byte token per byte: trained whole, a text of
    10 M characters would hold 80 MB of pointers in one."""
    tally = _tally(text, pretokenizer, special_tokens)
    counts = tally.counts()
    if pretokenizer is None:  # the text whole, or its pieces between special tokens: a few long chunks
        for chunk, frequency in counts.items():
            yield (chunk.encode("utf-8") if alphabet == BYTES else chunk), frequency
    else:
        yield from _packed_words(counts, alphabet)
    yield from special_words(tally.special_counts(), alphabet)


def _packed_words(counts: Counter, alphabet: str) -> Iterator[tuple]:
    """The chunks of ``counts`` as `engine_words` hands them on, from their UTF-8 laid end
    to end in one bytes object: ``counts`` is emptied before the first is handed on.

    Pre-tokenized, a text's distinct chunks are many small strings: split at whitespace,
    16 M characters of code make 306,000 of them, 44 MB counted. Freed one by one as the
    engine spells them, they give back little of that until nearly all are gone, while the
    engine's symbols (23 MB) grow beside them: up to 74 MB over the text at once. Packed,
    they are 6 MB, and their strings are all freed before the first symbol is spelled
    (52 MB at most)."""
    packed = bytearray()
    ends = array("Q")  # where each chunk's bytes end
    for chunk in counts:
        packed += chunk.encode("utf-8")
        ends.append(len(packed))
    frequencies = array("Q", counts.values())
    counts.clear()
    packed = bytes(packed)  # (slices of bytes are bytes, as the engines take a byte chunk)
    if len(frequencies) >= GIVEN_BACK_FROM_CHUNKS:
        return_free_memory()
    start = 0
    for end, frequency in zip(ends, frequencies):
        chunk = packed[start:end]
        yield (chunk if alphabet == BYTES else chunk.decode("utf-8")), frequency
        start = end


# The distinct chunks from which the memory their strings took is given back to the system
# as soon as they are packed (`bpe.io.memory`). Where it stays, the symbols and positions
# are laid out beside it or in it, as it happens: split at whitespace, 16 M characters (306,000
# chunks) peaked at 3.8 or 4.5 MB per million characters over the text, with the same code,
# as modules had been imported before. Fewer chunks leave little to give back, and what
# is given back is faulted in again at once: WikiText-2's 18,000 peaked 1.6 MB higher.
GIVEN_BACK_FROM_CHUNKS = 1 << 16


def _tally(text: str, pretokenizer: str | None, special_tokens: Sequence[str]) -> ChunkTally:
    """The text's chunks counted a piece at a time (`bpe.pretokenize.ChunkTally`), cut at
    the special tokens first."""
    tally = ChunkTally(pretokenizer, ChunkTally.IN_MEMORY_PENDING_SEGMENTS, special_tokens=special_tokens)
    tally.add(text)
    return tally


# ==================== Presets: a course's settings under one name
#
# ``cs336`` is Stanford CS336's assignment 1 (`train_bpe`): bytes, GPT-2's split pattern, ties
# to the lexicographically greatest pair, every pair merged however rare (minimum pair
# frequency 1) and ``<|endoftext|>`` as a special token. With it, corpus.en to vocab 500 gives
# the course's reference merges exactly (tests/core/test_cs336_conformance.py). A preset only
# fills in settings; whatever is given beside it wins (`apply_preset`), and it says what it
# set (`describe_preset`), so nothing changes behind the user's back:
#
#     apply_preset("cs336", {"minimum_pair_frequency": 2})
#     # {'alphabet': 'bytes', 'pretokenizer': 'gpt2', 'tie_rule': 'lexicographic_greatest',
#     #  'minimum_pair_frequency': 2, 'special_tokens': ('<|endoftext|>',)}

CS336 = "cs336"
PRESETS: dict[str, dict] = {
    CS336: {
        "alphabet": BYTES,
        "pretokenizer": "gpt2",
        "tie_rule": LEXICOGRAPHIC_GREATEST,
        "minimum_pair_frequency": 1,
        "special_tokens": (ENDOFTEXT,),
    },
}
# What each preset is, for help texts and the app's choice.
PRESET_LABELS = {CS336: "Stanford CS336 (assignment 1)"}
# Each field's value in words, for `describe_preset`.
_WORDS = {
    "alphabet": lambda value: f"the {value} alphabet",
    "pretokenizer": lambda value: "GPT-2's split pattern" if value == "gpt2" else f"the {value} pre-tokenizer",
    "tie_rule": lambda value: (
        "ties to the lexicographically greatest pair" if value == LEXICOGRAPHIC_GREATEST else f"the {value} tie rule"
    ),
    "minimum_pair_frequency": lambda value: f"minimum pair frequency {value}",
    "special_tokens": lambda value: "special token" + ("s " if len(value) > 1 else " ") + ", ".join(value),
}


def check_preset(name: str) -> str:
    if name not in PRESETS:
        raise BpeError(f"unknown preset {name!r}: choose one of {', '.join(PRESETS)}")
    return name


def preset_fields(name: str) -> dict:
    """The `bpe.training.TrainingSettings` fields the preset sets."""
    return dict(PRESETS[check_preset(name)])


def apply_preset(name: str | None, given: Mapping) -> dict:
    """The preset's fields with ``given`` over them: a field given explicitly wins. No
    preset (None): ``given`` as it is."""
    if name is None:
        return dict(given)
    return {**preset_fields(name), **given}


def describe_preset(name: str, overridden: Mapping | None = None, *, only: Sequence[str] | None = None) -> str:
    """What the preset set, in words, and what was given instead (``only``: the fields that
    apply here): "preset cs336 (Stanford CS336 (assignment 1)) set the bytes alphabet, GPT-2's
    split pattern, ties to the lexicographically greatest pair, minimum pair frequency 1 and
    special token <|endoftext|>"."""
    fields = {key: value for key, value in preset_fields(name).items() if only is None or key in only}
    overridden = {key: value for key, value in (overridden or {}).items() if key in fields}
    kept = [_WORDS[key](value) for key, value in fields.items() if key not in overridden]
    said = f"preset {name} ({PRESET_LABELS[name]}) set " + (
        ", ".join(kept[:-1]) + f" and {kept[-1]}" if len(kept) > 1 else "".join(kept) or "nothing"
    )
    if overridden:
        said += "; given instead: " + ", ".join(_WORDS[key](value) for key, value in overridden.items())
    return said
