"""`python -m bpe train TEXT... --variant superbpe|picky|length_weighted`: a training rule
beyond the textbook (`bpe.variants`), in memory, to a run file the app replays.

    python -m bpe train shakespeare.txt --variant superbpe --transition 600 --vocab-size 1000 \\
        --pretokenizer gpt2 --heldout-fraction 0.1 --run-output data/runs/super.bperun
    python -m bpe train shakespeare.txt --variant picky --threshold 0.9 --vocab-size 1000 --run-output picky.bperun
    python -m bpe train shakespeare.txt --variant length_weighted --vocab-size 1000 --tokenizer-output lw.json

Each TEXT is one document, read whole (plain UTF-8 text): no chunk spans two, and SuperBPE
never joins across them. ``--heldout-fraction`` holds out the end of each document, for the
held-out curve. The run file records the rule; a length-weighted run's tokenizer is a plain
BPE Lab file, while SuperBPE's and Picky's tokenizers encode in ways that file cannot hold
(the run file keeps them). Options that read a corpus in records (JSON lines, Parquet) or
share the counting out, and a counts file (which keeps no documents), are refused in one
line before any text is read.
"""

from __future__ import annotations

import sys
from pathlib import Path

from bpe.cli.count import CORPUS_DEFAULTS, chosen_pretokenizer, given_corpus_options
from bpe.cli.errors import stop_status
from bpe.cli.pipeline import unchanged_message
from bpe.corpora.corpus import split_train_heldout
from bpe.corpora.textfile import read_text_file
from bpe.errors import BpeError
from bpe.io.files import check_writable_target
from bpe.scale.chunk_counts import HELDOUT_SAMPLE_CHARACTERS
from bpe.scale.run_file import RunSource, check_run_fits
from bpe.training import DEFAULT_ENGINE, DEFAULT_TOP_K, TrainingSettings
from bpe.training_memory import check_fits_in_memory
from bpe.variants.rule_runs import train_variant_run
from bpe.variants.rules import LENGTH_WEIGHTED, NAMES, SUPERBPE, Variant
from bpe.variants.superbpe import check_superbpe

# `train` options that read a corpus in records or share the work out: a document here is a whole file
NOT_FOR_VARIANTS = ("--field", "--column", "--max-characters", "--max-document-characters", "--seed")
NOT_FOR_VARIANTS += ("--workers", "--dask")


def run_variant_training(args, *, progress, print_summary, write_outputs) -> int:
    """`train INPUT... --variant V`: the documents read, trained under the rule, the run file
    (and a length-weighted run's tokenizer) written together. ``progress``, ``print_summary``
    and ``write_outputs`` are `train`'s own, so every rule reports and writes alike."""
    variant = Variant(args.variant, args.transition, args.threshold)  # a setting of another rule: one line
    refuse_what_does_not_apply(args, variant)
    outputs = [path for path in (args.run_output, args.tokenizer_output) if path is not None]
    for path in outputs:
        check_writable_target(path)
    value = {name: getattr(args, name, default) for name, default in CORPUS_DEFAULTS.items()}
    pretokenizer, pattern = chosen_pretokenizer(value["pretokenizer"], value["pattern"])
    settings = TrainingSettings(
        target_vocab_size=args.vocab_size,
        minimum_pair_frequency=args.minimum_pair_frequency,
        tie_rule=args.tie_rule,
        top_k=DEFAULT_TOP_K if args.top_k is None else args.top_k,
        engine=args.engine or DEFAULT_ENGINE,
        max_vocab_characters=args.max_vocab_characters,
        alphabet=value["alphabet"],
        pretokenizer=pattern or pretokenizer,
        special_tokens=tuple(value["special_tokens"] or ()),
    )
    if variant.name == SUPERBPE:
        check_superbpe(settings)  # before any text is read
    if args.run_output is not None:
        check_run_fits(args.vocab_size, settings.top_k)
    paths = [Path(path) for path in args.inputs]
    documents = [read_text_file(path) for path in paths]
    check_fits_in_memory(sum(map(len, documents)), settings.alphabet, settings.pretokenizer)
    cut = [split_train_heldout(document, value["heldout_fraction"]) for document in documents]
    train, heldout = [part for part, _ in cut], [part for _, part in cut]
    print(
        f"{len(documents):,} documents, {sum(map(len, train)):,} characters to train on, "
        f"{sum(map(len, heldout)):,} held out; {variant.label()}",
        file=sys.stderr,
    )
    bar = progress()
    try:
        run = train_variant_run(train, settings, variant, heldout_text=heldout, progress=bar)
    except KeyboardInterrupt as stop:
        print(f"\ninterrupted. {unchanged_message(outputs)}", file=sys.stderr)
        return stop_status(stop)
    if bar is not None:
        bar.finish()
    source = RunSource(
        name=args.name or paths[0].name.split(".")[0],
        inputs=tuple(path.name for path in paths),
        characters=sum(map(len, documents)),
        documents=len(documents),
    )
    sample = "".join(heldout)[:HELDOUT_SAMPLE_CHARACTERS]
    write_outputs(run, source, sample, run_output=args.run_output, tokenizer_output=args.tokenizer_output)
    print_summary(run, outputs)
    if run.joined_after is not None:
        print(f"chunks joined after merge {run.joined_after:,}")
    removed = sum(len(found) for found in run.removals.values())
    if removed:
        print(f"{removed:,} tokens removed by Picky BPE along the way")
    return 0


def refuse_what_does_not_apply(args, variant: Variant) -> None:
    """One line for each thing a rule of `bpe.variants` cannot be trained with here."""
    if args.rule != "standard":
        raise BpeError(f"--variant {variant.name} trains one corpus; --rule {args.rule} trains one text per language")
    if args.counts is not None:
        raise BpeError(
            f"--variant {variant.name} trains in memory from text files (INPUT...): a counts file keeps no documents"
        )
    if not args.inputs:
        raise BpeError("nothing to train on: give one text file per document (INPUT...)")
    given = [option for option, value in (("--compare", args.compare), ("--names", args.names)) if value]
    given += [option for option in given_corpus_options(args) if option in NOT_FOR_VARIANTS]
    if given:
        raise BpeError(
            f"{', '.join(given)} {'does' if len(given) == 1 else 'do'} not apply to --variant {variant.name}: each "
            "INPUT is one whole document of plain text"
        )
    if args.tokenizer_output is not None and variant.name != LENGTH_WEIGHTED:
        raise BpeError(
            f"{NAMES[variant.name]}'s tokenizer is no BPE Lab tokenizer file (it encodes in a way that file cannot "
            "hold): write its run file with --run-output"
        )
