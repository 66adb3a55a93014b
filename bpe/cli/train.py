"""`python -m bpe train`: every training to a vocab size but the tutorial's (that is ``build``).

    python -m bpe count corpus/ --pretokenizer gpt2 --alphabet bytes --output counts.parquet
    python -m bpe train --counts counts.parquet --vocab-size 50000 \\
        --run-output data/runs/corpus.bperun --tokenizer-output corpus.json
    python -m bpe train corpus/ --alphabet bytes --vocab-size 50000 --run-output R   # counting first
    python -m bpe train en.txt de.txt el.txt --rule parity --compare --alphabet bytes \\
        --vocab-size 600 --tokenizer-output fair.json   # one text per language (bpe/cli/parity.py)

The standard rule is the merge phase of a big corpus (`bpe.scale`): the counts file says
what shapes the chunks (alphabet, pre-tokenizer) and holds the held-out part; ``train``
adds what decides the merges (vocab size, tie rule, minimum pair frequency). It gives the
same merges as training the text in memory. A progress bar on stderr shows merges per
second and the time left. The run file (for the app: every step, the held-out curve, a
held-out sample) and the tokenizer (BPE Lab's JSON, as ``build`` writes it; ``export``
turns it into other libraries' files) are written together at the end, or not at all:
Ctrl-C or SIGTERM while training leaves every output as it was.

``--rule parity`` trains parity-aware BPE (`bpe.variants.parity`) instead: each INPUT is
one language's version of the same text, and every merge serves the language that costs
the most tokens. ``--variant superbpe|picky|length_weighted`` trains another rule of
`bpe.variants` in memory, each INPUT one document (`bpe.cli.variant_training`).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from bpe.cli.arguments import between, zero_or_more
from bpe.cli.count import (
    ProgressLine,
    add_corpus_options,
    corpus_inputs,
    count_from_args,
    given_corpus_options,
    special_tokens_said,
)
from bpe.cli.errors import stop_status
from bpe.cli.parity import run_parity_training
from bpe.cli.pipeline import (
    add_max_vocab_characters_option,
    add_preset_option,
    budget_hint,
    preset_settings,
    unchanged_message,
)
from bpe.cli.variant_training import run_variant_training
from bpe.errors import BpeError
from bpe.io.files import check_distinct_paths, check_writable_target, staged_files
from bpe.run import TrainingRun
from bpe.scale.chunk_counts import ChunkCounts
from bpe.scale.compiled_merges import COMPILED_FROM_CHARACTERS, check_compiled_settings
from bpe.scale.counts_file import read_counts
from bpe.scale.merge_phase import train_run_from_counts
from bpe.scale.run_file import MAX_MERGES, RunSource, check_run_fits, read_run_file, run_file_bytes
from bpe.steps import DEFAULT_TIE_RULE, TIE_RULES, MergeStep
from bpe.storage import to_json_text
from bpe.tokenizer import BPETokenizer
from bpe.training import (
    DEFAULT_ENGINE,
    DEFAULT_TOP_K,
    ENGINES,
    MAX_TOP_K,
    TrainingSettings,
    describe_preset,
    preset_fields,
)
from bpe.variants.parity import PARITY, RULES, STANDARD
from bpe.variants.rules import STANDARD as STANDARD_RULE
from bpe.variants.rules import VARIANTS


def add_train_command(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``train`` to a parser's subcommands; its ``func`` is `run_train`."""
    p = subparsers.add_parser(
        "train",
        help="train to a vocab size: a corpus's merge phase (from a counts file, or counting first) to a run "
        "file and a tokenizer; or, with --rule parity, one BPE fair to several languages",
        description="Train BPE on the distinct chunks of a counts file (or of the inputs, counted first), merge "
        "for merge as on the text itself; write a run file the app replays and a BPE Lab tokenizer. With "
        "--rule parity, each input is one language's text and training is parity-aware.",
    )
    p.add_argument(
        "inputs",
        nargs="*",
        metavar="INPUT",
        help="corpus files, folders or globs to count first (as `bpe count` does, with its options); or --counts",
    )
    p.add_argument("--counts", type=Path, metavar="COUNTS", help="a counts file from `bpe count`")
    add_corpus_options(p.add_argument_group("counting the inputs first (as bpe count)"), suppressed=True)
    p.add_argument(
        "--vocab-size", type=int, required=True, help="the target vocabulary size (base and special tokens included)"
    )
    p.add_argument("--minimum-pair-frequency", type=int, help="default 2")
    p.add_argument(
        "--tie-rule",
        choices=TIE_RULES,
        help="which of equally frequent pairs wins (default: the earliest first occurrence; "
        "lexicographic_greatest: the greatest pair by the UTF-8 bytes of its tokens, as Stanford CS336)",
    )
    add_preset_option(p)
    # no default in the parser: --rule parity refuses these two when given (its loop has no engine or runners-up)
    p.add_argument(
        "--top-k",
        type=between(0, MAX_TOP_K),
        help=f"competing pairs the run file records per merge (0 to {MAX_TOP_K}; default {DEFAULT_TOP_K})",
    )
    p.add_argument("--engine", choices=sorted(ENGINES), help=f"default {DEFAULT_ENGINE}")
    p.add_argument(
        "--compiled",
        action=argparse.BooleanOptionalAction,
        help="the merges in compiled code (numba): the fast engine's steps, ties by first occurrence "
        f"(bpe/scale/compiled_merges.py); default: from {COMPILED_FROM_CHARACTERS // 1_000_000}M characters up, "
        "where numba is installed and the settings allow",
    )
    add_max_vocab_characters_option(p)
    rules = p.add_argument_group("the training rule")
    rules.add_argument(
        "--rule",
        choices=RULES,
        default=STANDARD,
        help="standard: the most frequent pair over the corpus (default); parity: parity-aware BPE "
        "(bpe/variants/parity.py), each INPUT one language's version of the same text, every merge "
        "serving the language that costs the most tokens; writes only the tokenizer",
    )
    rules.add_argument(
        "--variant",
        choices=VARIANTS,
        default=STANDARD_RULE,
        help="a training rule beyond the textbook (bpe/variants/): superbpe (chunks join after --transition "
        "merges), picky (removes tokens whose IoS reaches --threshold, default 0.9), length_weighted (pairs "
        "scored by count x length); each INPUT one document, trained in memory (bpe/cli/variant_training.py)",
    )
    rules.add_argument("--transition", type=zero_or_more, help="with --variant superbpe: merges inside chunks first")
    rules.add_argument("--threshold", type=float, help="with --variant picky: the IoS at which a token is removed")
    rules.add_argument("--compare", action="store_true", help="with --rule parity: also train standard BPE, print both")
    rules.add_argument("--names", nargs="+", help="with --rule parity: the languages' names (default: file stems)")
    p.add_argument("--run-output", type=Path, metavar="RUN", help="the run file to write (.bperun)")
    p.add_argument("--tokenizer-output", type=Path, metavar="TOKENIZER", help="the tokenizer to write (.json)")
    p.add_argument("--name", help="what the run is called in the app (default: the counts file's name)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run_train)
    return p


def run_train(args) -> int:
    if args.compiled and (args.variant != STANDARD_RULE or args.rule == PARITY):
        raise BpeError(
            f"--compiled trains the standard rule's merge phase; {'--rule parity' if args.rule == PARITY else '--variant'} "
            "trains in memory with the fast or the reference engine"
        )
    if args.variant != STANDARD_RULE or args.transition is not None or args.threshold is not None:
        # a preset's settings where none is given (CS336's `<|endoftext|>` included): every rule takes them
        for field, value in apply_train_preset(args).items():
            setattr(args, field, value)
        return run_variant_training(
            args,
            progress=lambda: None if args.quiet else MergeProgress(sys.stderr),
            print_summary=print_summary,
            write_outputs=write_outputs,
        )
    if args.rule == PARITY:
        for field, default in MERGE_DEFAULTS.items():  # (a preset is refused there)
            setattr(args, field, default if getattr(args, field) is None else getattr(args, field))
        return run_parity_training(args)
    refuse_contradictions(args)
    args.top_k = DEFAULT_TOP_K if args.top_k is None else args.top_k
    args.engine = args.engine or DEFAULT_ENGINE
    merging = apply_train_preset(args)
    # The settings are checked before counting or reading the counts, which may take minutes
    # (the alphabet, pre-tokenizer and special tokens come from the counts, and were checked there).
    fields = dict(
        target_vocab_size=args.vocab_size,
        top_k=args.top_k,
        engine=args.engine,
        max_vocab_characters=args.max_vocab_characters,
        **merging,
    )
    settings = TrainingSettings(**fields)
    if args.compiled:
        check_compiled_settings(settings)
    if args.run_output is not None:
        check_run_fits(args.vocab_size, args.top_k)  # merges are fewer than the vocab: an upper bound
    outputs = [path for path in (args.run_output, args.tokenizer_output) if path is not None]
    for path in outputs:  # a folder or a device in the way is refused before the work, not after
        check_writable_target(path)
    inputs = {"--counts": args.counts} if args.counts is not None else corpus_inputs(args.inputs)
    check_distinct_paths({"--run-output": args.run_output, "--tokenizer-output": args.tokenizer_output}, inputs)
    try:
        counts, name = counts_of(args)
        print(
            f"{len(counts.chunks):,} distinct chunks of {counts.characters:,} characters "
            f"({counts.alphabet}, pre-tokenizer {counts.pretokenizer or 'none'}){special_tokens_said(counts)}",
            file=sys.stderr,
        )
        run = merge_and_write(args, counts, name, fields)
    except KeyboardInterrupt as stop:
        print(f"\ninterrupted. {unchanged_message(outputs)}", file=sys.stderr)
        return stop_status(stop)
    print_summary(run, outputs)
    return 0


def refuse_contradictions(args) -> None:
    """A `BpeError` for a standard training asked for in a way that cannot be meant: no
    input, two inputs, counting options for counts already made, a vocab past a run file."""
    given = [option for option, value in (("--compare", args.compare), ("--names", args.names)) if value]
    if given:
        raise BpeError(
            f"{' and '.join(given)} {'is' if len(given) == 1 else 'are'} for --rule parity (one text per "
            "language); the standard rule trains one corpus"
        )
    if args.counts is None and not args.inputs:
        raise BpeError("nothing to train on: give a counts file (--counts COUNTS) or corpus files to count (INPUT...)")
    if args.counts is not None and args.inputs:
        raise BpeError("give a counts file (--counts COUNTS) or corpus files to count (INPUT...), not both")
    shaping = given_corpus_options(args)
    if args.counts is not None and shaping:
        raise BpeError(
            f"{', '.join(shaping)} {'shapes' if len(shaping) == 1 else 'shape'} the counting; a counts file was counted "
            "already: its settings are in it (count again to change them)"
        )
    if args.run_output is not None and args.vocab_size > MAX_MERGES:
        raise BpeError(
            f"--vocab-size {args.vocab_size:,} is more than a run file holds ({MAX_MERGES:,} merges); "
            "choose a smaller vocab or write only the tokenizer"
        )


# What decides the merges, which a preset sets too (the rest of a preset shapes the chunks).
MERGE_DEFAULTS = {"minimum_pair_frequency": 2, "tie_rule": DEFAULT_TIE_RULE}
CHUNK_FIELDS = ("alphabet", "pretokenizer", "special_tokens")


def apply_train_preset(args) -> dict:
    """The merge-phase settings (`MERGE_DEFAULTS`: given, else the preset's, else the
    defaults); with inputs to count, the preset's alphabet, pre-tokenizer and special tokens
    go to the counting where not given. With a counts file those are the file's, and only
    the preset's merge settings apply: what it set is said either way."""
    merging = preset_settings(args, MERGE_DEFAULTS, lambda message: None)
    if args.preset is None:
        return merging
    preset = preset_fields(args.preset)
    given = {field: getattr(args, field) for field in MERGE_DEFAULTS if getattr(args, field) is not None}
    applied = list(MERGE_DEFAULTS)
    if args.counts is None:
        applied += CHUNK_FIELDS
        for field in CHUNK_FIELDS:
            if getattr(args, field, None) is not None:  # (a corpus option not given is no attribute)
                given[field] = getattr(args, field)
            else:
                setattr(args, field, list(preset[field]) if field == "special_tokens" else preset[field])
    said = describe_preset(args.preset, given, only=applied)
    if args.counts is not None:
        said += "; the alphabet, pre-tokenizer and special tokens are the counts file's"
    print(said, file=sys.stderr)
    return merging


def counts_of(args) -> tuple[ChunkCounts, str]:
    """The chunk table to train on (read from ``--counts``, or the inputs counted now, with a
    progress line) and the name the run takes by default: the file's, up to its first dot."""
    if args.counts is not None:
        return read_counts(args.counts), args.counts.name.split(".")[0]
    counting = None if args.quiet else ProgressLine()
    try:
        counts = count_from_args(args, counting)
    finally:
        if counting is not None:
            counting.end()
    return counts, Path(counts.inputs[0][0]).name.split(".")[0] if counts.inputs else "corpus"


def merge_and_write(args, counts: ChunkCounts, name: str, fields: dict) -> TrainingRun:
    """The merge phase with a progress bar, then the run file and the tokenizer written together."""
    progress = None if args.quiet else MergeProgress(sys.stderr)
    run = train_run_from_counts(counts, **fields, compiled=args.compiled, progress=progress)
    if progress is not None:
        progress.finish()
    source = RunSource(
        name=args.name or name,
        inputs=tuple(name for name, _size, _sha in counts.inputs),
        characters=counts.characters,
        documents=counts.documents,
        profile=counts.profile,
    )
    write_outputs(run, source, counts.heldout_text, run_output=args.run_output, tokenizer_output=args.tokenizer_output)
    return run


def print_summary(run: TrainingRun, outputs: list[Path]) -> None:
    """Merges, speed and why training stopped; the token counts before and after; what was written."""
    print(
        f"{len(run.steps):,} merges in {run.training_seconds:.1f} s "
        f"({len(run.steps) / max(run.training_seconds, 1e-9):,.0f} merges/s); {run.stop_explanation}"
        f"{budget_hint(run.stop_reason)}"
    )
    print(
        f"training tokens {run.initial_length:,} -> {run.sequence_length(len(run.steps)):,}"
        + (
            f"; held-out tokens {run.heldout_lengths[0]:,} -> {run.heldout_lengths[-1]:,}"
            if run.heldout_characters
            else ""
        )
    )
    for path in outputs:
        print(f"wrote {path}")


def write_outputs(
    run: TrainingRun, source: RunSource, sample: str, *, run_output: Path | None, tokenizer_output: Path | None
) -> None:
    """Stage the run file and the tokenizer, reload both and check them, then move them into
    place together (or leave both as they were)."""
    tokenizer = run.tokenizer()
    try:
        with staged_files() as stage:
            if run_output is not None:
                staged = stage.write(run_output, run_file_bytes(run, source=source, sample=sample))
                if read_run_file(staged).run.merges != run.merges:
                    raise BpeError(f"{run_output} does not reload to the run just trained")
            if tokenizer_output is not None:
                staged = stage.write(tokenizer_output, to_json_text(tokenizer.data()).encode("utf-8"))
                if BPETokenizer.from_file(staged) != tokenizer:  # the load checks the fingerprint
                    raise BpeError(f"{tokenizer_output} does not reload to the tokenizer just trained")
    except BpeError as error:
        outputs = [path for path in (run_output, tokenizer_output) if path is not None]
        raise BpeError(f"{error}. {unchanged_message(outputs)}") from None


class MergeProgress:
    """A progress bar on a terminal (a line every tenth of the way otherwise): merges done,
    merges per second, time left. Called with each step, as `train_run`'s progress is."""

    def __init__(self, stream, *, interval: float = 0.2) -> None:
        self.stream = stream
        self.interval = interval
        self.terminal = hasattr(stream, "isatty") and stream.isatty()
        self.started = time.perf_counter()
        self.shown = 0.0
        self.tenth = 0
        self.line = ""

    def __call__(self, step: MergeStep, target_vocab_size: int) -> None:
        now = time.perf_counter()
        wanted = target_vocab_size - (step.vocab_size - step.number)  # merges to the target, if all add a token
        done = step.number
        if self.terminal:
            if now - self.shown < self.interval:
                return
        else:
            tenth = 10 * done // max(wanted, 1)
            if tenth <= self.tenth:
                return
            self.tenth = tenth
        self.shown = now
        self.line = progress_line(done, wanted, now - self.started)
        self.stream.write(f"\r{self.line}" if self.terminal else f"{self.line}\n")
        self.stream.flush()

    def finish(self) -> None:
        if self.terminal and self.line:
            self.stream.write("\n")
            self.stream.flush()


def progress_line(done: int, wanted: int, seconds: float, width: int = 30) -> str:
    """``[#########.....]  1,234/5,000 merges  812 merges/s  0:00:04 left``."""
    fraction = min(done / max(wanted, 1), 1.0)
    filled = int(fraction * width)
    rate = done / seconds if seconds > 0 else 0.0
    left = (wanted - done) / rate if rate else 0.0
    return (
        f"[{'#' * filled}{'.' * (width - filled)}] {done:,}/{wanted:,} merges  {rate:,.0f} merges/s  "
        f"{_clock(left)} left"
    )


def _clock(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
