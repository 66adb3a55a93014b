"""BPE Lab's core: Byte Pair Encoding, trained step by step, in pure Python.

This is the public API. It imports nothing heavy: no streamlit, plotly, pandas or torch
(a test checks it in a fresh interpreter); `bpe.figures` and `bpe.lm` load those when
they are used.
"""
from .errors import BpeError as BpeError
from .errors import CorpusError as CorpusError
from .errors import DownloadError as DownloadError
from .errors import TokenizerFileError as TokenizerFileError
from .errors import UnknownSymbolsError as UnknownSymbolsError
from .gpt2 import load_gpt2 as load_gpt2
from .run import TrainingRun as TrainingRun
from .run import train_run as train_run
from .steps import MergeStep as MergeStep
from .steps import StopReason as StopReason
from .tokenizer import BPETokenizer as BPETokenizer
from .training import train_steps as train_steps

__all__ = [
    "BPETokenizer", "BpeError", "CorpusError", "DownloadError", "MergeStep", "StopReason",
    "TokenizerFileError", "TrainingRun", "UnknownSymbolsError", "load_gpt2", "train_run", "train_steps",
]
