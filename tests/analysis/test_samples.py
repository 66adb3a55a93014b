"""Tokenize presets come from the corpus (bpe.analysis.samples)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bpe.analysis.samples import (
    _PARAGRAPH_END,
    _SENTENCE_END,
    TUTORIAL_SENTENCE,
    _pieces,
    corpus_samples,
    first_sentence,
)


def test_a_sentence_of_prose_with_line_breaks_and_speaker_dropped():
    play = "ROMEO:\nWhat light through yonder\nwindow breaks? It is the east.\n"
    assert first_sentence(play, min_chars=20) == "What light through yonder window breaks?"


def test_code_and_tables_are_skipped_for_a_sentence_with_letters():
    text = "+-----+-----+-----+-----+-----+-----+-----+-----+\n\nThe table above lists every operator in order of priority."
    assert first_sentence(text) == "The table above lists every operator in order of priority."


def test_a_tiny_text_is_its_own_sample():
    assert corpus_samples("low lower lowest", "") == {
        "Training sentence": "low lower lowest",
        "Tutorial sentence": TUTORIAL_SENTENCE,
    }


def test_held_out_sentence_first_when_text_is_held_out():
    samples = corpus_samples("Before we proceed any further, hear me speak.", "Alas, that love, so gentle in his view!")
    assert list(samples) == ["Held-out sentence", "Training sentence", "Tutorial sentence"]
    assert samples["Held-out sentence"] == "Alas, that love, so gentle in his view!"


def test_a_run_file_without_training_text_offers_no_empty_training_sentence():
    # a replayed run keeps only a held-out sample: no preset may be an empty text
    assert list(corpus_samples("", "Alas, that love, so gentle in his view!")) == [
        "Held-out sentence",
        "Tutorial sentence",
    ]
    assert corpus_samples("", "") == {"Tutorial sentence": TUTORIAL_SENTENCE}


@given(st.text(alphabet=" \n\t.!?;ab", max_size=60))
def test_pieces_are_the_split_read_one_at_a_time(text):
    # first_sentence reads the text's paragraphs and sentences lazily: the same pieces as re.split
    for separator in (_PARAGRAPH_END, _SENTENCE_END):
        assert list(_pieces(separator, text)) == separator.split(text)
