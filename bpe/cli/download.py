"""`python -m bpe download wikitext-2`: the downloader on the command line.

Kept apart from `bpe.cli` so the command can be tested as a function: `run_download`
returns an exit status and prints errors as one clear message, never a traceback.
Progress goes to stderr; the folder with the clean files goes to stdout, for scripts.

Wiring (in `bpe.cli`):
    subparsers = parser.add_subparsers(dest="command", required=True)
    add_download_command(subparsers)
    args = parser.parse_args(argv)
    return args.func(args)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from bpe.cli.errors import reporting_errors
from bpe.corpora.download import DEFAULT_DEADLINE, WIKITEXT2_MIRRORS, WIKITEXT2_SHA256, download_wikitext2
from bpe.corpora.wikitext import clean_files
from bpe.paths import CACHE_DIR

DATASETS = ("wikitext-2",)


def add_download_command(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add `download` to a parser's subcommands; its `func` default is `run_download`."""
    parser = subparsers.add_parser(
        "download",
        help="download a corpus into the cache (WikiText-2)",
        description="Download WikiText-2 (raw, v1), check its SHA-256 and unpack it into "
        "<cache-dir>/wikitext-2-raw/. A second run uses the cache and makes no request.",
    )
    parser.add_argument("dataset", choices=DATASETS, help="what to download")
    parser.add_argument(
        "--mirror",
        action="append",
        metavar="URL",
        help=f"URL of wikitext-2-raw-v1.zip; repeat to try several in order (default: {', '.join(WIKITEXT2_MIRRORS)})",
    )
    parser.add_argument(
        "--sha256",
        metavar="HEX",
        help=f"expected SHA-256 of the archive (default: the published {WIKITEXT2_SHA256[:12]}...)",
    )
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=CACHE_DIR,
        metavar="DIR",
        help="where the archive and the unpacked files go (default: data/cache in the project)",
    )
    add_transfer_limits(parser, "each mirror")
    parser.set_defaults(func=run_download)
    return parser


def add_transfer_limits(parser: argparse.ArgumentParser, transfer: str) -> None:
    """``--timeout`` (each connect and read) and ``--deadline`` (each whole ``transfer``),
    as every downloading command takes them."""
    parser.add_argument(
        "--timeout", type=float, default=30, metavar="SECONDS", help="limit for each connect and read (default: 30)"
    )
    parser.add_argument(
        "--deadline",
        type=float,
        default=DEFAULT_DEADLINE,
        metavar="SECONDS",
        help=f"limit for {transfer}'s whole transfer (default: {DEFAULT_DEADLINE:g})",
    )


def run_download(args: argparse.Namespace) -> int:
    """Run `download` with parsed arguments; return the exit status (0 done, 1 failed)."""
    return reporting_errors(lambda: _download(args), interrupted="interrupted: no partial file was left in the cache.")


def _download(args: argparse.Namespace) -> int:
    folder = download_wikitext2(
        args.cache_dir,
        mirrors=args.mirror or None,
        sha256=args.sha256,
        progress=ProgressPrinter(sys.stderr),
        timeout=args.timeout,
        deadline=args.deadline,
    )
    for split, path in clean_files(folder).items():
        print(f"{split:>5}: {path.name} ({path.stat().st_size:,} bytes)", file=sys.stderr)
    print(folder)
    return 0


class ProgressPrinter:
    """A `progress(done, total)` callback that prints a line per tenth (or per MB if no total)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.last_step = -1

    def __call__(self, done: int, total: int | None) -> None:
        if done == 0:
            self.last_step = -1  # a new mirror starts from zero
        step = done * 10 // total if total else done // 1_000_000
        if step == self.last_step:
            return
        self.last_step = step
        if total:
            line = f"downloading: {done / 1e6:.1f} of {total / 1e6:.1f} MB ({100 * done // total}%)"
        else:
            line = f"downloading: {done / 1e6:.1f} MB"
        print(line, file=self.stream, flush=True)
