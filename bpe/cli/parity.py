"""`python -m bpe parity TEXT...` and `python -m bpe train TEXT... --parity`: one shared BPE
over several languages' texts, parity-aware.

Each TEXT is one language's version of the same content (parallel texts); the language is
named by the file's stem (``en.txt`` -> ``en``) unless ``--names`` says otherwise. Training
serves the language that currently costs the most tokens (`bpe.variants.parity`); ``--compare``
trains standard BPE on the same texts too and prints both, language by language.

``parity`` counts merges (``--merges``); ``train --parity`` aims at a vocab size, as
``train`` does, and writes the tokenizer where ``train`` writes one (``--tokenizer-output``,
BPE Lab's JSON, whole or not at all). Both read, train and print through the functions here.
"""

from __future__ import annotations

from pathlib import Path

from bpe.alphabet import ALPHABETS, BYTES, default_base_tokens
from bpe.cli.count import CORPUS_DEFAULTS, chosen_pretokenizer, given_corpus_options
from bpe.corpora.textfile import read_text_file
from bpe.errors import BpeError
from bpe.io.files import check_writable_target
from bpe.pretokenize import PRETOKENIZER_CHOICES
from bpe.steps import DEFAULT_TIE_RULE, TIE_RULES
from bpe.training import MAX_VOCAB_SIZE
from bpe.variants.parity import MAX_CHARACTERS, PARITY, RULES, STANDARD, MultilingualRun, train_multilingual


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
    if args.tokenizer_output is not None:
        check_writable_target(args.tokenizer_output)  # before training, not after
    texts = parallel_texts(args.texts, args.names)
    pretokenizer = None if args.pretokenizer == "none" else args.pretokenizer
    rules = [args.rule, STANDARD if args.rule == PARITY else PARITY] if args.compare else [args.rule]
    runs = train_and_print(
        texts,
        rules,
        merges=args.merges,
        alphabet=args.alphabet,
        pretokenizer=pretokenizer,
        minimum_pair_frequency=args.minimum_pair_frequency,
        tie_rule=args.tie_rule,
    )
    if args.tokenizer_output is not None:
        runs[0].tokenizer().save(args.tokenizer_output)  # through a temporary name: whole or not at all
        print(f"saved the {runs[0].rule} tokenizer to {args.tokenizer_output}")
    return 0


# `train` options that shape a corpus read in documents or a run file, not a language's text
NOT_FOR_PARITY = ("--pattern", "--field", "--column", "--max-characters", "--max-document-characters")
NOT_FOR_PARITY += ("--heldout-fraction", "--seed", "--workers", "--dask")


def run_parity_training(args) -> int:
    """`train INPUT... --parity`: each INPUT one language's text, trained to ``--vocab-size``
    by `bpe.variants.parity`; the table printed, the tokenizer written. Wrong combinations are one line."""
    if args.counts is not None:
        raise BpeError(
            "--parity trains on each language's own text, and a counts file holds one table for the whole "
            "corpus: give one text file per language (INPUT...) instead of --counts"
        )
    if len(args.inputs) < 2:
        raise BpeError(
            f"--parity needs two or more texts, one per language (the same content in each); got {len(args.inputs)}"
        )
    for_runs = [name for name, given in (("--run-output", args.run_output), ("--name", args.name)) if given]
    if for_runs:
        raise BpeError(
            f"{' and '.join(for_runs)} {'is' if len(for_runs) == 1 else 'are'} for a run file, and --parity "
            "writes none (a run file replays standard training): write the tokenizer with --tokenizer-output"
        )
    ignored = [option for option in given_corpus_options(args) if option in NOT_FOR_PARITY]
    ignored += [option for option, value in (("--engine", args.engine), ("--top-k", args.top_k)) if value is not None]
    if ignored:
        raise BpeError(
            f"{', '.join(ignored)} {'does' if len(ignored) == 1 else 'do'} not apply to --parity: each INPUT is "
            "one language's whole text, trained by its own loop (only --alphabet and --pretokenizer shape it)"
        )
    if args.vocab_size > MAX_VOCAB_SIZE:  # as `train` without --parity refuses it
        raise BpeError(
            f"--vocab-size {args.vocab_size:,} is more than the {MAX_VOCAB_SIZE:,} tokens a vocabulary may hold"
        )
    if args.tokenizer_output is not None:
        check_writable_target(args.tokenizer_output)  # before training, not after
    texts = parallel_texts([Path(path) for path in args.inputs])
    alphabet = getattr(args, "alphabet", CORPUS_DEFAULTS["alphabet"])
    pretokenizer, _pattern = chosen_pretokenizer(getattr(args, "pretokenizer", None), None)
    base = len(default_base_tokens("".join(texts.values()), alphabet))  # what train_multilingual starts from
    if args.vocab_size <= base:
        raise BpeError(
            f"--vocab-size {args.vocab_size:,} leaves no merge: these texts have {base:,} base tokens "
            f"({alphabet}); choose more than {base:,}"
        )
    runs = train_and_print(
        texts,
        [PARITY],
        merges=args.vocab_size - base,
        alphabet=alphabet,
        pretokenizer=pretokenizer,
        minimum_pair_frequency=args.minimum_pair_frequency,
        tie_rule=args.tie_rule,
    )
    tokenizer = runs[0].tokenizer()
    print(f"vocab {tokenizer.vocab_size:,} (of {args.vocab_size:,} asked for)")
    if args.tokenizer_output is not None:
        tokenizer.save(args.tokenizer_output)  # through a temporary name, as train writes its tokenizer
        print(f"wrote {args.tokenizer_output}")
    return 0


def parallel_texts(paths: list[Path], names: list[str] | None = None) -> dict[str, str]:
    """{language: text}, each file read (bounded) and named by ``names`` or its stem."""
    names = names or [path.stem for path in paths]
    if len(names) != len(paths):
        raise BpeError(f"--names gives {len(names)} names for {len(paths)} texts: give one name per text")
    if len(set(names)) != len(names):
        raise BpeError(f"the languages' names must differ: {', '.join(names)}")
    return {name: read_text_file(path, max_bytes=MAX_CHARACTERS * 4) for name, path in zip(names, paths)}


def train_and_print(texts: dict[str, str], rules: list[str], *, merges: int, **settings) -> list[MultilingualRun]:
    """One `train_multilingual` per rule on the same texts; each one's stop and the table printed."""
    runs = [train_multilingual(texts, merges=merges, rule=rule, **settings) for rule in rules]
    for run in runs:
        print(f"{run.rule}: {len(run.steps):,} merges; {run.stop_reason.value}")
    print_table(runs)
    return runs


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
