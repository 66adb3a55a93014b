"""The counts file: it reloads to the same table and refuses files that are damaged,
tampered with, too big to read, or not counts files at all."""

from __future__ import annotations

import json
from array import array

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from bpe.errors import BpeError
from bpe.pretokenize import GPT2_PATTERN
from bpe.scale.chunk_counts import ChunkCounts, count_text
from bpe.scale.counts_file import METADATA_KEY, _checksum, read_counts, write_counts
from bpe.training import prepare_words

PRETOKENIZERS = (None, "whitespace", "gpt2", "gpt4")
ALPHABETS = ("characters", "bytes")


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
    from bpe.scale.counts_file import _checksum

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
    # the right names in the wrong types: the message names both sides' types
    pq.write_table(
        pa.table({"chunk": ["a"], "count": pa.array([1], pa.uint64()), "heldout": [False]}), tmp_path / "bare.parquet"
    )
    with pytest.raises(
        BpeError,
        match=r"columns are chunk \(string\), count \(uint64\), heldout \(bool\), not chunk \(large_string\), count",
    ):
        read_counts(tmp_path / "bare.parquet")
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


def test_chunks_that_are_not_utf8_are_refused(tmp_path):
    from bpe.scale.counts_file import _checksum

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
    refused_before_any_data(
        path, monkeypatch, r"rows_10000001.parquet holds 10,000,001 rows; a counts file may hold at most 10,000,000"
    )


def refused_before_any_data(path, monkeypatch, match: str) -> None:
    """`read_counts(path)` refuses in one line matching ``match`` without reading any data."""

    def no_data(*args, **kwargs):
        raise AssertionError("the data was read")

    monkeypatch.setattr(pq.ParquetFile, "read", no_data)
    with pytest.raises(BpeError, match=match) as caught:
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


# ==================== What a counts file may cost (issue 41): bpe.io.budget's bounds


def _one_chunk(tmp_path, chunk: str, count: int = 1, name: str = "one.parquet") -> str:
    table = count_text("a", alphabet="characters", pretokenizer="gpt2")
    counts = ChunkCounts(
        chunks=(chunk,),
        counts=array("Q", [count]),
        alphabet="characters",
        pretokenizer="gpt2",
        pattern=GPT2_PATTERN,
        base_tokens=tuple(sorted(set(chunk))),
        characters=len(chunk) * count,
        documents=1,
        training_sample=table.training_sample,
    )
    write_counts(tmp_path / name, counts)
    return str(tmp_path / name)


def _without_profile(path: str) -> str:
    """The counts file at ``path`` without the corpus profile in its metadata (as files
    written before profiles are), checksummed again as anyone can: a huge count's profile
    is refused first, past 2**63 too."""
    table = pq.read_table(path)
    metadata = json.loads(table.schema.metadata[METADATA_KEY])
    del metadata["profile"]
    metadata["checksum"] = _checksum(metadata, table)
    pq.write_table(table.replace_schema_metadata({METADATA_KEY: json.dumps(metadata).encode()}), path)
    return path


def test_a_small_file_holding_a_huge_chunk_is_refused_from_its_footer(tmp_path, monkeypatch):
    """Failure 8: a 21 KB counts file holding one 314 M-character chunk passed every check,
    and `train --counts` reached 2.6 GB and a MemoryError traceback. Its footer says how many
    bytes it inflates to, and that is refused before any data is read."""
    path = _one_chunk(tmp_path, "a" * 20_000_000)
    assert (tmp_path / "one.parquet").stat().st_size < 10_000
    refused_before_any_data(
        path, monkeypatch, r"one.parquet says it holds 20,0[0-9,]+ bytes of counts in [0-9,]+ bytes"
    )


def test_rows_naming_one_chunk_are_measured_before_they_are_decoded(tmp_path):
    """A dictionary-encoded column names one 300 KB chunk from 1,000 rows: the footer says
    300 KB, decoded it is 300 MB. What the rows decode to is refused before they are."""
    good = tmp_path / "good.parquet"
    write_counts(good, _table_with_heldout())
    schema = pq.ParquetFile(good).schema_arrow
    rows = 1_000
    chunks = pa.DictionaryArray.from_arrays(
        pa.array([0] * rows, pa.int32()), pa.array(["b" * 300_000], pa.large_string())
    )
    table = pa.table(
        {
            "chunk": chunks.cast(pa.large_string()),
            "count": pa.array([1] * rows, pa.uint64()),
            "heldout": pa.array([False] * rows),
        }
    )
    metadata = json.loads(schema.metadata[METADATA_KEY])
    metadata.update(rows=rows, heldout_rows=0)
    path = tmp_path / "repeated.parquet"
    pq.write_table(table.replace_schema_metadata({METADATA_KEY: json.dumps(metadata).encode()}), path)
    assert path.stat().st_size < 100_000
    with pytest.raises(BpeError, match=r"holds 300,000,000 bytes of chunks in [0-9,]+ bytes"):
        read_counts(path)


def test_a_count_of_2_63_is_refused_in_one_line(tmp_path):
    """Failure 13: a count of 2**63 or more passed the reader, and training ended in an
    OverflowError traceback."""

    path = _without_profile(_one_chunk(tmp_path, "ab", count=2**63))
    with pytest.raises(BpeError, match=r"has a count of 9,223,372,036,854,775,808; counts stop below 2\*\*63"):
        read_counts(path)
    assert read_counts(_one_chunk(tmp_path, "ab", count=2**40, name="fine.parquet")).counts[0] == 2**40


def test_the_command_line_says_a_huge_count_in_one_line(tmp_path, capsys):
    from bpe.cli.main import main

    path = _without_profile(_one_chunk(tmp_path, "ab", count=2**63 + 5))
    assert main(["train", "--counts", path, "--vocab-size", "260", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and "2**63" in err
