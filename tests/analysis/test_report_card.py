"""The report card: characters and bytes per token on fixed texts, beside other tokenizers."""

from __future__ import annotations

import csv
import io

import pytest
from helpers import shared_file

from bpe.analysis.report_card import (
    CardText,
    card_csv,
    card_table,
    card_texts,
    measure,
    relative_difference,
    report_card,
    shipped_texts,
)
from bpe.corpora.builtin import LIGHTHOUSE
from bpe.errors import BpeError
from bpe.run import train_run
from bpe.tokenizer import BPETokenizer


def test_the_shipped_texts_are_prose_code_maths_and_every_lighthouse_language():
    texts = shipped_texts()
    assert [t.kind for t in texts[:3]] == ["prose", "code", "math"]
    assert len(texts) == 3 + len(LIGHTHOUSE) == 14
    code = texts[1].text
    assert "def dedent(text):" in code and "textwrap" in texts[1].source
    assert all(t.text.strip() and t.source for t in texts)


def test_card_texts_add_the_corpus_parts_cut_to_a_fixed_length():
    texts = card_texts("a" * 200_000, "b" * 10, corpus="Tiny Shakespeare")
    train, heldout = texts[-2:]
    assert train.name == "Corpus, training part" and len(train.text) == 100_000
    assert heldout.text == "b" * 10 and "Tiny Shakespeare" in heldout.source
    assert len(card_texts("a", "")) == len(shipped_texts()) + 1  # nothing held out: no held-out row


def test_missing_text_file_is_one_line_naming_it(tmp_path):
    with pytest.raises(BpeError, match="'english.txt' cannot be read"):
        shipped_texts(tmp_path)


def test_measure_counts_tokens_characters_and_bytes_exactly():
    tokenizer = BPETokenizer(list("lowé "), [("l", "o"), ("lo", "w")])
    found = measure(tokenizer, "low lowé")  # low, ' ', low, é: 4 tokens, 8 characters, 9 bytes
    assert (found.tokens, found.characters, found.bytes) == (4, 8, 9)
    assert found.characters_per_token == 2.0 and found.bytes_per_token == 2.25


def test_a_character_tokenizer_lacking_characters_gets_no_number_but_the_count():
    run = train_run("low lower lowest", target_vocab_size=20)
    found = measure(run.tokenizer(), "The lowest tide")
    assert found.tokens is None and found.characters_per_token is None
    assert found.unknown == len(set("The tid") - set("low lower lowest"))
    assert found.coverage == 11 / 15  # all but 'T', 'h', 'i', 'd'


def test_a_few_unknown_characters_are_left_out_and_said():
    tokenizer = BPETokenizer(list("low "), [("l", "o"), ("lo", "w")])
    found = measure(tokenizer, 'low low low low low low "low"')  # 29 characters, 2 unknown
    assert found.unknown == 1 and found.coverage == 27 / 29
    assert (found.tokens, found.characters, found.bytes) == (13, 27, 27)  # 7 'low' and 6 spaces


def test_relative_difference_is_ours_over_theirs_minus_one():
    assert relative_difference(4.4, 4.0) == pytest.approx(0.1)
    assert relative_difference(3.0, 4.0) == pytest.approx(-0.25)
    assert relative_difference(None, 4.0) is None and relative_difference(3.0, None) is None


def test_table_and_csv_carry_every_tokenizer_and_the_relative_columns():
    chars = BPETokenizer(list("ab "), [])
    pairs = BPETokenizer(list("ab "), [("a", "b")])
    texts = [CardText("tiny", "prose", "ab ab", "written for the test"), CardText("odd", "math", "abc", "test")]
    rows = report_card({"pairs": pairs, "chars": chars}, texts)
    table = card_table(rows, "pairs", ["chars"])
    assert table[0]["pairs: characters/token"] == 5 / 3 and table[0]["chars: characters/token"] == 1.0
    assert table[0]["pairs vs chars"] == pytest.approx(2 / 3)
    assert table[1]["pairs: characters/token"] is None and table[1]["pairs vs chars"] is None  # 'c' unknown
    parsed = list(csv.DictReader(io.StringIO(card_csv(rows, "pairs", ["chars"]))))
    assert parsed[0]["text"] == "tiny" and parsed[0]["pairs vs chars"] == "0.6667"
    assert parsed[1]["pairs: characters/token"] == "" and parsed[1]["source"] == "test"


def test_gpt2_compresses_english_prose_more_than_code_per_character():
    from bpe.gpt2.tokenizer import load_gpt2

    gpt2 = load_gpt2(shared_file("gpt2/encoder.json"), shared_file("gpt2/vocab.bpe"))
    rows = {row.text.name: row for row in report_card({"GPT-2": gpt2}, shipped_texts())}
    english = rows["English prose"].measures["GPT-2"].characters_per_token
    assert english > 4.0  # WebText is English prose
    assert rows["English"].measures["GPT-2"].characters_per_token > (
        rows["Russian"].measures["GPT-2"].characters_per_token * 2
    )
