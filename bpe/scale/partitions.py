"""A corpus cut into partitions that workers read on their own, each read as documents.

A `Partition` is a byte range of a plain file, a row group of Parquet, a run of an Arrow
file's record batches, or a whole compressed file (gzip or Zstandard); `documents` reads
one in bounded pieces. A document is a line of JSON, a row of Parquet or Arrow, and for a
text file a *passage* of about `ReadOptions.passage_bytes`. A 40 MB
text file with the defaults (16 MB partitions for a corpus that small, 64 KB passages) is three partitions of
about 256, 256 and 128 passages.

Memory stays the same however big the corpus: a text file is read in blocks and cut into
passages, and a passage ends only where the pre-tokenizer cuts too (`bpe.scale.safe_cuts`),
so counting passage by passage gives exactly the counts of the whole text. A custom
pattern has no such rule, so its text files are read whole, up to `MAX_UNCUT_BYTES`.

Passage boundaries sit where the first safe cut at or after each multiple of
``passage_bytes`` falls, counted from the start of the file, so they are the same however
the file is split into partitions, and held-out documents are chosen by a hash of where
they start: what is counted never depends on the number of workers.

Bad input raises `CorpusError` naming the file and the problem (and the byte or line).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import math
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from bpe.errors import BpeError, CorpusError
from bpe.io.jsonfile import load_json_text
from bpe.io.untrusted import UTF8_BOM
from bpe.scale.corpus_files import ARROW, GZIP, JSONL, PARQUET, ZSTD, CorpusFile
from bpe.scale.safe_cuts import CUT_RULES, context_bytes, cut_rule, first_cut

MAX_HELDOUT_FRACTION = 0.9
# One JSON line (one document), read whole: the line, its text and the text's UTF-8 are each
# held while it is cut into passages, so a document costs about four times its size.
MAX_LINE_BYTES = 64 << 20
MAX_UNCUT_BYTES = 256 << 20  # a text file that cannot be cut (a custom pattern)
MAX_PASSAGE_BYTES = 64 << 20  # the longest stretch of text without a safe cut
MAX_ROW_GROUP_BYTES = 2 << 30  # one Parquet row group, decompressed, or one Arrow record batch


@dataclass(frozen=True, kw_only=True)
class ReadOptions:
    """How a corpus is read: which field or column holds the text, how much to read, what
    to hold out. The sizes are the unit of work and of memory; tests make them tiny."""

    field: str = "text"  # the key of a .jsonl record that holds its text
    column: str = "text"  # the Parquet column that holds the text
    max_characters: int | None = None  # stop after this many characters of the corpus
    max_document_characters: int | None = None  # keep the first this many characters of each document
    heldout_fraction: float = 0.0  # documents set aside for the held-out curve (chosen by a seeded hash)
    seed: int = 0
    block_bytes: int = 1 << 20  # read this much at a time
    passage_bytes: int = 64 << 10  # a text file's documents are about this long
    # one worker's share of a plain file (a multiple of passage_bytes); None: by the corpus's size
    # (`partition_size`)
    partition_bytes: int | None = None

    def __post_init__(self) -> None:
        for name in ("max_characters", "max_document_characters"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
                raise BpeError(f"{name}={value!r} must be a whole number of at least 1 (or None for no limit)")
        fraction = self.heldout_fraction
        if (
            not isinstance(fraction, int | float)
            or isinstance(fraction, bool)
            or not (math.isfinite(fraction) and 0 <= fraction <= MAX_HELDOUT_FRACTION)
        ):
            raise BpeError(
                f"heldout_fraction={fraction!r} is out of range; use a number from 0 (nothing held out) "
                f"to {MAX_HELDOUT_FRACTION}"
            )
        for name in ("block_bytes", "passage_bytes", "partition_bytes"):
            value = getattr(self, name)
            if name == "partition_bytes" and value is None:
                continue
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise BpeError(f"{name}={value!r} must be a whole number of at least 1")
        if self.partition_bytes is not None and self.partition_bytes % self.passage_bytes:
            raise BpeError(
                f"partition_bytes={self.partition_bytes} must be a multiple of passage_bytes={self.passage_bytes}"
            )
        for name in ("field", "column"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name):
                raise BpeError(f"{name}={getattr(self, name)!r} must be the name of a {name}")


# ==================== Work: partitions of the input

# A partition's size when not given: an eighth of the corpus, within these. Each partition
# chunks its own distinct segments and sends its own table to be added in order, so a
# segment that recurs everywhere is chunked and added once per partition: for 256 MB, 16 MB
# partitions did a fifth more work than 64 MB ones (docs/speed.md). Eight leave two
# workers (or a small cluster) an even share and a progress line that moves.
MIN_PARTITION_BYTES = 16 << 20
MAX_PARTITION_BYTES = 128 << 20


def partition_size(options: ReadOptions, total_bytes: int) -> int:
    """``options.partition_bytes``, or for None an eighth of ``total_bytes`` between
    `MIN_PARTITION_BYTES` and `MAX_PARTITION_BYTES`, a whole number of passages:
    16 MB for 64 MB, 32 MB for 256 MB, 128 MB for 1 GB."""
    if options.partition_bytes is not None:
        return options.partition_bytes
    size = min(max(total_bytes // 8, MIN_PARTITION_BYTES), MAX_PARTITION_BYTES)
    return max(size // options.passage_bytes, 1) * options.passage_bytes


@dataclass(frozen=True)
class Partition:
    """One worker's share: bytes ``[start, end)`` of a plain text or JSON-lines file
    (``end`` None: to the end), or row groups ``[start, end)`` of a Parquet file (record
    batches of an Arrow file). Text
    starts at the first safe cut at or after ``start`` (a line start for JSON lines)."""

    file: CorpusFile
    input_index: int
    start: int
    end: int | None
    size: int  # bytes it stands for, for progress

    @property
    def first(self) -> bool:
        return self.start == 0


def partitions(files: Sequence[CorpusFile], options: ReadOptions, pretokenizer: str | None) -> list[Partition]:
    """The work for ``files``, in input order. A plain file is split every
    ``partition_bytes`` when its pattern has a cut rule (JSON lines always), a compressed file
    is one partition, a Parquet file one per row group, an Arrow file a run of record batches of
    about ``partition_bytes``. A text file read with a cap per
    document (``max_document_characters``) is one partition: only its start is read."""
    parts: list[Partition] = []
    size = partition_size(options, sum(file.size for file in files))
    for index, file in enumerate(files):
        if file.kind == PARQUET:
            for group, group_bytes in enumerate(_row_group_sizes(file, options.column)):
                parts.append(Partition(file, index, group, group + 1, group_bytes))
            continue
        if file.kind == ARROW:
            parts.extend(_arrow_partitions(file, index, options.column, size))
            continue
        splittable = not file.compressed and (
            file.kind == JSONL or (pretokenizer in CUT_RULES and options.max_document_characters is None)
        )
        if not splittable or file.size <= size:
            parts.append(Partition(file, index, 0, None, file.size))
            continue
        for start in range(0, file.size, size):
            end = start + size
            parts.append(Partition(file, index, start, end if end < file.size else None, min(end, file.size) - start))
    return parts


def _row_group_sizes(file: CorpusFile, column: str) -> list[int]:
    """Each row group's size on disk, once the file is known to hold a text column."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        metadata = pq.ParquetFile(file.path).metadata
        schema = metadata.schema.to_arrow_schema()
    except (pa.ArrowException, OSError, ValueError) as error:
        raise CorpusError(f"{file.name} is not a readable Parquet file: {_first_line(error)}") from None
    _require_text_column(file, schema, column)
    sizes = []
    for group in range(metadata.num_row_groups):
        row_group = metadata.row_group(group)
        if row_group.total_byte_size > MAX_ROW_GROUP_BYTES:
            raise CorpusError(
                f"{file.name}: row group {group} is {row_group.total_byte_size:,} bytes decompressed, over the "
                f"limit of {MAX_ROW_GROUP_BYTES:,}; write the file with smaller row groups"
            )
        sizes.append(sum(row_group.column(i).total_compressed_size for i in range(row_group.num_columns)))
    return sizes


def _require_text_column(file: CorpusFile, schema, column: str) -> None:
    """`CorpusError` unless the Arrow ``schema`` (of a Parquet or Arrow file) has a text ``column``."""
    import pyarrow as pa

    if column not in schema.names:
        shown = ", ".join(schema.names[:20]) or "none"
        raise CorpusError(f"{file.name} has no column {column!r} (its columns: {shown}); name one with --column")
    kind = schema.field(column).type
    text_types = (pa.types.is_string, pa.types.is_large_string, pa.types.is_string_view)
    stored = kind.value_type if pa.types.is_dictionary(kind) else kind  # a dictionary of texts reads as texts
    if not any(is_text(stored) for is_text in text_types):
        raise CorpusError(f"{file.name}: column {column!r} holds {kind}, not text")


def _arrow_partitions(file: CorpusFile, index: int, column: str, partition_bytes: int) -> list[Partition]:
    """An Arrow file's record batches, in runs of about ``partition_bytes`` each (a
    `datasets` shard holds batches of a thousand rows)."""
    parts: list[Partition] = []
    start = size = 0
    with _arrow_batches(file) as (schema, batches):
        _require_text_column(file, schema, column)
        number = 0
        for number, batch in enumerate(batches, start=1):
            if batch.nbytes > MAX_ROW_GROUP_BYTES:  # its texts are made into strings at once
                raise CorpusError(
                    f"{file.name}: record batch {number - 1} is {batch.nbytes:,} bytes, over the limit of "
                    f"{MAX_ROW_GROUP_BYTES:,}; write the file with smaller batches"
                )
            size += batch.nbytes
            if size >= partition_bytes:
                parts.append(Partition(file, index, start, number, size))
                start, size = number, 0
        if number > start:
            parts.append(Partition(file, index, start, number, size))
    return parts


@contextmanager
def _arrow_batches(file: CorpusFile) -> Iterator[tuple]:
    """``with _arrow_batches(file) as (schema, batches)``: an Arrow file, memory-mapped, as
    its schema and its record batches in order, in either of Arrow's layouts: the stream
    (what ``datasets`` writes) or the file with its footer. Any error is one line naming it."""
    import pyarrow as pa

    def refused(error: BaseException) -> CorpusError:
        return CorpusError(f"{file.name} is not a readable Arrow file: {_first_line(error)}")

    def checked(batches: Iterator) -> Iterator:
        try:
            yield from batches
        except (pa.ArrowException, OSError, ValueError) as error:
            raise refused(error) from None

    try:
        source = pa.memory_map(str(file.path))
    except (pa.ArrowException, OSError) as error:
        raise refused(error) from None
    with source:
        try:
            if source.read(6) == b"ARROW1":  # the file layout: its footer indexes the batches
                reader = pa.ipc.open_file(source)
                batches = map(reader.get_batch, range(reader.num_record_batches))
            else:
                source.seek(0)
                reader = pa.ipc.open_stream(source)
                batches = iter(reader)
        except (pa.ArrowException, OSError, ValueError) as error:
            raise refused(error) from None
        yield reader.schema, checked(batches)


# ==================== Reading: documents of a partition


@dataclass(frozen=True)
class Document:
    """A document and where it starts (a byte offset, or a Parquet row number): the key
    that decides, with the seed, whether it is held out."""

    key: int
    text: str


def documents(
    partition: Partition, options: ReadOptions, pretokenizer: str | None, special_tokens=()
) -> Iterator[Document]:
    """The documents of one partition, in order; a text file's passages end where the
    pre-tokenizer certainly cuts, clear of the ``special_tokens`` (`bpe.scale.safe_cuts.cut_rule`)."""
    file = partition.file
    if file.kind == PARQUET:
        yield from _parquet_documents(partition, options)
    elif file.kind == ARROW:
        yield from _arrow_documents(partition, options)
    elif file.kind == JSONL:
        yield from _jsonl_documents(partition, options)
    else:
        yield from _text_passages(partition, options, cut_rule(pretokenizer, special_tokens))


def document_passages(text: str, pretokenizer: str | None, passage_bytes: int, *, where) -> Iterator[str]:
    """A document's text (a JSON line's, a Parquet row's) in passages of about
    ``passage_bytes``, each ending at a safe cut (`bpe.scale.safe_cuts`), as a text file's
    are: counted one after another they give the counts of the whole text, and a tally
    never holds more than one passage's runs (a 100 MB document counted whole made a
    string of each of its runs at once: 2.7 GB). A document shorter than a passage, or
    read with a pattern that has no cut rule, is one passage. ``where()`` names the
    document for a message: a stretch longer than `MAX_PASSAGE_BYTES` with no cut is refused,
    as it is in a text file (it would be one chunk that long)."""
    rule = CUT_RULES.get(pretokenizer)
    if rule is None or len(text) <= passage_bytes // 4:  # a UTF-8 character is at most 4 bytes
        yield text
        return
    data = text.encode("utf-8")
    start = 0
    while start < len(data):
        if start + passage_bytes >= len(data):
            yield data[start:].decode("utf-8")
            return
        limit = min(len(data), start + MAX_PASSAGE_BYTES)
        cut = next(rule(data, start + passage_bytes, limit), None)
        if cut is None and limit < len(data):
            raise CorpusError(
                f"{where()}: found no place from byte {start:,} of its text on, within {MAX_PASSAGE_BYTES:,} bytes, "
                "where the pre-tokenizer certainly cuts (a space or newline between words); a chunk that long "
                "is refused"
            )
        stop = len(data) if cut is None else cut
        yield data[start:stop].decode("utf-8")
        start = stop


def is_heldout(options: ReadOptions, input_index: int, key: int) -> bool:
    """Whether a document is held out: a hash of the seed and where it is, below the fraction."""
    if options.heldout_fraction <= 0:
        return False
    digest = hashlib.blake2b(f"{options.seed}:{input_index}:{key}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") < options.heldout_fraction * 2**64


def _open(file: CorpusFile):
    try:
        if file.compressed == GZIP:
            return gzip.open(file.path, "rb")
        if file.compressed == ZSTD:
            return io.BufferedReader(_ZstdStream(file.path), 1 << 20)
        return file.path.open("rb")
    except OSError as error:
        raise CorpusError(f"cannot read {file.name}: {error.strerror or error}") from None


class _ZstdStream(io.RawIOBase):
    """A Zstandard file decompressed as it is read, by pyarrow's codec (no package of its
    own): a raw stream, so that `io.BufferedReader` gives it lines. A damaged stream is a
    `_ZstdError`, an early end an `EOFError`, as gzip's."""

    def __init__(self, path) -> None:
        import pyarrow as pa

        self._file = pa.OSFile(str(path))
        self._stream = pa.CompressedInputStream(self._file, "zstd")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        try:
            data = self._stream.read(len(buffer))
        except OSError as error:
            if "truncated" in str(error).lower():
                raise EOFError(str(error)) from None
            raise _ZstdError(_first_line(error)) from None
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            self._stream.close()
            self._file.close()
        super().close()


class _ZstdError(ValueError):
    """A Zstandard stream that does not decompress."""


class _Reader:
    """Bytes of a file read in blocks into one buffer, with the byte offset of its start,
    and every read error turned into one `CorpusError` line naming the file."""

    def __init__(self, file: CorpusFile, handle, origin: int, block_bytes: int, context: int) -> None:
        self.file, self.handle, self.origin, self.block_bytes = file, handle, origin, block_bytes
        self.context = context  # bytes kept before a cut and read past it (`bpe.scale.safe_cuts.context_bytes`)
        self.buffer = bytearray()  # grows by blocks; the passages before are deleted from its front
        self.at_end = False

    def more(self) -> bool:
        """Read one more block; False at the end of the file."""
        if self.at_end:
            return False
        try:
            block = self.handle.read(self.block_bytes)
        except (EOFError, gzip.BadGzipFile, zlib.error, _ZstdError) as error:
            raise _compression_error(self.file, error) from None
        except OSError as error:
            raise CorpusError(f"cannot read {self.file.name}: {error.strerror or error}") from None
        if not block:
            self.at_end = True
            return False
        self.buffer += block
        return True

    def drop_before(self, offset: int) -> None:
        """Forget what comes before byte ``offset`` of the file, keeping a little context."""
        keep = offset - self.context - self.origin
        if keep > 0:
            del self.buffer[:keep]
            self.origin += keep

    def first_cut(self, rule, offset: int) -> int | None:
        """The first safe cut at or after byte ``offset`` of the file (reading on as
        needed, up to `MAX_PASSAGE_BYTES`), or None at the end of the file."""
        start = offset - self.origin
        while True:
            found = first_cut(rule, self.buffer, start, final=self.at_end)
            if found is not None:
                return self.origin + found
            if self.at_end:
                return None
            start = max(start, len(self.buffer) - self.context)  # what is before was searched
            self.more()
            if self.origin + len(self.buffer) - offset > MAX_PASSAGE_BYTES:
                raise CorpusError(
                    f"{self.file.name}: found no place from byte {offset:,} on, within {MAX_PASSAGE_BYTES:,} bytes, "
                    "where the pre-tokenizer certainly cuts (a space or newline between words); split the text "
                    "into documents (.jsonl or .parquet) to read it"
                )

    def read_to_end(self, offset: int, limit: int) -> int:
        """Read the whole rest of the file, refusing more than ``limit`` bytes from ``offset``."""
        while self.more():
            if self.origin + len(self.buffer) - offset > limit:
                raise CorpusError(
                    f"{self.file.name} is over {limit:,} bytes: a custom pattern has no place where it "
                    "certainly cuts, so a text file is read whole, up to that size; split it into documents "
                    "(.jsonl or .parquet) or use a named pre-tokenizer"
                )
        return self.origin + len(self.buffer)


def _text_passages(partition: Partition, options: ReadOptions, rule) -> Iterator[Document]:
    """A text file's passages within a partition: each ends at the first safe cut at or
    after the next multiple of ``passage_bytes`` (of the file), the last at the
    partition's end, which is the first safe cut at or after ``end``."""
    file = partition.file
    with _open(file) as handle:
        origin = max(partition.start - context_bytes(rule), 0)
        if origin:
            handle.seek(origin)
        reader = _Reader(file, handle, origin, options.block_bytes, context_bytes(rule))
        if partition.first:
            while len(reader.buffer) < len(UTF8_BOM) and reader.more():
                pass
            start = len(UTF8_BOM) if reader.buffer.startswith(UTF8_BOM) else 0
        else:
            start = reader.first_cut(rule, partition.start)
            if start is None:
                return
        end = partition.end
        if rule is None:  # no safe cut: the whole file is one passage
            stop = reader.read_to_end(start, MAX_UNCUT_BYTES)
            yield Document(start, _decoded(reader, start, stop))
            return
        if end is not None and start >= end:  # only after a byte-order mark longer than the partition
            cut = reader.first_cut(rule, start)  # = the first safe cut at or after end: none is inside the mark
            stop = cut if cut is not None else reader.read_to_end(start, MAX_PASSAGE_BYTES)
            if stop > start:
                yield Document(start, _decoded(reader, start, stop))
            return
        while end is None or start < end:
            threshold = (start // options.passage_bytes + 1) * options.passage_bytes
            cut = reader.first_cut(rule, threshold)
            stop = cut if cut is not None else reader.origin + len(reader.buffer)
            if stop > start:
                yield Document(start, _decoded(reader, start, stop))
            if cut is None:
                return
            reader.drop_before(cut)
            start = cut


def _decoded(reader: _Reader, start: int, stop: int) -> str:
    """Bytes ``[start, stop)`` of the file as text, or why not (bad UTF-8, a NUL byte)."""
    data = reader.buffer[start - reader.origin : stop - reader.origin]
    nul = data.find(b"\x00")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        bad = start + error.start
        if nul == -1 or start + nul > bad:
            raise CorpusError(
                f"{reader.file.name} is not valid UTF-8: byte 0x{data[error.start]:02X} at byte offset {bad:,} "
                f"({_line_at(reader.file, bad)}) cannot be decoded; save the file as UTF-8"
            ) from None
    if nul != -1:
        raise CorpusError(
            f"{reader.file.name} looks binary, not text: it holds a NUL byte at byte offset {start + nul:,} "
            f"({_line_at(reader.file, start + nul)})"
        )
    return text


def _jsonl_documents(partition: Partition, options: ReadOptions) -> Iterator[Document]:
    """The records of the lines that start in ``[start, end)``, each the text of its field."""
    file = partition.file
    with _open(file) as handle:
        position = 0
        try:
            if partition.start:  # the line holding byte start - 1 belongs to the partition before
                handle.seek(partition.start - 1)
                position = partition.start - 1 + len(handle.readline(MAX_LINE_BYTES + 1))
            while partition.end is None or position < partition.end:
                line = handle.readline(MAX_LINE_BYTES + 1)
                if not line:
                    return
                if len(line) > MAX_LINE_BYTES:
                    raise CorpusError(
                        f"{file.name}: {_line_at(file, position)} is over {MAX_LINE_BYTES:,} bytes; a JSON line is "
                        "one document, and documents that long are refused"
                    )
                offset, position = position, position + len(line)
                if offset == 0 and line.startswith(UTF8_BOM):
                    line = line[len(UTF8_BOM) :]
                text = _record_text(file, line, offset, options.field)
                if text is not None:
                    yield Document(offset, text)
        except (EOFError, gzip.BadGzipFile, zlib.error, _ZstdError) as error:
            raise _compression_error(file, error) from None
        except OSError as error:
            raise CorpusError(f"cannot read {file.name}: {error.strerror or error}") from None


def _record_text(file: CorpusFile, line: bytes, offset: int, field: str) -> str | None:
    """The text of one JSON line's field; None for a blank line."""
    try:
        decoded = line.decode("utf-8")
    except UnicodeDecodeError as error:
        bad = offset + error.start
        raise CorpusError(
            f"{file.name} is not valid UTF-8: byte 0x{line[error.start]:02X} at byte offset {bad:,} "
            f"({_line_at(file, bad)}) cannot be decoded"
        ) from None
    if not decoded.strip():
        return None
    # bpe.io.jsonfile's reading: a key twice in one record, a number of 100,000 digits and
    # nesting too deep are each named as they are, where the line is in the file
    record = load_json_text(
        decoded, name=lambda: f"{file.name}: {_line_at(file, offset)}", what="a corpus record", error=CorpusError
    )
    if not isinstance(record, dict):
        raise CorpusError(f"{file.name}: {_line_at(file, offset)} is not a JSON object, so it has no field {field!r}")
    if field not in record:
        shown = ", ".join(list(record)[:10]) or "none"
        raise CorpusError(
            f"{file.name}: {_line_at(file, offset)} has no field {field!r} (its fields: {shown}); name one with --field"
        )
    text = record[field]
    if not isinstance(text, str):
        raise CorpusError(
            f"{file.name}: {_line_at(file, offset)}: field {field!r} holds {type(text).__name__}, not text"
        )
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise CorpusError(
            f"{file.name}: {_line_at(file, offset)}: field {field!r} holds a lone surrogate (\\ud800-\\udfff), "
            "not a Unicode character"
        ) from None
    return text


def _parquet_documents(partition: Partition, options: ReadOptions) -> Iterator[Document]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    file = partition.file
    try:
        parquet = pq.ParquetFile(file.path)
        first_row = sum(parquet.metadata.row_group(g).num_rows for g in range(partition.start))
        for group in range(partition.start, partition.end):
            column = parquet.read_row_group(group, columns=[options.column]).column(0)
            yield from _column_documents(file, options.column, column, first_row)
            first_row += len(column)
    except (pa.ArrowException, OSError, UnicodeDecodeError) as error:
        raise CorpusError(f"{file.name}: cannot read row group {partition.start}: {_first_line(error)}") from None


def _arrow_documents(partition: Partition, options: ReadOptions) -> Iterator[Document]:
    """The rows of an Arrow file's batches ``[start, end)``; the batches before are passed
    over (memory-mapped: their text is never read)."""
    file, first_row = partition.file, 0
    with _arrow_batches(file) as (schema, batches):
        _require_text_column(file, schema, options.column)
        for number, batch in enumerate(batches):
            if number >= partition.end:
                return
            if number >= partition.start:
                yield from _column_documents(file, options.column, batch.column(options.column), first_row)
            first_row += batch.num_rows


def _column_documents(file: CorpusFile, name: str, column, first_row: int) -> Iterator[Document]:
    """The texts of a column (Parquet's or Arrow's), each a document numbered by its row; a
    null is an error naming its row."""
    if column.null_count:
        nulls = column.is_null().to_pylist().index(True)
        raise CorpusError(f"{file.name}: row {first_row + nulls:,} of column {name!r} is empty (null), not text")
    for row, text in enumerate(column.to_pylist(), start=first_row):
        yield Document(row, text)


def _compression_error(file: CorpusFile, error: BaseException) -> CorpusError:
    if isinstance(error, EOFError):
        return CorpusError(f"{file.name} is a truncated {file.compressed} file: the compressed stream ends early")
    return CorpusError(f"{file.name} is not a valid {file.compressed} file ({_first_line(error)})")


def _line_at(file: CorpusFile, offset: int) -> str:
    """'line N' of a byte offset (counted from 1), read again from the file: errors only."""
    newlines = 0
    try:
        with _open(file) as handle:
            remaining = offset
            while remaining > 0:
                block = handle.read(min(remaining, 1 << 20))
                if not block:
                    break
                newlines += block.count(b"\n")
                remaining -= len(block)
    except (OSError, EOFError, zlib.error, _ZstdError):
        return f"byte {offset:,}"
    return f"line {newlines + 1:,}"


def _first_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return lines[0][:200] if lines else type(error).__name__
