"""The comparison core: characters vs bytes, none vs GPT-2 vs GPT-4 pre-tokenization."""

from __future__ import annotations

import pytest
from helpers import shared_file

from bpe import BpeError, BPETokenizer
from bpe.analysis.compare import (
    CLASS_RULE,
    Comparison,
    char_class,
    compare_tokenizers,
    first_divergence,
    gpt2_variant,
    incomplete_tokens,
    merge_rows,
    multibyte_characters,
    spans_classes,
    summary_rows,
    with_variant,
)
from bpe.corpora.corpus import python_reference_text
from bpe.gpt2.tokenizer import load_gpt2
from bpe.pretokenize import split

TEXT = "The cat's hat, the rat's mat. They'll see 2024 (or 1999).\n" * 6 + "Café déjà vu — naïve “quotes” … 😀 😀\n" * 4


@pytest.fixture(scope="module")
def comparison() -> Comparison:
    return compare_tokenizers(TEXT, merges=40, minimum_pair_frequency=2)


# ==================== Classes


@pytest.mark.parametrize(
    "token, spans",
    [
        pytest.param(" the", False, id="leading-space-word"),
        pytest.param("the", False, id="word"),
        pytest.param("e t", True, id="across-a-space"),
        pytest.param("the ", True, id="trailing-space"),
        pytest.param("s,", True, id="letter-punctuation"),
        pytest.param(".\n", True, id="punctuation-newline"),
        pytest.param("'s", True, id="contraction"),
        pytest.param("(the", True, id="gpt4-style"),
        pytest.param("a1", True, id="letter-digit"),
        pytest.param(" 2024", False, id="number"),
        pytest.param("  ", False, id="spaces"),
        pytest.param("\n\n", False, id="newlines"),
        pytest.param("e\u0301t", False, id="combining-mark-is-a-letter"),
        pytest.param(b" caf\xc3\xa9", False, id="bytes-word"),
        pytest.param(b"\xe2\x80", False, id="partial-bytes-no-class"),
        pytest.param(b"s\xe2\x80", False, id="partial-bytes-ignored"),
        pytest.param(b"s \xe2", True, id="bytes-across-space"),
    ],
)
def test_spans_classes(token, spans):
    assert spans_classes(token) is spans


def test_char_classes():
    assert [char_class(c) for c in "a1 .é\u0301\u3000½"] == [
        "letter",
        "digit",
        "space",
        "other",
        "letter",
        "letter",
        "space",
        "digit",
    ]
    assert "crosses classes" in CLASS_RULE


# ==================== Comparing merge lists


def test_first_divergence_compares_tokens_as_bytes():
    chars = [("t", "h"), ("th", "e"), ("e", " ")]
    assert first_divergence(chars, [(b"t", b"h"), (b"th", b"e"), (b"e", b" ")]) is None
    assert first_divergence(chars, [(b"t", b"h"), (b"e", b" ")]) == 2
    assert first_divergence(chars, chars[:2]) == 3  # the shorter list stops: it differs there
    assert first_divergence([], []) is None


def test_four_configurations_side_by_side(comparison):
    labels = [v.label for v in comparison.variants]
    assert labels == ["characters, no split", "bytes, no split", "bytes, GPT-2 split", "bytes, GPT-4 split"]
    chars, byte_none, gpt2, gpt4 = comparison.variants
    assert chars.base_vocab_size == len(set(TEXT)) and byte_none.base_vocab_size == 256
    assert all(len(v.merges) == 40 for v in comparison.variants)
    assert (chars.chunks, gpt2.chunks, gpt2.distinct_chunks) == (
        1,
        len(split(TEXT, "gpt2")),
        len(set(split(TEXT, "gpt2"))),
    )
    # Without pre-tokenization merges run across words; GPT-2's split allows only contractions.
    assert chars.crossing_count > 0 and byte_none.crossing_count > 0
    assert [t for t, crosses in zip(gpt2.tokens, gpt2.crosses) if crosses] == [b"'s", b"'l", b"'ll"]
    assert comparison.first_divergence(2) is not None


def test_compression_is_what_the_tokenizer_achieves(comparison):
    for variant in comparison.variants:
        tokenizer = BPETokenizer.train(
            TEXT, variant.base_vocab_size + 40, alphabet=variant.alphabet, pretokenizer=variant.pretokenizer
        )
        assert tokenizer.merges == list(variant.merges)
        assert variant.evaluated_tokens == len(tokenizer.encode(TEXT))
        assert variant.characters_per_token == pytest.approx(len(TEXT) / variant.evaluated_tokens)
        assert variant.bytes_per_token == pytest.approx(len(TEXT.encode()) / variant.evaluated_tokens)


def test_heldout_text_is_measured_with_base_tokens_covering_it():
    heldout = "Zebra Ω 😀 the cat\n"
    comp = compare_tokenizers(TEXT, merges=20, heldout_text=heldout, configurations=[("characters", "gpt2")])
    variant = comp.variants[0]
    assert comp.evaluated_on == "held-out text" and variant.evaluated_characters == len(heldout)
    assert variant.base_vocab_size == len(set(TEXT + heldout))
    base = sorted(set(TEXT + heldout))
    tokenizer = BPETokenizer(base, variant.merges, pretokenizer="gpt2")
    assert variant.evaluated_tokens == len(tokenizer.encode(heldout))


def test_merge_rows_and_summary(comparison):
    rows = merge_rows(comparison)
    assert len(rows) == 40 and rows[0]["merge"] == 1
    first = comparison.variants[0]
    for index, row in enumerate(rows):
        assert row["characters, no split differs"] is False
        assert row["characters, no split crosses"] is first.crosses[index]
    divergence = comparison.first_divergence(2)
    assert [row["bytes, GPT-2 split differs"] for row in rows].index(True) == divergence - 1
    assert all("·" not in row["bytes, GPT-2 split"] or row["bytes, GPT-2 split"].startswith("·") for row in rows)
    summary = summary_rows(comparison)
    assert [s["tokenizer"] for s in summary] == [v.label for v in comparison.variants]
    assert summary[0]["first divergent merge"] is None and summary[2]["first divergent merge"] == divergence
    assert summary[1]["base vocab"] == 256 and summary[0]["merges crossing classes"] == first.crossing_count


def test_merge_rows_can_spell_bytes_like_gpt2(comparison):
    spelled = merge_rows(comparison, 40, gpt2_spelling=True)
    assert any("Ġ" in row["bytes, GPT-2 split"] for row in spelled)
    assert not any("Ġ" in row["characters, no split"] for row in spelled)


def test_bad_merge_count():
    with pytest.raises(BpeError, match="merges=0 must be a whole number of at least 1"):
        compare_tokenizers(TEXT, merges=0)


# ==================== Multi-byte characters


def test_multibyte_characters_first_whole_and_own_token():
    merges = [(b"\xe2", b"\x80"), (b"\xe2\x80", b"\x94"), (b" ", b"\xe2\x80\x94"), (b"\xc3", b"\xa9"), (b"x", b"y")]
    found = {c.char: c for c in multibyte_characters("a — é — é é ü", merges)}
    assert list(found) == ["é", "—", "ü"]  # most frequent first (é 3x, — 2x)
    assert (found["—"].whole_at, found["—"].own_token_at, found["—"].count) == (2, 2, 2)
    assert (found["é"].whole_at, found["é"].own_token_at) == (4, 4)
    assert (found["ü"].whole_at, found["ü"].own_token_at) == (None, None)
    assert found["—"].name == "EM DASH" and found["—"].utf8 == b"\xe2\x80\x94"


def test_character_held_whole_before_it_is_a_token_of_its_own():
    merges = [(b" ", b"\xc3"), (b" \xc3", b"\xa9"), (b"\xc3", b"\xa9")]
    (cafe,) = multibyte_characters(" é", merges)
    assert (cafe.whole_at, cafe.own_token_at) == (2, 3)


def test_incomplete_tokens_are_flagged():
    merges = [(b"\xe2", b"\x80"), (b"t", b"h"), (b"\xe2\x80", b"\x94")]
    assert incomplete_tokens(merges) == [(1, b"\xe2\x80")]
    assert incomplete_tokens([("t", "h")]) == []


# ==================== The Python reference corpus, and GPT-2 beside it


@pytest.fixture(scope="module")
def python_docs() -> str:
    return python_reference_text()[:60_000]


def test_comparison_on_the_python_reference(python_docs):
    comp = compare_tokenizers(python_docs, merges=60)
    chars, byte_none, gpt2, gpt4 = comp.variants
    assert chars.crossing_count > gpt4.crossing_count >= gpt2.crossing_count
    assert gpt2.distinct_chunks < gpt2.chunks
    byte_chars = multibyte_characters(python_docs, byte_none.merges)
    assert all(c.whole_at is None or c.whole_at <= 60 for c in byte_chars)


@pytest.mark.shared_data
def test_gpt2_column_measures_its_first_merges(comparison):
    gpt2 = load_gpt2(shared_file("gpt2/encoder.json"), shared_file("gpt2/vocab.bpe"))
    column = gpt2_variant(gpt2, TEXT, merges=40)
    assert column.label == "GPT-2 (OpenAI)" and column.merges == tuple(gpt2.merges[:40])
    assert column.merges[0] == (b" ", b"t") and column.vocab_size == 296
    assert column.evaluated_tokens == len(gpt2.with_merges(40).encode(TEXT))
    wider = with_variant(comparison, column)
    assert [v.label for v in wider.variants][-1] == "GPT-2 (OpenAI)" and wider.first_divergence(4) == 1


def test_a_variant_trains_under_the_apps_bound_on_token_characters(monkeypatch):
    # A text pasted twice: once its frequent pairs are merged, every pair is seen exactly
    # twice, and without a pre-tokenizer one token grows a symbol a merge.
    import bpe.analysis.compare as compare

    monkeypatch.setattr(compare, "MAX_VOCAB_CHARACTERS", 3_000)
    text = "".join(chr(0x4E00 + i) for i in range(400)) * 2
    variant = compare.train_variant(text, "characters", None, merges=399)
    assert 0 < len(variant.merges) < 399
    assert sum(len(a + b) for a, b in variant.merges) <= 3_000
