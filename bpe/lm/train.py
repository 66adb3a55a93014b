"""The training loop, as a generator of progress records.

Like `bpe.train_steps`, it never prints or draws: it yields a `TrainProgress` after every
optimizer step, with a held-out `Evaluation` at step 0, every `eval_every` steps, and at the
end. A page turns the stream into a chart and a progress bar, the CLI prints it, and a
`should_stop` callable lets a Stop button end the run between steps.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal

import torch
from torch.nn import functional as F

from bpe.errors import BpeError
from bpe.lm.config import Budget, TrainSettings, check_abandoned
from bpe.lm.data import EvalWindows, TokenData, bits_per_byte, bits_per_char
from bpe.lm.model import TinyGPT

# Why one model's training ended: a budget ran out, or Stop was pressed (BPE training's own
# reasons are `bpe.steps.StopReason`).
BudgetStop = Literal["seconds", "chars", "steps", "stopped"]


@dataclass(frozen=True)
class Evaluation:
    """Held-out scores. Compare tokenizers by bits_per_char, never by loss_per_token."""

    loss_per_token: float  # mean cross-entropy, nats
    bits_per_char: float
    tokens: int  # target tokens evaluated
    chars: int  # characters those tokens decode to
    bytes: int | None = None  # their UTF-8 bytes (None: the data had no bytes table)
    bits_per_byte: float | None = None


@dataclass(frozen=True)
class TrainProgress:
    """One point of a training run.

    step 0 is the untrained model (train_loss is None there). seconds counts training
    time only. stop_reason is set on the last record, which always carries an evaluation.
    """

    step: int
    seconds: float
    tokens_seen: int
    chars_seen: int
    train_loss: float | None
    evaluation: Evaluation | None = None
    stop_reason: BudgetStop | None = None

    @property
    def done(self) -> bool:
        return self.stop_reason is not None


def default_device() -> torch.device:
    """cuda when there is one, else cpu."""
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def _device(name: str | None) -> torch.device:
    if name is None:
        return default_device()
    try:
        device = torch.device(name)
    except RuntimeError:
        raise BpeError(f"device={name!r} is not a torch device; use 'cpu' or 'cuda'") from None
    if device.type == "cuda" and not torch.cuda.is_available():
        raise BpeError(f"device={name!r} was asked for, but this machine has no CUDA GPU; use 'cpu'")
    return device


def language_model_loss(
    model: TinyGPT, inputs: torch.Tensor, targets: torch.Tensor, reduction: str = "mean"
) -> torch.Tensor:
    """Cross-entropy of the next-token predictions, in nats."""
    logits = model(inputs)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), reduction=reduction)


@torch.no_grad()
def evaluate(
    model: TinyGPT, windows: EvalWindows, *, batch_size: int = 32, abandoned: Callable[[], bool] | None = None
) -> Evaluation:
    """Score the model on fixed held-out windows: exact totals, no sampling noise."""
    was_training = model.training
    model.eval()
    device = next(model.parameters()).device
    total_nats = 0.0
    for start in range(0, len(windows.inputs), batch_size):
        check_abandoned(abandoned)
        inputs = windows.inputs[start : start + batch_size].to(device)
        targets = windows.targets[start : start + batch_size].to(device)
        total_nats += language_model_loss(model, inputs, targets, reduction="sum").item()
    model.train(was_training)
    loss = total_nats / windows.n_tokens
    return Evaluation(
        loss_per_token=loss,
        bits_per_char=bits_per_char(loss, windows.n_tokens, windows.n_chars),
        tokens=windows.n_tokens,
        chars=windows.n_chars,
        bytes=windows.n_bytes,
        bits_per_byte=None if not windows.n_bytes else bits_per_byte(loss, windows.n_tokens, windows.n_bytes),
    )


def _check_fits(model: TinyGPT, data: TokenData) -> None:
    if data.vocab_size > model.config.vocab_size:
        raise BpeError(
            f"the data has {data.vocab_size} token ids but the model's vocab_size={model.config.vocab_size}; "
            "build the model with the tokenizer's vocab size"
        )
    data.require_tokens(model.config.block_size)


def _warm_up(model: TinyGPT, data: TokenData, batch_size: int, device: torch.device) -> None:
    """One untimed training step on a throwaway copy of the model.

    The first step in a process is slow (memory first touched, kernels chosen, lazy
    imports: several times the next one). Without this, a seconds budget would charge that
    to whichever model trains first. The copy keeps the real
    model, the batch generator and the global RNG (seeded after this) untouched.
    """
    scratch = copy.deepcopy(model)
    optimizer = torch.optim.AdamW(scratch.parameters())
    block = model.config.block_size
    starts = torch.arange(batch_size) % (len(data.train_ids) - block)  # fixed windows: no RNG
    windows = data.train_ids[starts[:, None] + torch.arange(block + 1)].to(device)
    language_model_loss(scratch, windows[:, :-1], windows[:, 1:]).backward()
    optimizer.step()


def _stop_reason(budget: Budget, step: int, seconds: float, chars: int) -> BudgetStop | None:
    if budget.steps is not None and step >= budget.steps:
        return "steps"
    if budget.chars is not None and chars >= budget.chars:
        return "chars"
    if budget.seconds is not None and seconds >= budget.seconds:
        return "seconds"
    return None


def train_model(
    model: TinyGPT,
    data: TokenData,
    budget: Budget,
    settings: TrainSettings = TrainSettings(),
    *,
    should_stop: Callable[[], bool] | None = None,
    abandoned: Callable[[], bool] | None = None,
) -> Iterator[TrainProgress]:
    """Train `model` in place until the budget is spent, yielding progress as it goes.
    ``should_stop()`` ends it after an evaluation (a Stop button); ``abandoned()`` raises
    `Abandoned` between one step (or evaluation batch) and the next, with nothing more done.

    Deterministic for a given seed on one device with a steps or chars budget: batches
    come from a private torch.Generator, and torch.manual_seed(seed) fixes dropout.
    (A seconds budget stops wherever the clock says, so it cannot be.)
    """
    _check_fits(model, data)
    device = _device(settings.device)
    model.to(device)
    model.train()
    if settings.warm_up:
        _warm_up(model, data, settings.batch_size, device)
    torch.manual_seed(settings.seed)
    batches = torch.Generator().manual_seed(settings.seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=settings.learning_rate, weight_decay=settings.weight_decay)
    windows = data.eval_windows(model.config.block_size, settings.eval_windows)
    block = model.config.block_size

    step, seconds, tokens_seen, chars_seen = 0, 0.0, 0, 0
    yield TrainProgress(step, seconds, tokens_seen, chars_seen, None, evaluate(model, windows, abandoned=abandoned))
    while True:
        check_abandoned(abandoned)
        started = time.perf_counter()
        inputs, targets = data.random_batch(settings.batch_size, block, batches)
        chars_seen += data.count_chars(targets)  # on the CPU copy: no device sync
        loss = language_model_loss(model, inputs.to(device), targets.to(device))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if settings.grad_clip is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), settings.grad_clip)
        optimizer.step()
        train_loss = loss.item()  # waits for the device, so the clock below is honest
        seconds += time.perf_counter() - started
        step += 1
        tokens_seen += targets.numel()

        reason = _stop_reason(budget, step, seconds, chars_seen)
        if reason is None and should_stop is not None and should_stop():
            reason = "stopped"
        evaluation = (
            evaluate(model, windows, abandoned=abandoned) if reason or step % settings.eval_every == 0 else None
        )
        yield TrainProgress(step, seconds, tokens_seen, chars_seen, train_loss, evaluation, reason)
        if reason:
            return
