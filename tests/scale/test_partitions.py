"""Corpora read in bounded pieces: cut only where the pre-tokenizer cuts too, so that the
counts of the pieces are the counts of the whole; every format, every limit, every error."""

from __future__ import annotations

import gzip
import json
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from bpe.errors import BpeError, CorpusError
from bpe.scale.chunk_counts import count_text, merge_counts
from bpe.scale.corpus_files import find_corpus_files
from bpe.scale.count_phase import count_corpus
from bpe.scale.partitions import ReadOptions, is_heldout
from bpe.scale.safe_cuts import CUT_RULES, first_cut
from tests.helpers import MAX_EXAMPLES, ROOT

# Pieces that meet at every kind of boundary the patterns care about: letters, digits,
# contractions, runs of spaces and newlines, \r\n, Unicode spaces, multi-byte characters.
PIECES = ["a", "B", "ll", "1", "234", " ", "  ", "\n", "\n\n", "\r\n", "\t", "'", "'s", "'ll", "!", "?!", "é", "中文"]
PIECES += ["\u3000", "\xa0", "\x85", "\u2028", "\x0b", "😀", " the", "\u200b", "\ufeff"]
TEXTS = st.lists(st.sampled_from(PIECES), max_size=80).map("".join)
NAMED = ("whitespace", "gpt2", "gpt4")
TINY = st.builds(
    lambda block, passage, times: ReadOptions(
        block_bytes=block, passage_bytes=passage, partition_bytes=passage * times
    ),
    st.integers(1, 24),
    st.integers(1, 12),
    st.integers(1, 4),
)


def _same_table(got, expected) -> None:
    assert got.chunks == expected.chunks
    assert got.counts == expected.counts
    assert got.characters == expected.characters
    assert got.base_tokens == expected.base_tokens


# ==================== Safe cuts


@settings(max_examples=MAX_EXAMPLES * 3, deadline=None)
@given(text=TEXTS, pretokenizer=st.sampled_from(NAMED))
def test_every_cut_a_rule_finds_splits_the_counts_exactly(text, pretokenizer):
    """The proof that matters: at each cut, the chunks before and after are the chunks of the whole."""
    data = text.encode()
    whole = count_text(text, alphabet="characters", pretokenizer=pretokenizer)
    for cut in CUT_RULES[pretokenizer](data, 0, len(data)):
        before, after = data[:cut].decode(), data[cut:].decode()
        parts = [count_text(part, alphabet="characters", pretokenizer=pretokenizer) for part in (before, after)]
        _same_table(merge_counts(parts), whole)


def test_the_rules_find_cuts_in_ordinary_prose():
    data = b"The cat sat.\nIt's on the mat!  \n\nNew line"
    for pretokenizer, rule in CUT_RULES.items():
        cuts = list(rule(data, 0, len(data)))
        assert len(cuts) >= 5, pretokenizer
    assert first_cut(CUT_RULES["gpt2"], data, 0, final=True) == 3  # before " cat"
    assert first_cut(CUT_RULES["gpt2"], b"abc def", 0, final=False) is None  # the end is held back


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(text=TEXTS, pretokenizer=st.sampled_from(NAMED), options=TINY, compressed=st.booleans())
def test_a_text_file_read_in_tiny_pieces_counts_as_the_whole_text(text, pretokenizer, options, compressed):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / ("corpus.txt.gz" if compressed else "corpus.txt")
        path.write_bytes(gzip.compress(text.encode()) if compressed else text.encode())
        text = text.removeprefix("\ufeff")  # a byte-order mark at the start is not text
        if not text:
            with pytest.raises(CorpusError, match="empty"):
                count_corpus([path], alphabet="characters", pretokenizer=pretokenizer, options=options, workers=1)
            return
        got = count_corpus([path], alphabet="characters", pretokenizer=pretokenizer, options=options, workers=1)
    _same_table(got, count_text(text, alphabet="characters", pretokenizer=pretokenizer))


EOT = "<|endoftext|>"
WITH_SPECIALS = st.lists(st.sampled_from([*PIECES[:12], EOT, "<|end", "oftext|>", EOT + EOT, " <"]), max_size=80)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(parts=WITH_SPECIALS, pretokenizer=st.sampled_from(NAMED), options=TINY)
@example(parts=["a", "  ", EOT, " a"], pretokenizer="gpt2", options=ReadOptions(block_bytes=4, passage_bytes=1))
@example(parts=["a", "\n", " ", EOT], pretokenizer="gpt2", options=ReadOptions(block_bytes=4, passage_bytes=1))
def test_a_text_file_with_special_tokens_counts_as_the_whole_text(parts, pretokenizer, options):
    """Passages are cut clear of special tokens (`bpe.scale.safe_cuts.AvoidingSpecials`): GPT-2
    cuts before " <", and "x  <|endoftext|>" cut there would count "  " as " " and " "."""
    text = "".join(parts)
    assume(text.strip())
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "stories.txt"
        path.write_bytes(text.encode())
        got = count_corpus(
            [path], alphabet="characters", pretokenizer=pretokenizer, options=options, workers=1, special_tokens=[EOT]
        )
    expected = count_text(text, alphabet="characters", pretokenizer=pretokenizer, special_tokens=[EOT])
    _same_table(got, expected)
    assert list(got.special_counts) == list(expected.special_counts) == [text.count(EOT)]
    assert got.words() == expected.words()


@settings(max_examples=MAX_EXAMPLES // 2, deadline=None)
@given(text=TEXTS.filter(bool), limit=st.integers(1, 200), options=TINY, pretokenizer=st.sampled_from(NAMED))
def test_max_characters_is_the_prefix_of_the_corpus(text, limit, options, pretokenizer):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "corpus.txt"
        path.write_bytes(text.encode())
        text = text.removeprefix("\ufeff")
        assume(text)
        capped = ReadOptions(
            max_characters=limit,
            block_bytes=options.block_bytes,
            passage_bytes=options.passage_bytes,
            partition_bytes=options.partition_bytes,
        )
        got = count_corpus([path], alphabet="characters", pretokenizer=pretokenizer, options=capped, workers=1)
    _same_table(got, count_text(text[:limit], alphabet="characters", pretokenizer=pretokenizer))


@pytest.mark.parametrize("partition_bytes", [1, 2, 100], ids=["partitions-of-a-byte", "of-two", "one-partition"])
@pytest.mark.parametrize("workers", [1, 2])
def test_a_limit_one_space_past_a_safe_cut_joins_the_spaces_before_it(tmp_path, partition_bytes, workers):
    """GPT-2 cuts "aaaaall  a" safely before " a"; its first 9 characters end in two spaces,
    one chunk, though the cut lies between them: the passage (or partition) before the cut
    is counted again with the one the limit cuts short (found by hypothesis)."""
    path = tmp_path / "c.txt"
    path.write_text("aaaaall  a", encoding="utf-8")
    options = ReadOptions(max_characters=9, block_bytes=1, passage_bytes=1, partition_bytes=partition_bytes)
    got = count_corpus([path], alphabet="characters", pretokenizer="gpt2", options=options, workers=workers)
    assert dict(zip(got.chunks, got.counts)) == {"aaaaall": 1, "  ": 1}
    _same_table(got, count_text("aaaaall  ", alphabet="characters", pretokenizer="gpt2"))


def test_a_byte_level_table_of_a_file_is_the_one_of_its_text(tmp_path):
    text = "naïve café, 中文 and 😀 emoji.\n" * 50
    (tmp_path / "a.txt").write_text(text, encoding="utf-8")
    options = ReadOptions(block_bytes=64, passage_bytes=100, partition_bytes=300)
    got = count_corpus([tmp_path / "a.txt"], alphabet="bytes", pretokenizer="gpt2", options=options, workers=1)
    assert got.words() == count_text(text, alphabet="bytes", pretokenizer="gpt2").words()
    assert got.inputs == ((str(tmp_path / "a.txt"), len(text.encode()), _sha256(text.encode())),)


def _sha256(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def test_a_custom_pattern_reads_a_text_file_whole(tmp_path):
    pattern = r"\w+|\s+|[^\w\s]+"
    text = "one two, three\n" * 40
    (tmp_path / "a.txt").write_text(text)
    options = ReadOptions(block_bytes=16, passage_bytes=8, partition_bytes=16)
    got = count_corpus(
        [tmp_path / "a.txt"], alphabet="characters", pretokenizer="custom", pattern=pattern, options=options
    )
    _same_table(got, count_text(text, alphabet="characters", pretokenizer=pattern))
    assert got.documents == 1


def test_a_leading_byte_order_mark_is_not_text(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"\xef\xbb\xbflow lower")
    got = count_corpus([tmp_path / "a.txt"], alphabet="characters", pretokenizer="gpt2", workers=1)
    assert got.chunks == ("low", " lower")


# ==================== JSON lines and Parquet


def _jsonl(path: Path, records, *, compress: bool = False) -> Path:
    data = "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records).encode()
    path.write_bytes(gzip.compress(data) if compress else data)
    return path


@pytest.mark.parametrize("compress", [False, True])
def test_json_lines_are_documents_counted_apart(tmp_path, compress):
    docs = ["low lower", "", "lowest\n\nnewest", "low"]
    path = _jsonl(
        tmp_path / ("d.jsonl.gz" if compress else "d.jsonl"),
        [{"text": d, "id": i} for i, d in enumerate(docs)],
        compress=compress,
    )
    options = ReadOptions(partition_bytes=16, passage_bytes=8)
    got = count_corpus([path], alphabet="characters", pretokenizer="gpt2", options=options, workers=1)
    expected = merge_counts(count_text(d, alphabet="characters", pretokenizer="gpt2") for d in docs)
    _same_table(got, expected)
    assert got.documents == 3  # the empty one counts nothing


def test_a_field_other_than_text_and_blank_lines(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text('{"body": "a b"}\n\n   \n{"body": "c"}\n')
    got = count_corpus([path], alphabet="characters", pretokenizer="gpt2", options=ReadOptions(field="body"))
    assert got.chunks == ("a", " b", "c")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"text": "a"}\n{"txt": "b"}\n', "line 2 has no field 'text' \\(its fields: txt\\)"),
        ('{"text": "a"}\n{"text": 5}\n', "line 2: field 'text' holds int, not text"),
        ('{"text": "a"}\n[1, 2]\n', "line 2 is not a JSON object"),
        ('{"text": "a"}\n{"text": "b\n', "line 2 is not valid JSON"),
        ('{"text": "\\ud800"}\n', "line 1 holds the text '\\\\ud800', whose .* is a lone surrogate"),
        # issue 41, failure 15: a long number was "nested too deeply", a key twice passed silently
        ('{"text": "a", "n": ' + "7" * 100_000 + "}\n", "line 1 holds a number 100,000 digits long"),
        ('{"text": "a"}\n{"text": "b", "text": "c"}\n', "line 2: the key 'text' appears twice in one object"),
    ],
)
def test_bad_json_lines_are_named_by_file_and_line(tmp_path, content, message):
    path = tmp_path / "d.jsonl"
    path.write_text(content)
    with pytest.raises(CorpusError, match=message) as caught:
        count_corpus([path], alphabet="characters", pretokenizer="gpt2", workers=1)
    assert str(path) in str(caught.value) and "\n" not in str(caught.value)


def test_parquet_row_groups_are_read_one_at_a_time(tmp_path):
    docs = [f"document {i}: low lower lowest" for i in range(50)]
    pq.write_table(pa.table({"id": list(range(50)), "text": docs}), tmp_path / "d.parquet", row_group_size=7)
    got = count_corpus([tmp_path / "d.parquet"], alphabet="characters", pretokenizer="gpt4", workers=1)
    _same_table(got, merge_counts(count_text(d, alphabet="characters", pretokenizer="gpt4") for d in docs))
    assert got.documents == 50


def test_a_parquet_file_before_a_text_file_leaves_the_text_files_partitions_whole(tmp_path):
    """The text file after a Parquet file is cut at the corpus's partition size, a whole number
    of passages, not at the Parquet row group's size: cut there, its partitions each read on
    to the next passage boundary and counted the text about 65 times over."""
    text = (ROOT / "data" / "tinyshakespeare.txt").read_text(encoding="utf-8")[:200_000]
    (tmp_path / "plays.txt").write_text(text, encoding="utf-8")
    pq.write_table(pa.table({"text": ["low lower", "lowest"]}), tmp_path / "rows.parquet")
    alone = {
        name: count_corpus([tmp_path / name], alphabet="bytes", pretokenizer="gpt2", workers=1)
        for name in ("rows.parquet", "plays.txt")
    }
    for names in (["rows.parquet", "plays.txt"], ["plays.txt", "rows.parquet"]):
        got = count_corpus([tmp_path / name for name in names], alphabet="bytes", pretokenizer="gpt2", workers=1)
        _same_table(got, merge_counts(alone[name] for name in names))
        assert got.characters == len(text) + len("low lower") + len("lowest")


# ==================== Corpora as people store them: datasets folders, .zst, Parquet shards


def _zstd(data: bytes) -> bytes:
    out = pa.BufferOutputStream()
    with pa.CompressedOutputStream(out, "zstd") as compressed:
        compressed.write(data)
    return out.getvalue().to_pybytes()


def _saved_dataset(folder: Path, shards: list[list[str]], *, batch_rows: int = 3, layout: str = "stream") -> Path:
    """A folder as Hugging Face `datasets` writes one with ``save_to_disk`` (made with pyarrow
    alone, in the same layout): Arrow IPC stream shards ``data-0000i-of-0000n.arrow`` of
    record batches, beside dataset_info.json and state.json."""
    folder.mkdir()
    schema = pa.schema([("text", pa.string()), ("label", pa.int64())])
    names = [f"data-{i:05d}-of-{len(shards):05d}.arrow" for i in range(len(shards))]
    for name, texts in zip(names, shards):
        table = pa.table({"text": texts, "label": list(range(len(texts)))}, schema=schema)
        opened = pa.ipc.new_stream if layout == "stream" else pa.ipc.new_file
        with pa.OSFile(str(folder / name), "wb") as sink, opened(sink, schema) as writer:
            for batch in table.to_batches(max_chunksize=batch_rows):
                writer.write_batch(batch)
    (folder / "dataset_info.json").write_text(json.dumps({"features": {"text": {"dtype": "string"}}}))
    state = {"_data_files": [{"filename": name} for name in names], "_fingerprint": "0", "_split": "train"}
    (folder / "state.json").write_text(json.dumps(state))
    return folder


@pytest.mark.parametrize("layout", ["stream", "file"])
def test_a_saved_datasets_folder_is_a_corpus_of_its_rows(tmp_path, layout):
    shards = [[f"row {i}: low lower" for i in range(7)], ["newest widest", "", "low"]]
    folder = _saved_dataset(tmp_path / "wiki", shards, layout=layout)
    docs = [text for shard in shards for text in shard]
    expected = merge_counts(count_text(d, alphabet="bytes", pretokenizer="gpt2") for d in docs)
    for options in (ReadOptions(), ReadOptions(partition_bytes=64, passage_bytes=64)):  # batches run together, or not
        got = count_corpus([folder], alphabet="bytes", pretokenizer="gpt2", options=options, workers=1)
        _same_table(got, expected)
        assert got.documents == len(docs) - 1  # the empty row counts nothing
    assert [name for name, _, _ in got.inputs] == [str(folder / f"data-0000{i}-of-00002.arrow") for i in range(2)]


def test_a_datasets_folder_with_rows_held_out_counts_the_same_on_two_workers(tmp_path):
    folder = _saved_dataset(tmp_path / "d", [[f"doc {i} low lower lowest" for i in range(40)]] * 3, batch_rows=4)
    options = ReadOptions(heldout_fraction=0.25, partition_bytes=256, passage_bytes=256)
    one, two = (
        count_corpus([folder], alphabet="characters", pretokenizer="gpt4", options=options, workers=workers)
        for workers in (1, 2)
    )
    assert one == two and one.heldout_documents > 0


def test_arrow_problems_are_named(tmp_path, monkeypatch):
    folder = _saved_dataset(tmp_path / "d", [["a b"]])
    with pytest.raises(
        CorpusError, match="has no column 'body' \\(its columns: text, label\\); name one with --column"
    ):
        count_corpus([folder], alphabet="characters", pretokenizer="gpt2", options=ReadOptions(column="body"))
    with pytest.raises(CorpusError, match="column 'label' holds int64, not text"):
        count_corpus([folder], alphabet="characters", pretokenizer="gpt2", options=ReadOptions(column="label"))
    nulls = tmp_path / "nulls.arrow"
    with pa.OSFile(str(nulls), "wb") as sink, pa.ipc.new_stream(sink, pa.schema([("text", pa.string())])) as w:
        w.write_batch(pa.record_batch([pa.array(["a", None])], names=["text"]))
    with pytest.raises(CorpusError, match="nulls.arrow: row 1 of column 'text' is empty \\(null\\), not text"):
        count_corpus([nulls], alphabet="characters", pretokenizer="gpt2", workers=1)
    (tmp_path / "junk.arrow").write_bytes(b"not arrow at all" * 4)
    with pytest.raises(CorpusError, match="junk.arrow is not a readable Arrow file") as caught:
        count_corpus([tmp_path / "junk.arrow"], alphabet="characters", pretokenizer="gpt2")
    assert "\n" not in str(caught.value)
    monkeypatch.setattr("bpe.scale.partitions.MAX_ROW_GROUP_BYTES", 4)
    with pytest.raises(
        CorpusError, match="record batch 0 is .* bytes, over the limit of 4; write the file with smaller"
    ):
        count_corpus([folder], alphabet="characters", pretokenizer="gpt2")
    monkeypatch.undo()
    whole = (folder / "data-00000-of-00001.arrow").read_bytes()
    (tmp_path / "cut.arrow").write_bytes(whole[: len(whole) - 40])
    with pytest.raises(CorpusError, match="cut.arrow is not a readable Arrow file"):
        count_corpus([tmp_path / "cut.arrow"], alphabet="characters", pretokenizer="gpt2", workers=1)


@pytest.mark.parametrize("kind", ["jsonl", "txt"])
def test_zstandard_files_are_read_as_their_text(tmp_path, kind):
    docs = ["low lower", "lowest\n\nnewest", "low"]
    if kind == "jsonl":
        data = "".join(json.dumps({"text": d}) + "\n" for d in docs).encode()
        expected = merge_counts(count_text(d, alphabet="characters", pretokenizer="gpt2") for d in docs)
    else:
        data = " ".join(docs).encode()
        expected = count_text(" ".join(docs), alphabet="characters", pretokenizer="gpt2")
    (tmp_path / f"d.{kind}.zst").write_bytes(_zstd(data))
    got = count_corpus([tmp_path / f"d.{kind}.zst"], alphabet="characters", pretokenizer="gpt2", workers=1)
    _same_table(got, expected)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (_zstd(b'{"text": "some text"}\n' * 200)[:-9], "a.jsonl.zst is a truncated zstd file"),
        (b"not zstd at all", "a.jsonl.zst is not a valid zstd file"),
        (_zstd(b'{"text": "a"}\n{"txt": "b"}\n'), "a.jsonl.zst: line 2 has no field 'text'"),
    ],
    ids=["truncated", "not zstd", "a bad line"],
)
def test_bad_zstandard_files_are_one_line(tmp_path, content, message):
    (tmp_path / "a.jsonl.zst").write_bytes(content)
    with pytest.raises(CorpusError, match=message) as caught:
        count_corpus([tmp_path / "a.jsonl.zst"], alphabet="characters", pretokenizer="gpt2", workers=1)
    assert "\n" not in str(caught.value)


def test_a_folder_of_shards_is_read_in_order(tmp_path):
    # Shards as datasets on the Hub come: Parquet, and JSON lines compressed with Zstandard.
    (tmp_path / "shards").mkdir()
    docs = [[f"shard {s} doc {d} low lower" for d in range(4)] for s in range(3)]
    for number, shard in enumerate(docs):
        name = f"train-{number:05d}-of-00003"
        if number == 1:
            (tmp_path / "shards" / f"{name}.jsonl.zst").write_bytes(
                _zstd("".join(json.dumps({"text": d}) + "\n" for d in shard).encode())
            )
        else:
            pq.write_table(pa.table({"text": shard}), tmp_path / "shards" / f"{name}.parquet", row_group_size=3)
    got = count_corpus([tmp_path / "shards"], alphabet="bytes", pretokenizer="gpt2", workers=2)
    _same_table(
        got, merge_counts(count_text(d, alphabet="bytes", pretokenizer="gpt2") for shard in docs for d in shard)
    )


def test_a_dictionary_encoded_text_column_is_text(tmp_path):
    column = pa.array(["low lower", "low", "low lower"]).dictionary_encode()
    pq.write_table(pa.table({"text": column}), tmp_path / "d.parquet")
    got = count_corpus([tmp_path / "d.parquet"], alphabet="characters", pretokenizer="gpt2", workers=1)
    assert dict(zip(got.chunks, got.counts)) == {"low": 3, " lower": 2}


def test_parquet_problems_are_named(tmp_path):
    pq.write_table(pa.table({"body": ["a"]}), tmp_path / "a.parquet")
    with pytest.raises(CorpusError, match="has no column 'text' \\(its columns: body\\)"):
        count_corpus([tmp_path / "a.parquet"], alphabet="characters", pretokenizer="gpt2")
    pq.write_table(pa.table({"text": [1, 2]}), tmp_path / "b.parquet")
    with pytest.raises(CorpusError, match="column 'text' holds int64, not text"):
        count_corpus([tmp_path / "b.parquet"], alphabet="characters", pretokenizer="gpt2")
    pq.write_table(pa.table({"text": ["a", None]}), tmp_path / "c.parquet")
    with pytest.raises(CorpusError, match="row 1 of column 'text' is empty \\(null\\)"):
        count_corpus([tmp_path / "c.parquet"], alphabet="characters", pretokenizer="gpt2", workers=1)
    (tmp_path / "d.parquet").write_bytes(b"PAR1 not really")
    with pytest.raises(CorpusError, match="d.parquet is not a readable Parquet file"):
        count_corpus([tmp_path / "d.parquet"], alphabet="characters", pretokenizer="gpt2")


# ==================== Limits per document, held-out documents


def test_max_document_characters_caps_each_document(tmp_path):
    path = _jsonl(tmp_path / "d.jsonl", [{"text": "abcdef ghi"}, {"text": "xyz uvw"}])
    (tmp_path / "t.txt").write_text("low lower lowest")
    options = ReadOptions(max_document_characters=4, passage_bytes=2, partition_bytes=4)
    got = count_corpus([path, tmp_path / "t.txt"], alphabet="characters", pretokenizer="gpt2", options=options)
    expected = merge_counts(count_text(t, alphabet="characters", pretokenizer="gpt2") for t in ["abcd", "xyz ", "low "])
    _same_table(got, expected)


def test_held_out_documents_are_chosen_by_seed_and_add_up_to_the_corpus(tmp_path):
    docs = [f"doc {i} says {'low ' * (i % 5)}lowest" for i in range(200)]
    path = _jsonl(tmp_path / "d.jsonl", [{"text": d} for d in docs])
    options = ReadOptions(heldout_fraction=0.2, seed=7, partition_bytes=512, passage_bytes=512)
    first = count_corpus([path], alphabet="characters", pretokenizer="gpt2", options=options, workers=1)
    again = count_corpus([path], alphabet="characters", pretokenizer="gpt2", options=options, workers=1)
    assert first == again
    assert 15 <= first.heldout_documents <= 65 and first.documents + first.heldout_documents == 200
    offsets, at = [], 0
    for doc in docs:
        offsets.append(at)
        at += len((json.dumps({"text": doc}) + "\n").encode())
    held = [doc for doc, offset in zip(docs, offsets) if is_heldout(options, 0, offset)]
    assert len(held) == first.heldout_documents
    assert first.heldout_text == "".join(held)[:4000]
    assert first.characters + first.heldout_characters == sum(map(len, docs))
    whole = merge_counts(count_text(d, alphabet="characters", pretokenizer="gpt2") for d in docs)
    summed: dict = {}
    for chunks, counts in ((first.chunks, first.counts), (first.heldout_chunks, first.heldout_counts)):
        for chunk, count in zip(chunks, counts):
            summed[chunk] = summed.get(chunk, 0) + count
    assert summed == dict(zip(whole.chunks, whole.counts))
    reseeded = ReadOptions(heldout_fraction=0.2, seed=8, partition_bytes=512, passage_bytes=512)
    other = count_corpus([path], alphabet="characters", pretokenizer="gpt2", options=reseeded, workers=1)
    assert other.heldout_chunks != first.heldout_chunks or other.heldout_counts != first.heldout_counts


def test_a_text_file_is_held_out_by_passages(tmp_path):
    text = "".join(f"Line {i} of the text, with words.\n" for i in range(400))
    (tmp_path / "a.txt").write_text(text)
    options = ReadOptions(heldout_fraction=0.3, passage_bytes=256, partition_bytes=1024)
    got = count_corpus([tmp_path / "a.txt"], alphabet="characters", pretokenizer="gpt2", options=options, workers=1)
    assert got.heldout_documents > 0 and got.documents > 0
    assert got.characters + got.heldout_characters == len(text)
    summed: dict = {}
    for chunks, counts in ((got.chunks, got.counts), (got.heldout_chunks, got.heldout_counts)):
        for chunk, count in zip(chunks, counts):
            summed[chunk] = summed.get(chunk, 0) + count
    whole = count_text(text, alphabet="characters", pretokenizer="gpt2")
    assert summed == dict(zip(whole.chunks, whole.counts))
    assert len(got.training_sample) == 4000 and got.training_sample.startswith("Line ")


# ==================== Finding the files, and what is refused


def test_folders_and_globs_are_expanded_in_sorted_order(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "2.txt").write_text("two")
    (tmp_path / "b" / "1.jsonl").write_text('{"text": "one"}\n')
    (tmp_path / "b" / "notes.md").write_text("ignored")
    (tmp_path / "b" / ".hidden").mkdir()
    (tmp_path / "b" / ".hidden" / "x.txt").write_text("hidden")
    (tmp_path / "a.txt").write_text("zero")
    files = find_corpus_files([tmp_path / "a.txt", tmp_path / "b", str(tmp_path / "*.txt")])
    assert [f.path.name for f in files] == ["a.txt", "1.jsonl", "2.txt"]  # a.txt named twice: read once


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("a.jsonl.xz", b"x", r"is compressed \(.xz\), which BPE Lab does not read"),
        ("a.jsonl.zst", b"x", "a.jsonl.zst is not a valid zstd file"),
        ("a.txt", b"ok \xff bad", "not valid UTF-8: byte 0xFF at byte offset 3 \\(line 1\\)"),
        ("a.txt", b"line\nnul \x00 here", "looks binary.*NUL byte at byte offset 9 \\(line 2\\)"),
        ("a.txt.gz", gzip.compress(b"some text " * 100, mtime=0)[:-12], "truncated gzip file"),
        ("a.txt.gz", b"not gzip at all", "not a valid gzip file"),
        ("a.txt", b"", "the corpus is empty: .*a.txt holds no text to count"),
    ],
)
def test_bad_input_is_one_line_naming_the_file(tmp_path, name, content, message):
    (tmp_path / name).write_bytes(content)
    with pytest.raises(CorpusError, match=message) as caught:
        count_corpus([tmp_path / name], alphabet="characters", pretokenizer="gpt2", workers=1)
    assert name in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("name", ["corpus.en", "wiki.train.raw", "notes.md", "README", "data.csv"])
def test_any_file_name_is_text(tmp_path, name):
    """CS336's corpus.en and WikiText-103's wiki.train.raw are text files: a name that is not
    .jsonl, .parquet or compressed is read as UTF-8 text, its faults reported as a .txt's."""
    (tmp_path / name).write_text("low lower lowest")
    counted = count_corpus([tmp_path / name], alphabet="characters", pretokenizer="whitespace", workers=1)
    _same_table(counted, count_text("low lower lowest", alphabet="characters", pretokenizer="whitespace"))
    (tmp_path / name).write_bytes(b"ok \xff bad")
    with pytest.raises(CorpusError, match=f"{name} is not valid UTF-8: byte 0xFF"):
        count_corpus([tmp_path / name], alphabet="characters", pretokenizer="whitespace", workers=1)
    (tmp_path / (name + ".gz")).write_bytes(gzip.compress(b"low lower lowest"))
    counted = count_corpus([tmp_path / (name + ".gz")], alphabet="characters", pretokenizer="whitespace", workers=1)
    assert counted.characters == len("low lower lowest")


def test_missing_inputs_and_empty_folders_are_refused(tmp_path):
    with pytest.raises(CorpusError, match="no such file or folder"):
        find_corpus_files([tmp_path / "nothing.txt"])
    with pytest.raises(CorpusError, match="matches no files"):
        find_corpus_files([str(tmp_path / "*.txt")])
    (tmp_path / "empty").mkdir()
    with pytest.raises(CorpusError, match="holds no corpus files"):
        find_corpus_files([tmp_path / "empty"])
    with pytest.raises(CorpusError, match="no input given"):
        find_corpus_files([])


def test_no_pretokenizer_cannot_be_counted_and_bad_options_are_refused(tmp_path):
    (tmp_path / "a.txt").write_text("text")
    with pytest.raises(BpeError, match="cannot be counted in chunks"):
        count_corpus([tmp_path / "a.txt"], alphabet="characters", pretokenizer=None)
    with pytest.raises(BpeError, match="heldout_fraction=1.5"):
        ReadOptions(heldout_fraction=1.5)
    with pytest.raises(BpeError, match="max_characters=0"):
        ReadOptions(max_characters=0)
    with pytest.raises(BpeError, match="multiple of passage_bytes"):
        ReadOptions(passage_bytes=3, partition_bytes=10)
    seed = next(seed for seed in range(100) if is_heldout(ReadOptions(heldout_fraction=0.9, seed=seed), 0, 0))
    options = ReadOptions(heldout_fraction=0.9, seed=seed)  # one document, and it is held out
    with pytest.raises(CorpusError, match="every document of the corpus was held out"):
        count_corpus([tmp_path / "a.txt"], alphabet="characters", pretokenizer="gpt2", options=options)


@settings(max_examples=MAX_EXAMPLES // 2, deadline=None)
@given(docs=st.lists(TEXTS, max_size=12), partition=st.integers(1, 40), fraction=st.sampled_from([0.0, 0.5]))
def test_json_lines_split_anywhere_count_as_their_records(docs, partition, fraction):
    """Partitions of a JSON-lines file start at the first line that starts in them, wherever they fall."""
    assume(any(docs))
    with tempfile.TemporaryDirectory() as folder:
        path = _jsonl(Path(folder) / "d.jsonl", [{"text": doc} for doc in docs])
        options = ReadOptions(passage_bytes=1, partition_bytes=partition, heldout_fraction=fraction)
        try:
            got = count_corpus([path], alphabet="characters", pretokenizer="gpt4", options=options, workers=1)
        except CorpusError as error:  # a few records, every one held out: refused, as it should be
            assert fraction and "was held out" in str(error)
            return
    assert got.documents + got.heldout_documents == sum(1 for doc in docs if doc)
    if fraction == 0:
        _same_table(got, merge_counts(count_text(doc, alphabet="characters", pretokenizer="gpt4") for doc in docs))


def test_a_pipe_named_as_a_corpus_is_refused_without_blocking(tmp_path):
    import os

    os.mkfifo(tmp_path / "pipe.txt")
    with pytest.raises(CorpusError, match="pipe.txt: it is not a regular file"):
        find_corpus_files([tmp_path / "pipe.txt"])
