"""`python -m bpe parity TEXT...`: one shared BPE over several languages' texts, parity-aware.

Each TEXT is one language's version of the same content (parallel texts); the language is
named by the file's stem (``en.txt`` -> ``en``) unless ``--names`` says otherwise. Training
serves the language that currently costs the most tokens (`bpe.parity`); ``--compare``
trains standard BPE on the same texts too and prints both, language by language.
"""

from __future__ import annotations

from pathlib import Path

from bpe.alphabet import ALPHABETS, BYTES
from bpe.corpora.textfile import read_text_file
from bpe.errors import BpeError
from bpe.files import check_writable_target
from bpe.parity import MAX_CHARACTERS, PARITY, RULES, STANDARD, MultilingualRun, train_multilingual
from bpe.pretokenize import PRETOKENIZER_CHOICES
from bpe.steps import DEFAULT_TIE_RULE, TIE_RULES


def add_parity_command(commands) -> None:
    p = commands.add_parser(
        "parity",
        help="one shared BPE over several languages' parallel texts, each merge serving the costliest language",
    )
    p.add_argument("texts", nargs="+", type=Path, metavar="TEXT", help="one UTF-8 file per language, same content")
    p.add_argument("--names", nargs="+", help="the languages' names, in the order of the texts (default: file stems)")
    p.add_argument("--merges", type=int, default=300, help="how many merges to learn (default 300)")
    p.add_argument("--rule", choices=RULES, default=PARITY, help="which pair each merge takes (default parity)")
    p.add_argument("--compare", action="store_true", help="also train standard BPE and print both side by side")
    p.add_argument("--alphabet", choices=ALPHABETS, default=BYTES, help="base tokens (default bytes)")
    p.add_argument("--pretokenizer", choices=PRETOKENIZER_CHOICES, default="none")
    p.add_argument("--minimum-pair-frequency", type=int, default=2)
    p.add_argument("--tie-rule", choices=TIE_RULES, default=DEFAULT_TIE_RULE)
    p.add_argument("--tokenizer-output", type=Path, help="save the shared tokenizer (BPE Lab JSON) here")
    p.set_defaults(func=run_parity)


def run_parity(args) -> int:
    names = args.names or [path.stem for path in args.texts]
    if len(names) != len(args.texts):
        raise BpeError(f"--names gives {len(names)} names for {len(args.texts)} texts: give one name per text")
    if len(set(names)) != len(names):
        raise BpeError(f"the languages' names must differ: {', '.join(names)}")
    if args.tokenizer_output is not None:
        check_writable_target(args.tokenizer_output)  # before training, not after
    texts = {name: read_text_file(path, max_bytes=MAX_CHARACTERS * 4) for name, path in zip(names, args.texts)}
    pretokenizer = None if args.pretokenizer == "none" else args.pretokenizer
    rules = [args.rule, STANDARD if args.rule == PARITY else PARITY] if args.compare else [args.rule]
    runs = [
        train_multilingual(
            texts,
            merges=args.merges,
            rule=rule,
            alphabet=args.alphabet,
            pretokenizer=pretokenizer,
            minimum_pair_frequency=args.minimum_pair_frequency,
            tie_rule=args.tie_rule,
        )
        for rule in rules
    ]
    for run in runs:
        print(f"{run.rule}: {len(run.steps):,} merges; {run.stop_reason.value}")
    print_table(runs)
    if args.tokenizer_output is not None:
        runs[0].tokenizer().save(args.tokenizer_output)
        print(f"saved the {runs[0].rule} tokenizer to {args.tokenizer_output}")
    return 0


def print_table(runs: list[MultilingualRun]) -> None:
    """Tokens per language before any merge and under each rule, and as a multiple of the
    first language's; the last row is the total and the spread (costliest over cheapest)."""
    first = runs[0]
    width = max(len(name) for name in first.languages)
    header = "".join(f"  {run.rule + ' tokens':>16}  {'× ' + first.languages[0]:>8}" for run in runs)
    print(f"{'language':<{width}}  {'before':>8}{header}")
    ends = [run.tokens_after(len(run.steps)) for run in runs]
    for index, name in enumerate(first.languages):
        cells = "".join(f"  {tokens[index]:>16,}  {tokens[index] / max(tokens[0], 1):>7.2f}×" for tokens in ends)
        print(f"{name:<{width}}  {first.initial_tokens[index]:>8,}{cells}")
    totals = "".join(f"  {sum(tokens):>16,}  {max(tokens) / max(min(tokens), 1):>7.2f}×" for tokens in ends)
    print(f"{'all (spread)':<{width}}  {'':>8}{totals}")
