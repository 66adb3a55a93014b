"""tiktoken's own GPT-2 encoding, loaded from local files with no network: the oracle
that `bpe.gpt2` is checked against (command line, app, benchmark, tests).

``tiktoken.get_encoding("gpt2")`` reads OpenAI's two files through a cache folder
(``$TIKTOKEN_CACHE_DIR``) where each file is named by the SHA-1 of its URL, and checks
their SHA-256. So: copy the files there under those names, point the variable at the
folder while tiktoken loads, and it never needs to download. Files whose SHA-256 is not
OpenAI's are refused first (tiktoken would otherwise try to download the real ones).
"""
from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from .errors import BpeError
from .download import sha256_file
from .gpt2_files import ENCODER_JSON, GPT2_SHA256, OPENAI_BASE_URL, VOCAB_BPE

TIKTOKEN_URLS = {name: f"{OPENAI_BASE_URL}/{name}" for name in (ENCODER_JSON, VOCAB_BPE)}


def tiktoken_cache_name(url: str) -> str:
    """The file name tiktoken gives a cached download: the SHA-1 of its URL."""
    return hashlib.sha1(url.encode()).hexdigest()


def place_in_tiktoken_cache(encoder_json_path: str | os.PathLike[str], vocab_bpe_path: str | os.PathLike[str],
                            cache_dir: str | os.PathLike[str]) -> None:
    """Copy the two files into ``cache_dir`` under the names tiktoken looks for."""
    cache_dir = Path(cache_dir)
    cache_dir.mkdir(parents=True, exist_ok=True)
    for name, path in ((ENCODER_JSON, encoder_json_path), (VOCAB_BPE, vocab_bpe_path)):
        shutil.copyfile(path, cache_dir / tiktoken_cache_name(TIKTOKEN_URLS[name]))


def check_official(encoder_json_path: str | os.PathLike[str], vocab_bpe_path: str | os.PathLike[str]) -> None:
    """Raise `BpeError` unless both files are OpenAI's (tiktoken checks the same hashes)."""
    for name, path in ((ENCODER_JSON, encoder_json_path), (VOCAB_BPE, vocab_bpe_path)):
        actual = sha256_file(Path(path))
        if actual != GPT2_SHA256[name]:
            raise BpeError(f"{path} is not OpenAI's {name} (sha256 {actual[:16]}..., expected "
                           f"{GPT2_SHA256[name][:16]}...): tiktoken only loads the official files")


def tiktoken_gpt2(encoder_json_path: str | os.PathLike[str], vocab_bpe_path: str | os.PathLike[str]):
    """``tiktoken.get_encoding("gpt2")``, loaded offline from these files.

    Raises `BpeError` when tiktoken is not installed or the files are not OpenAI's.
    """
    try:
        import tiktoken
    except ImportError:
        raise BpeError("tiktoken is not installed (pip install tiktoken): nothing to compare with") from None
    check_official(encoder_json_path, vocab_bpe_path)
    previous = os.environ.get("TIKTOKEN_CACHE_DIR")
    with tempfile.TemporaryDirectory(prefix="bpe-tiktoken-") as folder:
        place_in_tiktoken_cache(encoder_json_path, vocab_bpe_path, folder)
        os.environ["TIKTOKEN_CACHE_DIR"] = folder
        try:
            return tiktoken.get_encoding("gpt2")  # tiktoken keeps it: later calls read nothing
        finally:
            if previous is None:
                os.environ.pop("TIKTOKEN_CACHE_DIR", None)
            else:
                os.environ["TIKTOKEN_CACHE_DIR"] = previous


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


def check_against_tiktoken(tokenizer, text: str, encoder_json_path, vocab_bpe_path, *,
                           allowed_special=frozenset()) -> Parity:
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
    return Parity(ids == expected, len(ids), len(expected), first, len(text.encode("utf-8")), seconds,
                  tiktoken_seconds)
