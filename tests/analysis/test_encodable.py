"""Characters outside a tokenizer's alphabet are marked, not refused (bpe.analysis.encodable)."""

from __future__ import annotations

import pytest
from helpers import MAX_EXAMPLES
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe import train_run
from bpe.analysis.encodable import applied_merges_in_known, runs, segments_marking_unknown, unknown_characters
from bpe.analysis.lineage import applied_merges
from bpe.errors import UnknownSymbolsError

TOKENIZER = train_run("low lower lowest newest", target_vocab_size=30).tokenizer()


def test_runs_cut_around_each_unknown_character():
    assert runs(TOKENIZER, "low 🙂 lo!") == [("low ", True), ("🙂", False), (" lo", True), ("!", False)]
    assert unknown_characters(TOKENIZER, "A low A!") == ["A", "!"]


def test_unknown_characters_are_segments_without_an_id():
    with pytest.raises(UnknownSymbolsError):
        TOKENIZER.encode("lowA")
    segments = segments_marking_unknown(TOKENIZER, "lowA")
    assert [s.token for s in segments][-1] == "A" and segments[-1].token_id is None and segments[-1].mark == "unknown"
    assert [s.token_id for s in segments[:-1]] == TOKENIZER.encode("low")


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(st.text(alphabet="lowern st", max_size=40))
def test_a_covered_text_encodes_exactly_as_encode(text):
    segments = segments_marking_unknown(TOKENIZER, text)
    assert [s.token_id for s in segments] == TOKENIZER.encode(text)
    assert applied_merges_in_known(TOKENIZER, text) == applied_merges(TOKENIZER, text)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(st.text(alphabet="lowerAB🙂 ", max_size=40))
def test_the_pieces_give_back_the_text(text):
    assert "".join(piece for piece, _ in runs(TOKENIZER, text)) == text
    assert "".join(s.token for s in segments_marking_unknown(TOKENIZER, text)) == text


def test_a_byte_tokenizer_knows_every_character():
    tok = train_run("low lower", target_vocab_size=260, alphabet="bytes").tokenizer()
    assert unknown_characters(tok, "naïve 🙂") == []
    assert [s.token_id for s in segments_marking_unknown(tok, "naïve 🙂")] == tok.encode("naïve 🙂")
