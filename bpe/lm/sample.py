"""Sampling: continue a prompt one token at a time.

Temperature divides the logits (below 1 sharpens, above 1 flattens; 0 means always take
the most likely token). top_k keeps only the k most likely tokens before sampling, which
cuts off the long tail of rare, usually wrong continuations.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch

from bpe.errors import BpeError
from bpe.lm.config import check_abandoned
from bpe.lm.model import TinyGPT


def _check(
    model: TinyGPT, prompt_ids: Sequence[int], max_new_tokens: int, temperature: float, top_k: int | None
) -> None:
    vocab_size = model.config.vocab_size
    if len(prompt_ids) == 0:
        raise BpeError("the prompt encodes to no tokens; give at least one character to start from")
    bad = [i for i in prompt_ids if not 0 <= i < vocab_size]
    if bad:
        raise BpeError(f"prompt id {bad[0]} is outside the model's vocabulary of {vocab_size} ids")
    if isinstance(max_new_tokens, bool) or not isinstance(max_new_tokens, int) or max_new_tokens < 0:
        raise BpeError(f"max_new_tokens={max_new_tokens!r} must be a whole number >= 0")
    if not temperature >= 0:
        raise BpeError(f"temperature={temperature!r} must be >= 0 (0 picks the most likely token)")
    if top_k is not None and not 1 <= top_k <= vocab_size:
        raise BpeError(f"top_k={top_k!r} must be between 1 and the vocab size {vocab_size}, or None for no cut-off")


@torch.no_grad()
def generate(
    model: TinyGPT,
    prompt_ids: Sequence[int],
    max_new_tokens: int,
    *,
    temperature: float = 1.0,
    top_k: int | None = None,
    generator: torch.Generator | None = None,
    abandoned: Callable[[], bool] | None = None,
) -> list[int]:
    """Return max_new_tokens ids that continue prompt_ids (the prompt itself is not included).

    The context is cropped to the last block_size tokens. Sampling draws from `generator`
    (a CPU torch.Generator), so a seeded generator gives the same text every time.
    """
    _check(model, prompt_ids, max_new_tokens, temperature, top_k)
    was_training = model.training
    model.eval()
    device = next(model.parameters()).device
    ids = list(prompt_ids)
    new: list[int] = []
    for _ in range(max_new_tokens):
        check_abandoned(abandoned)  # a token at a time: a server stopping does not wait for the whole sample
        context = torch.tensor([ids[-model.config.block_size :]], dtype=torch.long, device=device)
        logits = model(context)[0, -1].float().cpu()
        if temperature == 0:
            next_id = int(torch.argmax(logits))
        else:
            logits = logits / temperature
            if top_k is not None:
                kth_largest = torch.topk(logits, top_k).values[-1]
                logits = logits.masked_fill(logits < kth_largest, float("-inf"))
            probabilities = torch.softmax(logits, dim=-1)
            next_id = int(torch.multinomial(probabilities, 1, generator=generator))
        ids.append(next_id)
        new.append(next_id)
    model.train(was_training)
    return new
