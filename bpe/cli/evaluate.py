"""`python -m bpe evaluate`: what the field measures of tokenizers on texts (`bpe.analysis.evaluation`).

    python -m bpe evaluate --tokenizer gpt2 --tokenizer tok.json --text data/lighthouse/*.txt
    python -m bpe evaluate --tokenizer run.bperun --text heldout.txt --json

Per tokenizer and text: tokens, bytes and characters per token, fertility, Shannon and
Rényi efficiency (``--alpha``, 2.5 by default), utilisation; across the texts, the Gini
of their token counts (meaningful when the texts say the same thing in several languages,
as the lighthouse paragraphs in ``data/lighthouse/`` do). ``--json`` prints
``{"texts": {NAME: {...}}, "gini": ...}`` for one tokenizer, and an object of those by
tokenizer for several.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from bpe.analysis.evaluation import DEFAULT_ALPHA, Evaluation, check_alpha, evaluate
from bpe.cli.named_tokenizers import TOKENIZER_HELP, open_tokenizer
from bpe.corpora.textfile import read_text_file
from bpe.errors import BpeError

# (figure, column heading, width, format) of the table
COLUMNS = (
    ("tokens", "tokens", 10, ",d"),
    ("bytes_per_token", "bytes/tok", 9, ".3f"),
    ("chars_per_token", "chars/tok", 9, ".3f"),
    ("fertility", "fertility", 9, ".3f"),
    ("shannon_efficiency", "Shannon", 8, ".4f"),
    ("renyi_efficiency", "Rényi", 8, ".4f"),
    ("utilisation", "utilised", 8, ".4f"),
)


def add_evaluate_command(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "evaluate",
        help="tokens, bytes and characters per token, fertility, Shannon and Rényi efficiency, utilisation; "
        "the Gini of token counts across texts",
        description="Measure tokenizers on texts as the field does (bpe/analysis/evaluation.py has the exact "
        "definitions). Gini is meaningful on parallel texts: the same content in several languages.",
    )
    p.add_argument(
        "--tokenizer", action="extend", nargs="+", required=True, metavar="T", help=TOKENIZER_HELP + "; repeatable"
    )
    p.add_argument("--text", action="extend", nargs="+", required=True, type=Path, metavar="FILE", help="repeatable")
    p.add_argument(
        "--alpha", type=float, default=DEFAULT_ALPHA, help=f"Rényi's α (default {DEFAULT_ALPHA}; above 0, not 1)"
    )
    p.add_argument("--pattern", help="a .tiktoken file's split pattern when no settings file is beside it")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=run_evaluate)


def run_evaluate(args) -> int:
    alpha = check_alpha(args.alpha)
    twice = sorted({name for name in args.tokenizer if args.tokenizer.count(name) > 1})
    if twice:
        raise BpeError(f"--tokenizer {twice[0]} is given twice")
    texts = named_texts(args.text)
    found = {name: evaluate(open_tokenizer(name, pattern=args.pattern), texts, alpha=alpha) for name in args.tokenizer}
    if args.json:
        out = {name: e.as_json() for name, e in found.items()}
        print(json.dumps(next(iter(out.values())) if len(out) == 1 else out, ensure_ascii=False, indent=2))
        return 0
    for name, evaluation in found.items():
        print(table(name, evaluation))
    return 0


def named_texts(paths: list[Path]) -> dict[str, str]:
    """{name: text} of the files: each named by its file name, or by its path where two share a name."""
    names = [path.name for path in paths]
    found: dict[str, str] = {}
    for path, name in zip(paths, names):
        key = name if names.count(name) == 1 else str(path)
        if key in found:
            raise BpeError(f"{path} is given twice")
        found[key] = read_text_file(path, if_empty=None)
    return found


def table(name: str, evaluation: Evaluation) -> str:
    """One tokenizer's figures as a table a terminal shows, and the Gini line under it."""
    width = max([4, *map(len, evaluation.texts)])
    lines = [f"{name} (V = {evaluation.vocab_size:,}; Rényi at α = {evaluation.alpha:g})"]
    lines.append(f"  {'text':<{width}}" + "".join(f" {heading:>{size}}" for _, heading, size, _ in COLUMNS))
    for text, figures in evaluation.texts.items():
        cells = []
        for key, _, size, spec in COLUMNS:
            value = getattr(figures, key)
            cells.append(f" {'—' if value is None else format(value, spec):>{size}}")
        lines.append(f"  {text:<{width}}" + "".join(cells))
    gini = "—" if evaluation.gini is None else f"{evaluation.gini:.4f}"
    lines.append(f"  Gini of the token counts across {len(evaluation.texts)} texts: {gini}")
    return "\n".join(lines) + "\n"
