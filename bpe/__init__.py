"""BPE Lab's core: Byte Pair Encoding, trained step by step, in pure Python.

This is the public API. It imports nothing heavy: no streamlit, plotly, pandas or torch
(a test checks it in a fresh interpreter); `bpe.figures` and `bpe.lm` load those when
they are used.
"""
from bpe.errors import BpeError as BpeError
from bpe.errors import CorpusError as CorpusError
from bpe.errors import DownloadError as DownloadError
from bpe.errors import TokenizerFileError as TokenizerFileError
from bpe.errors import UnknownSymbolsError as UnknownSymbolsError
from bpe.gpt2.tokenizer import load_gpt2 as load_gpt2
from bpe.run import TrainingRun as TrainingRun
from bpe.run import train_run as train_run
from bpe.steps import MergeStep as MergeStep
from bpe.steps import StopReason as StopReason
from bpe.tokenizer import BPETokenizer as BPETokenizer
from bpe.training import train_steps as train_steps

__all__ = [
    "BPETokenizer", "BpeError", "CorpusError", "DownloadError", "MergeStep", "StopReason",
    "TokenizerFileError", "TrainingRun", "UnknownSymbolsError", "load_gpt2", "train_run", "train_steps",
]
