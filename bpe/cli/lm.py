"""`python -m bpe lm train ...`: the character-vs-BPE experiment from the command line.

Thin on purpose: it trains the tokenizers, hands them to `train_model_per_tokenizer`, and prints
the records it yields, the same stream the app page draws. torch is imported only when the
command runs, so registering the subcommand does not slow down the rest of the CLI.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from bpe.corpora.textfile import read_text_file
from bpe.errors import BpeError
from bpe.io.files import check_writable_folder, check_writable_target
from bpe.lm.config import Budget, ModelConfig, TrainSettings  # torch-free
from bpe.lm.job import training_threads  # torch-free: the app's thread policy
from bpe.tokenizer import BPETokenizer
from bpe.wording import counted


def add_lm_command(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register `lm` (with its `train` action) on a parent parser's subparsers."""
    lm = subparsers.add_parser(
        "lm",
        help="does BPE help the model? train a tiny GPT on characters and on BPE tokens",
        description="Train a tiny GPT per tokenizer at equal compute and compare held-out bits per character and per byte.",
    )
    actions = lm.add_subparsers(dest="lm_command", metavar="ACTION", required=True)
    train = actions.add_parser("train", help="train and compare: characters vs BPE")
    train.add_argument("--text", required=True, type=Path, help="UTF-8 text file to train on")
    train.add_argument(
        "--vocab-size",
        type=int,
        nargs="+",
        default=[500],
        metavar="N",
        help="BPE vocab sizes to compare with characters (default 500)",
    )
    train.add_argument("--minimum-pair-frequency", type=int, default=2, help="BPE stops below this pair count")
    budget = train.add_argument_group("budget (training stops at whichever comes first; default 30 seconds)")
    budget.add_argument("--seconds", type=float, help="training seconds per model")
    budget.add_argument("--chars", type=int, help="characters of text processed per model")
    budget.add_argument("--steps", type=int, help="optimizer steps per model (not equal text: BPE windows hold more)")
    model = train.add_argument_group("model")
    model.add_argument("--block-size", type=int, default=64, help="context length in tokens")
    model.add_argument("--width", type=int, default=128)
    model.add_argument("--depth", type=int, default=4)
    model.add_argument("--heads", type=int, default=4)
    model.add_argument("--dropout", type=float, default=0.0)
    run = train.add_argument_group("training")
    run.add_argument("--batch-size", type=int, default=16)
    run.add_argument("--learning-rate", type=float, default=3e-3)
    run.add_argument("--eval-every", type=int, default=50, help="steps between held-out evaluations")
    run.add_argument("--eval-windows", type=int, default=64, help="most held-out windows per evaluation")
    run.add_argument(
        "--held-out",
        dest="heldout_fraction",
        type=float,
        default=0.1,
        help="fraction of the text (by characters) held out",
    )
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--device", help="cpu or cuda (default: cuda when available)")
    run.add_argument(
        "--threads",
        type=int,
        metavar="N",
        help="torch CPU threads (default: the app's policy, half the cores; all of them make a "
        "busy machine slower and the models' compute unequal)",
    )
    out = train.add_argument_group("output")
    out.add_argument("--prompt", help="sample prompt (default: the start of the held-out text)")
    out.add_argument("--sample-chars", type=int, default=200, help="length of each sample, in characters")
    out.add_argument("--save-dir", type=Path, help="write one checkpoint per model here (<name>.pt)")
    train.set_defaults(func=run_lm)
    return lm


def run_lm(args: argparse.Namespace) -> int:
    """Run `lm train`; print progress, a summary table and samples. Errors are reported by
    `bpe.cli.errors.reporting_errors` like every other command's (exit status 1)."""
    _train(args)
    return 0


def _train(args: argparse.Namespace) -> None:
    text, budget, config, settings = _checked_arguments(args)  # before torch loads or a tokenizer trains

    # torch loads here, once the settings are known to be good
    import torch

    from bpe.lm.experiment import ModelSummary, train_model_per_tokenizer
    from bpe.lm.train import default_device

    # The app's thread policy (this command is an entry point, so it may set torch's
    # process-wide thread count): with every core, a busy machine gives each model a
    # different share of compute, and "equal compute" no longer holds.
    torch.set_num_threads(args.threads or training_threads())
    device = torch.device(args.device) if args.device else default_device()
    where = (
        f"{counted(torch.get_num_threads(), 'CPU thread')} of {counted(os.cpu_count() or 1, 'core')}"
        if device.type == "cpu"
        else ""
    )
    print(f"Training on {device}" + (f", {where}" if where else "") + " (--threads to change)", flush=True)

    summaries: list[ModelSummary] = []
    for record in train_model_per_tokenizer(
        _tokenizer_specs(args, text),
        config,
        budget,
        text=text,
        settings=settings,
        heldout_fraction=args.heldout_fraction,
        prompt=args.prompt,
        sample_chars=args.sample_chars,
    ):
        if isinstance(record, ModelSummary):
            summaries.append(record)
        elif record.progress.evaluation is not None:
            print(_progress_line(record.tokenizer, record.progress), flush=True)
    print()
    print(_summary_table(summaries))
    for summary in summaries:
        print(f"\n--- sample from {summary.tokenizer} ---\n{summary.sample}")
        if args.save_dir is not None:
            _save(args.save_dir / f"{summary.tokenizer}.pt", summary)


def _checked_arguments(args: argparse.Namespace) -> tuple[str, Budget, ModelConfig, TrainSettings]:
    """The text and the settings, every bad path and value refused in one line before any work:
    the text read, the budget, the model's shape, the optimizer's settings, the save folder."""
    text = read_text_file(args.text)
    if not 0 < args.heldout_fraction < 1:
        raise BpeError(f"--held-out {args.heldout_fraction} must be a fraction between 0 and 1 (exclusive), e.g. 0.1")
    seconds = 30.0 if args.seconds is None and args.chars is None and args.steps is None else args.seconds
    budget = Budget(seconds=seconds, chars=args.chars, steps=args.steps)
    config = ModelConfig(
        vocab_size=1,
        block_size=args.block_size,
        width=args.width,
        depth=args.depth,
        heads=args.heads,
        dropout=args.dropout,
    )
    settings = TrainSettings(
        batch_size=args.batch_size,
        learning_rate=args.learning_rate,
        eval_every=args.eval_every,
        eval_windows=args.eval_windows,
        seed=args.seed,
        device=args.device,
    )
    if args.threads is not None and args.threads < 1:
        raise BpeError(f"--threads {args.threads} must be at least 1")
    if args.save_dir is not None:  # checked now: finding a read-only folder after training would lose the models
        check_writable_folder(args.save_dir)
        for name in ["chars", *(f"bpe-{size}" for size in args.vocab_size)]:
            check_writable_target(args.save_dir / f"{name}.pt")
    return text, budget, config, settings


def _tokenizer_specs(args: argparse.Namespace, text: str) -> list:
    """Characters, then one BPE tokenizer per ``--vocab-size``. They see the whole text, so
    every held-out character is in their alphabet."""
    from bpe.lm.experiment import TokenizerSpec

    specs = [TokenizerSpec.from_tokenizer("chars", BPETokenizer.train(text, target_vocab_size=len(set(text))))]
    for size in args.vocab_size:
        tokenizer = BPETokenizer.train(text, target_vocab_size=size, minimum_pair_frequency=args.minimum_pair_frequency)
        specs.append(TokenizerSpec.from_tokenizer(f"bpe-{size}", tokenizer))
    return specs


def _save(path: Path, summary) -> None:
    """Write one model's checkpoint, then load it back as a user will (`load_checkpoint`: the
    tokenizer's fingerprint and every weight's shape checked), so a file that would not load
    is an error now, not in someone's notebook later."""
    from bpe.lm.checkpoint import load_checkpoint, save_checkpoint

    path.parent.mkdir(parents=True, exist_ok=True)
    save_checkpoint(path, summary.model, fingerprint=summary.fingerprint)
    load_checkpoint(path, fingerprint=summary.fingerprint)
    print(f"(saved {path})")


def _progress_line(name: str, progress) -> str:
    evaluation = progress.evaluation
    train = "      -" if progress.train_loss is None else f"{progress.train_loss:7.3f}"
    return (
        f"{name:>10}  step {progress.step:6d}  {progress.seconds:7.1f}s  {progress.chars_seen:>11,} chars  "
        f"train {train}  held-out {evaluation.loss_per_token:6.3f} nats/token  "
        f"{evaluation.bits_per_char:6.3f} bits/char"
    )


def _summary_table(summaries: list) -> str:
    header = (
        f"{'tokenizer':>10} {'vocab':>6} {'embedding':>10} {'rest':>10} {'steps':>7} "
        f"{'tokens/s':>9} {'chars seen':>12} {'bits/char':>9} {'bits/byte':>9}"
    )
    rows = [
        f"{s.tokenizer:>10} {s.config.vocab_size:>6} {s.parameters.embedding:>10,} {s.parameters.rest:>10,} "
        f"{s.steps:>7} {s.tokens_per_second:>9,.0f} {s.chars_seen:>12,} {s.bits_per_char:>9.3f} "
        f"{'-' if s.bits_per_byte is None else format(s.bits_per_byte, '.3f'):>9}"
        for s in summaries
    ]
    return "\n".join([header, *rows])
