"""tiktoken's own GPT-2 encoding, built from local files with no network: the oracle
that `bpe.gpt2` is checked against (command line, app, benchmark, tests).

``tiktoken.get_encoding("gpt2")`` would fetch OpenAI's files through a cache folder named
by an environment variable. Instead the files are parsed here (the same checked parse
`bpe.gpt2` uses) and handed to ``tiktoken.Encoding`` as ranks: no download, no cache
copy, and no process-wide state touched. Files whose SHA-256 is not OpenAI's are refused
first, so the oracle is always the real GPT-2.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

from bpe.errors import BpeError
from bpe.gpt2.files import ENCODER_JSON, GPT2_SHA256, VOCAB_BPE, parse_gpt2_files
from bpe.io.files import check_sha256
from bpe.pretokenize import GPT2_PATTERN


def tiktoken_gpt2(encoder_json_path: str | os.PathLike[str], vocab_bpe_path: str | os.PathLike[str]):
    """tiktoken's GPT-2 ``Encoding``, built offline from these files (OpenAI's, hashes checked).

    Raises `BpeError` when tiktoken is not installed or the files are not OpenAI's.
    """
    try:
        import tiktoken
    except ImportError:
        raise BpeError("tiktoken is not installed (pip install tiktoken): nothing to compare with") from None
    check_sha256(encoder_json_path, GPT2_SHA256[ENCODER_JSON])
    check_sha256(vocab_bpe_path, GPT2_SHA256[VOCAB_BPE])
    vocabulary = parse_gpt2_files(encoder_json_path, vocab_bpe_path)
    ranks = {token: rank for rank, token in enumerate(vocabulary.tokens)}
    return tiktoken.Encoding(
        "gpt2",
        pat_str=GPT2_PATTERN,
        mergeable_ranks=ranks,
        special_tokens=dict(vocabulary.special_tokens),
        explicit_n_vocab=len(ranks) + len(vocabulary.special_tokens),
    )


@dataclass(frozen=True)
class Parity:
    """Our GPT-2 ids against tiktoken's on one text, with both encoders' times."""

    equal: bool
    tokens: int
    tiktoken_tokens: int
    first_difference: int | None  # index of the first differing id
    size_bytes: int
    seconds: float
    tiktoken_seconds: float

    @property
    def mb_per_s(self) -> float:
        return self.size_bytes / max(self.seconds, 1e-9) / 1e6

    @property
    def tiktoken_mb_per_s(self) -> float:
        return self.size_bytes / max(self.tiktoken_seconds, 1e-9) / 1e6


def check_against_tiktoken(
    tokenizer, text: str, encoder_json_path, vocab_bpe_path, *, allowed_special=frozenset()
) -> Parity:
    """Encode ``text`` with ``tokenizer`` (cold cache) and with tiktoken, time both, compare ids.

    Raises `BpeError` when tiktoken cannot be loaded offline from these files.
    """
    reference = tiktoken_gpt2(encoder_json_path, vocab_bpe_path)
    reference.encode_ordinary("warm up")  # its first call starts a thread pool
    if hasattr(tokenizer, "clear_cache"):
        tokenizer.clear_cache()
    started = time.perf_counter()
    ids = tokenizer.encode(text, allowed_special=allowed_special)
    seconds = time.perf_counter() - started
    started = time.perf_counter()
    expected = reference.encode(text, allowed_special=allowed_special, disallowed_special=())
    tiktoken_seconds = time.perf_counter() - started
    first = None
    if ids != expected:
        first = next((i for i, (a, b) in enumerate(zip(ids, expected)) if a != b), min(len(ids), len(expected)))
    return Parity(ids == expected, len(ids), len(expected), first, len(text.encode("utf-8")), seconds, tiktoken_seconds)
