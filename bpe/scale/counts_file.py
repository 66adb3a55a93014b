"""The counts file: a `ChunkCounts` table on disk, one Parquet file, checked on the way in.

The count phase writes it (`python -m bpe count`), the merge phase reads it (`python -m
bpe train --counts`), maybe on another machine, maybe days later. Its columns are chunk
(large_string), count (uint64) and heldout (bool): the training rows first, in their order
of first occurrence, then the held-out rows. Everything else (alphabet, pre-tokenizer,
sizes, samples, input files, the training part's profile) is one JSON object in the schema's metadata under
`METADATA_KEY`, with a SHA-256 over that object and the columns' bytes. For the table of
``"low low lower"`` (whitespace split) the rows are::

    chunk     count  heldout
    "low"     1      false
    " low"    1      false
    " lower"  1      false

A counts file may come from anyone, so what it can cost is bounded before it is read:
`read_counts` takes the footer's word for the rows and bytes and refuses too much before
any data (more rows than a corpus has distinct chunks, or more bytes than
`bpe.io.budget.MAX_INFLATION` times the file: one chunk of 314 million characters fits in
21 KB), reads the chunks still dictionary-encoded and refuses, before they are decoded,
what they would decode to past that bound or a chunk longer than the count phase makes;
then checks the schema, the metadata, the checksum and every value (a count of 2**63 or
more, which no corpus has and no engine adds up, included).
"""

from __future__ import annotations

import hashlib
import json
import os
from array import array
from itertools import chain

from bpe.alphabet import ALPHABETS, CHARACTERS
from bpe.errors import BpeError
from bpe.io.budget import check_inflation
from bpe.io.files import atomic_writer
from bpe.io.jsonfile import load_json
from bpe.io.untrusted import open_regular_file
from bpe.pretokenize import NAMED_PATTERNS
from bpe.scale.chunk_counts import (
    HELDOUT_SAMPLE_CHARACTERS,
    PRETOKENIZER_NAMES,
    ChunkCounts,
    Chunks,
    base_tokens_of,
    chunk_settings,
    counts_array,
)
from bpe.scale.corpus_profile import profile_from_json
from bpe.specials import check_special_tokens

FORMAT_VERSION = 1
METADATA_KEY = b"bpe_lab.counts"
MAX_COUNTS_FILE_BYTES = 4 << 30  # 4 GiB on disk
# What a file may hold is read from its footer and refused before any of its data: Parquet
# encodes a column of one repeated value in a few bytes, so millions of rows of "a" fit in a
# file of kilobytes and would be read whole before the checksum is compared. Distinct chunks
# grow slower than the text, so a 1 GB corpus has 1-2 million of them; the row bound is five
# times that or more, and keeps reading a file to a couple of gigabytes (docs/speed.md has
# the bytes a row costs read back).
MAX_COUNTS_ROWS = 10_000_000
MAX_COUNTS_DATA_BYTES = 1 << 30  # once decompressed; 10 million rows of real chunks are well under
MAX_METADATA_BYTES = 64 << 20  # base tokens of a character table: at most every Unicode character
# The longest chunk a counts file may hold: the longest the count phase makes, a stretch of
# text with no place to cut it (`bpe.scale.partitions.MAX_PASSAGE_BYTES`).
MAX_CHUNK_BYTES = 64 << 20
COUNT_BOUND = 1 << 63  # every count is below it: the engines add counts up in signed 64 bits


def write_counts(path: str | os.PathLike[str], counts: ChunkCounts) -> None:
    """Write ``counts`` to ``path`` as one Parquet file, whole or not at all."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = _arrow_table(counts)
    metadata = _metadata_of(counts)
    metadata["checksum"] = _checksum(metadata, table)
    table = table.replace_schema_metadata({METADATA_KEY: json.dumps(metadata, ensure_ascii=False).encode("utf-8")})
    with atomic_writer(path) as handle:
        try:
            pq.write_table(table, handle, compression="zstd")
        except (pa.ArrowException, OSError) as error:
            raise BpeError(f"cannot write {str(path)!r}: {error}") from None


def _arrow_table(counts: ChunkCounts):
    import pyarrow as pa

    return pa.table(
        {
            "chunk": pa.concat_arrays([_arrow_strings(counts.chunks), _arrow_strings(counts.heldout_chunks)]),
            "count": pa.array(counts.counts.tolist() + counts.heldout_counts.tolist(), type=pa.uint64()),
            "heldout": pa.array([False] * len(counts.chunks) + [True] * len(counts.heldout_chunks), type=pa.bool_()),
        }
    )


def _arrow_strings(chunks: Chunks):
    """The chunks as an Arrow large_string array: their own buffers, offsets in front."""
    import pyarrow as pa

    offsets = array("q", chain((0,), chunks.ends))
    return pa.LargeStringArray.from_buffers(len(chunks), pa.py_buffer(offsets), pa.py_buffer(chunks.utf8))


def _metadata_of(counts: ChunkCounts) -> dict:
    return {
        "type": "bpe_lab_counts",
        "version": FORMAT_VERSION,
        "alphabet": counts.alphabet,
        "pretokenizer": counts.pretokenizer,
        "pattern": counts.pattern,
        "base_tokens": list(counts.base_tokens) if counts.alphabet == CHARACTERS else None,
        "characters": counts.characters,
        "documents": counts.documents,
        "heldout_text": counts.heldout_text,
        "heldout_characters": counts.heldout_characters,
        "heldout_documents": counts.heldout_documents,
        "training_sample": counts.training_sample,
        "inputs": [list(entry) for entry in counts.inputs],
        "rows": len(counts.chunks),
        "heldout_rows": len(counts.heldout_chunks),
        "profile": counts.profile.to_json(),  # for readers of the file; checked against the chunks on reading
        # only when there are any: a file counted without them keeps its old bytes
        **(
            {
                "special_tokens": list(counts.special_tokens),
                "special_counts": counts.special_counts.tolist(),
                "heldout_special_counts": counts.heldout_special_counts.tolist(),
            }
            if counts.special_tokens
            else {}
        ),
    }


def _checksum(metadata: dict, table) -> str:
    """SHA-256 of the metadata (without its checksum) and of the three columns' values."""
    import pyarrow as pa
    import pyarrow.compute as pc

    digest = hashlib.sha256()
    settled = {key: value for key, value in metadata.items() if key != "checksum"}
    digest.update(json.dumps(settled, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8"))
    chunks = pa.concat_arrays(table.column("chunk").chunks) if table.num_rows else pa.array([], pa.large_string())
    lengths = pc.binary_length(chunks).cast(pa.int64())
    digest.update(_values_bytes(lengths, 8))
    _, offsets, data = chunks.buffers()
    if data is not None and len(chunks):
        positions = memoryview(offsets).cast("q")  # large_string: int64 offsets into data
        start, end = positions[chunks.offset], positions[chunks.offset + len(chunks)]
        digest.update(memoryview(data)[start:end])
    for name, width in (("count", 8), ("heldout", 1)):
        column = table.column(name)
        values = pa.concat_arrays(column.chunks) if column.num_chunks else pa.array([], column.type)
        if name == "heldout":
            values = values.cast(pa.uint8())
        digest.update(_values_bytes(values, width))
    return digest.hexdigest()


def _values_bytes(values, width: int) -> memoryview:
    """The bytes of a fixed-width arrow array's values (no nulls), whatever its offset."""
    buffer = values.buffers()[1]
    if buffer is None or len(values) == 0:
        return memoryview(b"")
    return memoryview(buffer)[values.offset * width : (values.offset + len(values)) * width]


def read_counts(path: str | os.PathLike[str]) -> ChunkCounts:
    """Read a counts file written by `write_counts`, or raise a one-line `BpeError` naming it
    and what is wrong (too big, not Parquet, not a counts file, columns, checksum, values).

    Four steps, each refusing before the next costs more: the footer (rows, bytes, schema,
    metadata) before any data; the data read and validated; the checksum; every value."""
    name = str(path)
    # Opened as a stranger's file (bpe.io.untrusted): a FIFO or a device would block or never
    # end, and the size is checked on the open file before Parquet reads a byte of it.
    with open_regular_file(
        path, what="the counts file", name=name, max_bytes=MAX_COUNTS_FILE_BYTES, error=BpeError
    ) as handle:
        stored = os.fstat(handle.fileno()).st_size
        parquet = _parquet_file(handle, name)
        metadata = _metadata_from_footer(parquet, name, stored)
        table = _read_table(handle, parquet.metadata.num_rows, name, stored)
    if metadata["checksum"] != _checksum(metadata, table):
        raise BpeError(f"the counts file {name} fails its checksum: it was changed or damaged after it was written")
    _check_columns(table, metadata["rows"], name)
    return _table_of(table, metadata, name)


COLUMNS = {"chunk": "large_string", "count": "uint64", "heldout": "bool"}  # name -> Arrow type, in order


def _parquet_file(handle, name: str, **options):
    """The open file as Parquet, or why it is not."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        handle.seek(0)
        return pq.ParquetFile(handle, **options)
    except (pa.ArrowException, OSError, ValueError) as error:
        raise BpeError(f"{name} is not a counts file: not readable as Parquet ({_first_line(error)})") from None


def _metadata_from_footer(parquet, name: str, stored: int) -> dict:
    """What the footer says, checked before any data is read: at most `MAX_COUNTS_ROWS` rows
    and `MAX_COUNTS_DATA_BYTES` decompressed (and at most `MAX_INFLATION` times the ``stored``
    bytes), the three columns, BPE Lab's metadata, and as many rows as that metadata counts."""
    meta = parquet.metadata
    if meta.num_rows > MAX_COUNTS_ROWS:
        raise BpeError(
            f"the counts file {name} holds {meta.num_rows:,} rows; a counts file may hold at most "
            f"{MAX_COUNTS_ROWS:,} (a 1 GB corpus has 1-2 million distinct chunks), so it is not read"
        )
    data_bytes = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    if data_bytes > MAX_COUNTS_DATA_BYTES:
        raise BpeError(
            f"the counts file {name} holds {data_bytes:,} bytes once decompressed; a counts file may hold at "
            f"most {MAX_COUNTS_DATA_BYTES:,}, so it is not read"
        )
    check_inflation(data_bytes, stored, name=f"the counts file {name}", what="counts", error=BpeError)
    schema = parquet.schema_arrow
    found = {schema.field(i).name: str(schema.field(i).type) for i in range(len(schema))}
    if found != COLUMNS:

        def listed(columns: dict) -> str:
            return ", ".join(f"{key} ({value})" for key, value in columns.items())

        raise BpeError(f"{name} is not a counts file: its columns are {listed(found)}, not {listed(COLUMNS)}")
    raw = (schema.metadata or {}).get(METADATA_KEY)
    if raw is None:
        raise BpeError(f"{name} is not a counts file: it has no BPE Lab metadata")
    if len(raw) > MAX_METADATA_BYTES:
        raise BpeError(f"the counts file {name} has {len(raw):,} bytes of metadata, over the limit")
    metadata = _parsed_metadata(raw, name)
    if meta.num_rows != metadata["rows"] + metadata["heldout_rows"]:
        raise BpeError(
            f"the counts file {name} has {meta.num_rows:,} rows, but its metadata says "
            f"{metadata['rows'] + metadata['heldout_rows']:,}"
        )
    return metadata


def _read_table(handle, rows: int, name: str, stored: int):
    """The whole table, validated (chunks that are not UTF-8 are refused here, not met later);
    a file too big for this process's memory is said so, not called damaged.

    The chunks are read as the file encodes them, a dictionary of distinct strings and an
    index a row, and what they decode to is measured first: 1,000 rows naming one chunk of
    300 KB are 300 MB decoded from a file of a few hundred bytes, whose footer says 300 KB."""
    import pyarrow as pa

    try:
        table = _parquet_file(handle, name, read_dictionary=["chunk"]).read()
        _check_decoded_chunks(table.column("chunk"), name, stored)
        chunks = table.column("chunk").cast(pa.large_string())
        table = table.set_column(0, "chunk", chunks)
        table.validate(full=True)
    except MemoryError:  # Arrow's own (ArrowMemoryError) too: the file is too big here, not damaged
        raise BpeError(f"the counts file {name} ({rows:,} rows) does not fit in the memory this process has") from None
    except (pa.ArrowException, OSError, ValueError) as error:
        raise BpeError(f"the counts file {name} is damaged: {_first_line(error)}") from None
    if table.num_rows != rows:
        raise BpeError(f"the counts file {name} has {table.num_rows:,} rows, but its footer says {rows:,}")
    return table


def _check_decoded_chunks(column, name: str, stored: int) -> None:
    """What the dictionary-encoded ``column`` decodes to, refused before it is decoded: more
    than `MAX_INFLATION` times the file (or `MAX_COUNTS_DATA_BYTES`), or a chunk longer than
    `MAX_CHUNK_BYTES`."""
    import pyarrow as pa
    import pyarrow.compute as pc

    decoded, longest = 0, 0
    for piece in column.chunks:
        if not pa.types.is_dictionary(piece.type):  # read_dictionary gave it decoded: measured as it is
            lengths = pc.binary_length(piece)
        else:
            lengths = pc.take(pc.binary_length(piece.dictionary), piece.indices)
        decoded += pc.sum(lengths).as_py() or 0
        longest = max(longest, pc.max(lengths).as_py() or 0)
    if longest > MAX_CHUNK_BYTES:
        raise BpeError(
            f"the counts file {name} holds a chunk of {longest:,} bytes; the count phase makes none longer than "
            f"{MAX_CHUNK_BYTES:,} (a stretch of text with no place to cut it), so it is not read"
        )
    check_inflation(decoded, stored, name=f"the counts file {name}", what="chunks", error=BpeError)
    if decoded > MAX_COUNTS_DATA_BYTES:
        raise BpeError(
            f"the counts file {name} holds {decoded:,} bytes of chunks; a counts file may hold at most "
            f"{MAX_COUNTS_DATA_BYTES:,}, so it is not read"
        )


def _check_columns(table, rows: int, name: str) -> None:
    """No empty cell; the ``rows`` training rows first, then only held-out rows; no count of
    0 and no empty chunk."""
    import pyarrow.compute as pc

    if table.num_rows and any(table.column(column).null_count for column in COLUMNS):
        raise BpeError(f"the counts file {name} has empty (null) cells")
    heldout = table.column("heldout")
    if (rows and pc.any(heldout.slice(0, rows)).as_py()) or (
        table.num_rows > rows and not pc.all(heldout.slice(rows)).as_py()
    ):
        raise BpeError(f"the counts file {name} mixes held-out rows among the training rows")
    if table.num_rows and pc.min(table.column("count")).as_py() < 1:
        raise BpeError(f"the counts file {name} has a count of 0; every chunk counted occurs at least once")
    if table.num_rows and (largest := pc.max(table.column("count")).as_py()) >= COUNT_BOUND:
        raise BpeError(
            f"the counts file {name} has a count of {largest:,}; counts stop below 2**63 ({COUNT_BOUND:,}), "
            "further than any corpus counts"
        )
    if table.num_rows and pc.min(pc.binary_length(table.column("chunk"))).as_py() < 1:
        raise BpeError(f"the counts file {name} has an empty chunk")


def _table_of(table, metadata: dict, name: str) -> ChunkCounts:
    """The `ChunkCounts` the checked columns and metadata hold, once they agree: each chunk
    listed once, the characters the metadata counts, the base tokens its chunks hold."""
    rows = metadata["rows"]
    chunk_column = table.column("chunk")
    training_chunks = Chunks(chunk_column.slice(0, rows).to_pylist())
    heldout_chunks = Chunks(chunk_column.slice(rows).to_pylist())
    for part, what in ((training_chunks, "training"), (heldout_chunks, "held-out")):
        if len(set(part.encoded())) != len(part):
            raise BpeError(f"the counts file {name} lists a {what} chunk more than once")
    count_column = table.column("count")
    counts = counts_array(count_column.slice(0, rows).to_pylist())
    heldout_counts = counts_array(count_column.slice(rows).to_pylist())
    specials = metadata.get("special_tokens", [])
    special_counts = {
        key: metadata.get(key, [0] * len(specials)) for key in ("special_counts", "heldout_special_counts")
    }
    for part, part_counts, key, special_counts_of_part in (
        (training_chunks, counts, "characters", special_counts["special_counts"]),
        (heldout_chunks, heldout_counts, "heldout_characters", special_counts["heldout_special_counts"]),
    ):
        total = sum(len(chunk) * count for chunk, count in zip(part, part_counts))
        total += sum(len(special) * count for special, count in zip(specials, special_counts_of_part))
        if total != metadata[key]:
            raise BpeError(f"the counts file {name} says {key} = {metadata[key]:,}, but its chunks hold {total:,}")
    alphabet = metadata["alphabet"]
    base_tokens = base_tokens_of(training_chunks, alphabet)
    if alphabet == CHARACTERS and tuple(metadata["base_tokens"]) != base_tokens:
        raise BpeError(f"the counts file {name} lists base tokens that are not the characters of its chunks")
    table = ChunkCounts(
        chunks=training_chunks,
        counts=counts,
        alphabet=alphabet,
        pretokenizer=metadata["pretokenizer"],
        pattern=metadata["pattern"],
        base_tokens=base_tokens,
        characters=metadata["characters"],
        documents=metadata["documents"],
        heldout_text=metadata["heldout_text"],
        heldout_characters=metadata["heldout_characters"],
        heldout_documents=metadata["heldout_documents"],
        training_sample=metadata["training_sample"],
        heldout_chunks=heldout_chunks,
        heldout_counts=heldout_counts,
        inputs=tuple((entry[0], entry[1], entry[2]) for entry in metadata["inputs"]),
        special_tokens=tuple(specials),
        special_counts=counts_array(special_counts["special_counts"]),
        heldout_special_counts=counts_array(special_counts["heldout_special_counts"]),
    )
    if "profile" in metadata and profile_from_json(metadata["profile"]) != table.profile:  # older files have none
        raise BpeError(f"the counts file {name} describes its text otherwise than its chunks do (its profile)")
    return table


_METADATA_TYPES = {
    "type": str,
    "version": int,
    "alphabet": str,
    "characters": int,
    "documents": int,
    "heldout_text": str,
    "heldout_characters": int,
    "heldout_documents": int,
    "training_sample": str,
    "inputs": list,
    "rows": int,
    "heldout_rows": int,
    "checksum": str,
}


def _parsed_metadata(raw: bytes, name: str) -> dict:
    """The metadata object, every key present with the right type and a sane value."""
    # load_json: bad UTF-8, deep nesting, huge integers, duplicate keys and lone surrogates
    # ("\ud800", which the checksum's own UTF-8 encoding of the metadata cannot hold) are refused.
    metadata = load_json(raw, name=f"the counts file {name}'s metadata", what="counts metadata", error=BpeError)
    if not isinstance(metadata, dict) or metadata.get("type") != "bpe_lab_counts":
        raise BpeError(f"{name} is not a counts file: its metadata is not BPE Lab's")
    if metadata.get("version") != FORMAT_VERSION:
        raise BpeError(
            f"the counts file {name} is version {metadata.get('version')!r}; this BPE Lab reads version "
            f"{FORMAT_VERSION}: count again with this version"
        )
    for key, kind in _METADATA_TYPES.items():
        value = metadata.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise BpeError(f"the counts file {name} has no valid {key!r} in its metadata (got {value!r:.80})")
        if kind is int and value < 0:
            raise BpeError(f"the counts file {name} has {key} = {value}; it cannot be negative")
    if metadata["alphabet"] not in ALPHABETS:
        raise BpeError(f"the counts file {name} has an unknown alphabet {metadata['alphabet']!r:.80}")
    pretokenizer, pattern = metadata.get("pretokenizer"), metadata.get("pattern")
    if pretokenizer not in PRETOKENIZER_NAMES or not (pattern is None or isinstance(pattern, str)):
        raise BpeError(f"the counts file {name} has an unknown pre-tokenizer {pretokenizer!r:.80}")
    if pretokenizer in NAMED_PATTERNS and pattern != NAMED_PATTERNS[pretokenizer]:
        raise BpeError(
            f"the counts file {name} records the {pretokenizer} pre-tokenizer with another pattern than "
            "BPE Lab's; count again with this version"
        )
    try:
        settled = chunk_settings(pretokenizer, pattern)
    except BpeError as error:
        raise type(error)(f"the counts file {name}: {error}") from None
    if settled != (pretokenizer, pattern):
        raise BpeError(f"the counts file {name} has a pattern without a pre-tokenizer")
    base = metadata.get("base_tokens")
    if metadata["alphabet"] == CHARACTERS:
        if not isinstance(base, list) or not all(isinstance(token, str) and len(token) == 1 for token in base):
            raise BpeError(f"the counts file {name} has no valid list of base characters")
    elif base is not None:
        raise BpeError(f"the counts file {name} is byte-level but lists base tokens of its own")
    for entry in metadata["inputs"]:
        if not (
            isinstance(entry, list)
            and len(entry) == 3
            and isinstance(entry[0], str)
            and isinstance(entry[1], int)
            and not isinstance(entry[1], bool)
            and entry[1] >= 0
            and isinstance(entry[2], str)
        ):
            raise BpeError(f"the counts file {name} has an input entry that is not [name, size, sha256]: {entry!r:.80}")
    if "profile" in metadata:  # counts files written before profiles have none
        try:
            profile_from_json(metadata["profile"])
        except BpeError as error:
            raise BpeError(f"the counts file {name}: {error}") from None
    _check_special_metadata(metadata, name)
    for key in ("heldout_text", "training_sample"):
        if len(metadata[key]) > HELDOUT_SAMPLE_CHARACTERS:
            raise BpeError(
                f"the counts file {name} keeps {len(metadata[key]):,} characters of {key}, over the "
                f"{HELDOUT_SAMPLE_CHARACTERS:,} a counts file holds"
            )
    return metadata


def _check_special_metadata(metadata: dict, name: str) -> None:
    """The special tokens the text was cut at (`bpe.specials`: their number and lengths
    bounded) and one count of each per part; absent (a file counted without them): none."""
    specials = metadata.get("special_tokens", [])  # (never set here: the checksum covers the metadata as written)
    try:
        check_special_tokens(specials if isinstance(specials, list) else None if specials is None else str(specials))
    except BpeError as error:
        raise BpeError(f"the counts file {name}: {error}") from None
    for key in ("special_counts", "heldout_special_counts"):
        counted = metadata.get(key, [0] * len(specials))
        if not (
            isinstance(counted, list)
            and len(counted) == len(specials)
            and all(type(c) is int and 0 <= c < 1 << 63 for c in counted)
        ):
            raise BpeError(f"the counts file {name} has no valid {key!r}: one count of each special token")


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0][:200] if text else type(error).__name__
