"""Presets: a course's training settings under one name, so a student gets them all at once.

``cs336`` is Stanford CS336's assignment 1 (`train_bpe`): bytes, GPT-2's split pattern, ties
to the lexicographically greatest pair, every pair merged however rare (minimum pair
frequency 1) and ``<|endoftext|>`` as a special token. With it, corpus.en to vocab 500
gives the course's reference merges exactly (tests/core/test_cs336_conformance.py).

A preset only fills in settings; whatever is given beside it wins (`apply_preset`), and it
says what it set (`describe_preset`), so nothing changes behind the user's back::

    apply_preset("cs336", {"minimum_pair_frequency": 2})
    # {'alphabet': 'bytes', 'pretokenizer': 'gpt2', 'tie_rule': 'lexicographic_greatest',
    #  'minimum_pair_frequency': 2, 'special_tokens': ('<|endoftext|>',)}
"""

from __future__ import annotations

from collections.abc import Mapping

from bpe.alphabet import BYTES
from bpe.errors import BpeError
from bpe.specials import ENDOFTEXT
from bpe.steps import LEXICOGRAPHIC_GREATEST

CS336 = "cs336"
PRESETS: dict[str, dict] = {
    CS336: {
        "alphabet": BYTES,
        "pretokenizer": "gpt2",
        "tie_rule": LEXICOGRAPHIC_GREATEST,
        "minimum_pair_frequency": 1,
        "special_tokens": (ENDOFTEXT,),
    },
}
# What each preset is, for help texts and the app's choice.
PRESET_LABELS = {CS336: "Stanford CS336 (assignment 1)"}
# Each field's value in words, for `describe_preset`.
_WORDS = {
    "alphabet": lambda value: f"the {value} alphabet",
    "pretokenizer": lambda value: "GPT-2's split pattern" if value == "gpt2" else f"the {value} pre-tokenizer",
    "tie_rule": lambda value: (
        "ties to the lexicographically greatest pair" if value == LEXICOGRAPHIC_GREATEST else f"the {value} tie rule"
    ),
    "minimum_pair_frequency": lambda value: f"minimum pair frequency {value}",
    "special_tokens": lambda value: "special token" + ("s " if len(value) > 1 else " ") + ", ".join(value),
}


def check_preset(name: str) -> str:
    if name not in PRESETS:
        raise BpeError(f"unknown preset {name!r}: choose one of {', '.join(PRESETS)}")
    return name


def preset_fields(name: str) -> dict:
    """The `bpe.training.TrainingSettings` fields the preset sets."""
    return dict(PRESETS[check_preset(name)])


def apply_preset(name: str | None, given: Mapping) -> dict:
    """The preset's fields with ``given`` over them: a field given explicitly wins. No
    preset (None): ``given`` as it is."""
    if name is None:
        return dict(given)
    return {**preset_fields(name), **given}


def describe_preset(name: str, overridden: Mapping | None = None) -> str:
    """What the preset set, in words, and what was given instead:
    "preset cs336 (Stanford CS336 (assignment 1)) set the bytes alphabet, GPT-2's split
    pattern, ties to the lexicographically greatest pair, minimum pair frequency 1 and
    special token <|endoftext|>"."""
    fields = preset_fields(name)
    overridden = dict(overridden or {})
    kept = [_WORDS[key](value) for key, value in fields.items() if key not in overridden]
    said = f"preset {name} ({PRESET_LABELS[name]}) set " + (
        ", ".join(kept[:-1]) + f" and {kept[-1]}" if len(kept) > 1 else "".join(kept) or "nothing"
    )
    if overridden:
        said += "; given instead: " + ", ".join(_WORDS[key](value) for key, value in overridden.items())
    return said
