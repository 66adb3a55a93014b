"""`python -m bpe count INPUT... --output COUNTS`: the count phase on the command line.

Reads the corpus (files, folders, globs of .txt, .jsonl, .parquet, .gz) on every core or
on a Dask cluster and writes one counts file (`bpe.counts`), which `train` reads. Progress
goes to stderr; the file is written at the end, whole, so Ctrl-C or SIGTERM leaves the old
one (or none) in place.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from bpe.alphabet import ALPHABETS, CHARACTERS
from bpe.cli.errors import stop_status
from bpe.corpora.counting import CountProgress, available_cores, count_corpus
from bpe.corpora.streams import ReadOptions
from bpe.counts import CUSTOM, write_counts
from bpe.errors import BpeError
from bpe.files import check_writable_folder, check_writable_target
from bpe.pretokenize import PRETOKENIZER_CHOICES

DEFAULT_PRETOKENIZER = "gpt2"


def add_count_command(commands) -> argparse.ArgumentParser:
    p = commands.add_parser(
        "count",
        help="the count phase: each distinct chunk of a corpus and its count, into one counts file",
        description="Count the distinct pre-tokenized chunks of a corpus (.txt, .jsonl, .parquet, .txt.gz, "
        ".jsonl.gz; folders and globs of these) on every core, or on a Dask cluster, into one Parquet "
        "counts file for `train`.",
    )
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="corpus files, folders or globs")
    p.add_argument("--output", "-o", type=Path, required=True, metavar="COUNTS", help="the counts file to write")
    p.add_argument("--alphabet", choices=ALPHABETS, default=CHARACTERS)
    p.add_argument(
        "--pretokenizer",
        choices=PRETOKENIZER_CHOICES,
        help=f"how text is split into chunks (default {DEFAULT_PRETOKENIZER}); none cannot be counted in chunks",
    )
    p.add_argument("--pattern", metavar="REGEX", help="a custom split pattern instead (checked for safety)")
    p.add_argument("--field", default="text", help="the field of a .jsonl record that holds the text (default text)")
    p.add_argument("--column", default="text", help="the Parquet column that holds the text (default text)")
    p.add_argument("--max-characters", type=_positive, metavar="N", help="stop after N characters of the corpus")
    p.add_argument(
        "--max-document-characters", type=_positive, metavar="N", help="keep the first N characters of each document"
    )
    p.add_argument(
        "--heldout-fraction",
        type=float,
        default=0.0,
        metavar="F",
        help="hold out about this fraction of the documents for the held-out curve (default 0)",
    )
    p.add_argument("--seed", type=int, default=0, help="which documents are held out (default 0)")
    p.add_argument(
        "--workers",
        type=_positive,
        metavar="N",
        help=f"processes on this machine (default: every core, here {available_cores()}, one per 32 MB of input at most)",
    )
    p.add_argument(
        "--dask", metavar="ADDRESS", help="count on the Dask cluster whose scheduler is here (tcp://HOST:8786)"
    )
    p.add_argument("--quiet", action="store_true", help="no progress line")
    p.set_defaults(func=run_count)
    return p


def _positive(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"{number} must be at least 1")
    return number


def chosen_pretokenizer(pretokenizer: str | None, pattern: str | None) -> tuple[str | None, str | None]:
    """(pretokenizer, pattern) from the two options: a pattern makes it custom."""
    if pattern is not None:
        if pretokenizer is not None:
            raise BpeError(f"give --pretokenizer {pretokenizer} or --pattern, not both")
        return CUSTOM, pattern
    pretokenizer = pretokenizer or DEFAULT_PRETOKENIZER
    return (None if pretokenizer == "none" else pretokenizer), None


def run_count(args) -> int:
    pretokenizer, pattern = chosen_pretokenizer(args.pretokenizer, args.pattern)
    options = ReadOptions(
        field=args.field,
        column=args.column,
        max_characters=args.max_characters,
        max_document_characters=args.max_document_characters,
        heldout_fraction=args.heldout_fraction,
        seed=args.seed,
    )
    output = check_writable_target(args.output)  # before the work, not after it
    check_writable_folder(output.parent if str(output.parent) else Path("."))
    progress = None if args.quiet else _ProgressLine()
    started = time.perf_counter()
    try:
        counts = count_corpus(
            args.inputs,
            alphabet=args.alphabet,
            pretokenizer=pretokenizer,
            pattern=pattern,
            options=options,
            workers=args.workers,
            dask=args.dask,
            on_progress=progress,
        )
        write_counts(output, counts)
    except KeyboardInterrupt as stop:
        kept = f"{output} is as before" if output.exists() else "nothing was written"
        print(f"\ninterrupted: {kept}.", file=sys.stderr)
        return stop_status(stop)
    finally:
        if progress is not None:
            progress.end()
    seconds = time.perf_counter() - started
    size = sum(entry[1] for entry in counts.inputs)
    print(
        f"{output}: {len(counts.chunks):,} distinct chunks, {counts.characters:,} characters in "
        f"{counts.documents:,} documents from {len(counts.inputs)} file(s); held out {counts.heldout_documents:,} "
        f"documents ({counts.heldout_characters:,} characters); {seconds:.1f} s, {size / 1e6 / max(seconds, 1e-9):.1f} MB/s"
    )
    return 0


class _ProgressLine:
    """One line on stderr, rewritten in place: bytes read, the share done, MB/s."""

    def __init__(self) -> None:
        self.shown = False

    def __call__(self, progress: CountProgress) -> None:
        share = progress.bytes_done / progress.bytes_total if progress.bytes_total else 1.0
        print(
            f"\rcounting: {progress.bytes_done / 1e6:,.1f} of {progress.bytes_total / 1e6:,.1f} MB ({share:.0%}), "
            f"{progress.megabytes_per_second:.1f} MB/s, {progress.characters:,} characters",
            end="",
            file=sys.stderr,
            flush=True,
        )
        self.shown = True

    def end(self) -> None:
        if self.shown:
            print(file=sys.stderr)
            self.shown = False
