"""Does BPE help the model? Train one TinyGPT per tokenizer on the same text, same budget.

The comparison is fair only if everything but the tokenizer is equal: the same model
shape (apart from the vocab-sized embedding), the same work (as many steps of the same
batch of tokens; each summary says the FLOPs it took), the same held-out *text*, and a
score in bits per character. So the text is split once, by characters, and
each tokenizer encodes both parts itself.

The experiment yields records, like `train_model`: an `ExperimentProgress` per step,
labelled with the tokenizer's name, then a `ModelSummary` when that model is done.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace

import torch

from bpe.errors import BpeError
from bpe.lm.config import Budget, ModelConfig, TrainSettings
from bpe.lm.data import TokenData
from bpe.lm.model import ParameterCounts, TinyGPT, build_model, count_parameters
from bpe.lm.sample import generate
from bpe.lm.train import Evaluation, TrainProgress, train_model
from bpe.text import token_characters


@dataclass(frozen=True)
class TokenizerSpec:
    """Everything the experiment needs from a tokenizer, and nothing else.

    token_lengths[i] is the number of characters id i accounts for (see `bpe.text.token_characters`);
    token_bytes[i] its UTF-8 bytes (empty: bits per byte are not measured).
    """

    name: str
    encode: Callable[[str], list[int]]
    decode: Callable[[list[int]], str]
    token_lengths: tuple[int, ...]
    fingerprint: str
    token_bytes: tuple[int, ...] = ()

    @classmethod
    def from_tokenizer(cls, name: str, tokenizer) -> TokenizerSpec:
        """Adapt any object with encode, decode, itos (id -> str or bytes token), vocab_size and fingerprint()."""
        missing = [i for i in range(tokenizer.vocab_size) if i not in tokenizer.itos]
        if missing:
            raise BpeError(f"tokenizer {name!r} has no token for id {missing[0]}; its ids must be 0..vocab_size-1")
        return cls(
            name=name,
            encode=tokenizer.encode,
            decode=tokenizer.decode,
            token_lengths=tuple(token_characters(tokenizer.itos[i]) for i in range(tokenizer.vocab_size)),
            fingerprint=tokenizer.fingerprint(),
            token_bytes=tuple(_utf8_size(tokenizer.itos[i]) for i in range(tokenizer.vocab_size)),
        )


@dataclass(frozen=True)
class ExperimentProgress:
    """One training record of one tokenizer's model."""

    tokenizer: str
    progress: TrainProgress


@dataclass(frozen=True)
class ModelSummary:
    """The result for one tokenizer. `model` is the trained model, kept for sampling or saving."""

    tokenizer: str
    fingerprint: str
    config: ModelConfig
    parameters: ParameterCounts
    steps: int
    seconds: float
    tokens_seen: int
    chars_seen: int
    evaluation: Evaluation  # final, on the held-out text
    sample: str  # the prompt and a sampled continuation
    model: TinyGPT = field(repr=False, compare=False)
    # per token id: how often it is in the model's training ids, and the norm of its row of the
    # input embedding once trained (`bpe.lm.report.embedding_points` reads them without torch)
    token_counts: tuple[int, ...] = field(default=(), repr=False)
    embedding_norms: tuple[float, ...] = field(default=(), repr=False)

    @property
    def bits_per_char(self) -> float:
        return self.evaluation.bits_per_char

    @property
    def bits_per_byte(self) -> float | None:
        return self.evaluation.bits_per_byte

    @property
    def training_flops(self) -> int:
        """The work its training did: the tokens it processed, each at its shape's cost
        (`ModelConfig.training_flops_per_token`)."""
        return self.tokens_seen * self.config.training_flops_per_token()

    @property
    def tokens_per_second(self) -> float:
        return self.tokens_seen / self.seconds if self.seconds > 0 else 0.0

    @property
    def chars_per_second(self) -> float:
        return self.chars_seen / self.seconds if self.seconds > 0 else 0.0


def split_text(text: str, heldout_fraction: float) -> tuple[str, str]:
    """Cut by characters, so every tokenizer is scored on the very same held-out text.

    Example: split_text("abcdefghij", 0.2) -> ("abcdefgh", "ij")
    """
    if not text:
        raise BpeError("the text is empty; give some text to train on")
    if not 0 < heldout_fraction < 1:
        raise BpeError(f"heldout_fraction={heldout_fraction!r} must be between 0 and 1 (exclusive)")
    cut = len(text) - max(1, round(len(text) * heldout_fraction))
    return text[:cut], text[cut:]


def train_model_per_tokenizer(
    runs: Sequence[TokenizerSpec],
    config: ModelConfig,
    budget: Budget,
    *,
    text: str,
    settings: TrainSettings = TrainSettings(),
    heldout_fraction: float = 0.1,
    prompt: str | None = None,
    sample_chars: int = 200,
    temperature: float = 0.8,
    top_k: int | None = None,
    should_stop: Callable[[], bool] | None = None,
    abandoned: Callable[[], bool] | None = None,
) -> Iterator[ExperimentProgress | ModelSummary]:
    """Train one model per tokenizer, one after another, each to the same budget.

    config.vocab_size is replaced by each tokenizer's own. The sample continues `prompt`
    (default: the start of the held-out text) by about sample_chars characters. When
    should_stop() turns true, the current model is summarised and the experiment ends; when
    abandoned() does, `bpe.lm.config.Abandoned` is raised between one torch step and the next.
    """
    names = [spec.name for spec in runs]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise BpeError(f"tokenizer names must be unique to label the results; {duplicates} appear more than once")
    # Sampling settings are checked now, not after minutes of training.
    if not temperature >= 0:
        raise BpeError(f"temperature={temperature!r} must be >= 0 (0 picks the most likely token)")
    if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1):
        raise BpeError(f"top_k={top_k!r} must be a whole number >= 1, or None for no cut-off")
    if isinstance(sample_chars, bool) or not isinstance(sample_chars, int) or sample_chars < 0:
        raise BpeError(f"sample_chars={sample_chars!r} must be a whole number >= 0")
    train_text, heldout_text = split_text(text, heldout_fraction)
    prompt = heldout_text[:20] if prompt is None else prompt
    # Every tokenizer's text is encoded and checked before the first model trains: a prompt
    # one cannot encode, or a text too short for one window of its tokens, fails now, not
    # after the models before it trained (their results then stood alone, a comparison cut short).
    prepared = []
    for spec in runs:
        prompt_ids = spec.encode(prompt)
        if not prompt_ids:
            raise BpeError(f"the prompt {prompt!r} encodes to no tokens; give at least one character to start from")
        data = TokenData(
            spec.encode(train_text),
            spec.encode(heldout_text),
            token_lengths=spec.token_lengths,
            token_bytes=spec.token_bytes or None,
        )
        data.require_tokens(config.block_size)
        prepared.append((spec, prompt_ids, data))
    for spec, prompt_ids, data in prepared:
        model = build_model(replace(config, vocab_size=data.vocab_size), seed=settings.seed)
        last: TrainProgress | None = None
        for last in train_model(model, data, budget, settings, should_stop=should_stop, abandoned=abandoned):
            yield ExperimentProgress(spec.name, last)
        assert last is not None and last.evaluation is not None  # train_model always ends on an evaluated record
        top = None if top_k is None else min(top_k, data.vocab_size)  # a small vocab has fewer than k tokens
        yield _summarise(spec, model, data, last, prompt_ids, sample_chars, temperature, top, settings.seed, abandoned)
        if last.stop_reason == "stopped":
            return


def _summarise(
    spec: TokenizerSpec,
    model: TinyGPT,
    data: TokenData,
    last: TrainProgress,
    prompt_ids: list[int],
    sample_chars: int,
    temperature: float,
    top_k: int | None,
    seed: int,
    abandoned: Callable[[], bool] | None = None,
) -> ModelSummary:
    # Same number of *characters* for every tokenizer, so the samples read alike in length.
    chars_per_token = max(1.0, data.count_chars(data.train_ids) / max(1, len(data.train_ids)))
    new = generate(
        model,
        prompt_ids,
        math.ceil(sample_chars / chars_per_token),
        temperature=temperature,
        top_k=top_k,
        generator=torch.Generator().manual_seed(seed),
        abandoned=abandoned,
    )
    return ModelSummary(
        tokenizer=spec.name,
        fingerprint=spec.fingerprint,
        config=model.config,
        parameters=count_parameters(model),
        steps=last.step,
        seconds=last.seconds,
        tokens_seen=last.tokens_seen,
        chars_seen=last.chars_seen,
        evaluation=last.evaluation,
        sample=spec.decode(list(prompt_ids) + new),
        model=model,
        token_counts=tuple(torch.bincount(data.train_ids, minlength=data.vocab_size).tolist()),
        embedding_norms=tuple(model.token_embedding.weight.detach().norm(dim=1).cpu().tolist()),
    )


def _utf8_size(token: str | bytes) -> int:
    """UTF-8 bytes a token stands for (a byte token: its own length)."""
    return len(token) if isinstance(token, bytes) else len(token.encode("utf-8"))
