"""Does BPE help the model? A tiny GPT trained on characters vs BPE ids, at equal compute.

This is the only part of `bpe` that uses torch. The names below load lazily, so
`import bpe.lm` (and the `lm` command in `bpe.cli.lm`) stays cheap until a model is needed.

    config.py      ModelConfig, TrainSettings, Budget: validated settings
    model.py       TinyGPT, build_model, count_parameters
    data.py        TokenData: training blocks, fixed held-out windows, bits_per_char, bits_per_byte
    train.py       train_model: a generator of TrainProgress records; evaluate
    checkpoint.py  save/load with the tokenizer fingerprint (weights_only loading)
    sample.py      generate: temperature and top-k sampling
    experiment.py  train_model_per_tokenizer: one model per tokenizer, same budget
"""

from __future__ import annotations

import importlib

# This is the public API of bpe.lm: name -> module that defines it.
_EXPORTS = {
    "ModelConfig": "config",
    "TrainSettings": "config",
    "Budget": "config",
    "TinyGPT": "model",
    "build_model": "model",
    "count_parameters": "model",
    "ParameterCounts": "model",
    "TokenData": "data",
    "EvalWindows": "data",
    "bits_per_char": "data",
    "bits_per_byte": "data",
    "train_model": "train",
    "evaluate": "train",
    "Evaluation": "train",
    "TrainProgress": "train",
    "save_checkpoint": "checkpoint",
    "load_checkpoint": "checkpoint",
    "Checkpoint": "checkpoint",
    "generate": "sample",
    "train_model_per_tokenizer": "experiment",
    "TokenizerSpec": "experiment",
    "ExperimentProgress": "experiment",
    "ModelSummary": "experiment",
    "split_text": "experiment",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'bpe.lm' has no attribute {name!r}")
    return getattr(importlib.import_module(f"bpe.lm.{_EXPORTS[name]}"), name)
