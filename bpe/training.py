"""Training entry point: check the settings, prepare the text, run an engine.

`train_steps` is what pages and the command line iterate; `BPETokenizer.train` and
`bpe.run.train_run` are built on it. The engines (`bpe.reference`, `bpe.fast`) receive
text already split into distinct chunks with their frequencies, and never validate.
"""
from __future__ import annotations

from bpe.alphabet import BYTES, CHARACTERS, check_alphabet, check_base_tokens, default_base_tokens, require_covered, symbols_of
from bpe.errors import BpeError
from bpe.fast import fast_steps
from bpe.pretokenize import check_pretokenizer, chunk_counts
from bpe.reference import reference_steps
from bpe.steps import StepStream

ENGINES = {"reference": reference_steps, "fast": fast_steps}


def train_steps(text: str, target_vocab_size: int, minimum_pair_frequency: int = 2,
                base_tokens: list | None = None, engine: str = "fast", top_k: int = 10, *,
                alphabet: str = CHARACTERS, pretokenizer: str | None = None) -> StepStream:
    """Train BPE on ``text`` one merge at a time.

    Returns a `StepStream`: iterate it for `MergeStep` records; afterwards its
    ``stop_reason`` says why training stopped. Raises `BpeError` on bad settings before
    any work is done.
    """
    settings = check_settings(text, target_vocab_size, minimum_pair_frequency, engine, top_k, alphabet)
    base = prepare_base_tokens(text, base_tokens, alphabet)
    if target_vocab_size < len(base):
        raise BpeError(
            f"target_vocab_size={target_vocab_size} is smaller than the alphabet "
            f"({len(base)} base tokens): choose at least {len(base)}"
        )
    words = prepare_words(text, alphabet, pretokenizer)
    settings.update(alphabet=alphabet, pretokenizer=check_pretokenizer(pretokenizer))
    steps = ENGINES[engine](words, base, target_vocab_size=target_vocab_size,
                            minimum_pair_frequency=minimum_pair_frequency, top_k=top_k)
    return StepStream(steps, base_tokens=base, settings=settings)


def check_settings(text, target_vocab_size, minimum_pair_frequency, engine, top_k, alphabet) -> dict:
    if not isinstance(text, str):
        raise BpeError(f"text must be a str, got {type(text).__name__}")
    if not text:
        raise BpeError("the training text is empty: give at least one character")
    if not isinstance(target_vocab_size, int) or isinstance(target_vocab_size, bool) or target_vocab_size < 1:
        raise BpeError(f"target_vocab_size={target_vocab_size!r} must be a positive whole number")
    if not isinstance(minimum_pair_frequency, int) or minimum_pair_frequency < 1:
        raise BpeError(f"minimum_pair_frequency={minimum_pair_frequency!r} must be a whole number of at least 1")
    if engine not in ENGINES:
        raise BpeError(f"unknown engine {engine!r}: choose one of {', '.join(ENGINES)}")
    if not isinstance(top_k, int) or top_k < 0:
        raise BpeError(f"top_k={top_k!r} must be a whole number of at least 0")
    check_alphabet(alphabet)
    return {"target_vocab_size": target_vocab_size, "minimum_pair_frequency": minimum_pair_frequency,
            "engine": engine, "top_k": top_k}


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
