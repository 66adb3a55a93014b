"""Save and load a TinyGPT together with the fingerprint of the tokenizer it was trained on.

A model's ids mean nothing without the tokenizer that made them: id 300 is " the" under
one vocabulary and "qu" under another, and a mismatched pair produces fluent-looking
nonsense rather than an error. So the fingerprint travels in the file and `load_checkpoint`
refuses a different one.

Files may come from users, so loading uses `torch.load(..., weights_only=True)`: only
tensors and plain containers are unpickled, never arbitrary objects. Writing goes to a
temporary file beside the target and is moved into place with os.replace, so a crash
never leaves half a checkpoint under the real name.
"""

from __future__ import annotations

import os
import pickle
import re
from dataclasses import dataclass
from pathlib import Path

import torch

from bpe.errors import BpeError
from bpe.io.files import atomic_writer
from bpe.io.untrusted import open_regular_file
from bpe.lm.config import ModelConfig
from bpe.lm.model import TinyGPT
from bpe.wording import counted

FORMAT = "bpe-lab tinygpt v1"
# What a checkpoint file may be: 1 GiB holds about 250 million float32 weights, far above
# the TinyGPTs this lab trains (a few MB), and torch.load holds all of a file's tensors at once.
MAX_CHECKPOINT_BYTES = 1 << 30


@dataclass(frozen=True)
class Checkpoint:
    """What load_checkpoint returns: the model (on the CPU, in eval mode) and its provenance."""

    model: TinyGPT
    config: ModelConfig
    fingerprint: str


def save_checkpoint(path: str | os.PathLike, model: TinyGPT, *, fingerprint: str) -> None:
    """Write model weights, config and tokenizer fingerprint to `path`, atomically."""
    if not isinstance(fingerprint, str) or not fingerprint:
        raise BpeError(f"fingerprint={fingerprint!r} must be the tokenizer's non-empty fingerprint string")
    target = Path(path)
    payload = {
        "format": FORMAT,
        "fingerprint": fingerprint,
        "config": model.config.to_dict(),
        # CPU copies, so the file loads on a machine without the training device.
        "state_dict": {name: tensor.detach().cpu() for name, tensor in model.state_dict().items()},
    }
    with atomic_writer(target) as handle:
        torch.save(payload, handle)


def _read(path: Path) -> dict:
    # Opened as every stranger's file is (bpe.io.untrusted): torch.load opening the path itself
    # blocked for good on a FIFO and never ended on /dev/zero; the size is bounded first.
    with open_regular_file(
        path, what="checkpoint file", name=repr(str(path)), max_bytes=MAX_CHECKPOINT_BYTES, error=BpeError
    ) as handle:
        return _unpickled(path, handle)


def _unpickled(path: Path, handle) -> dict:
    try:
        payload = torch.load(handle, map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, EOFError, ValueError, OSError) as error:
        # torch's own message advises weights_only=False, the one thing not to do with a
        # file from a stranger; say what was found instead.
        found = re.search(r"GLOBAL (\S+)", str(error))
        if found:
            raise BpeError(
                f"{str(path)!r} holds the Python object {found.group(1)}, not just tensors and plain values; "
                "it is refused because loading it could run code. Load only checkpoints saved by BPE Lab."
            ) from error
        raise BpeError(
            f"{str(path)!r} is not a readable TinyGPT checkpoint (corrupt, truncated, or another kind of file)"
        ) from error
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        found = payload.get("format") if isinstance(payload, dict) else type(payload).__name__
        raise BpeError(f"{str(path)!r} is not a TinyGPT checkpoint (format {found!r}, expected {FORMAT!r})")
    return payload


def load_checkpoint(path: str | os.PathLike, *, fingerprint: str) -> Checkpoint:
    """Load a checkpoint, refusing one trained with a different tokenizer.

    `fingerprint` is that of the tokenizer the caller will encode and decode with.
    """
    payload = _read(Path(path))
    saved = payload.get("fingerprint")
    if saved != fingerprint:
        raise BpeError(
            f"checkpoint {str(path)!r} was trained with tokenizer {saved!r}, "
            f"but the current tokenizer is {fingerprint!r}; load the tokenizer the model was trained with"
        )
    config = ModelConfig.from_dict(payload.get("config"))
    _check_shapes(path, config, payload.get("state_dict"))  # before allocating: the config may ask for terabytes
    model = TinyGPT(config)
    try:
        model.load_state_dict(payload.get("state_dict"))
    except (RuntimeError, TypeError) as error:
        raise BpeError(
            f"checkpoint {str(path)!r} has weights that do not fit its own config {config}: {error}"
        ) from error
    model.eval()
    return Checkpoint(model=model, config=config, fingerprint=saved)


def _check_shapes(path: str | os.PathLike, config: ModelConfig, weights) -> None:
    """The file's tensors have exactly the names and shapes its config's model needs.

    The model is first built on torch's "meta" device, which allocates nothing, so a
    config asking for a 10⁶-wide model is refused by comparing shapes, and the real model
    is never larger than the tensors already read from the file.
    """
    if not isinstance(weights, dict) or not all(isinstance(t, torch.Tensor) for t in weights.values()):
        raise BpeError(f"checkpoint {str(path)!r} holds no weights (its state_dict is not a dict of tensors)")
    # Cheap checks first: even on "meta", a million layers would be a million Python objects.
    embedding = weights.get("token_embedding.weight")
    layers = len({name.split(".")[1] for name in weights if name.startswith("blocks.")})
    if embedding is None or tuple(embedding.shape) != (config.vocab_size, config.width) or layers != config.depth:
        shape = None if embedding is None else tuple(embedding.shape)
        raise BpeError(
            f"checkpoint {str(path)!r} has weights that do not fit its own config {config}: "
            f"a {shape} token embedding and {counted(layers, 'layer')}"
        )
    with torch.device("meta"):
        expected = {name: tuple(t.shape) for name, t in TinyGPT(config).state_dict().items()}
    found = {name: tuple(t.shape) for name, t in weights.items()}
    if found != expected:
        wrong = sorted(set(found) ^ set(expected)) or sorted(n for n in expected if found[n] != expected[n])
        name = wrong[0]
        raise BpeError(
            f"checkpoint {str(path)!r} has weights that do not fit its own config {config}: {name} is "
            f"{found.get(name, 'missing')}, the config needs {expected.get(name, 'no such weight')}"
        )
