"""BPE Lab's core: Byte Pair Encoding, trained step by step, in pure Python.

This is the public API. It imports nothing heavy: no streamlit, plotly, pandas or torch
(a test imports every module in a fresh interpreter). The algorithm lives at the package's
root, on a floor for files and the network (`bpe.io`); each use of it has a sub-package:
`bpe.scale` (the big-corpus pipeline), `bpe.variants` (training rules beyond the textbook),
`bpe.gpt2`, `bpe.corpora`, `bpe.formats`, `bpe.analysis`, `bpe.cli`, `bpe.lm` (the only
torch user) and `bpe.benchmarks`.

Each name is imported from its module the first time it is asked for (``from bpe import
BPETokenizer``, ``bpe.train_run``): importing any part of the package runs this file, and a
merge phase or a counting worker that never touches GPT-2 need not load it and the download
code it brings (the network modules, which a process that should stay small need not hold).
"""

import importlib

from bpe.errors import BpeError as BpeError
from bpe.errors import CorpusError as CorpusError
from bpe.errors import DownloadError as DownloadError
from bpe.errors import TokenizerFileError as TokenizerFileError
from bpe.errors import UnknownSymbolsError as UnknownSymbolsError

# name -> the module it lives in, imported on first use
_LAZY = {
    "GPT2Tokenizer": "bpe.gpt2",
    "load_gpt2": "bpe.gpt2",
    "TrainingRun": "bpe.run",
    "train_run": "bpe.run",
    "MergeStep": "bpe.steps",
    "StepStream": "bpe.steps",
    "StopReason": "bpe.steps",
    "BPETokenizer": "bpe.tokenizer",
    "Tokenizer": "bpe.tokenizer",
    "TrainingSettings": "bpe.training",
    "train_steps": "bpe.training",
}

__all__ = [
    "BPETokenizer",
    "BpeError",
    "CorpusError",
    "DownloadError",
    "GPT2Tokenizer",
    "MergeStep",
    "StepStream",
    "StopReason",
    "Tokenizer",
    "TokenizerFileError",
    "TrainingRun",
    "TrainingSettings",
    "UnknownSymbolsError",
    "load_gpt2",
    "train_run",
    "train_steps",
]


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'bpe' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # found once: later lookups do not come here
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
