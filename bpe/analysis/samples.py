"""Sample sentences from the corpus itself, for the Tokenize page's presets.

A fixed English example sentence is a poor preset: on "low lower lowest" most of its
characters are outside the alphabet, and on Shakespeare it says nothing about the text.
A sentence from the corpus always fits, and a *held-out* one (text the tokenizer never
trained on) shows how well the merges carry over.
"""

from __future__ import annotations

import re

TUTORIAL_SENTENCE = "Artificial intelligence is transforming technology."
MIN_CHARS, MAX_CHARS = 40, 160
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")
_PARAGRAPH_END = re.compile(r"\n\s*\n")
_SPACES = re.compile(r"\s+")


def first_sentence(text: str, *, min_chars: int = MIN_CHARS, max_chars: int = MAX_CHARS) -> str:
    """The first sentence of ``text`` with ``min_chars`` to ``max_chars`` characters, at
    least half of them letters, with line breaks and runs of spaces as single spaces.
    A text with no such sentence gives its first ``max_chars`` characters as they are.

    >>> first_sentence("ROMEO:\\nWhat light through yonder\\nwindow breaks? It is the east.", min_chars=20)
    'What light through yonder window breaks?'
    """
    for line_block in _pieces(_PARAGRAPH_END, text):
        for sentence in _pieces(_SENTENCE_END, line_block):
            body = _drop_speaker(sentence)
            flat = _SPACES.sub(" ", body).strip()
            letters = sum(ch.isalpha() for ch in flat)
            if min_chars <= len(flat) <= max_chars and letters * 2 >= len(flat):
                return flat
    return text[:max_chars]


def _pieces(separator: re.Pattern, text: str):
    """``separator.split(text)`` one piece at a time: the first sentence is near the start,
    and splitting a whole corpus to reach it cost every Tokenize visit a pass over the text."""
    start = 0
    for found in separator.finditer(text):
        yield text[start : found.start()]
        start = found.end()
    yield text[start:]


def _drop_speaker(sentence: str) -> str:
    """Drop a play's speaker line ("ROMEO:\\n") in front of a sentence."""
    head, newline, rest = sentence.partition("\n")
    if newline and head.rstrip().endswith(":") and len(head) < 40:
        return rest
    return sentence


def corpus_samples(train_text: str, heldout_text: str) -> dict[str, str]:
    """Presets for a tokenizer trained on ``train_text``: a held-out sentence (when text is
    held out), a training sentence (when the training text is here: a run file keeps none),
    and the tutorial's sentence. Labels are button texts."""
    samples = {}
    if heldout_text:
        samples["Held-out sentence"] = first_sentence(heldout_text)
    if train_text:
        samples["Training sentence"] = first_sentence(train_text)
    samples["Tutorial sentence"] = TUTORIAL_SENTENCE
    return samples
