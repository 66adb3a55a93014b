"""`python -m bpe ...`: the tutorial's pipeline and tokenizer tools on the command line.

    python -m bpe build --processed-dir DIR      # train, save, check, encode every split
    python -m bpe count CORPUS... --output COUNTS  # the count phase of a big corpus (all cores or Dask)
    python -m bpe encode --tokenizer F --text "low lower"
    python -m bpe decode --tokenizer F --ids 5 7 9
    python -m bpe inspect --tokenizer F          # first merges, longest tokens (--json: every merge)
    python -m bpe evaluate --tokenizer gpt2 --text data/lighthouse/*.txt   # the field's measures, Gini
    python -m bpe export --tokenizer F --format hf|tiktoken|minbpe --output PATH   # and prove it
    python -m bpe train --counts C --vocab-size 50000 --run-output R  # the merge phase of a corpus
    python -m bpe train en.txt de.txt --rule parity --vocab-size 600  # one BPE fair to several languages
    python -m bpe train corpus.txt --variant superbpe --transition 600 --vocab-size 1000 --run-output R
    python -m bpe compare-rules corpus.txt --vocab-size 2000   # standard BPE beside each rule of bpe.variants
    python -m bpe download wikitext-2            # fetch the corpus into data/cache
    python -m bpe gpt2 encode --text "..."       # OpenAI's GPT-2 tokenizer (files needed)
    python -m bpe lm train --text F              # does BPE help a tiny GPT?

``encode``, ``decode``, ``inspect`` and ``evaluate`` also read a Hugging Face tokenizer.json, a
.tiktoken ranks file (``--pattern`` when no settings file is beside it), a minbpe .model, a
run file, or ``gpt2`` / ``gpt4`` by name (`bpe.cli.named_tokenizers`).

Every `BpeError` ends the command with one line on stderr and exit status 1: never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bpe.alphabet import ALPHABETS, BYTES, CHARACTERS, gpt2_spelling
from bpe.analysis.metrics import longest_tokens
from bpe.cli.arguments import add_allowed_special, allowed_special, zero_or_more
from bpe.cli.compare_rules import add_compare_rules_command
from bpe.cli.count import add_count_command
from bpe.cli.download import add_download_command
from bpe.cli.errors import Parser, parse_arguments, reporting_errors, stop_status, terminating_cleanly
from bpe.cli.evaluate import add_evaluate_command
from bpe.cli.export import add_export_command
from bpe.cli.gpt2 import add_gpt2_command
from bpe.cli.lm import add_lm_command
from bpe.cli.named_tokenizers import TOKENIZER_HELP, open_tokenizer
from bpe.cli.pipeline import (
    add_max_vocab_characters_option,
    add_preset_option,
    add_special_token_option,
    build,
    output_paths,
    preset_settings,
    print_progress,
    split_paths,
    unchanged_message,
)
from bpe.cli.train import add_train_command
from bpe.corpora.textfile import read_text_file
from bpe.errors import BpeError
from bpe.pretokenize import PRETOKENIZER_CHOICES
from bpe.steps import DEFAULT_TIE_RULE, TIE_RULES
from bpe.text import printable, token_characters
from bpe.tokenizer import BPETokenizer, Tokenizer
from bpe.training import ENGINES

SAMPLE_SENTENCE = "Artificial intelligence is transforming technology."


def main(argv: list[str] | None = None) -> int:
    parser = make_parser()
    with terminating_cleanly():
        return reporting_errors(lambda: _run(parser, argv))


def _run(parser: argparse.ArgumentParser, argv: list[str] | None) -> int:
    args = parse_arguments(parser, argv)  # a bad option value is one line too
    return args.func(args)


def make_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="python -m bpe", description="BPE Lab: train and use BPE tokenizers.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_build(commands)
    add_count_command(commands)
    _add_encode(commands)
    _add_decode(commands)
    _add_inspect(commands)
    add_evaluate_command(commands)
    add_compare_rules_command(commands)
    add_train_command(commands)
    add_download_command(commands)
    add_export_command(commands)
    add_gpt2_command(commands)
    add_lm_command(commands)
    return parser


# ====================
# build


def _add_build(commands) -> None:
    p = commands.add_parser("build", help="the tutorial's pipeline: train, save, reload, round-trip, encode splits")
    p.add_argument("--processed-dir", type=Path, help="folder with wikitext2_{train,val,test}_clean.txt")
    p.add_argument("--train", type=Path, help="training split (overrides --processed-dir)")
    p.add_argument("--val", type=Path, help="validation split")
    p.add_argument("--test", type=Path, help="test split")
    # The tutorial's places, under the current folder (both are git-ignored in a checkout).
    p.add_argument(
        "--tokenizer-output",
        type=Path,
        default=Path("tokenizer/bpe_tokenizer.json"),
        help="the tokenizer to write (default: tokenizer/bpe_tokenizer.json under the current folder)",
    )
    p.add_argument(
        "--encoded-output-dir",
        type=Path,
        default=Path("data/encoded_bpe"),
        help="where each split's ids go as torch long tensors, train_ids.pt and so on "
        "(default: data/encoded_bpe under the current folder)",
    )
    p.add_argument("--target-vocab-size", type=int, default=500)
    p.add_argument(
        "--training-characters",
        type=int,
        default=500_000,
        help="merge statistics come from this prefix of the training split",
    )
    # (options a preset sets default to None here: given, they win over it; see BUILD_DEFAULTS)
    p.add_argument("--minimum-pair-frequency", type=int, help="default 2")
    p.add_argument("--engine", choices=sorted(ENGINES), default="fast")
    p.add_argument("--alphabet", choices=ALPHABETS, help=f"default {CHARACTERS}")
    p.add_argument("--pretokenizer", choices=PRETOKENIZER_CHOICES, help="default none")
    p.add_argument(
        "--tie-rule",
        choices=TIE_RULES,
        help="which of equally frequent pairs wins (default: the earliest first occurrence, as in the "
        "tutorial; lexicographic_greatest: the greatest pair by the UTF-8 bytes of its tokens, as Stanford "
        "CS336); the file records any other rule",
    )
    add_special_token_option(p)
    add_preset_option(p)
    add_max_vocab_characters_option(p)
    p.add_argument("--quiet", action="store_true", help="no merge log")
    p.set_defaults(func=run_build)


# The tutorial's settings, which a preset's replace and an option given replaces in turn.
BUILD_DEFAULTS = {
    "minimum_pair_frequency": 2,
    "alphabet": CHARACTERS,
    "pretokenizer": "none",
    "tie_rule": DEFAULT_TIE_RULE,
    "special_tokens": (),
}


def run_build(args) -> int:
    paths = split_paths(args.processed_dir, args.train, args.val, args.test)
    say = (lambda message: None) if args.quiet else (lambda message: print(message, file=sys.stderr))
    settings = preset_settings(args, BUILD_DEFAULTS, lambda message: print(message, file=sys.stderr))
    try:
        report = build(
            paths,
            tokenizer_output=args.tokenizer_output,
            encoded_output_dir=args.encoded_output_dir,
            target_vocab_size=args.target_vocab_size,
            training_characters=args.training_characters,
            engine=args.engine,
            max_vocab_characters=args.max_vocab_characters,
            on_step=None if args.quiet else print_progress,
            say=say,
            **{**settings, "pretokenizer": None if settings["pretokenizer"] == "none" else settings["pretokenizer"]},
        )
    except KeyboardInterrupt as stop:
        kept = unchanged_message(output_paths(args.tokenizer_output, args.encoded_output_dir))
        print(f"\ninterrupted. {kept}", file=sys.stderr)
        return stop_status(stop)
    tok = report.tokenizer
    print(
        f"Tokenizer: {report.tokenizer_path}  vocab size {tok.vocab_size}  merges {report.merges}  "
        f"fingerprint {report.fingerprint}"
    )
    print(
        f"Training: {report.training_characters:,} characters, {report.training_seconds:.2f} s; "
        f"{report.stop_explanation}"
    )
    print(f"{'split':<6} {'characters':>12} {'tokens':>12} {'compression':>12} {'reduction':>10}")
    for split in report.splits:
        print(
            f"{split.name:<6} {split.characters:>12,} {split.tokens:>12,} {split.compression:>11.2f}x "
            f"{split.reduction:>9.1%}"
        )
    print(
        f"128 tokens of validation text cover {report.context_characters:.1f} characters on average "
        f"(128 at character level)"
    )
    print("30 longest learned tokens:")
    _print_longest(tok, 30)
    ids = tok.encode(SAMPLE_SENTENCE) if _covers(tok, SAMPLE_SENTENCE) else []
    if ids:
        print(f"Sample: {SAMPLE_SENTENCE!r}")
        print("  tokens:", [printable(t) for t in tok.encode_tokens(SAMPLE_SENTENCE)])
        print("  ids:   ", ids)
    return 0


def _print_longest(tok: Tokenizer, count: int) -> None:
    for token_id, token in longest_tokens(tok, count, learned_only=True):
        print(f"  {token_id:>6}  {printable(token)!r}  ({token_characters(token)} characters)")


def _covers(tok: BPETokenizer, text: str) -> bool:
    return tok.alphabet != CHARACTERS or set(text) <= set(tok.base_tokens)


# ====================
# encode / decode / inspect


def _add_tokenizer_file(p) -> None:
    p.add_argument("--tokenizer", required=True, help=TOKENIZER_HELP)
    p.add_argument(
        "--pattern",
        help="a .tiktoken file's split pattern when no settings file (<file>.json) is "
        "beside it: gpt2, gpt4 (cl100k), none or a regex",
    )


def _add_encode(commands) -> None:
    p = commands.add_parser("encode", help="text to token ids with a saved tokenizer")
    _add_tokenizer_file(p)
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--text")
    source.add_argument("--file", type=Path)
    p.add_argument("--tokens", action="store_true", help="print the token strings too")
    add_allowed_special(
        p,
        when_not_given="as the file's library: a BPE Lab file or a Hugging Face tokenizer.json matches every "
        "one, a .tiktoken or minbpe file, gpt2 and gpt4 none",
    )
    p.set_defaults(func=run_encode)


def run_encode(args) -> int:
    tok = open_tokenizer(args.tokenizer, pattern=args.pattern)
    text = args.text if args.text is not None else read_text_file(args.file, if_empty=None)
    if args.allowed_special is None:
        ids = tok.encode(text)
    else:  # the others are plain text, as in tiktoken's encode with disallowed_special=()
        ids = tok.encode(text, allowed_special=allowed_special(args.allowed_special), disallowed_special=())
    print(" ".join(map(str, ids)))
    if args.tokens:
        print(" ".join(repr(printable(tok.itos[i])) for i in ids))
    print(
        f"{len(text):,} characters → {len(ids):,} tokens ({len(text) / max(len(ids), 1):.2f} characters/token)",
        file=sys.stderr,
    )
    return 0


def _add_decode(commands) -> None:
    p = commands.add_parser("decode", help="token ids to text with a saved tokenizer")
    _add_tokenizer_file(p)
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--ids", nargs="+", help="ids separated by spaces or commas")
    source.add_argument("--file", type=Path, help="a file of ids separated by whitespace or commas")
    p.set_defaults(func=run_decode)


def run_decode(args) -> int:
    tok = open_tokenizer(args.tokenizer, pattern=args.pattern)
    raw = (
        " ".join(args.ids) if args.ids is not None else read_text_file(args.file, if_empty="there are no ids to decode")
    )
    ids = []
    for word in raw.replace(",", " ").split():
        try:
            ids.append(int(word))
        except ValueError:
            raise BpeError(f"{word!r} is not a token id (ids are whole numbers)") from None
    sys.stdout.write(tok.decode(ids))
    sys.stdout.write("\n")
    return 0


def _add_inspect(commands) -> None:
    p = commands.add_parser("inspect", help="a saved tokenizer's first merges and longest tokens")
    _add_tokenizer_file(p)
    p.add_argument("--first", type=zero_or_more, default=20, help="how many first merges to list")
    p.add_argument("--longest", type=zero_or_more, default=30, help="how many longest tokens to list")
    p.add_argument(
        "--json",
        action="store_true",
        help="print every merge in order as a pair of strings, and the special tokens, as JSON for scripts",
    )
    p.set_defaults(func=run_inspect)


def run_inspect(args) -> int:
    tok = open_tokenizer(args.tokenizer, pattern=args.pattern)
    if args.json:
        print(json.dumps(merges_json(tok), ensure_ascii=False))
        return 0
    print(f"{args.tokenizer}: {tok!r}")
    print(f"fingerprint {tok.fingerprint()}")
    print(f"base tokens: {len(tok.base_tokens)}")
    for note in getattr(tok, "notes", ()):  # what BPE Lab does not apply of another library's file
        print(f"note: {note}")
    merges = tok.merges  # a .tiktoken file has none: they are recovered from its ranks
    print(f"First {min(args.first, len(merges))} merges:")
    for number, (left, right) in enumerate(merges[: args.first], start=1):
        print(
            f"  Merge {number}: {printable(left)!r} + {printable(right)!r} = {printable(left + right)!r} "
            f"(id {tok.stoi.get(left + right, '?')})"
        )
    print(f"{args.longest} longest tokens:")
    _print_longest(tok, args.longest)
    return 0


def merges_json(tok: Tokenizer) -> dict:
    """What ``inspect --json`` prints: the merges in learned order as pairs of strings, the
    special tokens by id, and how tokens are spelled. A character tokenizer's tokens are its
    strings; a byte tokenizer's are spelled as Hugging Face's merges.txt spells them (GPT-2's
    byte-to-character table: one printable character a byte, 'Ġ' for a space), which spells
    every byte, a piece of a character too, and reads back exactly."""
    spelled = gpt2_spelling if tok.alphabet == BYTES else str
    specials = getattr(tok, "special_tokens", None) or {}
    found = {
        "alphabet": tok.alphabet,
        "spelling": "gpt2 bytes" if tok.alphabet == BYTES else "text",
        "pretokenizer": tok.pretokenizer,
        "merges": [[spelled(left), spelled(right)] for left, right in tok.merges],
        "specials": {text: token_id for text, token_id in sorted(specials.items(), key=lambda item: item[1])},
    }
    rule = getattr(tok, "rule_json", None)  # a rule beyond the textbook's tokenizer says what it adds (bpe.variants)
    if rule is not None:
        found.update(rule(spelled))
    return found
