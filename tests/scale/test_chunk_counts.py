"""The count phase's table: counted in memory it is `prepare_words`; summed in order it is
the table of the parts laid end to end; its chunks are one UTF-8 text read back as strings."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe.errors import BpeError, PatternError
from bpe.pretokenize import GPT2_PATTERN
from bpe.scale.chunk_counts import ChunkCounts, Chunks, chunk_settings, count_text, merge_counts
from bpe.training import prepare_words
from tests.helpers import MAX_EXAMPLES

PRETOKENIZERS = (None, "whitespace", "gpt2", "gpt4")
ALPHABETS = ("characters", "bytes")
TEXTS = st.text(alphabet=st.sampled_from("ab \n\t1'é中!😀"), max_size=60)


# ==================== In memory: the table is prepare_words


@pytest.mark.parametrize("alphabet", ALPHABETS)
@pytest.mark.parametrize("pretokenizer", PRETOKENIZERS)
def test_count_text_is_prepare_words_on_the_worked_example(alphabet, pretokenizer):
    text = "low lower lowest\n\nnewest  widest it's 2024!"
    counts = count_text(text, alphabet=alphabet, pretokenizer=pretokenizer)
    assert counts.words() == prepare_words(text, alphabet, pretokenizer)
    assert counts.characters == len(text) and counts.documents == 1


def test_a_table_holds_chunks_in_first_occurrence_order_with_their_counts():
    counts = count_text("low lower low lowest", alphabet="characters", pretokenizer="whitespace")
    assert counts.chunks == ("low", " lower", " low", " lowest")
    assert list(counts.counts) == [1, 1, 1, 1]
    counts = count_text("ab ab ab cd ab", alphabet="characters", pretokenizer="gpt2")
    assert counts.chunks == ("ab", " ab", " cd") and list(counts.counts) == [1, 3, 1]
    assert counts.base_tokens == (" ", "a", "b", "c", "d")
    assert counts.pattern == GPT2_PATTERN and counts.training_pretokenizer == "gpt2"


def test_byte_tables_have_the_256_byte_tokens_and_byte_symbols():
    counts = count_text("é é", alphabet="bytes", pretokenizer="gpt2")
    assert len(counts.base_tokens) == 256 and counts.base_tokens[0] == b"\x00"
    assert counts.words() == [([b"\xc3", b"\xa9"], 1), ([b" ", b"\xc3", b"\xa9"], 1)]
    assert counts.symbols == 5 and counts.characters == 3


def test_a_custom_pattern_is_recorded_and_given_back_as_training_takes_it():
    pattern = r"\w+|\s+|[^\w\s]+"
    by_name = count_text("a b, c", alphabet="characters", pretokenizer="custom", pattern=pattern)
    as_training = count_text("a b, c", alphabet="characters", pretokenizer=pattern)
    assert by_name == as_training
    assert by_name.pretokenizer == "custom" and by_name.pattern == pattern
    assert by_name.training_pretokenizer == pattern
    assert by_name.words() == prepare_words("a b, c", "characters", pattern)


def test_unsafe_or_contradictory_settings_are_refused():
    with pytest.raises(PatternError, match="capturing group"):
        count_text("ab", alphabet="characters", pretokenizer="custom", pattern=r"(a)|[\s\S]")
    with pytest.raises(BpeError, match="needs a pattern"):
        chunk_settings("custom")
    with pytest.raises(BpeError, match="has its own pattern"):
        chunk_settings("gpt2", r"\w+|\W")
    with pytest.raises(BpeError, match="unknown alphabet"):
        count_text("ab", alphabet="words", pretokenizer=None)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(text=TEXTS, alphabet=st.sampled_from(ALPHABETS), pretokenizer=st.sampled_from(PRETOKENIZERS))
def test_count_text_is_prepare_words(text, alphabet, pretokenizer):
    assert count_text(text, alphabet=alphabet, pretokenizer=pretokenizer).words() == prepare_words(
        text, alphabet, pretokenizer
    )


# ==================== Summing in order


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(
    documents=st.lists(TEXTS, min_size=1, max_size=5),
    alphabet=st.sampled_from(ALPHABETS),
    pretokenizer=st.sampled_from(("whitespace", "gpt2", "gpt4")),
)
def test_merged_tables_are_the_documents_counted_end_to_end(documents, alphabet, pretokenizer):
    merged = merge_counts(count_text(doc, alphabet=alphabet, pretokenizer=pretokenizer) for doc in documents)
    expected: dict = {}
    for doc in documents:
        for symbols, count in prepare_words(doc, alphabet, pretokenizer):
            key = "".join(symbols) if alphabet == "characters" else b"".join(symbols).decode()
            expected[key] = expected.get(key, 0) + count
    assert dict(zip(merged.chunks, merged.counts)) == expected
    assert list(merged.chunks) == list(expected)  # first occurrence kept
    assert merged.characters == sum(map(len, documents))
    assert merged.documents == sum(1 for doc in documents if doc)
    assert merged.base_tokens == count_text("".join(documents), alphabet=alphabet, pretokenizer=None).base_tokens


def test_tables_of_other_settings_do_not_add_up():
    a = count_text("a b", alphabet="characters", pretokenizer="gpt2")
    b = count_text("a b", alphabet="characters", pretokenizer="gpt4")
    with pytest.raises(BpeError, match="different settings"):
        merge_counts([a, b])
    with pytest.raises(BpeError, match="at least one"):
        merge_counts([])


# str.isspace() calls whitespace but the regex does not ("\x1c"), format characters
# (BOM, zero-width space), a number that is not a digit ("½"), and NUL.
PASSAGE_CHARACTERS = list("ab ab  \n\t's.,!12") + [
    "\u00a0",
    "\u3000",
    "\x85",
    "\x1c",
    "\ufeff",
    "\u200b",
    "½",
    "\x00",
    "é",
    "中",
    "\r",
    " ",
]


@settings(max_examples=MAX_EXAMPLES * 4, deadline=None)
@given(
    st.lists(st.text(st.sampled_from(PASSAGE_CHARACTERS), max_size=14), min_size=1, max_size=5),
    st.integers(1, 4),
)
def test_a_tally_of_passages_is_each_passage_counted_in_turn(passages, pending):
    # The count phase chunks each distinct segment of a partition once, at the end (or when
    # `pending` segments wait), those seen once together: the counts and their order of
    # first appearance must be those of the passages counted one by one by the regex.
    from collections import Counter

    from bpe.pretokenize import ChunkTally, split

    tally = ChunkTally("gpt2", pending)
    expected: Counter = Counter()
    for passage in passages:
        tally.add(passage)
        for chunk, count in Counter(split(passage, "gpt2")).items():
            expected[chunk] += count
    got = tally.counts()
    assert got == expected and list(got) == list(expected)


# ==================== Chunks: one UTF-8 text and its ends, read as strings


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from("ab \n1'é中😀"), min_size=1, max_size=8), max_size=20, unique=True))
def test_chunks_read_back_as_the_strings_they_were_made_of(strings):
    import pickle

    chunks = Chunks(strings)
    assert len(chunks) == len(strings) and list(chunks) == strings and chunks == tuple(strings)
    assert [chunks[i] for i in range(-len(strings), len(strings))] == strings + strings
    assert chunks[1:3] == tuple(strings[1:3])
    assert list(chunks.encoded()) == [s.encode("utf-8") for s in strings]
    assert list(chunks.byte_lengths()) == [len(s.encode("utf-8")) for s in strings]
    again = pickle.loads(pickle.dumps(chunks))
    assert again == chunks and list(again) == strings
    assert Chunks.from_parts(chunks.utf8, chunks.ends) == chunks
    with pytest.raises(IndexError):
        chunks[len(strings)]


def test_a_table_keeps_its_chunks_in_one_text_and_compares_by_content():
    table = count_text("low lower lowest é中", alphabet="bytes", pretokenizer="gpt2")
    assert isinstance(table.chunks, Chunks) and isinstance(table.heldout_chunks, Chunks)
    assert table.chunks == ("low", " lower", " lowest", " é中") != ("low",)
    assert table.chunks != Chunks(["low"]) and table.chunks.__eq__(3) is NotImplemented
    assert table.symbols == len("low lower lowest é中".encode())
    assert "Chunks(['low', ' lower', ' lowest', ...], 4 chunks)" == repr(table.chunks)
    given_as_tuples = ChunkCounts(**{**table.__dict__, "chunks": tuple(table.chunks)})
    assert given_as_tuples == table


# ==================== A text counted in pieces


@settings(max_examples=MAX_EXAMPLES * 4, deadline=None)
@given(
    st.lists(st.sampled_from([*PASSAGE_CHARACTERS, "\t", "\n\n", "  ", "it's"]), max_size=40).map("".join),
    st.sampled_from(["gpt2", "gpt4", "whitespace"]),
    st.integers(1, 8),
)
def test_a_text_counted_in_pieces_is_the_whole_text_counted(text, pretokenizer, size):
    # chunk_counts cuts a long text where the pattern certainly cuts (text_pieces); with
    # pieces of a few characters every cut is exercised: the counts, and their order of
    # first appearance, are those of the regex over the whole text.
    from collections import Counter

    from bpe.pretokenize import ChunkTally, split, text_pieces

    assert "".join(text_pieces(text, pretokenizer, size)) == text
    tally = ChunkTally(pretokenizer, 2)
    for piece in text_pieces(text, pretokenizer, size):
        tally.add(piece)
    expected = Counter(split(text, pretokenizer))
    assert tally.counts() == expected and list(tally.counts()) == list(expected)
