"""`python -m bpe export`: a tokenizer trained here, as another library's files, with a proof.

    python -m bpe export --tokenizer T.json --format hf --output tokenizer.json
    python -m bpe export --tokenizer T.json --format tiktoken --output lab.tiktoken --check-text test.txt
    python -m bpe export --tokenizer T.json --format minbpe --output lab.model

After writing, the file is loaded with the target library (Hugging Face ``tokenizers``,
``tiktoken``; minbpe, which is not a package, by BPE Lab's reader of its format) and the
``--check-text`` file plus a few hostile strings are encoded both ways. The last line reads
``identical ids on N characters ...`` or shows the first difference with the text around
it. Before it, what the format cannot hold exactly ("merges vs ranks",
`bpe.formats.merges_vs_ranks`), with example texts that encode differently.

Exit status: 0 when the ids are identical (or ``--no-proof``), 1 when they differ or on
any error (one line, never a traceback). A tiktoken export also writes ``<output>.json``
(the split pattern and the other settings ``tiktoken.Encoding`` needs).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bpe.corpora.textfile import read_text_file
from bpe.formats import FORMATS, LIBRARY, export_and_prove
from bpe.tokenizer import BPETokenizer


def add_export_command(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``export`` to a parser's subcommands; its ``func`` is `run_export`."""
    formats = ", ".join(f"{fmt} ({LIBRARY[fmt]})" for fmt in FORMATS)
    p = subparsers.add_parser(
        "export",
        help="write a saved tokenizer as another library's file and prove it encodes the same",
        description=f"Write a BPE Lab tokenizer in another library's format: {formats}. The file is then "
        "loaded with that library and text is encoded both ways; the last line says whether "
        "the ids are identical.",
    )
    p.add_argument("--tokenizer", type=Path, required=True, help="a tokenizer saved by BPE Lab (build, the app)")
    p.add_argument(
        "--format",
        choices=FORMATS,
        required=True,
        help="hf: tokenizer.json; tiktoken: a .tiktoken "
        "ranks file and its settings (byte-level tokenizers only); minbpe: a .model file (byte-level only)",
    )
    p.add_argument(
        "--output",
        type=Path,
        required=True,
        metavar="PATH",
        help="the file to write (a minbpe model must end in .model)",
    )
    p.add_argument(
        "--check-text",
        type=Path,
        metavar="FILE",
        help="held-out text to encode both ways (besides the built-in hostile strings); also searched "
        "for texts the format encodes differently",
    )
    p.add_argument("--no-proof", action="store_true", help="write the files without loading them back")
    p.set_defaults(func=run_export)
    return p


def run_export(args) -> int:
    tokenizer = BPETokenizer.from_file(args.tokenizer)
    check_text = (
        None
        if args.check_text is None
        else read_text_file(args.check_text, if_empty="there is no text to check the export on")
    )
    report = export_and_prove(
        tokenizer,
        args.format,
        args.output,
        check_text=check_text,
        prove=not args.no_proof,
        inputs={"--tokenizer": args.tokenizer, "--check-text": args.check_text},
    )
    for line in report.lines():
        print(line)
    return 0 if report.proof is None or report.proof.identical else 1
