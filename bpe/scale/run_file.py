"""Run files: a training recorded once, replayed by the app without retraining.

A run file holds what the pages need and never the corpus: the settings, the base
tokens, every merge with its count, the competing pairs at each step, the training and
held-out token counts after each merge, a held-out text sample (a few thousand
characters) for the film, and the corpus's profile (its characters, bytes, multi-byte
characters and largest code points), so a page measuring the sample can still speak of
the corpus. It is gzip-compressed text in two lines::

    {"format": "bpe-lab-run", "version": 1, "body_bytes": N, "body_sha256": "..."}
    {"settings": {...}, "source": {...}, "base_tokens": [...], "lefts": [...], ...}

The first line says what the file is and checksums the second, so a damaged or edited
file is refused before anything is built from it. Tokens in the steps are ids (a base
token's index, then each new token in the order it was made), so a run of 100,000
merges is a few megabytes. Reading treats the file as a stranger's: its size, the
decompressed size (at most `bpe.io.budget.MAX_INFLATION` times the file's), the number of
merges and of pairs per step are bounded before the work, and so is what the merges build:
tokens are made ``vocab[left] + vocab[right]``, so 30 merges that each join the newest token
with itself describe a token of a gigabyte in 600 bytes; each token's length is checked
against `bpe.io.budget.MAX_TOKEN_LENGTH` (and all of them together against the file's
token budget) before it is made. The body's long lists of numbers are read into arrays
(8 bytes a number, not a Python object each), and a body holds only the keys a run file
of its version has: no list larger than the run needs. Every fault is one `RunFileError`
line naming the file.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import zlib
from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from bpe.alphabet import BYTES, from_gpt2_spelling, gpt2_spelling
from bpe.errors import BpeError
from bpe.io.budget import MAX_INFLATION, MAX_TOKEN_LENGTH, MAX_TOTAL_TOKEN_BYTES, TokenTally, check_inflation
from bpe.io.jsonfile import decode_value, load_json
from bpe.io.untrusted import decode_utf8, read_file_bytes
from bpe.recorded import RecordedSteps, SpilledColumn
from bpe.run import TrainingRun
from bpe.scale.corpus_profile import CorpusProfile, profile_from_json
from bpe.specials import initial_tokens
from bpe.steps import CHANGES_KEPT, StopReason
from bpe.training import DEFAULT_ENGINE, MAX_TOP_K, TrainingSettings
from bpe.variants.rule_runs import VariantRun, restored
from bpe.variants.rules import LENGTH_WEIGHTED, PICKY, pair_score

RUN_FORMAT = "bpe-lab-run"
RUN_VERSION = 1
RUN_SUFFIX = ".bperun"
SAMPLE_CHARACTERS = 4_000  # the held-out sample the film plays its steps on
# What a run file may hold, checked before it is built (a visitor may upload one):
MAX_RUN_FILE_BYTES = 64 << 20  # compressed: several times a run of 100,000 merges (docs/speed.md)
MAX_MERGES = 200_000
MAX_PAIRS_PER_STEP = MAX_TOP_K  # the runners-up a step records: training's own bound
MAX_SAMPLE_CHARACTERS = 100_000
MAX_HEADER_BYTES = 4_096
MAX_INPUTS_LISTED = 1_000
# What the body may cost is bounded from the header and while it is inflated, never by
# parsing it: gzip shrinks a repetitive body about a thousand times, so a small file can
# inflate to gigabytes of zeros that a parser would then build.
# A merge holds at most 8 numbers of its own, 3 per runner-up and 3 per count change
# (`CHANGES_KEPT`, 16): 86 values with 10 runners-up, 356 with 100.
VALUES_PER_MERGE = 8 + 3 * CHANGES_KEPT  # and 3 per runner-up
# 200,000 merges with 10 runners-up hold at most 17.2 million values; the sample and base
# tokens add at most a few hundred thousand. Real runs hold about half their bound
# (docs/speed.md has the measured values a merge and bytes a value).
MAX_BODY_VALUES = 20_000_000
# A real run of 200,000 merges spells to a few tens of megabytes; a corpus of billions of
# tokens makes its counts about twice as long. An honest body stays well under this.
MAX_BODY_BYTES = 128 << 20  # decompressed
# A run's body is one object of about twenty lists of numbers; "{" and "[" in it are those,
# or characters of its text (the sample, base tokens, names). They are counted before
# parsing: a body of "{}," repeated is millions of dicts to a parser, and no run at all.
MAX_BODY_CONTAINERS = MAX_SAMPLE_CHARACTERS + 100_000
INFLATE_PIECE_BYTES = 4 << 20  # the body is inflated and its values counted this much at a time


class RunFileError(BpeError):
    """A run file is malformed, of another version, damaged, or bigger than allowed."""


@dataclass(frozen=True)
class RunSource:
    """Where a run's text came from, as the corpus picker shows it."""

    name: str  # what the run is called: "tinyshakespeare"
    inputs: tuple[str, ...] = ()  # the input files' names (never a path)
    characters: int = 0
    documents: int = 0
    # what the training text is made of, from the count phase (`bpe.scale.corpus_profile`):
    # what a page that measures the sample says of the whole corpus; None in older files
    profile: CorpusProfile | None = None


@dataclass(frozen=True)
class RunFile:
    """A run file's content: the run, where it came from, its held-out sample."""

    run: TrainingRun
    source: RunSource
    sample: str = ""  # held-out text for the film (a few thousand characters)
    fields: dict = field(default_factory=dict, compare=False)  # unknown body keys, kept for a later version

    @property
    def label(self) -> str:
        """The corpus picker's line: ``run: NAME — source, characters, merges``."""
        source = self.source
        inputs = ", ".join(source.inputs[:3]) + (" ..." if len(source.inputs) > 3 else "")
        return (
            f"run: {source.name} — {inputs or 'counts'}, {self.run.training_characters:,} characters, "
            f"{len(self.run.steps):,} merges"
        )


# ==================== Writing


def run_file_bytes(run: TrainingRun, *, source: RunSource, sample: str = "") -> bytes:
    """The bytes of a run file for ``run``, to write through a temporary name (`bpe.io.files`)
    or to stage beside a tokenizer and move into place together (``python -m bpe train``)."""
    recorded = run.steps if isinstance(run.steps, RecordedSteps) else _recorded(run)
    if len(recorded) > MAX_MERGES:
        raise BpeError(f"a run file holds at most {MAX_MERGES:,} merges; this run has {len(recorded):,}")
    # What the reader refuses is not written: a run of repetitive text can learn a token
    # longer than a run file holds (ten merges of "a" * 8,192 make one).
    tally = token_tally("this run", run.settings.alphabet, error=BpeError)
    for number, token in enumerate(recorded.vocab[recorded.base_size :], start=1):
        tally.add(len(token), f"its new token {number:,}")
    body = _body(run, recorded, source, sample)
    # The header names the body's size and hash, so the body is spelled twice: once to
    # measure it, once into the compressor. Either way a piece at a time, never whole.
    size, values, digest = 0, 0, hashlib.sha256()
    for piece in _body_pieces(body):
        size += len(piece)
        values += _values_in(piece)
        digest.update(piece)
    if size > MAX_BODY_BYTES or values > MAX_BODY_VALUES:  # it would not be read back
        raise BpeError(
            f"this run is {size:,} bytes and {values:,} values as a run file; one holds at most "
            f"{MAX_BODY_BYTES:,} bytes and {MAX_BODY_VALUES:,} values: record fewer runners-up (top_k) or merges"
        )
    header = {
        "format": RUN_FORMAT,
        "version": RUN_VERSION,
        "body_bytes": size,
        "body_sha256": digest.hexdigest(),
        # what the corpus picker lists, readable without the body (`bpe.scale.run_listing`)
        "summary": _summary_of(run, source),
    }
    compressor = zlib.compressobj(6, zlib.DEFLATED, 31)  # gzip framing, no file name or time: same run, same bytes
    out = [compressor.compress(json.dumps(header).encode("utf-8") + b"\n")]
    out.extend(compressor.compress(piece) for piece in _body_pieces(body))
    out.append(compressor.compress(b"\n") + compressor.flush())
    return b"".join(out)


def _body(run: TrainingRun, recorded: RecordedSteps, source: RunSource, sample: str) -> dict:
    """The run as the body's JSON object holds it: the settings, the source, the base tokens
    spelled as text, the record's columns (arrays, spelled a piece at a time), the held-out
    curve, the timings and the sample."""
    settings = run.settings
    return {
        "settings": {
            "target_vocab_size": settings.target_vocab_size,
            "minimum_pair_frequency": settings.minimum_pair_frequency,
            "engine": settings.engine,
            "top_k": settings.top_k,
            "alphabet": settings.alphabet,
            "pretokenizer": settings.pretokenizer,
            "tie_rule": settings.tie_rule,
            "max_vocab_characters": settings.max_vocab_characters,
            # only when there are any: they take the first ids, which the steps' ids count from
            **({"special_tokens": list(settings.special_tokens)} if settings.special_tokens else {}),
        },
        "source": {
            "name": source.name,
            "inputs": [Path(name).name for name in source.inputs[:MAX_INPUTS_LISTED]],
            "characters": source.characters,
            "documents": source.documents,
            "profile": None if source.profile is None else source.profile.to_json(),
        },
        "base_tokens": _spelled(run.base_tokens, settings.alphabet),
        "lefts": recorded.lefts,
        "rights": recorded.rights,
        "frequencies": recorded.frequencies,
        "sequence_lengths": recorded.sequence_lengths,
        "top_sizes": recorded.top_sizes,
        "top_values": _Pieces(recorded.top_value_pieces),
        "change_sizes": recorded.change_sizes,
        "change_values": _Pieces(recorded.change_value_pieces),
        "heldout_lengths": list(run.heldout_lengths),
        "step_seconds": [round(seconds, 4) for seconds in run.step_seconds],
        "stop_reason": run.stop_reason.value,
        "training_seconds": round(run.training_seconds, 4),
        "training_characters": run.training_characters,
        "initial_length": run.initial_length,
        "heldout_characters": run.heldout_characters,
        "base_counts": None if run.base_counts is None else list(run.base_counts),
        "sample": sample[:MAX_SAMPLE_CHARACTERS],
        **({"variant": run.rule_json()} if isinstance(run, VariantRun) else {}),
    }


NUMBERS_PER_PIECE = 65_536


@dataclass(frozen=True)
class _Pieces:
    """A column of integers that comes a piece (an `array`) at a time, in order, each time
    ``pieces()`` is called: a record's runners-up, which a spilled record reads from disk."""

    pieces: Callable[[], Iterable[array]]


def _body_pieces(body: dict) -> Iterator[bytes]:
    """``body`` as the compact JSON ``json.dumps(body, ensure_ascii=False,
    separators=(",", ":"))`` spells, a piece at a time. A run's steps are arrays of
    millions of numbers; as one ``list`` and one string they would take a Python object per
    number and a whole copy at the end of a training, so each array is spelled a slice at a
    time: ``{"lefts": array('Q', [97, 256])}`` comes out as ``{``, ``"lefts":``, ``[``,
    ``97,256``, ``]``, ``}``."""
    yield b"{"
    for index, (key, value) in enumerate(body.items()):
        yield f"{',' if index else ''}{json.dumps(key)}:".encode()
        if isinstance(value, array | SpilledColumn | _Pieces):  # of integers: each spelled as JSON spells an int
            pieces = value.pieces() if isinstance(value, _Pieces) else (value,)
            yield b"["
            first = True
            for piece in pieces:
                for start in range(0, len(piece), NUMBERS_PER_PIECE):
                    numbers = ",".join(map(str, piece[start : start + NUMBERS_PER_PIECE]))
                    yield f"{'' if first else ','}{numbers}".encode()
                    first = False
            yield b"]"
        else:
            yield json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    yield b"}"


def check_run_fits(merges: int, top_k: int) -> None:
    """`BpeError` before training when a run of ``merges`` merges recording ``top_k``
    runners-up a step could hold more values than a run file may (`MAX_BODY_VALUES`)."""
    most = merges * (VALUES_PER_MERGE + 3 * top_k)
    if most > MAX_BODY_VALUES:
        fitting = MAX_BODY_VALUES // (VALUES_PER_MERGE + 3 * top_k)
        raise BpeError(
            f"a run file of {merges:,} merges with {top_k} runners-up a step may hold {most:,} values, over the "
            f"{MAX_BODY_VALUES:,} one holds: record fewer runners-up (--top-k) or at most {fitting:,} merges"
        )


def _recorded(run: TrainingRun) -> RecordedSteps:
    recorded = RecordedSteps(run.initial_tokens)
    for step in run.steps:
        recorded.append(step)
    return recorded


def _spelled(tokens, alphabet: str) -> list[str]:
    return [gpt2_spelling(t) for t in tokens] if alphabet == BYTES else list(tokens)


# ==================== Reading


def read_run_file(path: str | os.PathLike[str], *, max_bytes: int = MAX_RUN_FILE_BYTES) -> RunFile:
    """Read and check a run file; `RunFileError` in one line on any fault."""
    name = Path(path).name
    raw = read_file_bytes(path, what="run file", name=repr(name), max_bytes=max_bytes, error=RunFileError)
    return parse_run_file(raw, name=name, max_bytes=max_bytes)


def parse_run_file(
    raw: bytes,
    *,
    name: str = "run file",
    max_bytes: int = MAX_RUN_FILE_BYTES,
    max_token_bytes: int = MAX_TOTAL_TOKEN_BYTES,
) -> RunFile:
    """A run file's bytes (an upload's, say) checked and turned into a `RunFile`; its tokens
    together hold at most ``max_token_bytes`` (an upload's size limit, on a server)."""
    if len(raw) > max_bytes:
        raise RunFileError(f"{name} is {len(raw):,} bytes; a run file may be at most {max_bytes:,}")
    header, body_raw = _decompressed(raw, name)
    containers = body_raw.count(b"{") + body_raw.count(b"[")
    if containers > MAX_BODY_CONTAINERS:
        raise RunFileError(
            f"{name} holds {containers:,} JSON objects and lists; a run holds a few dozen (and its text's "
            f"brackets), at most {MAX_BODY_CONTAINERS:,}, so it is refused before it is parsed"
        )
    text = decode_utf8(body_raw, name=name, error=RunFileError)
    del body_raw
    body = _parsed_body(text, name)
    del text
    try:
        run_file = _run_file_from_body(body, token_tally(name, body.get("settings"), max_total=max_token_bytes))
    except RunFileError:
        raise
    except BpeError as error:
        raise RunFileError(f"{name}: {error}") from None
    _check_summary(header, run_file, name)
    return run_file


def token_tally(name: str, alphabet, *, max_total: int = MAX_TOTAL_TOKEN_BYTES, error=RunFileError) -> TokenTally:
    """The budget a run's tokens are held to (`bpe.io.budget`): each at most
    `MAX_TOKEN_LENGTH` bytes, or characters for a character alphabet (``alphabet`` may be
    the body's settings, whose alphabet is checked later), all of them at most ``max_total``."""
    if isinstance(alphabet, dict):
        alphabet = alphabet.get("alphabet")
    unit = "bytes" if alphabet == BYTES else "characters"
    return TokenTally(name=name, max_total=max_total, max_length=MAX_TOKEN_LENGTH, unit=unit, error=error)


# The body's keys, as `_body` writes them: those that hold long lists of whole numbers are
# read into arrays, the others as JSON; any other key is refused (a run needs none).
NUMBER_COLUMNS = (
    "lefts",
    "rights",
    "frequencies",
    "sequence_lengths",
    "top_sizes",
    "top_values",
    "change_sizes",
    "change_values",
    "heldout_lengths",
    "base_counts",
)
OTHER_KEYS = (
    "settings",
    "source",
    "base_tokens",
    "step_seconds",
    "stop_reason",
    "training_seconds",
    "training_characters",
    "initial_length",
    "heldout_characters",
    "sample",
    "variant",  # a rule of `bpe.variants` (`VariantRun.rule_json`): its removals checked against the steps
)
NUMBERS_PIECE_CHARACTERS = 1 << 20  # a column is split and converted this much at a time
_SPACE = re.compile(r"[ \t\n\r]*")
_NOT_A_NUMBER_LIST = re.compile(r"[^0-9,\- \t\n\r]")


def _parsed_body(text: str, name: str) -> dict:
    """The body's object, member by member: a column of numbers (``"lefts":[97,256]``)
    becomes an `array` of 8-byte integers, read a piece at a time, and every other member
    is parsed as JSON (`bpe.io.jsonfile.decode_value`); a key no run file has is refused
    before its value is read."""
    position = _SPACE.match(text).end()
    if not text.startswith("{", position):
        kind = "list" if text.startswith("[", position) else "value"
        raise RunFileError(f"{name}: the run is a JSON {kind}, not an object")
    body: dict = {}
    position = _SPACE.match(text, position + 1).end()
    closed = text.startswith("}", position)
    position += closed
    while not closed:
        if not text.startswith('"', position):
            raise RunFileError(f"{name} is not valid JSON: expected a key at character {position:,}")
        key, position = decode_value(text, position, name=name, what="a run file", error=RunFileError)
        position = _SPACE.match(text, position).end()
        if not text.startswith(":", position):
            raise RunFileError(f"{name} is not valid JSON: expected ':' at character {position:,}")
        position = _SPACE.match(text, position + 1).end()
        if key in body:
            raise RunFileError(f"{name}: the key {key[:60]!r} appears twice in one object")
        if key in NUMBER_COLUMNS:
            body[key], position = _number_column(text, position, key, name)
        elif key in OTHER_KEYS:
            body[key], position = decode_value(text, position, name=name, what="a run file", error=RunFileError)
        else:
            raise RunFileError(
                f"{name}: its run holds {key[:60]!r}, which no run file of version {RUN_VERSION} has, "
                "so it is refused before that is read"
            )
        position = _SPACE.match(text, position).end()
        closed = text.startswith("}", position)
        if not closed and not text.startswith(",", position):
            raise RunFileError(f"{name} is not valid JSON: expected ',' or '}}' at character {position:,}")
        position = _SPACE.match(text, position + 1).end()
    if position < len(text):
        raise RunFileError(f"{name} is not valid JSON: more after its run, at character {position:,}")
    return body


def _number_column(text: str, position: int, key: str, name: str) -> tuple[array | None, int]:
    """The list of whole numbers at ``position`` (or null) as an ``array('q')``, and where it ends."""
    if text.startswith("null", position):
        return None, position + 4
    end = text.find("]", position)
    if not text.startswith("[", position) or end == -1 or _NOT_A_NUMBER_LIST.search(text, position + 1, end):
        raise RunFileError(f"{name}: {key} must hold whole numbers only")
    column = array("q")
    start = position + 1
    try:
        while start < end:  # a piece at a time: one list of strings for a whole column would be 50 bytes a number
            stop = text.find(",", min(start + NUMBERS_PIECE_CHARACTERS, end), end)
            stop = end if stop == -1 else stop
            piece = text[start:stop]
            if piece.strip() or column or stop < end:  # "[]" and "[ ]" are empty; "[1,]" is not
                column.extend(map(int, piece.split(",")))
            start = stop + 1
    except ValueError:
        raise RunFileError(f"{name}: {key} must hold whole numbers only") from None
    except OverflowError:
        raise RunFileError(f"{name}: {key} holds a number of 2**63 or more; no run counts that far") from None
    return column, end + 1


def _check_summary(header: dict, run_file: RunFile, name: str) -> None:
    """The header's summary (what the corpus picker lists without reading the body) must be
    the body's: a header edited to list 10**9 merges for a run of 1,744 is refused here."""
    summary = header.get("summary")
    if summary is None:
        return
    found = _summary_of(run_file.run, run_file.source)
    if not isinstance(summary, dict) or any(summary.get(key) != value for key, value in found.items()):
        raise RunFileError(
            f"{name}: its header's summary does not match its run ({run_file.run.training_characters:,} characters, "
            f"{len(run_file.run.steps):,} merges): edited or damaged"
        )


def _summary_of(run: TrainingRun, source: RunSource) -> dict:
    """What the header lists of a run: its name, its first inputs, characters, merges."""
    return {
        "name": source.name[:200],
        "inputs": [Path(name).name[:200] for name in source.inputs[:3]],
        "characters": run.training_characters,
        "merges": len(run.steps),
    }


def _decompressed(raw: bytes, name: str) -> tuple[dict, bytes]:
    """The checked header and the body's bytes, decompressing no more than the header allows."""
    inflater = zlib.decompressobj(31)
    try:
        head = inflater.decompress(raw, MAX_HEADER_BYTES)
        line, newline, rest = head.partition(b"\n")
        if not newline:
            if len(head) < MAX_HEADER_BYTES and not inflater.eof:
                raise RunFileError(f"{name} is cut short: it ends inside its header")
            raise RunFileError(f"{name} is not a BPE Lab run file (no header line)")
        header = load_json(line, name=name, what="a run file header", error=RunFileError)
        check_header(header, name)
        check_inflation(
            header["body_bytes"], len(raw), name=name, what="run", error=RunFileError, max_ratio=MAX_INFLATION
        )
        wanted = header["body_bytes"] + 1  # the body and its newline
        pieces, size, values = [rest], len(rest), _values_in(rest)
        # Inflated a piece at a time up to one byte more than wanted (to see whether the run
        # ends there), its values counted as they come: a flood stops here, not at its end.
        while size <= wanted and values <= MAX_BODY_VALUES and not inflater.eof:
            piece = inflater.decompress(inflater.unconsumed_tail, min(INFLATE_PIECE_BYTES, wanted + 1 - size))
            if not piece:
                break
            pieces.append(piece)
            size += len(piece)
            values += _values_in(piece)
    except zlib.error:
        raise RunFileError(f"{name} is not a BPE Lab run file (not gzip data, or damaged)") from None
    if values > MAX_BODY_VALUES:
        raise RunFileError(
            f"{name} holds more than {MAX_BODY_VALUES:,} JSON values; a run of at most {MAX_MERGES:,} merges "
            f"holds fewer, so it is refused before it is parsed"
        )
    body = b"".join(pieces)
    del pieces
    if len(body) > wanted or inflater.unused_data:
        raise RunFileError(f"{name} holds more than its header says: edited or damaged")
    if len(body) < wanted or not inflater.eof:
        raise RunFileError(f"{name} is cut short: {len(body):,} of {wanted:,} bytes of its run")
    body = body[: wanted - 1]
    if len(body) != header["body_bytes"] or hashlib.sha256(body).hexdigest() != header["body_sha256"]:
        raise RunFileError(f"{name} fails its checksum: the file was edited or damaged")
    return header, body


def check_header(header, name: str) -> None:
    if not isinstance(header, dict) or header.get("format") != RUN_FORMAT:
        raise RunFileError(f"{name} is not a BPE Lab run file (its header names no {RUN_FORMAT!r} format)")
    version = header.get("version")
    if not _is_count(version):  # true == 1 and 1.0 == 1 in Python, and "1" is no version number
        raise RunFileError(
            f"{name} has a malformed header: its version is {json.dumps(version)[:20]}, not a whole number"
        )
    if version != RUN_VERSION:
        raise RunFileError(f"{name} is a run file of version {version}; this BPE Lab reads version {RUN_VERSION}")
    size, digest = header.get("body_bytes"), header.get("body_sha256")
    if not _is_count(size) or not isinstance(digest, str):
        raise RunFileError(f"{name} has a malformed header (body_bytes, body_sha256)")
    if size > MAX_BODY_BYTES:
        raise RunFileError(
            f"{name} says its run is {size:,} bytes; a run file may hold at most {MAX_BODY_BYTES:,} "
            f"(a run of {MAX_MERGES:,} merges is about 40 MB)"
        )


def _values_in(raw: bytes) -> int:
    """At least how many JSON values ``raw`` holds, or more (its text's commas count too):
    every value but the first of a list or object follows a comma."""
    return raw.count(b",") + raw.count(b"[") + raw.count(b"{")


def _run_file_from_body(body: dict, tally: TokenTally) -> RunFile:
    """The `RunFile` a parsed body describes, every field checked on the way: the settings,
    the recorded steps (each token held to ``tally`` before it is made), the per-merge
    lists, then the arithmetic every real training obeys."""
    base_tokens = _unspelled(_field(body, "base_tokens", list), _field(body, "settings", dict).get("alphabet"))
    settings = _settings(_field(body, "settings", dict), base_tokens)
    steps = _steps(body, initial_tokens(settings.special_tokens, base_tokens, settings.alphabet), tally)
    merges = len(steps)
    heldout_lengths = _counts(body, "heldout_lengths")
    if heldout_lengths and len(heldout_lengths) != merges + 1:
        raise BpeError(f"heldout_lengths has {len(heldout_lengths):,} entries for {merges:,} merges (want one more)")
    step_seconds = _field(body, "step_seconds", list)
    if len(step_seconds) != merges or not all(isinstance(s, int | float) and s >= 0 for s in step_seconds):
        raise BpeError("step_seconds must be one time of at least 0 per merge")
    try:
        stop_reason = StopReason(_field(body, "stop_reason", str))
    except ValueError:
        raise BpeError(f"stop_reason {str(body['stop_reason'])[:40]!r} is not one BPE Lab knows") from None
    sample = _field(body, "sample", str)
    if len(sample) > MAX_SAMPLE_CHARACTERS:
        raise BpeError(f"its sample is {len(sample):,} characters; at most {MAX_SAMPLE_CHARACTERS:,} are read")
    base_counts = body.get("base_counts")
    if base_counts is not None:
        base_counts = _counts(body, "base_counts")
        if len(base_counts) != len(base_tokens) + len(settings.special_tokens) or sum(base_counts) != _count(
            body, "initial_length"
        ):
            raise BpeError("base_counts must give one count per special and base token, adding up to initial_length")
    run = TrainingRun(
        settings=settings,
        base_tokens=base_tokens,
        steps=steps,
        stop_reason=stop_reason,
        stop_explanation=stop_reason.explain_for(settings),
        training_seconds=_number(body, "training_seconds"),
        training_characters=_count(body, "training_characters"),
        initial_length=_count(body, "initial_length"),
        heldout_characters=_count(body, "heldout_characters"),
        heldout_lengths=list(heldout_lengths),
        step_seconds=[float(s) for s in step_seconds],
        base_counts=None if base_counts is None else tuple(base_counts),
    )
    if "variant" in body:  # a rule beyond the textbook (`bpe.variants`): what it records, checked
        run = restored(run, body["variant"])
    _check_arithmetic(run)  # the first merge's shrinking included
    return RunFile(run=run, source=_source(_field(body, "source", dict)), sample=sample)


def _settings(fields: dict, base_tokens: list) -> TrainingSettings:
    """The run's `TrainingSettings`, checked as every training's are (a custom pattern as safe)."""
    try:
        return TrainingSettings(
            target_vocab_size=fields.get("target_vocab_size"),
            minimum_pair_frequency=fields.get("minimum_pair_frequency"),
            engine=fields.get("engine", DEFAULT_ENGINE),
            top_k=fields.get("top_k"),
            alphabet=fields.get("alphabet"),
            pretokenizer=fields.get("pretokenizer"),  # a custom pattern is checked as safe here
            base_tokens=tuple(base_tokens),
            tie_rule=fields.get("tie_rule"),
            max_vocab_characters=fields.get("max_vocab_characters"),  # absent: none (older files)
            special_tokens=_special_tokens(fields.get("special_tokens", [])),  # absent: none
        )
    except TypeError:  # an unhashable JSON value where a name belongs
        raise BpeError("its settings hold a value of the wrong kind") from None


def _special_tokens(value) -> tuple:
    """The special tokens a run file's settings name: a list of strings (checked as every
    training's are, `bpe.specials.check_special_tokens`)."""
    if not isinstance(value, list):
        raise BpeError("its special_tokens must be a list of strings")
    return tuple(value)


def _steps(body: dict, base_tokens: list, tally: TokenTally) -> RecordedSteps:
    """The record's columns, bounded (merges, pairs a step) before the record is built from
    them; every runner-up counted at least once."""
    columns = {
        key: _counts(body, key)
        for key in ("lefts", "rights", "frequencies", "sequence_lengths", "top_sizes", "change_sizes")
    }
    merges = len(columns["lefts"])
    if merges > MAX_MERGES:
        raise BpeError(f"it holds {merges:,} merges; a run file may hold at most {MAX_MERGES:,}")
    for key in ("top_sizes", "change_sizes"):
        if columns[key] and max(columns[key]) > MAX_PAIRS_PER_STEP:
            raise BpeError(f"{key} lists more than {MAX_PAIRS_PER_STEP} pairs for one step")
    top_values, change_values = _ints(body, "top_values"), _ints(body, "change_values")
    rule = body.get("variant")
    grows = isinstance(rule, dict) and rule.get("rule") == PICKY  # its removals lengthen the text (checked later)
    steps = RecordedSteps.from_columns(
        base_tokens, top_values=top_values, change_values=change_values, grows=grows, token_budget=tally, **columns
    )
    if top_values and min(top_values[2::3], default=1) < 1:
        raise BpeError("a runner-up pair has a count below 1")
    return steps


def _check_arithmetic(run: TrainingRun) -> None:
    """What every real training's figures obey, so that numbers a hand changed (and a
    checksum recomputed) are refused instead of shown to a class: a merge of a pair found
    ``count`` times removes at least one token, at most ``count`` and at least half of them
    (overlapping occurrences, as in 'aaa', merge once for two); no text of one character or
    more is ever 0 tokens; no step's runner-up occurs more often than its winner; the
    vocabulary stays within the target and a step records at most ``top_k`` pairs."""
    steps, settings = run.steps, run.settings
    before = run.initial_length
    if run.training_characters and not before:
        raise BpeError("its training text has characters but no tokens (initial_length 0)")
    for number, (frequency, after) in enumerate(zip(steps.frequencies, steps.sequence_lengths), start=1):
        removed = run.merges_applied(number)  # a Picky run's removals lengthen it again after its merge
        if not (1 <= removed <= frequency <= 2 * removed) or (run.training_characters and after < 1):
            raise BpeError(
                f"merge {number} takes the training text from {before:,} to {after:,} tokens, "
                f"which no merge of a pair found {frequency:,} times does"
            )
        before = after
    start = 0
    for number, size in enumerate(steps.top_sizes, start=1):
        if size > settings.top_k:
            raise BpeError(f"merge {number} records {size} competing pairs; its settings keep {settings.top_k}")
        if _outranked(run, number, start, size):
            raise BpeError(f"merge {number} has a competing pair that ranks above the pair it merged")
        start += size
    if len(steps) and steps.vocab_size_after(len(steps)) > settings.target_vocab_size:
        raise BpeError(
            f"its merges make {steps.vocab_size_after(len(steps)):,} tokens, past its target vocabulary "
            f"of {settings.target_vocab_size:,}"
        )
    lengths = run.heldout_lengths
    picky = isinstance(run, VariantRun) and run.picky  # its removals lengthen the text again
    if lengths and (
        (not picky and any(later > earlier for earlier, later in zip(lengths, lengths[1:])))
        or (run.heldout_characters > 0) != (lengths[-1] > 0)
        or (run.heldout_characters == 0 and lengths[0] > 0)
    ):
        raise BpeError("its held-out token counts do not fit its held-out text (they grow, or reach 0 tokens)")


def _outranked(run: TrainingRun, number: int, start: int, size: int) -> bool:
    """Whether a runner-up of merge ``number`` (its ``size`` pairs from ``start`` on) ranks
    above the pair it merged: by count, or, length-weighted, by count × length among the pairs
    at the minimum frequency (a pair below it never wins)."""
    steps, frequency = run.steps, run.steps.frequencies[number - 1]
    counts = steps.top_counts[start : start + size]
    if not (isinstance(run, VariantRun) and run.variant.name == LENGTH_WEIGHTED):
        return any(found > frequency for found in counts)
    vocab, ids, floor = steps.vocab, steps.top_ids[2 * start : 2 * (start + size)], run.settings.minimum_pair_frequency
    winner = pair_score((vocab[steps.lefts[number - 1]], vocab[steps.rights[number - 1]]), frequency, True)
    return any(
        count >= floor and pair_score((vocab[a], vocab[b]), count, True) > winner
        for a, b, count in zip(ids[0::2], ids[1::2], counts)
    )


def _source(fields: dict) -> RunSource:
    name = fields.get("name")
    inputs = fields.get("inputs", [])
    if not isinstance(name, str) or not name or len(name) > 200:
        raise BpeError("its source has no name (1 to 200 characters)")
    if not isinstance(inputs, list) or len(inputs) > MAX_INPUTS_LISTED or not all(isinstance(i, str) for i in inputs):
        raise BpeError(f"its source inputs must be a list of at most {MAX_INPUTS_LISTED} file names")
    return RunSource(
        name=name,
        inputs=tuple(Path(i).name[:200] for i in inputs),  # names only: a path from a file is never shown
        characters=_count(fields, "characters"),
        documents=_count(fields, "documents"),
        profile=None if fields.get("profile") is None else profile_from_json(fields["profile"]),
    )


def _unspelled(tokens: list, alphabet) -> list:
    if not all(isinstance(t, str) for t in tokens):
        raise BpeError("base_tokens must be a list of strings")
    return [from_gpt2_spelling(t) for t in tokens] if alphabet == BYTES else tokens


def _field(body: dict, key: str, kind: type):
    value = body.get(key)
    if not isinstance(value, kind):
        raise BpeError(f"{key} is missing or not a {kind.__name__}")
    return value


def _is_count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _count(body: dict, key: str) -> int:
    value = body.get(key)
    if not _is_count(value) or value >= 1 << 63:
        raise BpeError(f"{key} must be a whole number of at least 0, got {str(value)[:20]}")
    return value


def _number(body: dict, key: str) -> float:
    value = body.get(key)
    if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value < 1e12:
        raise BpeError(f"{key} must be a number of at least 0, got {str(value)[:20]}")
    return float(value)


def _ints(body: dict, key: str) -> array:
    """A column of numbers (read into an array by `_number_column`), each within 2**62."""
    values = body.get(key)
    if not isinstance(values, array):
        raise BpeError(f"{key} is missing or not a list")
    if values and not (-(1 << 62) < min(values) and max(values) < 1 << 62):
        raise BpeError(f"{key} must hold whole numbers only (each of them below 2**62)")
    return values


def _counts(body: dict, key: str) -> array:
    values = _ints(body, key)
    if values and min(values) < 0:
        raise BpeError(f"{key} must hold whole numbers of at least 0")
    return values
