"""The count phase: each distinct pre-tokenized chunk of a text with how often it occurs.

Training over pre-tokenized text never looks inside a chunk's neighbours, so the text
itself is not needed: the distinct chunks in order of first appearance, with their
counts, give the same merges as the text (`bpe.training.prepare_words` is exactly this
table in memory). That is what makes big corpora trainable: the table is counted in
parallel, by documents or blocks of text (`bpe.corpora.streams`), summed in input order so
that first occurrences survive, written to one Parquet file, and the merge phase runs
from it on one machine.

`ChunkCounts` is the table; `count_text` counts one text in memory; `merge_counts`
sums tables in order; `write_counts` / `read_counts` are its file. `in_memory_bytes`
says what training a text whole (no table) costs, for the cases that cannot be chunked.
"""

from __future__ import annotations

import hashlib
import json
import operator
import os
from array import array
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import accumulate, chain

from bpe.alphabet import ALPHABETS, BYTES, CHARACTERS, check_alphabet, default_base_tokens, require_unicode, symbols_of
from bpe.errors import BpeError
from bpe.files import atomic_writer
from bpe.jsonfile import load_json
from bpe.pretokenize import NAMED_PATTERNS, check_safe_pattern, chunk_counts
from bpe.untrusted import open_regular_file

CUSTOM = "custom"  # the pre-tokenizer name of a table counted with a pattern of its own
PRETOKENIZER_NAMES = (None, *NAMED_PATTERNS, CUSTOM)
HELDOUT_SAMPLE_CHARACTERS = 4_000  # the held-out text a table keeps for the app's film
FORMAT_VERSION = 1
METADATA_KEY = b"bpe_lab.counts"


def counts_array(values=()) -> array:
    """Counts as the table holds them: unsigned 64-bit, no Python object each."""
    return array("Q", values)


def _utf8_length(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8"))


class Chunks(Sequence):
    """Distinct chunks in order, as a read-only sequence of strings held as one UTF-8 text
    and where each chunk ends in it, as an Arrow string column holds them.

    A string object costs about 60 bytes for a chunk of a few characters: a table's chunks
    as a tuple of strings were 4.5 MB of the merge phase's memory at 16 M characters (75,315
    chunks), held through training; here they are under 1 MB, and pickled (from a counting
    worker) they are two buffers. Reading one makes its string."""

    __slots__ = ("_data", "_ends")

    def __init__(self, chunks: Iterable[str] = ()) -> None:
        chunks = chunks if isinstance(chunks, Collection) else list(chunks)  # read twice
        self._data = "".join(chunks).encode("utf-8")
        self._ends = array("Q", accumulate(map(_utf8_length, chunks)))

    @classmethod
    def from_parts(cls, data: bytes, ends: array) -> Chunks:
        """The chunks whose UTF-8 text is ``data``, each ending at its entry of ``ends``."""
        chunks = cls()
        chunks._data, chunks._ends = data, ends
        return chunks

    def __reduce__(self):
        return Chunks.from_parts, (self._data, self._ends)

    def __len__(self) -> int:
        return len(self._ends)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(len(self))))
        end = self._ends[index]  # IndexError as a tuple's
        index %= len(self)
        start = self._ends[index - 1] if index else 0
        return self._data[start:end].decode("utf-8")

    def __iter__(self) -> Iterator[str]:
        data, start = self._data, 0
        for end in self._ends:
            yield data[start:end].decode("utf-8")
            start = end

    def encoded(self) -> Iterator[bytes]:
        """Each chunk's UTF-8 bytes, in order."""
        data, start = self._data, 0
        for end in self._ends:
            yield data[start:end]
            start = end

    def byte_lengths(self) -> Iterator[int]:
        """Each chunk's length in UTF-8 bytes, without making its string."""
        return map(operator.sub, self._ends, chain((0,), self._ends))

    @property
    def utf8(self) -> bytes:
        """Every chunk's UTF-8 bytes, one after another."""
        return self._data

    @property
    def ends(self) -> array:
        """Where each chunk's bytes end in `utf8`."""
        return self._ends

    def __eq__(self, other) -> bool:
        if isinstance(other, Chunks):
            return self._data == other._data and self._ends == other._ends
        if isinstance(other, tuple | list):
            return len(self) == len(other) and all(map(operator.eq, self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # compared by content, as a list is

    def __repr__(self) -> str:
        shown = ", ".join(map(repr, self[:3]))
        return f"Chunks([{shown}{', ...' if len(self) > 3 else ''}], {len(self):,} chunks)"


@dataclass(frozen=True, kw_only=True)
class ChunkCounts:
    """Distinct chunks and their counts, with what the merge phase needs to know of the text.

    ``chunks`` are in order of first occurrence across the inputs in input order: the
    order in-memory training sees them, which its tie rule (first occurrence) depends on.
    ``counts[i]`` is how often ``chunks[i]`` occurs in the training part. The held-out
    part (documents set aside for the held-out curve) is counted apart, the same way, in
    ``heldout_chunks`` / ``heldout_counts``, and ``heldout_text`` keeps its first
    `HELDOUT_SAMPLE_CHARACTERS` characters.

    ``documents`` counts what was counted as one text each: a JSON line, a Parquet row, a
    passage of a text file (`bpe.corpora.streams`), a text given to `count_text`.
    ``pretokenizer`` is None, a named pattern ("whitespace", "gpt2", "gpt4") or "custom";
    ``pattern`` is the regex it ran (None for none). ``base_tokens`` are the characters of
    the training part, sorted, or the 256 byte tokens. ``inputs`` holds one
    ``(name, size in bytes, sha256)`` per input file; ``training_sample`` is the start of
    the training part, for pages that show text when nothing is held out.
    """

    chunks: Chunks  # given as any sequence of strings (a tuple), kept as `Chunks`
    counts: array
    alphabet: str
    pretokenizer: str | None
    pattern: str | None
    base_tokens: tuple
    characters: int
    documents: int
    heldout_text: str = ""
    heldout_characters: int = 0
    training_sample: str = ""  # the first HELDOUT_SAMPLE_CHARACTERS characters of the training part
    heldout_documents: int = 0
    heldout_chunks: Chunks = field(default_factory=Chunks)
    heldout_counts: array = field(default_factory=counts_array)
    inputs: tuple[tuple[str, int, str], ...] = ()

    def __post_init__(self) -> None:
        for name in ("chunks", "heldout_chunks"):
            if not isinstance(getattr(self, name), Chunks):
                object.__setattr__(self, name, Chunks(getattr(self, name)))

    def words(self) -> list:
        """``[(base symbols of a chunk, its count), ...]`` in order: what the engines take
        (`bpe.training.prepare_words` gives the same list for the text in memory)."""
        return [(symbols_of(chunk, self.alphabet), count) for chunk, count in zip(self.chunks, self.counts)]

    def heldout_words(self) -> list:
        """The held-out part as `words` gives the training part."""
        return [
            (symbols_of(chunk, self.alphabet), count) for chunk, count in zip(self.heldout_chunks, self.heldout_counts)
        ]

    @property
    def training_pretokenizer(self) -> str | None:
        """The pre-tokenizer as `bpe.training.TrainingSettings` takes it: None, a name, or
        the custom regex itself."""
        return self.pattern if self.pretokenizer == CUSTOM else self.pretokenizer

    @property
    def symbols(self) -> int:
        """How many base symbols the training part is (characters, or UTF-8 bytes)."""
        if self.alphabet == CHARACTERS:
            return self.characters
        return sum(map(operator.mul, self.chunks.byte_lengths(), self.counts))


# ==================== Settings that shape chunks


def chunk_settings(pretokenizer: str | None, pattern: str | None = None) -> tuple[str | None, str | None]:
    """``(name, pattern)`` as a table records them, from either spelling of a pre-tokenizer:
    ``("gpt2", None)`` -> ``("gpt2", GPT2_PATTERN)``; ``("custom", regex)`` or ``(regex, None)``
    (as `TrainingSettings` holds a custom pattern) -> ``("custom", regex)``, once the regex
    passes `bpe.pretokenize.check_safe_pattern`; ``None`` / ``"none"`` -> ``(None, None)``."""
    if pretokenizer is None or pretokenizer == "none":
        if pattern is not None:
            raise BpeError(
                f"a pattern ({pattern!r}) was given with pretokenizer={pretokenizer!r}; give one or the other"
            )
        return None, None
    if pretokenizer in NAMED_PATTERNS:
        if pattern is not None and pattern != NAMED_PATTERNS[pretokenizer]:
            raise BpeError(
                f"pretokenizer={pretokenizer!r} has its own pattern; give pretokenizer='custom' for {pattern!r}"
            )
        return pretokenizer, NAMED_PATTERNS[pretokenizer]
    if pretokenizer == CUSTOM:
        if pattern is None:
            raise BpeError("pretokenizer='custom' needs a pattern (a regex)")
        return CUSTOM, check_safe_pattern(pattern)
    if pattern is not None:
        raise BpeError(
            f"unknown pretokenizer {pretokenizer!r}: choose one of none, {', '.join(NAMED_PATTERNS)}, custom"
        )
    return CUSTOM, check_safe_pattern(pretokenizer)


def training_value(name: str | None, pattern: str | None) -> str | None:
    """The pre-tokenizer as `TrainingSettings` and `chunk_counts` take it: a custom one is its regex."""
    return pattern if name == CUSTOM else name


# ==================== Counting and summing


def count_text(text: str, *, alphabet: str, pretokenizer: str | None, pattern: str | None = None) -> ChunkCounts:
    """The table of one text held in memory, as one document.

    ``count_text(text, ...).words()`` equals ``prepare_words(text, alphabet, pretokenizer)``:
    the same chunks in the same order with the same counts.
    """
    check_alphabet(alphabet)
    name, pattern = chunk_settings(pretokenizer, pattern)
    if not isinstance(text, str):
        raise BpeError(f"text must be a str, got {type(text).__name__}")
    require_unicode(text, "the text")
    counted = chunk_counts(text, training_value(name, pattern))
    chunks = Chunks(counted)
    return ChunkCounts(
        chunks=chunks,
        counts=counts_array(counted.values()),
        alphabet=alphabet,
        pretokenizer=name,
        pattern=pattern,
        base_tokens=base_tokens_of(chunks, alphabet),
        characters=len(text),
        documents=1 if text else 0,
        training_sample=text[:HELDOUT_SAMPLE_CHARACTERS],
    )


def base_tokens_of(chunks, alphabet: str) -> tuple:
    """The base tokens of a table: the characters its chunks hold, sorted; or all 256 bytes."""
    if alphabet == BYTES:
        return tuple(default_base_tokens("", BYTES))
    return tuple(sorted(set("".join(chunks))))


def merge_counts(tables) -> ChunkCounts:
    """The sum of tables counted from consecutive parts of one corpus, in that order.

    A chunk keeps the place of its first occurrence in the first table that has it, so
    the result is the table of the parts laid end to end. All tables must share the
    alphabet and the pre-tokenizer.
    """
    total = CountsTotal()
    for table in tables:
        total.add(table)
    return total.result()


class CountsTotal:
    """A running `merge_counts`: tables added one at a time, in order, then `result`.
    The count phase adds each part's table as it arrives, so only the total is kept. A
    total of one table is that table: its chunks are not made into strings and back."""

    def __init__(self) -> None:
        self._first: ChunkCounts | None = None
        self._only: ChunkCounts | None = None  # the one table added, until a second comes
        self._training: dict[str, int] = {}  # dicts keep insertion order: first occurrence first
        self._heldout: dict[str, int] = {}
        self._characters: set = set()
        self._sums = {"characters": 0, "documents": 0, "heldout_characters": 0, "heldout_documents": 0}
        self._heldout_text = self._training_sample = ""
        self._inputs: list = []

    def add(self, table: ChunkCounts) -> None:
        first = self._first
        if first is None:
            self._first = self._only = table
        elif (table.alphabet, table.pretokenizer, table.pattern) != (first.alphabet, first.pretokenizer, first.pattern):
            raise BpeError(
                f"cannot add counts made with different settings: alphabet {table.alphabet!r}, pre-tokenizer "
                f"{table.pretokenizer!r} against alphabet {first.alphabet!r}, pre-tokenizer {first.pretokenizer!r}"
            )
        else:
            if self._only is not None:
                _add_into(self._training, self._only.chunks, self._only.counts)
                _add_into(self._heldout, self._only.heldout_chunks, self._only.heldout_counts)
                self._only = None
            _add_into(self._training, table.chunks, table.counts)
            _add_into(self._heldout, table.heldout_chunks, table.heldout_counts)
        if table.alphabet == CHARACTERS:
            self._characters.update(table.base_tokens)
        for key in self._sums:
            self._sums[key] += getattr(table, key)
        if len(self._heldout_text) < HELDOUT_SAMPLE_CHARACTERS:
            self._heldout_text = (self._heldout_text + table.heldout_text)[:HELDOUT_SAMPLE_CHARACTERS]
        if len(self._training_sample) < HELDOUT_SAMPLE_CHARACTERS:
            self._training_sample = (self._training_sample + table.training_sample)[:HELDOUT_SAMPLE_CHARACTERS]
        self._inputs.extend(table.inputs)

    def result(self, *, inputs: tuple | None = None) -> ChunkCounts:
        """The total so far; ``inputs`` replaces the tables' own input entries."""
        first = self._first
        if first is None:
            raise BpeError("merge_counts needs at least one table")
        base = tuple(default_base_tokens("", BYTES)) if first.alphabet == BYTES else tuple(sorted(self._characters))
        only = self._only
        return ChunkCounts(
            chunks=only.chunks if only else Chunks(self._training),
            counts=counts_array(only.counts if only else self._training.values()),
            alphabet=first.alphabet,
            pretokenizer=first.pretokenizer,
            pattern=first.pattern,
            base_tokens=base,
            heldout_text=self._heldout_text,
            training_sample=self._training_sample,
            heldout_chunks=only.heldout_chunks if only else Chunks(self._heldout),
            heldout_counts=counts_array(only.heldout_counts if only else self._heldout.values()),
            inputs=tuple(self._inputs) if inputs is None else tuple(inputs),
            **self._sums,
        )


def _add_into(total: dict, chunks, counts) -> None:
    get = total.get
    for chunk, count in zip(chunks, counts):
        total[chunk] = get(chunk, 0) + count


# ==================== The counts file: one Parquet table, checked on the way in
#
# Columns: chunk (large_string), count (uint64), heldout (bool); training rows first, in
# their order, then the held-out rows. Everything else is one JSON object in the schema's
# metadata under METADATA_KEY, with a SHA-256 over that object and the columns' bytes.
# A counts file may come from anyone, so what it can cost is bounded before it is read.

MAX_COUNTS_FILE_BYTES = 4 << 30  # 4 GiB on disk
# What a file may hold is read from its footer and refused before any of its data: 100 million
# dictionary-encoded rows of "a" are a 925 KB file that took 1.87 GB before its checksum was
# compared. The shared texts (3.7 MB, bytes, GPT-2 split) count to 31,456 distinct chunks,
# 15 bytes a row uncompressed; distinct chunks grow slower than the text, so a 1 GB corpus
# has 1-2 million. Read back, a row costs ~220 bytes (2 million rows: 439 MB), so the row
# bound, five times a 1 GB corpus or more, keeps reading one to about 2 GB.
MAX_COUNTS_ROWS = 10_000_000
MAX_COUNTS_DATA_BYTES = 1 << 30  # once decompressed; 10 million rows of real chunks are ~150 MB
MAX_METADATA_BYTES = 64 << 20  # base tokens of a character table: at most every Unicode character


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
    and what is wrong (too big, not Parquet, not a counts file, columns, checksum, values)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    name = str(path)
    # Opened as a stranger's file (bpe.untrusted): a FIFO or a device would block or never
    # end, and the size is checked on the open file before Parquet reads a byte of it.
    with open_regular_file(
        path, what="the counts file", name=name, max_bytes=MAX_COUNTS_FILE_BYTES, error=BpeError
    ) as handle:
        try:
            parquet = pq.ParquetFile(handle)
        except (pa.ArrowException, OSError, ValueError) as error:
            raise BpeError(f"{name} is not a counts file: not readable as Parquet ({_first_line(error)})") from None
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
        schema = parquet.schema_arrow
        expected = {"chunk": pa.large_string(), "count": pa.uint64(), "heldout": pa.bool_()}
        found = {schema.field(i).name: schema.field(i).type for i in range(len(schema))}
        if found != expected:
            shown = ", ".join(f"{key} ({value})" for key, value in found.items())
            raise BpeError(f"{name} is not a counts file: its columns are {shown}, not chunk, count, heldout")
        raw = (schema.metadata or {}).get(METADATA_KEY)
        if raw is None:
            raise BpeError(f"{name} is not a counts file: it has no BPE Lab metadata")
        if len(raw) > MAX_METADATA_BYTES:
            raise BpeError(f"the counts file {name} has {len(raw):,} bytes of metadata, over the limit")
        metadata = _parsed_metadata(raw, name)
        if meta.num_rows != metadata["rows"] + metadata["heldout_rows"]:  # from the footer, before the data
            raise BpeError(
                f"the counts file {name} has {meta.num_rows:,} rows, but its metadata says "
                f"{metadata['rows'] + metadata['heldout_rows']:,}"
            )
        try:
            table = parquet.read()
            table.validate(full=True)  # chunks that are not UTF-8 are refused here, not met later
        except MemoryError:  # Arrow's own (ArrowMemoryError) too: the file is too big here, not damaged
            raise BpeError(
                f"the counts file {name} ({meta.num_rows:,} rows) does not fit in the memory this process has"
            ) from None
        except (pa.ArrowException, OSError, ValueError) as error:
            raise BpeError(f"the counts file {name} is damaged: {_first_line(error)}") from None
    if table.num_rows != meta.num_rows:
        raise BpeError(f"the counts file {name} has {table.num_rows:,} rows, but its footer says {meta.num_rows:,}")
    if metadata["checksum"] != _checksum(metadata, table):
        raise BpeError(f"the counts file {name} fails its checksum: it was changed or damaged after it was written")
    if table.num_rows and any(table.column(column).null_count for column in expected):
        raise BpeError(f"the counts file {name} has empty (null) cells")
    rows = metadata["rows"]
    heldout = table.column("heldout")
    if (rows and pc.any(heldout.slice(0, rows)).as_py()) or (
        table.num_rows > rows and not pc.all(heldout.slice(rows)).as_py()
    ):
        raise BpeError(f"the counts file {name} mixes held-out rows among the training rows")
    if table.num_rows and pc.min(table.column("count")).as_py() < 1:
        raise BpeError(f"the counts file {name} has a count of 0; every chunk counted occurs at least once")
    if table.num_rows and pc.min(pc.binary_length(table.column("chunk"))).as_py() < 1:
        raise BpeError(f"the counts file {name} has an empty chunk")
    chunk_column = table.column("chunk")
    training_chunks = Chunks(chunk_column.slice(0, rows).to_pylist())
    heldout_chunks = Chunks(chunk_column.slice(rows).to_pylist())
    for part, what in ((training_chunks, "training"), (heldout_chunks, "held-out")):
        if len(set(part.encoded())) != len(part):
            raise BpeError(f"the counts file {name} lists a {what} chunk more than once")
    count_column = table.column("count")
    counts = counts_array(count_column.slice(0, rows).to_pylist())
    heldout_counts = counts_array(count_column.slice(rows).to_pylist())
    for part, part_counts, key in (
        (training_chunks, counts, "characters"),
        (heldout_chunks, heldout_counts, "heldout_characters"),
    ):
        total = sum(len(chunk) * count for chunk, count in zip(part, part_counts))
        if total != metadata[key]:
            raise BpeError(f"the counts file {name} says {key} = {metadata[key]:,}, but its chunks hold {total:,}")
    alphabet = metadata["alphabet"]
    base_tokens = base_tokens_of(training_chunks, alphabet)
    if alphabet == CHARACTERS and tuple(metadata["base_tokens"]) != base_tokens:
        raise BpeError(f"the counts file {name} lists base tokens that are not the characters of its chunks")
    return ChunkCounts(
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
    )


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
    for key in ("heldout_text", "training_sample"):
        if len(metadata[key]) > HELDOUT_SAMPLE_CHARACTERS:
            raise BpeError(
                f"the counts file {name} keeps {len(metadata[key]):,} characters of {key}, over the "
                f"{HELDOUT_SAMPLE_CHARACTERS:,} a counts file holds"
            )
    return metadata


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0][:200] if text else type(error).__name__


# ==================== What training a whole text in memory needs
#
# Character-level training with no pre-tokenizer (the tutorial's semantics) merges across
# the whole text, so it cannot be counted in chunks: the fast engine holds every position.
# Peak resident size of `train_steps` (fast engine, top_k=10, vocab 1,000) in a fresh
# interpreter at 1, 4 and 8 M characters of the shared English texts, from
# `python -m bpe.benchmarks.in_memory`: characters 18.9 bytes per character (+40 MiB),
# bytes 27.7 (+38 MiB), either with GPT-2's split 16.8 (+24 MiB: the text and its chunks,
# before they are counted). The figures below round those up by about 10%.

IN_MEMORY_FIXED_BYTES = 40 << 20
IN_MEMORY_BYTES_PER_CHARACTER = {
    (CHARACTERS, False): 21.0,  # no pre-tokenizer: the whole text is one sequence of positions
    (BYTES, False): 31.0,  # ... one position per UTF-8 byte, and byte tokens
    (CHARACTERS, True): 19.0,  # pre-tokenized: the text, its chunks, then the distinct ones
    (BYTES, True): 19.0,
}


def in_memory_bytes(characters: int, alphabet: str = CHARACTERS, pretokenizer: str | None = None) -> int:
    """About how many bytes of memory training ``characters`` characters in one process
    takes (the fast engine, peak resident size), so a caller can refuse what will not fit."""
    check_alphabet(alphabet)
    split = not (pretokenizer is None or pretokenizer == "none")
    return int(IN_MEMORY_FIXED_BYTES + IN_MEMORY_BYTES_PER_CHARACTER[alphabet, split] * max(0, characters))


def check_fits_in_memory(characters: int, alphabet: str = CHARACTERS, pretokenizer: str | None = None) -> None:
    """`BpeError` when training ``characters`` characters in memory needs more memory than
    this machine has available now (nothing is refused when that cannot be read)."""
    needed = in_memory_bytes(characters, alphabet, pretokenizer)
    available = available_memory_bytes()
    if available is not None and needed > available:
        advice = (
            "train on fewer characters"
            if pretokenizer is None or pretokenizer == "none"
            else "count it with python -m bpe count and train from the counts, or train on fewer characters"
        )
        raise BpeError(
            f"training {characters:,} characters in memory needs about {_memory(needed)}, and this "
            f"machine has {_memory(available)} available: {advice}"
        )


def _memory(size_bytes: int) -> str:
    """2.0 GiB, or 300 MiB below a GiB (where a tenth of a GiB says too little)."""
    return f"{size_bytes / 2**30:.1f} GiB" if size_bytes >= 2**30 else f"{size_bytes / 2**20:,.0f} MiB"


def available_memory_bytes() -> int | None:
    """The memory this machine can give a new task now (Linux's MemAvailable), or None
    when it cannot be read (then callers do not refuse on memory)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None
