"""The chunk table: each distinct pre-tokenized chunk of a text with how often it occurs.

Training over pre-tokenized text never looks inside a chunk's neighbours, so the text
itself is not needed: the distinct chunks in order of first appearance, with their
counts, give the same merges as the text (`bpe.training.prepare_words` is exactly this
table in memory). ``"low low lower"`` split on whitespace is the table::

    "low": 1, " low": 1, " lower": 1

and training on it merges exactly as on the text. That is what makes big corpora
trainable: the table is counted in parallel, by partitions of the corpus
(`bpe.scale.count_phase`), summed in input order so that first occurrences survive,
written to one file (`bpe.scale.counts_file`), and the merge phase runs from it on one
machine (`bpe.scale.merge_phase`).

`ChunkCounts` is the table and `Chunks` its column of strings; `chunk_settings` names the
pre-tokenizer a table records; `count_text` counts one text in memory; `merge_counts` and
`CountsTotal` sum tables in order.
"""

from __future__ import annotations

import operator
from array import array
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import accumulate, chain

from bpe.alphabet import BYTES, CHARACTERS, check_alphabet, default_base_tokens, require_unicode, symbols_of
from bpe.errors import BpeError
from bpe.pattern_safety import check_safe_pattern
from bpe.pretokenize import NAMED_PATTERNS, ChunkTally
from bpe.scale.corpus_profile import CorpusProfile, profile_of_chunks
from bpe.specials import check_special_tokens, special_words

CUSTOM = "custom"  # the pre-tokenizer name of a table counted with a pattern of its own
PRETOKENIZER_NAMES = (None, *NAMED_PATTERNS, CUSTOM)
HELDOUT_SAMPLE_CHARACTERS = 4_000  # the held-out text a table keeps for the app's film


def counts_array(values=()) -> array:
    """Counts as the table holds them: unsigned 64-bit, no Python object each."""
    return array("Q", values)


def _utf8_length(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8"))


class Chunks(Sequence):
    """Distinct chunks in order, as a read-only sequence of strings held as one UTF-8 text
    and where each chunk ends in it, as an Arrow string column holds them.

    A string object costs about 60 bytes for a chunk of a few characters, held through the
    whole merge phase; here the chunks are their UTF-8 bytes and one 8-byte end each, and
    pickled (from a counting worker) they are two buffers. Reading one makes its string::

        Chunks(["low", " lower"]).utf8 == b"low lower";  .ends == array('Q', [3, 9])
    """

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
    passage of a text file (`bpe.scale.partitions`), a text given to `count_text`.
    ``pretokenizer`` is None, a named pattern ("whitespace", "gpt2", "gpt4") or "custom";
    ``pattern`` is the regex it ran (None for none). ``base_tokens`` are the characters of
    the training part, sorted, or the 256 byte tokens. ``inputs`` holds one
    ``(name, size in bytes, sha256)`` per input file; ``training_sample`` is the start of
    the training part, for pages that show text when nothing is held out.

    ``special_tokens`` are what the text was cut at before it was chunked (`bpe.specials`):
    no chunk holds one; ``special_counts[i]`` is how often ``special_tokens[i]`` occurs in
    the training part (``heldout_special_counts`` in the held-out part), and ``characters``
    counts their characters too.
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
    special_tokens: tuple[str, ...] = ()
    special_counts: array = field(default_factory=counts_array)  # one per special token, or none
    heldout_special_counts: array = field(default_factory=counts_array)

    def __post_init__(self) -> None:
        for name in ("chunks", "heldout_chunks"):
            if not isinstance(getattr(self, name), Chunks):
                object.__setattr__(self, name, Chunks(getattr(self, name)))
        object.__setattr__(self, "special_tokens", check_special_tokens(self.special_tokens))
        for name in ("special_counts", "heldout_special_counts"):
            counted = getattr(self, name)
            if not len(counted):
                object.__setattr__(self, name, counts_array([0] * len(self.special_tokens)))
            elif len(counted) != len(self.special_tokens):
                raise BpeError(f"{name} holds {len(counted)} counts for {len(self.special_tokens)} special tokens")

    def words(self) -> list:
        """``[(base symbols of a chunk, its count), ...]`` in order, then each special token
        that occurs as a word of one symbol: what the engines take (`bpe.training.prepare_words`
        gives the same list for the text in memory)."""
        words = [(symbols_of(chunk, self.alphabet), count) for chunk, count in zip(self.chunks, self.counts)]
        return words + special_words(dict(zip(self.special_tokens, self.special_counts)), self.alphabet)

    def stream_words(self, *, heldout: bool = False) -> Iterator[tuple]:
        """`words` (or `heldout_words`) one at a time, in the form the engines read
        cheapest: a chunk of the byte alphabet as its UTF-8 bytes (each byte the base token
        of its value), a chunk of characters as its string."""
        chunks, counts = (self.heldout_chunks, self.heldout_counts) if heldout else (self.chunks, self.counts)
        return zip(chunks.encoded() if self.alphabet == BYTES else chunks, counts)

    def heldout_words(self) -> list:
        """The held-out part as `words` gives the training part."""
        words = [
            (symbols_of(chunk, self.alphabet), count) for chunk, count in zip(self.heldout_chunks, self.heldout_counts)
        ]
        return words + special_words(dict(zip(self.special_tokens, self.heldout_special_counts)), self.alphabet)

    @property
    def training_pretokenizer(self) -> str | None:
        """The pre-tokenizer as `bpe.training.TrainingSettings` takes it: None, a name, or
        the custom regex itself."""
        return self.pattern if self.pretokenizer == CUSTOM else self.pretokenizer

    @cached_property
    def profile(self) -> CorpusProfile:
        """What the training part is made of (`bpe.scale.corpus_profile`): its characters, UTF-8
        bytes, multi-byte characters and largest code points, from the table (each distinct
        chunk once, and each special token as often as it occurs), as the run file records
        them for the pages."""
        return profile_of_chunks(chain(self.chunks, self.special_tokens), chain(self.counts, self.special_counts))

    @property
    def symbols(self) -> int:
        """How many tokens the training part is before any merge: a base symbol a character
        (or UTF-8 byte), one a special token."""
        specials = sum(self.special_counts)
        if self.alphabet == CHARACTERS:
            return (
                self.characters - sum(map(operator.mul, map(len, self.special_tokens), self.special_counts)) + specials
            )
        return sum(map(operator.mul, self.chunks.byte_lengths(), self.counts)) + specials


# ==================== Settings that shape chunks


def chunk_settings(pretokenizer: str | None, pattern: str | None = None) -> tuple[str | None, str | None]:
    """``(name, pattern)`` as a table records them, from either spelling of a pre-tokenizer:
    ``("gpt2", None)`` -> ``("gpt2", GPT2_PATTERN)``; ``("custom", regex)`` or ``(regex, None)``
    (as `TrainingSettings` holds a custom pattern) -> ``("custom", regex)``, once the regex
    passes `bpe.pattern_safety.check_safe_pattern`; ``None`` / ``"none"`` -> ``(None, None)``."""
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


def count_text(
    text: str, *, alphabet: str, pretokenizer: str | None, pattern: str | None = None, special_tokens=()
) -> ChunkCounts:
    """The table of one text held in memory, as one document.

    ``count_text(text, ...).words()`` equals ``prepare_words(text, alphabet, pretokenizer,
    special_tokens)``: the same chunks in the same order with the same counts.
    """
    check_alphabet(alphabet)
    name, pattern = chunk_settings(pretokenizer, pattern)
    special_tokens = check_special_tokens(special_tokens)
    if not isinstance(text, str):
        raise BpeError(f"text must be a str, got {type(text).__name__}")
    require_unicode(text, "the text")
    tally = ChunkTally(training_value(name, pattern), special_tokens=special_tokens)
    tally.add(text)
    return table_from_counts(
        tally.counts(),
        alphabet=alphabet,
        pretokenizer=name,
        pattern=pattern,
        special_tokens=special_tokens,
        special_counts=tally.special_counts(),
        characters=len(text),
        documents=1 if text else 0,
        training_sample=text[:HELDOUT_SAMPLE_CHARACTERS],
    )


def table_from_counts(
    counted: Mapping[str, int],
    heldout: Mapping[str, int] | None = None,
    *,
    alphabet: str,
    pretokenizer: str | None,
    pattern: str | None,
    special_tokens: tuple[str, ...] = (),
    special_counts: Mapping[str, int] | None = None,
    heldout_special_counts: Mapping[str, int] | None = None,
    **sizes,
) -> ChunkCounts:
    """The table of ``{chunk: count}`` in order of first occurrence (as `chunk_counts` and
    `bpe.pretokenize.ChunkTally` give them), the held-out part's apart; its base tokens are
    the characters its chunks hold (or the 256 bytes). ``special_counts``: ``{special token:
    count}`` of those that occur (`ChunkTally.special_counts`). ``sizes`` are the rest of
    the table's fields: ``characters``, ``documents``, the samples. ``{"low": 2, " lower": 1}``
    is the table of chunks ``("low", " lower")`` with counts ``(2, 1)``."""
    chunks = Chunks(counted)
    heldout = heldout or {}
    training_specials, heldout_specials = special_counts or {}, heldout_special_counts or {}
    return ChunkCounts(
        chunks=chunks,
        counts=counts_array(counted.values()),
        alphabet=alphabet,
        pretokenizer=pretokenizer,
        pattern=pattern,
        base_tokens=base_tokens_of(chunks, alphabet),
        heldout_chunks=Chunks(heldout),
        heldout_counts=counts_array(heldout.values()),
        special_tokens=special_tokens,
        special_counts=counts_array(training_specials.get(s, 0) for s in special_tokens),
        heldout_special_counts=counts_array(heldout_specials.get(s, 0) for s in special_tokens),
        **sizes,
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
        self._special_sums: dict[str, list[int]] = {}  # special token counts, in the tables' order

    def add(self, table: ChunkCounts) -> None:
        first = self._first
        if first is None:
            self._first = self._only = table
        elif (table.alphabet, table.pretokenizer, table.pattern, table.special_tokens) != (
            first.alphabet,
            first.pretokenizer,
            first.pattern,
            first.special_tokens,
        ):
            raise BpeError(
                f"cannot add counts made with different settings: alphabet {table.alphabet!r}, pre-tokenizer "
                f"{table.pretokenizer!r}, special tokens {list(table.special_tokens)!r} against alphabet "
                f"{first.alphabet!r}, pre-tokenizer {first.pretokenizer!r}, special tokens {list(first.special_tokens)!r}"
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
        for name in ("special_counts", "heldout_special_counts"):
            self._special_sums[name] = [
                a + b
                for a, b in zip(self._special_sums.get(name, [0] * len(table.special_tokens)), getattr(table, name))
            ]

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
            special_tokens=first.special_tokens,
            special_counts=counts_array(self._special_sums["special_counts"]),
            heldout_special_counts=counts_array(self._special_sums["heldout_special_counts"]),
            **self._sums,
        )


def _add_into(total: dict, chunks, counts) -> None:
    get = total.get
    for chunk, count in zip(chunks, counts):
        total[chunk] = get(chunk, 0) + count
