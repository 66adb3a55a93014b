"""`python -m bpe.benchmarks.lm`: training tokens per second for one model shape, on this machine.

A script, not a test: numbers depend on the machine. It helps choose a budget for the
app (how many seconds buy a useful comparison). Random ids stand in for a corpus: speed
depends on the shape, not on what the ids say.
"""

from __future__ import annotations

import argparse
from dataclasses import replace

import torch

from bpe.lm.config import Budget, ModelConfig, TrainSettings
from bpe.lm.data import TokenData
from bpe.lm.model import build_model, count_parameters
from bpe.lm.train import train_model


def tokens_per_second(config: ModelConfig, settings: TrainSettings, seconds: float) -> float:
    """Train on random ids for `seconds` (after a few warm-up steps) and return the rate."""
    ids = torch.randint(0, config.vocab_size, (200_000,), generator=torch.Generator().manual_seed(0))
    data = TokenData(ids[:180_000], ids[180_000:], token_lengths=[1] * config.vocab_size)
    settings = replace(settings, eval_every=10**9, eval_windows=1)
    for _ in train_model(build_model(config), data, Budget(steps=3), settings):  # warm-up: lazy imports, allocations
        pass
    # the last progress report holds the totals of the timed run
    *_, last = train_model(build_model(config), data, Budget(seconds=seconds), settings)
    return last.tokens_seen / last.seconds


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bpe.benchmarks.lm", description=__doc__.split("\n")[0])
    parser.add_argument("--vocab-size", type=int, default=500)
    parser.add_argument("--block-size", type=int, default=128)
    parser.add_argument("--width", type=int, default=128)
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--threads", type=int, help="torch CPU threads (default: torch's choice)")
    parser.add_argument("--device", help="cpu or cuda (default: cuda when available)")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    config = ModelConfig(
        vocab_size=args.vocab_size, block_size=args.block_size, width=args.width, depth=args.depth, heads=args.heads
    )
    settings = TrainSettings(batch_size=args.batch_size, device=args.device)
    rate = tokens_per_second(config, settings, args.seconds)
    counts = count_parameters(build_model(config))
    print(f"{config}\nparameters: {counts.total:,} ({counts.embedding:,} embedding, {counts.rest:,} rest)")
    print(f"batch {args.batch_size}, {torch.get_num_threads()} CPU threads: {rate:,.0f} training tokens/second")


if __name__ == "__main__":
    main()
