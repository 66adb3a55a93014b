"""Token ids as training data: random blocks to learn from, fixed windows to measure on.

Bits per character is the only fair score between tokenizers: a BPE token carries more
text than a character, so its loss per token is naturally higher. To convert exactly, we
need the number of characters the *evaluated* tokens stand for, which is why TokenData
takes `token_lengths` (characters per token id) rather than an average.

Bits per *byte* (of the UTF-8 text) puts tokenizers of different alphabets on one scale
too, and is what nanochat and most papers report: give `TokenData` ``token_bytes`` (UTF-8
bytes per token id) as well, and each evaluation carries both.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from bpe.errors import BpeError

LN2 = math.log(2)


def bits_per_char(loss_per_token: float, n_tokens: int, n_chars: int) -> float:
    """Convert a mean loss in nats per token into bits per character.

    Total information is loss_per_token × n_tokens nats; divide by ln 2 for bits and by
    the characters those tokens decode to.
    Example: loss 2·ln 2 (2 bits/token), 10 tokens covering 40 characters -> 0.5 bits/char.
    """
    if n_tokens < 1:
        raise BpeError(f"n_tokens={n_tokens} must be >= 1 to compute bits per character")
    if n_chars < 1:
        raise BpeError(f"n_chars={n_chars} must be >= 1 to compute bits per character")
    return loss_per_token / LN2 * n_tokens / n_chars


def bits_per_byte(loss_per_token: float, n_tokens: int, n_bytes: int) -> float:
    """Like `bits_per_char`, over the UTF-8 bytes the tokens decode to.

    Example: 2 bits per token, 10 tokens covering 80 bytes -> 0.25 bits/byte.
    """
    if n_tokens < 1 or n_bytes < 1:
        raise BpeError(f"n_tokens={n_tokens} and n_bytes={n_bytes} must both be >= 1 to compute bits per byte")
    return loss_per_token / LN2 * n_tokens / n_bytes


def _as_ids(name: str, ids: Sequence[int] | torch.Tensor, vocab_size: int) -> torch.Tensor:
    tensor = torch.as_tensor(ids, dtype=torch.long).cpu()
    if tensor.dim() != 1:
        raise BpeError(f"{name} must be a flat sequence of ids, got shape {tuple(tensor.shape)}")
    if tensor.numel() and (tensor.min() < 0 or tensor.max() >= vocab_size):
        bad = tensor[(tensor < 0) | (tensor >= vocab_size)][0].item()
        raise BpeError(f"{name} holds id {bad}, outside the {vocab_size} ids that token_lengths describes")
    return tensor


@dataclass(frozen=True)
class EvalWindows:
    """A fixed held-out set: inputs and targets of shape (windows, block_size).

    n_chars is the exact number of characters the target tokens decode to; n_bytes their
    UTF-8 bytes (None when the data has no bytes table).
    """

    inputs: torch.Tensor
    targets: torch.Tensor
    n_chars: int
    n_bytes: int | None = None

    @property
    def n_tokens(self) -> int:
        return self.targets.numel()


class TokenData:
    """Training ids and held-out ids from one tokenizer, with its characters-per-token table.

    Keep the held-out *text* the same across tokenizers (split the text, then encode
    each part; see `bpe.lm.experiment`) so their bits per character measure the same thing.
    """

    def __init__(
        self,
        train_ids: Sequence[int] | torch.Tensor,
        heldout_ids: Sequence[int] | torch.Tensor,
        *,
        token_lengths: Sequence[int],
        token_bytes: Sequence[int] | None = None,
    ) -> None:
        lengths = torch.as_tensor(list(token_lengths), dtype=torch.long)
        if lengths.dim() != 1 or lengths.numel() == 0:
            raise BpeError(f"token_lengths must list the characters of each token id, got {len(lengths)} entries")
        if lengths.min() < 0:
            bad = int(torch.nonzero(lengths < 0)[0])
            raise BpeError(f"token_lengths[{bad}]={lengths[bad].item()} is negative")
        self.token_lengths = lengths
        self.token_bytes = None
        if token_bytes is not None:
            sizes = torch.as_tensor(list(token_bytes), dtype=torch.long)
            if sizes.shape != lengths.shape or (sizes.numel() and sizes.min() < 0):
                raise BpeError(
                    f"token_bytes must give the UTF-8 bytes of each of the {len(lengths)} token ids, "
                    f"got {len(sizes)} entries"
                )
            self.token_bytes = sizes
        self.train_ids = _as_ids("train_ids", train_ids, len(lengths))
        self.heldout_ids = _as_ids("heldout_ids", heldout_ids, len(lengths))

    @classmethod
    def split(
        cls,
        ids: Sequence[int] | torch.Tensor,
        *,
        token_lengths: Sequence[int],
        heldout_fraction: float = 0.1,
        n_chars: int | None = None,
    ) -> TokenData:
        """Hold out the last `heldout_fraction` of one id stream.

        n_chars, when given, is the length of the encoded text; it must match the sum of
        token_lengths over ids, which catches a table in the wrong unit (bytes vs characters).
        """
        if not 0 < heldout_fraction < 1:
            raise BpeError(f"heldout_fraction={heldout_fraction!r} must be between 0 and 1 (exclusive)")
        tensor = torch.as_tensor(ids, dtype=torch.long).cpu()
        cut = len(tensor) - max(1, round(len(tensor) * heldout_fraction))
        data = cls(tensor[:cut], tensor[cut:], token_lengths=token_lengths)
        if n_chars is not None:
            counted = data.count_chars(data.train_ids) + data.count_chars(data.heldout_ids)
            if counted != n_chars:
                raise BpeError(
                    f"token_lengths say the ids encode {counted} characters but n_chars={n_chars}; "
                    "token_lengths must give the characters each token id decodes to"
                )
        return data

    @property
    def vocab_size(self) -> int:
        return len(self.token_lengths)

    def count_chars(self, ids: torch.Tensor) -> int:
        """Characters the given ids decode to (any shape)."""
        return int(self.token_lengths[ids.cpu()].sum())

    def count_bytes(self, ids: torch.Tensor) -> int | None:
        """UTF-8 bytes the given ids decode to, or None without a bytes table."""
        return None if self.token_bytes is None else int(self.token_bytes[ids.cpu()].sum())

    def random_batch(
        self, batch_size: int, block_size: int, generator: torch.Generator
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """batch_size random windows of the training ids: inputs and next-token targets.

        Example: train_ids=[5, 6, 7, 8], block_size=2, start 1 -> inputs [6, 7], targets [7, 8].
        """
        self.require_tokens(block_size)
        starts = torch.randint(0, len(self.train_ids) - block_size, (batch_size,), generator=generator)
        windows = self.train_ids[starts[:, None] + torch.arange(block_size + 1)]
        return windows[:, :-1], windows[:, 1:]

    def eval_windows(self, block_size: int, max_windows: int) -> EvalWindows:
        """Non-overlapping held-out windows, the same every call.

        Window i has inputs heldout[i·B : i·B+B] and targets shifted by one, so targets of
        consecutive windows tile the held-out ids without overlap. When there are more than
        max_windows, an evenly spaced subset is taken (spread over the whole held-out text,
        not just its start).
        """
        self.require_tokens(block_size)
        available = (len(self.heldout_ids) - 1) // block_size
        count = min(available, max_windows)
        if count == 1:
            chosen = [0]
        else:  # integer spacing >= 1, so the chosen windows are distinct and increasing
            chosen = [i * (available - 1) // (count - 1) for i in range(count)]
        starts = torch.tensor(chosen, dtype=torch.long) * block_size
        windows = self.heldout_ids[starts[:, None] + torch.arange(block_size + 1)]
        inputs, targets = windows[:, :-1], windows[:, 1:]
        n_chars = self.count_chars(targets)
        if n_chars < 1:
            raise BpeError(
                "the held-out windows decode to 0 characters; token_lengths must be positive for real tokens"
            )
        return EvalWindows(inputs=inputs, targets=targets, n_chars=n_chars, n_bytes=self.count_bytes(targets))

    def require_tokens(self, block_size: int) -> None:
        """Both parts need one window of block_size + 1 tokens (inputs plus the shifted target)."""
        for name, ids in (("training", self.train_ids), ("held-out", self.heldout_ids)):
            if len(ids) < block_size + 1:
                raise BpeError(
                    f"the {name} text has {len(ids)} tokens, fewer than block_size + 1 = {block_size + 1}; "
                    "use a longer text or a smaller block size"
                )
