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


@pytest.mark.parametrize("engine", ["fast", "reference"])
def test_a_live_training_and_its_record_share_one_map_of_tokens_to_ids(engine):
    # `bpe.run.RunInTraining` hands the engine the record's map (`train_steps(...,
    # token_ids=...)`): one map of every token, where two took megabytes at 50,000 merges.
    from bpe.run import start_run

    training = start_run("low lower lowest " * 20, target_vocab_size=40, pretokenizer="whitespace", engine=engine)
    first = next(training)
    engine_map = training._stream._steps.gi_frame.f_locals["token_ids"]  # (the engine's generator, paused)
    assert engine_map is training._steps.ids
    steps = [first, *training]
    assert all(engine_map[step.token] == step.token_id for step in steps)
    assert training.run().steps == steps
