"""`python -m bpe train TEXT... --rule parity`: one shared BPE over several languages' texts,
parity-aware.

Each TEXT is one language's version of the same content (parallel texts); the language is
named by the file's stem (``en.txt`` -> ``en``) unless ``--names`` says otherwise. Training
serves the language that currently costs the most tokens (`bpe.variants.parity`), up to
``--vocab-size`` as every training does; ``--compare`` trains standard BPE on the same
texts too and prints both, language by language::

    python -m bpe train en.txt de.txt --rule parity --alphabet bytes --vocab-size 556 --compare

    language    before     parity tokens      × en    standard tokens      × en
    en             ...

The tokenizer goes where ``train`` writes one (``--tokenizer-output``, BPE Lab's JSON, whole
or not at all). What does not apply to this rule (a counts file, a run file, the counting
options, the engine) is refused in one line before any work.
"""

from __future__ import annotations

from pathlib import Path

from bpe.alphabet import default_base_tokens
from bpe.cli.count import CORPUS_DEFAULTS, chosen_pretokenizer, given_corpus_options
from bpe.corpora.textfile import read_text_file
from bpe.errors import BpeError
from bpe.io.files import check_writable_target
from bpe.training import MAX_VOCAB_SIZE
from bpe.variants.parity import MAX_CHARACTERS, PARITY, STANDARD, MultilingualRun, train_multilingual

# `train` options that shape a corpus read in documents or a run file, not a language's text
NOT_FOR_PARITY = ("--pattern", "--field", "--column", "--max-characters", "--max-document-characters")
NOT_FOR_PARITY += ("--heldout-fraction", "--seed", "--workers", "--dask", "--special-token")


def run_parity_training(args) -> int:
    """`train INPUT... --rule parity`: each INPUT one language's text, trained to ``--vocab-size``
    by `bpe.variants.parity`; the table printed (beside standard BPE's with ``--compare``), the
    tokenizer written. Wrong combinations are one line, before any text is read."""
    refuse_what_does_not_apply(args)
    if args.tokenizer_output is not None:
        check_writable_target(args.tokenizer_output)  # before training, not after
    texts = parallel_texts([Path(path) for path in args.inputs], args.names)
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
        [PARITY, STANDARD] if args.compare else [PARITY],
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


def refuse_what_does_not_apply(args) -> None:
    """A `BpeError` for each option of `train` that has no meaning under the parity rule:
    a counts file (one table for all the languages), one text, a run file, the options
    that read a corpus in documents, the engine and its runners-up."""
    if args.counts is not None:
        raise BpeError(
            "--rule parity trains on each language's own text, and a counts file holds one table for the whole "
            "corpus: give one text file per language (INPUT...) instead of --counts"
        )
    if len(args.inputs) < 2:
        raise BpeError(
            f"--rule parity needs two or more texts, one per language (the same content in each); got {len(args.inputs)}"
        )
    for_runs = [name for name, given in (("--run-output", args.run_output), ("--name", args.name)) if given]
    if for_runs:
        raise BpeError(
            f"{' and '.join(for_runs)} {'is' if len(for_runs) == 1 else 'are'} for a run file, and --rule parity "
            "writes none (a run file replays standard training): write the tokenizer with --tokenizer-output"
        )
    ignored = [option for option in given_corpus_options(args) if option in NOT_FOR_PARITY]
    ignored += [
        option
        for option, value in (("--engine", args.engine), ("--top-k", args.top_k), ("--preset", args.preset))
        if value is not None
    ]
    if ignored:
        raise BpeError(
            f"{', '.join(ignored)} {'does' if len(ignored) == 1 else 'do'} not apply to --rule parity: each INPUT is "
            "one language's whole text, trained by its own loop (only --alphabet and --pretokenizer shape it)"
        )
    if args.vocab_size > MAX_VOCAB_SIZE:  # as the standard rule refuses it
        raise BpeError(
            f"--vocab-size {args.vocab_size:,} is more than the {MAX_VOCAB_SIZE:,} tokens a vocabulary may hold"
        )


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
