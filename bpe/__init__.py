"""BPE Lab's core: Byte Pair Encoding, trained step by step, in pure Python.

This is the public API. It imports nothing heavy: no streamlit, plotly, pandas or torch
(a test imports every module in a fresh interpreter). The algorithm lives at the package's
root; each use of it has a sub-package: `bpe.gpt2`, `bpe.corpora`, `bpe.analysis`,
`bpe.cli`, `bpe.lm` (the only torch user) and `bpe.benchmarks`.
"""

from bpe.errors import BpeError as BpeError
from bpe.errors import CorpusError as CorpusError
from bpe.errors import DownloadError as DownloadError
from bpe.errors import TokenizerFileError as TokenizerFileError
from bpe.errors import UnknownSymbolsError as UnknownSymbolsError
from bpe.gpt2 import GPT2Tokenizer as GPT2Tokenizer
from bpe.gpt2 import load_gpt2 as load_gpt2
from bpe.run import TrainingRun as TrainingRun
from bpe.run import train_run as train_run
from bpe.steps import MergeStep as MergeStep
from bpe.steps import StepStream as StepStream
from bpe.steps import StopReason as StopReason
from bpe.tokenizer import BPETokenizer as BPETokenizer
from bpe.tokenizer import Tokenizer as Tokenizer
from bpe.training import TrainingSettings as TrainingSettings
from bpe.training import train_steps as train_steps

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
