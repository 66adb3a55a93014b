"""What to build and how long to train it: the model's shape, the training settings, the budget,
and the one way to abandon a training (`Abandoned`), torch-free so that a job can catch it.

All three are frozen dataclasses validated on construction, so the model and the training
loop can trust their numbers, and a page can show the message (which names the value and
the fix) instead of a traceback from deep inside torch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, fields

from bpe.errors import BpeError


def _check_int(name: str, value: object, minimum: int) -> None:
    # bool is an int subclass; `depth=True` is a bug, not a depth of 1.
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise BpeError(f"{name}={value!r} must be a whole number >= {minimum}")


def _check_positive(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise BpeError(f"{name}={value!r} must be a number > 0")


@dataclass(frozen=True)
class ModelConfig:
    """The shape of a TinyGPT.

    vocab_size is the tokenizer's; everything else is the same for the character model and
    the BPE model in a fair comparison. block_size counts *tokens*, so a BPE model with the
    same block size sees more text per window: that is part of what BPE buys.
    """

    vocab_size: int
    block_size: int = 64
    width: int = 128
    depth: int = 4
    heads: int = 4
    dropout: float = 0.0

    def __post_init__(self) -> None:
        _check_int("vocab_size", self.vocab_size, 1)
        _check_int("block_size", self.block_size, 1)
        _check_int("width", self.width, 1)
        _check_int("depth", self.depth, 1)
        _check_int("heads", self.heads, 1)
        if self.width % self.heads:
            raise BpeError(
                f"width={self.width} is not divisible by heads={self.heads}; "
                f"each head gets width/heads channels, so choose a width that is a multiple of {self.heads}"
            )
        if isinstance(self.dropout, bool) or not isinstance(self.dropout, (int, float)) or not 0 <= self.dropout < 1:
            raise BpeError(f"dropout={self.dropout!r} must be a number in [0, 1)")

    def training_flops_per_token(self) -> int:
        """Floating-point operations one token of a training step costs, counted as Kaplan et
        al. (2020) count them: the forward pass does a multiply and an add for each weight of
        the transformer blocks (12 width² a layer: attention's four projections, the MLP's two
        of four widths) and of the output head (vocab × width, tied to the token embedding),
        plus 2 × depth × block × width for attention's scores over the context; the backward
        pass twice the forward. The head is what a larger vocabulary adds: for "small" (width
        128, depth 4, block 64), 4,965,120 a token at vocab 65 and 5,683,200 at vocab 1,000."""
        blocks = 12 * self.depth * self.width**2
        head = self.vocab_size * self.width
        attention = self.depth * self.block_size * self.width
        return 3 * 2 * (blocks + head + attention)

    def to_dict(self) -> dict[str, int | float]:
        """Plain numbers only, so a checkpoint can be read back with weights_only=True."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> ModelConfig:
        """Inverse of to_dict; unknown or missing keys are refused by name."""
        if not isinstance(data, dict):
            raise BpeError(f"model config must be a dict, got {type(data).__name__}")
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise BpeError(f"model config has unknown keys {unknown}; expected only {sorted(names)}")
        if "vocab_size" not in data:
            raise BpeError(f"model config lacks 'vocab_size' (got keys {sorted(data)})")
        return cls(**data)


@dataclass(frozen=True)
class TrainSettings:
    """How to train, apart from how long (that is the Budget).

    eval_every counts optimizer steps. eval_windows caps the number of held-out windows
    evaluated, so evaluation cost stays bounded on a large text.
    """

    batch_size: int = 16
    learning_rate: float = 3e-3
    weight_decay: float = 0.0
    grad_clip: float | None = 1.0
    eval_every: int = 50
    eval_windows: int = 64
    seed: int = 0
    device: str | None = None  # None: cuda when available, else cpu
    # One untimed throwaway step first, so one-time start-up costs do not eat the
    # seconds budget of the first model trained (see train._warm_up).
    warm_up: bool = True

    def __post_init__(self) -> None:
        _check_int("batch_size", self.batch_size, 1)
        _check_positive("learning_rate", self.learning_rate)
        decay = self.weight_decay
        if isinstance(decay, bool) or not isinstance(decay, (int, float)) or decay < 0:
            raise BpeError(f"weight_decay={self.weight_decay!r} must be a number >= 0")
        if self.grad_clip is not None:
            _check_positive("grad_clip", self.grad_clip)
        _check_int("eval_every", self.eval_every, 1)
        _check_int("eval_windows", self.eval_windows, 1)
        _check_int("seed", self.seed, 0)
        if not isinstance(self.warm_up, bool):
            raise BpeError(f"warm_up={self.warm_up!r} must be True or False")


@dataclass(frozen=True)
class Budget:
    """When to stop: whichever given limit is reached first.

    Equal compute between a character model and a BPE model is equal work: equal steps of
    the same batch shape process the same tokens (`ModelConfig.training_flops_per_token`
    says what each costs). Equal seconds are equal only on a machine nothing else uses;
    equal characters of text processed give the BPE model fewer steps (a BPE window of the
    same block size holds more characters). Seconds count training only, not evaluation.
    """

    seconds: float | None = None
    chars: int | None = None
    steps: int | None = None

    def __post_init__(self) -> None:
        if self.seconds is None and self.chars is None and self.steps is None:
            raise BpeError("Budget needs at least one of seconds, chars or steps, e.g. Budget(seconds=30)")
        if self.seconds is not None:
            _check_positive("seconds", self.seconds)
        if self.chars is not None:
            _check_int("chars", self.chars, 1)
        if self.steps is not None:
            _check_int("steps", self.steps, 1)


class Abandoned(Exception):
    """Raised out of training, evaluation or sampling when the ``abandoned()`` they were given
    turns true: whoever started it wants the thread out of torch at once, with nothing more
    computed (a server stopping: see `bpe.lm.job.ExperimentJob.abandon`)."""


def check_abandoned(abandoned: Callable[[], bool] | None) -> None:
    """`Abandoned` when ``abandoned()`` is true; called between one torch step and the next."""
    if abandoned is not None and abandoned():
        raise Abandoned()
