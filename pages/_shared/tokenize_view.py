"""Streamlit glue for the Tokenize page: the text box and its presets, tokens with the
characters a tokenizer cannot encode marked (see `bpe.analysis.encodable`).

The text belongs to the corpus it was typed for: on another corpus it starts again from a
sentence of that corpus (`run_state.keep_with`), so "low lower lowest" never opens on an
English sentence full of characters it has never seen.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from bpe.analysis.encodable import segments_marking_unknown, unknown_characters
from bpe.analysis.samples import corpus_samples
from bpe.analysis.segments import Segment
from bpe.text import printable

from .cache import corpus_texts
from .run_state import corpus_identity, keep_with
from .settings import Settings, bind

TEXT = "tokenize_text"


def text_box(settings: Settings) -> str:
    """Draw the text area and one button per preset (sentences of the current corpus);
    return the text. The text and the traced token reset when the corpus changes."""
    state = st.session_state
    keep_with(corpus_identity(settings), [TEXT, "tokenize_lineage"])
    samples = corpus_samples(*corpus_texts(settings))
    state.setdefault(TEXT, next(iter(samples.values())))
    bind(st.text_area, "Text to tokenize", TEXT, height=100)
    for column, (label, sample) in zip(st.columns(len(samples)), samples.items()):
        column.button(label, key=f"tokenize_preset_{label}", on_click=_use, args=(sample,), help=sample)
    return state[TEXT]


def _use(sample: str) -> None:
    st.session_state[TEXT] = sample


@dataclass(frozen=True)
class Encoded:
    """A text as one tokenizer cuts it: segments (unknown characters marked), their ids,
    and the characters it could not encode."""

    segments: list[Segment]
    ids: list[int]
    unknown: list[str]
    encoded_characters: int  # characters of the text that were encoded (the unknown ones are not)


def encode_marked(tokenizer, text: str) -> Encoded:
    segments = segments_marking_unknown(tokenizer, text)
    unknown = unknown_characters(tokenizer, text)
    missing = sum(len(s.token) for s in segments if s.mark == "unknown")
    return Encoded(segments, [s.token_id for s in segments if s.token_id is not None], unknown, len(text) - missing)


def unknown_note(encoded: Encoded) -> str | None:
    """One line naming the characters outside the alphabet (Markdown-safe), or None."""
    if not encoded.unknown:
        return None
    shown = ", ".join(repr(printable(ch)) for ch in encoded.unknown[:8])
    more = f" and {len(encoded.unknown) - 8:,} more" if len(encoded.unknown) > 8 else ""
    return (
        f"{len(encoded.unknown):,} character(s) outside this tokenizer's alphabet, marked with a dashed "
        f"border and id ?: {shown}{more}. They never occurred in its training text."
    )
