"""The count phase's table: counted in memory it is `prepare_words`; summed in order it is
the table of the parts laid end to end; its file reloads to the same table and refuses
files that are damaged, tampered with or not counts files at all."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe.counts import (
    METADATA_KEY,
    ChunkCounts,
    Chunks,
    chunk_settings,
    count_text,
    in_memory_bytes,
    merge_counts,
    read_counts,
    write_counts,
)
from bpe.errors import BpeError, PatternError
from bpe.pretokenize import GPT2_PATTERN
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


# ==================== The file


def _table_with_heldout() -> ChunkCounts:
    training = count_text("low lower lowest", alphabet="characters", pretokenizer="gpt2")
    heldout = count_text("newest widest", alphabet="characters", pretokenizer="gpt2")
    return ChunkCounts(
        chunks=training.chunks,
        counts=training.counts,
        alphabet="characters",
        pretokenizer="gpt2",
        pattern=GPT2_PATTERN,
        base_tokens=training.base_tokens,
        characters=training.characters,
        documents=1,
        heldout_text="newest widest",
        heldout_characters=heldout.characters,
        heldout_documents=1,
        heldout_chunks=heldout.chunks,
        heldout_counts=heldout.counts,
        inputs=(("a.txt", 16, "0" * 64),),
    )


@pytest.mark.parametrize("alphabet", ALPHABETS)
@pytest.mark.parametrize("pretokenizer", (*PRETOKENIZERS, r"\w+|\s+|[^\w\s]+"))
def test_a_counts_file_reloads_to_the_same_table(tmp_path, alphabet, pretokenizer):
    counts = count_text("low lower lowest\n\n中文 😀 it's", alphabet=alphabet, pretokenizer=pretokenizer)
    write_counts(tmp_path / "c.parquet", counts)
    assert read_counts(tmp_path / "c.parquet") == counts


def test_held_out_rows_and_inputs_survive_the_file(tmp_path):
    counts = _table_with_heldout()
    write_counts(tmp_path / "c.parquet", counts)
    again = read_counts(tmp_path / "c.parquet")
    assert again == counts
    assert again.heldout_words() == prepare_words("newest widest", "characters", "gpt2")


def _rewritten(tmp_path, change) -> str:
    """The good file with its table or metadata changed by ``change(table, metadata)``."""
    write_counts(tmp_path / "good.parquet", _table_with_heldout())
    table = pq.read_table(tmp_path / "good.parquet")
    metadata = json.loads(table.schema.metadata[METADATA_KEY])
    table, metadata = change(table, metadata)
    path = tmp_path / "bad.parquet"
    pq.write_table(table.replace_schema_metadata({METADATA_KEY: json.dumps(metadata).encode()}), path)
    return str(path)


def test_a_changed_count_fails_the_checksum(tmp_path):
    def change(table, metadata):
        counts = table.column("count").to_pylist()
        counts[0] += 1
        return table.set_column(1, "count", pa.array(counts, pa.uint64())), metadata

    with pytest.raises(BpeError, match="fails its checksum"):
        read_counts(_rewritten(tmp_path, change))


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda m: m.update(version=99), "version 99"),
        (lambda m: m.update(type="something"), "not BPE Lab's"),
        (lambda m: m.update(alphabet="words"), "unknown alphabet"),
        (lambda m: m.update(pretokenizer="gpt3"), "unknown pre-tokenizer"),
        (lambda m: m.update(pattern="x"), "another pattern"),
        (lambda m: m.update(pretokenizer="custom", pattern="(a)|[\\s\\S]"), "capturing group"),
        (lambda m: m.update(characters=-1), "cannot be negative"),
        (lambda m: m.update(rows="many"), "no valid 'rows'"),
        (lambda m: m.update(rows=1), "metadata says"),
        (lambda m: m.update(inputs=[["a.txt", -3, "x"]]), "not \\[name, size, sha256\\]"),
        (lambda m: m.pop("checksum"), "no valid 'checksum'"),
    ],
)
def test_metadata_that_is_wrong_is_refused_in_one_line(tmp_path, edit, message):
    def change(table, metadata):
        edit(metadata)
        return table, metadata

    with pytest.raises(BpeError, match=message) as caught:
        read_counts(_rewritten(tmp_path, change))
    assert "\n" not in str(caught.value)


def test_a_tampered_file_with_a_recomputed_checksum_is_still_checked(tmp_path):
    """Anyone can recompute a checksum, so the values themselves are checked too."""
    from bpe.counts import _checksum

    def change(table, metadata):
        metadata["characters"] += 5
        metadata["checksum"] = _checksum(metadata, table)
        return table, metadata

    with pytest.raises(BpeError, match="but its chunks hold"):
        read_counts(_rewritten(tmp_path, change))


@pytest.mark.parametrize("key", ["training_sample", "heldout_text", "pattern"])
def test_metadata_that_spells_a_lone_surrogate_is_refused_at_the_door(tmp_path, key):
    """JSON can spell "\\ud800", which no UTF-8 can hold: the checksum's own encoding of the
    metadata raised UnicodeEncodeError (a traceback) before; now it is refused in one line."""

    def change(table, metadata):
        metadata[key] = "ab\ud800"
        return table, metadata

    with pytest.raises(BpeError, match="lone surrogate") as caught:
        read_counts(_rewritten(tmp_path, change))
    assert "\n" not in str(caught.value)


def test_files_that_are_not_counts_files_are_refused(tmp_path):
    (tmp_path / "text.parquet").write_text("not parquet at all")
    with pytest.raises(BpeError, match="not readable as Parquet"):
        read_counts(tmp_path / "text.parquet")
    pq.write_table(pa.table({"text": ["a"]}), tmp_path / "other.parquet")
    with pytest.raises(BpeError, match="its columns are text"):
        read_counts(tmp_path / "other.parquet")
    with pytest.raises(BpeError, match="cannot read the counts file"):
        read_counts(tmp_path / "missing.parquet")
    good = tmp_path / "good.parquet"
    write_counts(good, _table_with_heldout())
    (tmp_path / "cut.parquet").write_bytes(good.read_bytes()[:-100])
    with pytest.raises(BpeError, match="not readable as Parquet"):
        read_counts(tmp_path / "cut.parquet")


def test_a_failed_write_leaves_the_old_file(tmp_path):
    target = tmp_path / "c.parquet"
    write_counts(target, _table_with_heldout())
    before = target.read_bytes()
    (tmp_path / "folder").mkdir()
    with pytest.raises(BpeError, match="it is a folder"):
        write_counts(tmp_path / "folder", _table_with_heldout())
    assert target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.parquet", "folder"]


# ==================== Memory of in-memory training


def test_in_memory_training_needs_more_memory_for_more_text():
    small, large = in_memory_bytes(1_000_000), in_memory_bytes(100_000_000)
    assert 0 < small < large
    assert in_memory_bytes(100_000_000, "bytes", "gpt2") < in_memory_bytes(100_000_000, "bytes", None)


def test_a_text_too_big_for_this_machine_is_refused_up_front(monkeypatch):
    from bpe.counts import check_fits_in_memory

    monkeypatch.setattr("bpe.counts.available_memory_bytes", lambda: 1 << 30)
    check_fits_in_memory(10_000_000)  # ~250 MB: fits in 1 GiB
    with pytest.raises(BpeError, match="training 100,000,000 characters in memory needs about 2.0 GiB, and this"):
        check_fits_in_memory(100_000_000)
    with pytest.raises(BpeError, match="count it with python -m bpe count"):
        check_fits_in_memory(100_000_000, "bytes", "gpt2")
    monkeypatch.setattr("bpe.counts.available_memory_bytes", lambda: 30 << 20)
    with pytest.raises(BpeError, match="needs about 50 MiB, and this machine has 30 MiB available"):
        check_fits_in_memory(500_000)  # below a GiB, in MiB: "0.0 GiB" would say nothing
    monkeypatch.setattr("bpe.counts.available_memory_bytes", lambda: None)
    check_fits_in_memory(10**12)  # unknown: nothing refused


def test_chunks_that_are_not_utf8_are_refused(tmp_path):
    from bpe.counts import _checksum

    def change(table, metadata):
        chunks = pa.array([b"\xff\xfe"] * table.num_rows, pa.large_binary()).view(pa.large_string())
        table = table.set_column(0, "chunk", chunks)
        metadata["checksum"] = _checksum(metadata, table)
        return table, metadata

    with pytest.raises(BpeError, match="is damaged: .*Invalid UTF8 sequence"):
        read_counts(_rewritten(tmp_path, change))


def test_a_pipe_is_not_read_as_a_counts_file(tmp_path):
    import os

    os.mkfifo(tmp_path / "c.parquet")
    with pytest.raises(BpeError, match="not a regular file"):
        read_counts(tmp_path / "c.parquet")


def _many_rows(tmp_path, rows: int) -> str:
    """The probe's file: the metadata of a real counts file (rows set to ``rows``), then
    ``rows`` identical rows of "a", dictionary-encoded: a few hundred KB on disk."""
    good = tmp_path / "good.parquet"
    write_counts(good, _table_with_heldout())
    schema = pq.ParquetFile(good).schema_arrow
    metadata = json.loads(schema.metadata[METADATA_KEY])
    metadata.update(rows=rows, heldout_rows=0)
    schema = schema.with_metadata({METADATA_KEY: json.dumps(metadata).encode()})
    path = tmp_path / f"rows_{rows}.parquet"
    with pq.ParquetWriter(path, schema, compression="zstd", use_dictionary=True) as writer:
        step = 1_000_000
        for start in range(0, rows, step):
            n = min(step, rows - start)
            columns = {
                "chunk": pa.repeat(pa.scalar("a", pa.large_string()), n),
                "count": pa.repeat(pa.scalar(1, pa.uint64()), n),
                "heldout": pa.repeat(pa.scalar(False), n),
            }
            writer.write_table(pa.table(columns, schema=schema), row_group_size=step)
    return str(path)


def test_a_file_of_too_many_rows_is_refused_from_its_footer(tmp_path, monkeypatch):
    """Found by probing: 100 million identical rows under a real file's metadata (925 KB)
    passed the bound of 500 million rows, and were read (1.87 GB) before the checksum was
    compared. A 1 GB corpus has 1-2 million distinct chunks: past 10 million, the footer
    says so and no data is read."""
    path = _many_rows(tmp_path, 10_000_001)

    def no_data(*args, **kwargs):
        raise AssertionError("the data was read")

    monkeypatch.setattr(pq.ParquetFile, "read", no_data)
    with pytest.raises(
        BpeError, match=r"rows_10000001.parquet holds 10,000,001 rows; a counts file may hold at most 10,000,000"
    ) as caught:
        read_counts(path)
    assert "\n" not in str(caught.value)


def test_running_out_of_memory_is_not_called_damage(tmp_path, monkeypatch):
    """Under a memory cap the probe's file was "damaged: malloc of size 800000000 failed":
    the file was too big to read, not damaged."""
    good = tmp_path / "good.parquet"
    write_counts(good, _table_with_heldout())

    def out_of_memory(*args, **kwargs):
        raise pa.ArrowMemoryError("malloc of size 800000000 failed")

    monkeypatch.setattr(pq.ParquetFile, "read", out_of_memory)
    with pytest.raises(BpeError, match=r"good.parquet \([0-9,]+ rows\) does not fit in the memory") as caught:
        read_counts(good)
    assert "damaged" not in str(caught.value)


# Beside plain text: whitespace the regex knows (NBSP, ideographic space, NEL), characters
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
    # The count phase chunks each distinct run of a partition once, at the end (or when
    # `pending` runs wait): the counts and their order of first appearance must be those
    # of the passages counted one by one by the regex.
    from collections import Counter

    from bpe.pretokenize import ChunkTally, split

    tally = ChunkTally("gpt2")
    tally.MAX_PENDING_RUNS = pending
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
