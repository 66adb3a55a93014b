"""`python -m bpe compare-rules TEXT...`: standard BPE beside each rule of `bpe.variants`, on one corpus.

    python -m bpe compare-rules data/tinyshakespeare.txt --vocab-size 2000 --heldout-fraction 0.1

Each rule trains on the same documents (each TEXT one document, the last part of each held
out), byte-level with GPT-2's pre-tokenizer by default so that every language encodes, and
the table says per rule: the merges it learned, the held-out text's tokens (and against
standard BPE's), the Gini of the token counts of the lighthouse paragraphs in
``data/lighthouse/`` (the same content in eleven languages: `bpe.analysis.evaluation.gini`),
and the share of its learned tokens that are residues (`bpe.analysis.junk`)::

    rule                                       merges  held-out tokens  vs standard   Gini  residues
    standard BPE                                1,744          111,540        —      0.301     12.4%
    ...
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bpe.alphabet import ALPHABETS, BYTES
from bpe.analysis.evaluation import gini
from bpe.analysis.junk import residue_share, run_junk
from bpe.cli.arguments import zero_or_more
from bpe.corpora.builtin import LIGHTHOUSE
from bpe.corpora.corpus import split_train_heldout
from bpe.corpora.textfile import read_text_file
from bpe.errors import BpeError
from bpe.pretokenize import PRETOKENIZER_CHOICES
from bpe.steps import DEFAULT_TIE_RULE, TIE_RULES
from bpe.training import TrainingSettings
from bpe.training_memory import check_fits_in_memory
from bpe.variants.rule_runs import train_variant_run
from bpe.variants.rules import DEFAULT_THRESHOLD, Variant


def add_compare_rules_command(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "compare-rules",
        help="standard BPE beside SuperBPE, Picky and length-weighted BPE on one corpus: held-out tokens, "
        "Gini on the lighthouse paragraphs, residue share",
    )
    p.add_argument("inputs", nargs="+", metavar="TEXT", help="plain text files, one document each")
    p.add_argument("--vocab-size", type=int, required=True)
    p.add_argument("--alphabet", choices=ALPHABETS, default=BYTES, help="default bytes: every language encodes")
    p.add_argument("--pretokenizer", choices=PRETOKENIZER_CHOICES, default="gpt2")
    p.add_argument("--heldout-fraction", type=float, default=0.1)
    p.add_argument("--minimum-pair-frequency", type=int, default=2)
    p.add_argument(
        "--tie-rule",
        choices=TIE_RULES,
        default=DEFAULT_TIE_RULE,
        help="which of equally ranked pairs wins, under every rule (default: the earliest first occurrence)",
    )
    p.add_argument(
        "--special-token",
        dest="special_tokens",
        action="append",
        default=[],
        help="a string cut out of the text and kept as one token, under every rule (repeatable)",
    )
    p.add_argument("--transition", type=zero_or_more, help="SuperBPE's transition (default: half the merges)")
    p.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD, help="Picky BPE's IoS threshold")
    p.set_defaults(func=run_compare_rules)


def run_compare_rules(args) -> int:
    settings = TrainingSettings(
        target_vocab_size=args.vocab_size,
        minimum_pair_frequency=args.minimum_pair_frequency,
        tie_rule=args.tie_rule,
        alphabet=args.alphabet,
        pretokenizer=None if args.pretokenizer == "none" else args.pretokenizer,
        top_k=0,
        special_tokens=tuple(args.special_tokens),
    )
    base = 256 if args.alphabet == BYTES else 0
    transition = args.transition if args.transition is not None else max(args.vocab_size - base, 0) // 2
    variants = [
        Variant(),
        Variant("superbpe", transition=transition),
        Variant("picky", threshold=args.threshold),
        Variant("length_weighted"),
    ]
    documents = [read_text_file(Path(path)) for path in args.inputs]
    check_fits_in_memory(sum(map(len, documents)), settings.alphabet, settings.pretokenizer)
    cut = [split_train_heldout(document, args.heldout_fraction) for document in documents]
    train, heldout = [part for part, _ in cut], [part for _, part in cut]
    if not any(heldout):
        raise BpeError("nothing is held out: give --heldout-fraction above 0 (the table counts held-out tokens)")
    print(f"{sum(map(len, train)):,} characters to train on, {sum(map(len, heldout)):,} held out", file=sys.stderr)
    rows = [rule_row(variant, train, heldout, settings) for variant in variants]
    print(table(rows))
    return 0


def rule_row(variant: Variant, train: list[str], heldout: list[str], settings: TrainingSettings) -> dict:
    """One rule's figures: merges, held-out tokens, the lighthouse Gini, the residue share."""
    print(f"training {variant.label()}...", file=sys.stderr)
    run = train_variant_run(train, settings, variant, heldout_text=heldout)
    tokenizer = run.tokenizer()
    try:
        spread = gini([len(tokenizer.encode(text)) for _, text in LIGHTHOUSE.values()])
    except BpeError:  # a character alphabet that lacks the other scripts
        spread = None
    return {
        "rule": variant.label(),
        "merges": len(run.steps),
        "held-out tokens": run.heldout_lengths[-1],
        "gini": spread,
        "residues": residue_share(run_junk(run)),
    }


def table(rows: list[dict]) -> str:
    width = max(len(row["rule"]) for row in rows)
    standard = rows[0]["held-out tokens"]
    lines = [
        f"{'rule':<{width}}  {'merges':>7}  {'held-out tokens':>15}  {'vs standard':>11}  {'Gini':>6}  {'residues':>8}"
    ]
    for row in rows:
        versus = "—" if row is rows[0] else f"{row['held-out tokens'] / standard - 1:+.1%}"
        spread = "—" if row["gini"] is None else f"{row['gini']:.3f}"
        residues = "—" if row["residues"] is None else f"{row['residues']:.1%}"
        lines.append(
            f"{row['rule']:<{width}}  {row['merges']:>7,}  {row['held-out tokens']:>15,}  {versus:>11}  "
            f"{spread:>6}  {residues:>8}"
        )
    return "\n".join(lines)
