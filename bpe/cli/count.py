"""`python -m bpe count INPUT... --output COUNTS`: the count phase on the command line.

Reads the corpus (files, folders, globs of .txt, .jsonl, .parquet, .arrow, .gz, .zst) on every core or
on a Dask cluster and writes one counts file (`bpe.scale.chunk_counts`), which `train` reads. Progress
goes to stderr; the file is written at the end, whole, so Ctrl-C or SIGTERM leaves the old
one (or none) in place.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from bpe.alphabet import ALPHABETS, CHARACTERS
from bpe.cli.arguments import at_least_one
from bpe.cli.errors import stop_status
from bpe.errors import BpeError
from bpe.io.files import check_distinct_paths, check_writable_folder, check_writable_target
from bpe.pretokenize import PRETOKENIZER_CHOICES
from bpe.scale.chunk_counts import CUSTOM
from bpe.scale.corpus_files import find_corpus_files
from bpe.scale.count_phase import CountProgress, available_cores, count_corpus
from bpe.scale.counts_file import write_counts
from bpe.scale.partitions import ReadOptions
from bpe.wording import counted

DEFAULT_PRETOKENIZER = "gpt2"


def add_count_command(commands) -> argparse.ArgumentParser:
    p = commands.add_parser(
        "count",
        help="the count phase: each distinct chunk of a corpus and its count, into one counts file",
        description="Count the distinct pre-tokenized chunks of a corpus (.txt, .jsonl, .parquet, .arrow, "
        ".txt.gz, .jsonl.gz, .txt.zst, .jsonl.zst, and any other file name as UTF-8 text: corpus.en, "
        "wiki.train.raw; folders and globs of these, a Hugging Face datasets folder saved with save_to_disk among "
        "them) on every core, or on a Dask cluster, into one Parquet counts file for `train`.",
    )
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="corpus files, folders or globs")
    p.add_argument("--output", "-o", type=Path, required=True, metavar="COUNTS", help="the counts file to write")
    add_corpus_options(p)
    p.add_argument("--quiet", action="store_true", help="no progress line")
    p.set_defaults(func=run_count)
    return p


# What shapes the chunks and how the corpus is read: `count`'s options, which `train`
# shares when it counts its inputs first.
CORPUS_DEFAULTS = {
    "alphabet": CHARACTERS,
    "pretokenizer": None,
    "pattern": None,
    "field": "text",
    "column": "text",
    "max_characters": None,
    "max_document_characters": None,
    "heldout_fraction": 0.0,
    "seed": 0,
    "workers": None,
    "dask": None,
    "special_tokens": None,
}


def add_corpus_options(p: argparse.ArgumentParser, *, suppressed: bool = False) -> None:
    """Add the options that shape the chunks and read the corpus. ``suppressed``: an option
    not given leaves no attribute (so a caller can tell it was not given; see `given_corpus_options`)."""

    def default(name: str):
        return argparse.SUPPRESS if suppressed else CORPUS_DEFAULTS[name]

    p.add_argument("--alphabet", choices=ALPHABETS, default=default("alphabet"))
    p.add_argument(
        "--pretokenizer",
        choices=PRETOKENIZER_CHOICES,
        default=default("pretokenizer"),
        help=f"how text is split into chunks (default {DEFAULT_PRETOKENIZER}); none cannot be counted in chunks",
    )
    p.add_argument(
        "--pattern",
        metavar="REGEX",
        default=default("pattern"),
        help="a custom split pattern instead (checked for safety)",
    )
    p.add_argument(
        "--special-token",
        action="append",
        dest="special_tokens",
        default=default("special_tokens"),
        metavar="TEXT",
        help="a special token such as <|endoftext|>, repeatable: each document is cut at them (the longest "
        "first) before it is chunked, and each is counted as one token of its own",
    )
    p.add_argument(
        "--field", default=default("field"), help="the field of a .jsonl record that holds the text (default text)"
    )
    p.add_argument("--column", default=default("column"), help="the Parquet column that holds the text (default text)")
    p.add_argument(
        "--max-characters",
        type=at_least_one,
        default=default("max_characters"),
        metavar="N",
        help="stop after N characters of the corpus",
    )
    p.add_argument(
        "--max-document-characters",
        type=at_least_one,
        default=default("max_document_characters"),
        metavar="N",
        help="keep the first N characters of each document",
    )
    p.add_argument(
        "--heldout-fraction",
        type=float,
        default=default("heldout_fraction"),
        metavar="F",
        help="hold out about this fraction of the documents for the held-out curve (default 0)",
    )
    p.add_argument("--seed", type=int, default=default("seed"), help="which documents are held out (default 0)")
    p.add_argument(
        "--workers",
        type=at_least_one,
        default=default("workers"),
        metavar="N",
        help=f"processes on this machine (default: every core, here {available_cores()}, one per 32 MB of input at most)",
    )
    p.add_argument(
        "--dask",
        default=default("dask"),
        metavar="ADDRESS",
        help="count on the Dask cluster whose scheduler is here (tcp://HOST:8786)",
    )


def given_corpus_options(args) -> list[str]:
    """The corpus options given on the command line (of a parser made with ``suppressed``)."""
    return [OPTION_NAMES.get(name, "--" + name.replace("_", "-")) for name in CORPUS_DEFAULTS if hasattr(args, name)]


OPTION_NAMES = {"special_tokens": "--special-token"}  # an option named otherwise than its value


def count_from_args(args, on_progress=None):
    """Count the corpus ``args.inputs`` names with the corpus options in ``args`` (absent
    ones take their defaults): the `ChunkCounts` of `count_corpus`."""
    value = {name: getattr(args, name, default) for name, default in CORPUS_DEFAULTS.items()}
    pretokenizer, pattern = chosen_pretokenizer(value["pretokenizer"], value["pattern"])
    options = ReadOptions(
        field=value["field"],
        column=value["column"],
        max_characters=value["max_characters"],
        max_document_characters=value["max_document_characters"],
        heldout_fraction=value["heldout_fraction"],
        seed=value["seed"],
    )
    return count_corpus(
        args.inputs,
        alphabet=value["alphabet"],
        pretokenizer=pretokenizer,
        pattern=pattern,
        options=options,
        workers=value["workers"],
        dask=value["dask"],
        on_progress=on_progress,
        special_tokens=value["special_tokens"] or (),
    )


def corpus_inputs(inputs: list[str]) -> dict[str, Path]:
    """The corpus files ``inputs`` name, as `check_distinct_paths` takes inputs: an output
    must be none of them."""
    return {f"the input {file.name}": file.path for file in find_corpus_files(inputs)}


def chosen_pretokenizer(pretokenizer: str | None, pattern: str | None) -> tuple[str | None, str | None]:
    """(pretokenizer, pattern) from the two options: a pattern makes it custom."""
    if pattern is not None:
        if pretokenizer is not None:
            raise BpeError(f"give --pretokenizer {pretokenizer} or --pattern, not both")
        return CUSTOM, pattern
    pretokenizer = pretokenizer or DEFAULT_PRETOKENIZER
    return (None if pretokenizer == "none" else pretokenizer), None


def run_count(args) -> int:
    chosen_pretokenizer(args.pretokenizer, args.pattern)  # a contradiction is refused before anything
    output = check_writable_target(args.output)  # before the work, not after it
    check_writable_folder(output.parent if str(output.parent) else Path("."))
    check_distinct_paths({"--output": output}, corpus_inputs(args.inputs))
    progress = None if args.quiet else ProgressLine()
    started = time.perf_counter()
    try:
        counts = count_from_args(args, progress)
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
        f"{output}: {counted(len(counts.chunks), 'distinct chunk')}, {counted(counts.characters, 'character')} in "
        f"{counted(counts.documents, 'document')} from {counted(len(counts.inputs), 'file')}; held out "
        f"{counted(counts.heldout_documents, 'document')} ({counted(counts.heldout_characters, 'character')}); "
        f"{seconds:.1f} s, {size / 1e6 / max(seconds, 1e-9):.1f} MB/s{special_tokens_said(counts)}"
    )
    return 0


def special_tokens_said(counts) -> str:
    """What a counts table holds of its special tokens: "; special tokens: '<|endoftext|>' 300 times"."""
    if not counts.special_tokens:
        return ""
    return "; special tokens: " + ", ".join(
        f"{special!r} {counted(count, 'time')}" for special, count in zip(counts.special_tokens, counts.special_counts)
    )


class ProgressLine:
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
