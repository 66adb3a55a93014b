"""`python -m bpe gpt2 ...`: OpenAI's GPT-2 tokenizer on the command line.

    python -m bpe gpt2 encode --text "Hello world"            # ids on stdout
    python -m bpe gpt2 encode --file F --compare-tiktoken     # and: equal to tiktoken's?
    python -m bpe gpt2 download [--cache-dir DIR]             # fetch the two files once

Ids go to stdout (one line, space-separated), everything else to stderr, so the output
can be piped. `run_gpt2` returns the exit status: 0 done (ids equal tiktoken's when
compared), 1 an error or ids that differ. Errors are one clear line, never a traceback.

Wiring (in `bpe.cli`): ``add_gpt2_command(subparsers)``; its ``func`` is `run_gpt2`.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from bpe.cli.arguments import add_allowed_special, allowed_special
from bpe.cli.download import ProgressPrinter, add_transfer_limits
from bpe.cli.errors import reporting_errors
from bpe.corpora.textfile import read_text_file
from bpe.errors import BpeError
from bpe.gpt2.files import OPENAI_BASE_URL, download_gpt2_files, find_gpt2_files, missing_files_message
from bpe.gpt2.tiktoken_check import check_against_tiktoken
from bpe.gpt2.tokenizer import load_gpt2
from bpe.paths import CACHE_DIR


def add_gpt2_command(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``gpt2`` (with ``encode`` and ``download``) to a parser's subcommands."""
    parser = subparsers.add_parser(
        "gpt2",
        help="OpenAI's GPT-2 tokenizer: encode text, download its files",
        description="Encode with the real GPT-2 tokenizer (OpenAI's encoder.json and vocab.bpe), in pure "
        "Python, id for id like tiktoken.",
    )
    actions = parser.add_subparsers(dest="gpt2_command", required=True, metavar="ACTION")

    encode = actions.add_parser("encode", help="print the GPT-2 ids of a text")
    source = encode.add_mutually_exclusive_group(required=True)
    source.add_argument("--text", help="the text to encode")
    source.add_argument("--file", type=Path, help="a UTF-8 text file to encode")
    encode.add_argument(
        "--encoder",
        type=Path,
        metavar="PATH",
        help="encoder.json (default: data/cache/gpt2/ or the shared data folder)",
    )
    encode.add_argument("--vocab", type=Path, metavar="PATH", help="vocab.bpe (give it with --encoder)")
    add_allowed_special(
        encode, when_not_given="'<|endoftext|>' is plain text, as in tiktoken's encode_ordinary", default=[]
    )
    encode.add_argument(
        "--compare-tiktoken",
        action="store_true",
        help="also encode with tiktoken (offline, from the same files) and say if the ids are equal",
    )
    encode.add_argument("--no-ids", action="store_true", help="print only the summary, not the ids")

    download = actions.add_parser("download", help="download encoder.json and vocab.bpe (SHA-256 checked)")
    download.add_argument(
        "--cache-dir",
        type=Path,
        default=CACHE_DIR,
        metavar="DIR",
        help="the files go to DIR/gpt2/ (default: data/cache in the project)",
    )
    download.add_argument(
        "--base-url",
        default=OPENAI_BASE_URL,
        metavar="URL",
        help=f"where the two files are (default: {OPENAI_BASE_URL})",
    )
    add_transfer_limits(download, "each file")
    parser.set_defaults(func=run_gpt2)
    return parser


def run_gpt2(args: argparse.Namespace) -> int:
    """Run ``gpt2 encode`` or ``gpt2 download`` with parsed arguments; return the exit status."""
    action = _download if args.gpt2_command == "download" else _encode
    return reporting_errors(lambda: action(args), interrupted="interrupted: no partial file was left in the cache.")


def _download(args: argparse.Namespace) -> int:
    paths = download_gpt2_files(
        args.cache_dir,
        base_url=args.base_url,
        progress=ProgressPrinter(sys.stderr),
        timeout=args.timeout,
        deadline=args.deadline,
    )
    for path in paths:
        print(path)
    return 0


def _encode(args: argparse.Namespace) -> int:
    if (args.encoder is None) != (args.vocab is None):
        raise BpeError("give both --encoder and --vocab, or neither (then data/cache/gpt2/ or the shared data is used)")
    text = args.text if args.text is not None else _read(args.file)
    encoder, vocab = (args.encoder, args.vocab) if args.encoder else _default_files()
    tokenizer = load_gpt2(encoder, vocab)
    allowed = allowed_special(args.allowed_special)
    if args.compare_tiktoken:
        return _compare(tokenizer, text, allowed, encoder, vocab, print_ids=not args.no_ids)
    started = time.perf_counter()
    ids = tokenizer.encode(text, allowed_special=allowed)
    _report(tokenizer, ids, text, time.perf_counter() - started, print_ids=not args.no_ids)
    return 0


def _default_files() -> tuple[Path, Path]:
    found = find_gpt2_files()
    if found is None:
        raise BpeError(missing_files_message())
    return found


def _report(tokenizer, ids: list[int], text: str, seconds: float, *, print_ids: bool) -> None:
    if print_ids:
        print(" ".join(map(str, ids)))
    size = len(text.encode("utf-8"))
    print(
        f"{tokenizer.name}: {len(ids):,} tokens from {size:,} bytes in {seconds:.3f} s ({_rate(size, seconds)})",
        file=sys.stderr,
    )


def _compare(tokenizer, text: str, allowed, encoder: Path, vocab: Path, *, print_ids: bool) -> int:
    try:
        parity = check_against_tiktoken(tokenizer, text, encoder, vocab, allowed_special=allowed)
    except BpeError as error:
        started = time.perf_counter()
        ids = tokenizer.encode(text, allowed_special=allowed)
        _report(tokenizer, ids, text, time.perf_counter() - started, print_ids=print_ids)
        print(f"tiktoken: not compared: {error}", file=sys.stderr)
        return 0
    ids = tokenizer.encode(text, allowed_special=allowed)  # from the warm cache: the same ids
    _report(tokenizer, ids, text, parity.seconds, print_ids=print_ids)
    if parity.equal:
        print(
            f"tiktoken gpt2: identical ids ({parity.tokens:,} tokens; tiktoken {parity.tiktoken_seconds:.3f} s, "
            f"{parity.tiktoken_mb_per_s:.2f} MB/s; ours {parity.mb_per_s / parity.tiktoken_mb_per_s:.2f}x its speed)",
            file=sys.stderr,
        )
        return 0
    print(
        f"tiktoken gpt2: ids DIFFER from position {parity.first_difference:,} "
        f"({parity.tokens:,} vs {parity.tiktoken_tokens:,} tokens)",
        file=sys.stderr,
    )
    return 1


def _read(path: Path) -> str:
    return read_text_file(path)


def _rate(size: int, seconds: float) -> str:
    return f"{size / seconds / 1e6:.2f} MB/s" if seconds > 0 else "instant"
