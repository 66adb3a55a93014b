"""The words the engines read (`bpe.training.engine_words`) are `prepare_words`'s, in the
cheaper form: a byte-level chunk as its UTF-8 bytes."""

import pytest
from helpers import MAX_EXAMPLES
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe.alphabet import BYTES, CHARACTERS
from bpe.training import engine_words, prepare_words

SPECIALS = ("<|endoftext|>",)


def as_listed(words, alphabet):
    """Words as `prepare_words` lists them: a byte chunk as one byte token per byte."""
    return [
        ([bytes((b,)) for b in symbols] if alphabet == BYTES and type(symbols) is bytes else list(symbols), count)
        for symbols, count in words
    ]


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(
    text=st.lists(st.sampled_from([*"ab cé\n,1😀", "<|endoftext|>"]), min_size=1, max_size=60).map("".join),
    alphabet=st.sampled_from([CHARACTERS, BYTES]),
    pretokenizer=st.sampled_from([None, "whitespace", "gpt2", "gpt4", r"\S+|\s+"]),
    specials=st.sampled_from([(), SPECIALS]),
)
def test_the_engines_words_are_the_prepared_words_in_order(text, alphabet, pretokenizer, specials):
    expected = as_listed(prepare_words(text, alphabet, pretokenizer, specials), alphabet)
    assert as_listed(engine_words(text, alphabet, pretokenizer, specials), alphabet) == expected


@pytest.mark.parametrize("alphabet", [CHARACTERS, BYTES])
def test_a_byte_chunk_is_bytes_and_a_character_chunk_its_string(alphabet):
    words = list(engine_words("naïve café café", alphabet, "whitespace"))
    assert [count for _, count in words] == [1, 2]
    expected = ["naïve", " café"] if alphabet == CHARACTERS else ["naïve".encode(), " café".encode()]
    assert [chunk for chunk, _ in words] == expected
