"""TinyGPT: a compact decoder-only transformer, the smallest thing that is still a GPT.

Token + position embeddings, `depth` pre-norm blocks (LayerNorm before attention and
before the MLP, residual around each), causal self-attention, a final LayerNorm, and an
output head that shares its weight with the token embedding. Tying matters here: the
vocab_size × width table is where a bigger BPE vocabulary costs parameters, and tying
makes that cost appear once, not twice.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn
from torch.nn import functional as F

from bpe.errors import BpeError
from bpe.lm.config import ModelConfig


class CausalSelfAttention(nn.Module):
    """Multi-head attention in which position t attends to positions 0..t only."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.heads = config.heads
        self.dropout = config.dropout
        self.qkv = nn.Linear(config.width, 3 * config.width)
        self.proj = nn.Linear(config.width, config.width)
        self.proj_drop = nn.Dropout(config.dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, time, width = x.shape
        q, k, v = self.qkv(x).split(width, dim=2)
        # (batch, time, width) -> (batch, heads, time, width/heads)
        q, k, v = (t.view(batch, time, self.heads, width // self.heads).transpose(1, 2) for t in (q, k, v))
        # is_causal=True is the mask: no position sees the future (a test changes a later
        # token and checks earlier logits are bit-for-bit unchanged).
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=self.dropout if self.training else 0.0)
        y = y.transpose(1, 2).contiguous().view(batch, time, width)
        return self.proj_drop(self.proj(y))


class MLP(nn.Module):
    """Per-position feed-forward: widen 4×, GELU, narrow back."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.fc = nn.Linear(config.width, 4 * config.width)
        self.proj = nn.Linear(4 * config.width, config.width)
        self.drop = nn.Dropout(config.dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.drop(self.proj(F.gelu(self.fc(x))))


class Block(nn.Module):
    """Pre-norm: normalise the input of each sublayer, keep the residual stream raw."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(config.width)
        self.attn = CausalSelfAttention(config)
        self.ln2 = nn.LayerNorm(config.width)
        self.mlp = MLP(config)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class TinyGPT(nn.Module):
    """ids (batch, time) -> next-token logits (batch, time, vocab_size)."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        self.token_embedding = nn.Embedding(config.vocab_size, config.width)
        self.position_embedding = nn.Embedding(config.block_size, config.width)
        self.drop = nn.Dropout(config.dropout)
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.depth))
        self.ln_f = nn.LayerNorm(config.width)
        self.head = nn.Linear(config.width, config.vocab_size, bias=False)
        self.head.weight = self.token_embedding.weight  # tied: one table, used twice
        self.apply(self._init_weights)
        # GPT-2's trick: shrink the layers that write into the residual stream, so its
        # variance does not grow with depth.
        for name, parameter in self.named_parameters():
            if name.endswith("proj.weight"):
                nn.init.normal_(parameter, mean=0.0, std=0.02 / math.sqrt(2 * config.depth))

    @staticmethod
    def _init_weights(module: nn.Module) -> None:
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        if ids.dim() != 2:
            raise BpeError(f"TinyGPT expects ids of shape (batch, time), got shape {tuple(ids.shape)}")
        time = ids.shape[1]
        if time > self.config.block_size:
            raise BpeError(
                f"sequence of {time} tokens is longer than block_size={self.config.block_size}; "
                "crop the context to the last block_size tokens"
            )
        positions = torch.arange(time, device=ids.device)
        x = self.drop(self.token_embedding(ids) + self.position_embedding(positions))
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))


def build_model(config: ModelConfig, *, seed: int = 0) -> TinyGPT:
    """A freshly initialised TinyGPT; the same seed gives the same weights.

    The global RNG is forked, so building a model does not disturb the caller's random state.
    """
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return TinyGPT(config)


@dataclass(frozen=True)
class ParameterCounts:
    """Where a model's parameters sit.

    token_embedding is vocab_size × width: the only part that grows with the vocabulary,
    and (tied) also the output head. position_embedding is block_size × width.
    rest is the transformer blocks and LayerNorms: identical for a character and a BPE
    model of the same shape.
    """

    token_embedding: int
    position_embedding: int
    rest: int

    @property
    def embedding(self) -> int:
        return self.token_embedding + self.position_embedding

    @property
    def total(self) -> int:
        return self.embedding + self.rest


def count_parameters(model: TinyGPT) -> ParameterCounts:
    """Split the parameter count; the tied head is counted once, as the token embedding."""
    token = model.token_embedding.weight.numel()
    position = model.position_embedding.weight.numel()
    total = sum(p.numel() for p in model.parameters())  # parameters() yields a tied tensor once
    return ParameterCounts(token_embedding=token, position_embedding=position, rest=total - token - position)
