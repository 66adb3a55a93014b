"""Tokenizers trained once per session for the format tests.

WikiText-2 comes from the shared data (tests that need it skip when it is absent); the
multilingual text is the tests' own (`format_texts`), so the small tokenizers train
anywhere.
"""

from __future__ import annotations

import pytest
from format_texts import MULTILINGUAL_HELD_OUT, MULTILINGUAL_TRAIN
from helpers import shared_file

from bpe.tokenizer import BPETokenizer

WIKI_TRAIN_CHARS = 250_000
WIKI_HELD_OUT_CHARS = 150_000
WIKI_VOCAB = 1500
SMALL_VOCAB = 600


@pytest.fixture(scope="session")
def wikitext():
    """(training text, held-out text): WikiText-2 validation and test splits, cut short,
    each with the multilingual text after it."""
    train = shared_file("wikitext-2/valid.txt").read_text(encoding="utf-8")[:WIKI_TRAIN_CHARS]
    held_out = shared_file("wikitext-2/test.txt").read_text(encoding="utf-8")[:WIKI_HELD_OUT_CHARS]
    return train + MULTILINGUAL_TRAIN * 3, held_out + MULTILINGUAL_HELD_OUT


@pytest.fixture(scope="session")
def trained():
    """``trained(alphabet, pretokenizer, text, vocab_size)``, each trained once per session."""
    cache: dict = {}

    def make(
        alphabet: str, pretokenizer: str | None, text: str = MULTILINGUAL_TRAIN * 4, vocab_size: int = SMALL_VOCAB
    ) -> BPETokenizer:
        key = (alphabet, pretokenizer, hash(text), vocab_size)
        if key not in cache:
            cache[key] = BPETokenizer.train(
                text, target_vocab_size=vocab_size, alphabet=alphabet, pretokenizer=pretokenizer
            )
        return cache[key]

    return make


@pytest.fixture(scope="session")
def wiki_trained(trained, wikitext):
    """``wiki_trained(alphabet, pretokenizer)``: trained on the WikiText-2 part."""

    def make(alphabet: str, pretokenizer: str | None) -> BPETokenizer:
        return trained(alphabet, pretokenizer, wikitext[0], WIKI_VOCAB)

    return make
