"""OpenAI's GPT-2 tokenizer from its released files, id for id like tiktoken.

tokenizer.py       GPT2Tokenizer: tiktoken's merge rule (lowest rank of the concatenation)
files.py           reading, checking, finding and downloading encoder.json + vocab.bpe
tiktoken_check.py  tiktoken itself, built offline from the same files: the oracle
"""

from __future__ import annotations

from bpe.gpt2.files import find_gpt2_files as find_gpt2_files
from bpe.gpt2.tokenizer import GPT2Tokenizer as GPT2Tokenizer
from bpe.gpt2.tokenizer import load_default_gpt2 as load_default_gpt2
from bpe.gpt2.tokenizer import load_gpt2 as load_gpt2

__all__ = ["GPT2Tokenizer", "find_gpt2_files", "load_default_gpt2", "load_gpt2"]
