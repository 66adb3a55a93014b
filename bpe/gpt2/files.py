"""OpenAI's GPT-2 vocabulary files: where they are, how to fetch them, how to read them.

GPT-2 ships as two files:

- ``encoder.json``: token -> id, 50,257 entries. Tokens are byte strings spelled with
  GPT-2's byte-to-unicode table (a space is 'Ġ'; see `bpe.alphabet.bytes_to_unicode`);
  ``<|endoftext|>`` is the one special token (id 50256).
- ``vocab.bpe``: a ``#version: 0.2`` line, then 50,000 merges, one ``left right`` pair
  per line, highest priority first.

The id of a merged token is 256 + its line's index: rank and id are the same number, which
is what lets tiktoken (and `bpe.gpt2`) merge by id. `parse_gpt2_files` checks exactly
that, and names the file and line of anything else.

Where the files come from, in order: paths given by the caller; ``data/cache/gpt2/``
(filled once by `download_gpt2_files`, SHA-256 checked, written atomically); the shared
data folder (``../shared/data/gpt2/`` beside the project, or ``$BPE_SHARED_DATA/gpt2``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bpe.alphabet import bytes_to_unicode, unicode_to_bytes
from bpe.errors import BpeError, DownloadError
from bpe.io.budget import MAX_JSON_VALUES, check_json_values, check_line_count, check_token_lengths
from bpe.io.fetch import DEFAULT_DEADLINE, Progress, fetch_verified
from bpe.io.files import verified_cached_file
from bpe.io.jsonfile import load_json
from bpe.io.locks import folder_lock
from bpe.io.untrusted import decode_utf8, read_file_bytes
from bpe.paths import CACHE_DIR, shared_data_dir
from bpe.specials import check_special_tokens
from bpe.wording import BPE_COMMAND

OPENAI_BASE_URL = "https://openaipublic.blob.core.windows.net/gpt-2/encodings/main"
ENCODER_JSON = "encoder.json"
VOCAB_BPE = "vocab.bpe"
# The published SHA-256 of OpenAI's files (the same hashes tiktoken checks).
GPT2_SHA256 = {
    ENCODER_JSON: "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783",
    VOCAB_BPE: "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5",
}
GPT2_FOLDER = "gpt2"
SPECIAL_TOKEN = re.compile(r"<\|[^|]+\|>")
N_BYTES = 256
# The most entries read from encoder.json (and merge lines from vocab.bpe): GPT-2 has
# 50,257; the bound keeps what a stranger's pair of files can cost (`bpe.io.budget`).
MAX_ENTRIES = MAX_JSON_VALUES // 2


@dataclass(frozen=True)
class GPT2Vocabulary:
    """What the two files say, checked: ``tokens[i]`` is the bytes of id ``i``."""

    tokens: list[bytes]  # the 256 bytes and the merge results; ids 0 .. 255 + len(merges)
    merges: list[tuple[bytes, bytes]]  # in rank order: merge i makes id 256 + i
    special_tokens: dict[str, int]  # '<|endoftext|>' -> 50256


# ==================== Finding the files


def gpt2_folders(cache_dir: str | os.PathLike[str] | None = None) -> list[Path]:
    """Where `find_gpt2_files` looks, in order."""
    return [Path(cache_dir or CACHE_DIR) / GPT2_FOLDER, shared_data_dir() / GPT2_FOLDER]


def find_gpt2_files(cache_dir: str | os.PathLike[str] | None = None) -> tuple[Path, Path] | None:
    """(encoder.json, vocab.bpe) from the first folder that has both, or None. Reads nothing."""
    for folder in gpt2_folders(cache_dir):
        encoder, vocab = folder / ENCODER_JSON, folder / VOCAB_BPE
        if encoder.is_file() and vocab.is_file():
            return encoder, vocab
    return None


def missing_files_message(cache_dir: str | os.PathLike[str] | None = None) -> str:
    """What to do when `find_gpt2_files` finds nothing: the command, or the URLs and the folder."""
    folders = gpt2_folders(cache_dir)
    return (
        f"GPT-2's files ({ENCODER_JSON}, {VOCAB_BPE}) are not in {folders[0]} nor in {folders[1]}. "
        f"Run `{BPE_COMMAND} gpt2 download` (needs the internet once), or {_by_hand(folders[0])}"
    )


def missing_files_note() -> str:
    """What a page says when GPT-2's files are not here: one short line, no server paths
    (a visitor has no use for them, and they describe the server)."""
    return (
        "GPT-2 is left out: its two files (encoder.json and vocab.bpe, about 1.5 MB) are not on this "
        f"server. Whoever runs it can fetch them once with `{BPE_COMMAND} gpt2 download`."
    )


def missing_files_details(base_url: str = OPENAI_BASE_URL, hashes: Mapping[str, str] = GPT2_SHA256) -> list[str]:
    """Where the files come from, for a page's "how to get them" (no server paths): the
    command, and each file's address and SHA-256 for a machine that is offline."""
    return [
        f"`{BPE_COMMAND} gpt2 download` fetches both from OpenAI (it needs the internet once), checks their "
        "SHA-256 and keeps them in the project's download cache.",
        "Offline: download them on a machine that is online, check their SHA-256, and give their paths to "
        "the command line with --encoder and --vocab, or put them in the download cache's gpt2 folder.",
        *(f"{name}: {base_url}/{name} (SHA-256 {hashes[name]})" for name in (ENCODER_JSON, VOCAB_BPE)),
    ]


def _by_hand(folder: Path, base_url: str = OPENAI_BASE_URL, hashes: Mapping[str, str] = GPT2_SHA256) -> str:
    return (
        f"download {base_url}/{ENCODER_JSON} (sha256 {hashes[ENCODER_JSON]}) and "
        f"{base_url}/{VOCAB_BPE} (sha256 {hashes[VOCAB_BPE]}) on a machine that is online "
        f"and put both in {folder}/ (or pass their paths with --encoder and --vocab)."
    )


# ==================== Downloading


def download_gpt2_files(
    cache_dir: str | os.PathLike[str] = CACHE_DIR,
    *,
    base_url: str = OPENAI_BASE_URL,
    progress: Progress | None = None,
    timeout: float = 30,
    deadline: float = DEFAULT_DEADLINE,
    sha256: Mapping[str, str] | None = None,
) -> tuple[Path, Path]:
    """Make sure ``<cache_dir>/gpt2/`` holds OpenAI's two files; return their paths.

    A file already there with the right SHA-256 is kept (no request); a file with another
    hash is an error (delete it to fetch again). Each download streams into a temporary
    file that only becomes ``encoder.json`` / ``vocab.bpe`` once its hash is right, so a
    broken transfer leaves nothing behind. Processes sharing the cache take turns (the first
    downloads, the others then find the files). `progress(done, total)` is called per file;
    ``timeout`` bounds each connect and read, ``deadline`` each file's whole transfer.
    ``sha256`` replaces the published hashes (``{"encoder.json": ..., "vocab.bpe": ...}``),
    for another release or a test server.
    """
    folder = Path(cache_dir) / GPT2_FOLDER
    hashes = {**GPT2_SHA256, **(sha256 or {})}
    if hashes.keys() != GPT2_SHA256.keys():
        raise BpeError(
            f"sha256 names {sorted(hashes.keys() - GPT2_SHA256.keys())!r}; "
            f"GPT-2's files are {ENCODER_JSON} and {VOCAB_BPE}"
        )
    with folder_lock(folder, "download"):  # server processes sharing the cache take turns
        for name, expected in hashes.items():
            target = folder / name
            if verified_cached_file(
                target,
                expected,
                error=DownloadError,
                advice="It is not OpenAI's file. Delete it and run this again to download it.",
            ):
                continue
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise DownloadError(
                    f"cannot create {folder}: {error.strerror}. Choose a writable --cache-dir."
                ) from None
            url = f"{base_url.rstrip('/')}/{name}"
            try:
                fetch_verified([url], target, expected, progress=progress, timeout=timeout, deadline=deadline)
            except DownloadError as error:
                raise DownloadError(
                    f"could not download GPT-2's {name} from {url}: {_reasons(error)}\n"
                    f"If this machine is offline, {_by_hand(folder, base_url.rstrip('/'), hashes)}"
                ) from None
    return folder / ENCODER_JSON, folder / VOCAB_BPE


def _reasons(error: DownloadError) -> str:
    """The per-mirror reasons of `fetch_verified`'s message, without its generic advice."""
    lines = [line.strip()[2:] for line in str(error).splitlines() if line.startswith("  - ")]
    reasons = "; ".join(line.split(": ", 1)[-1] for line in lines) or str(error)
    return reasons.replace(" If you trust it, pass --sha256 with its hash.", "")  # no such option here


# ==================== Reading and checking


def parse_gpt2_files(
    encoder_json_path: str | os.PathLike[str],
    vocab_bpe_path: str | os.PathLike[str],
    *,
    special_tokens: Sequence[str] = (),
) -> GPT2Vocabulary:
    """Read and cross-check ``encoder.json`` and ``vocab.bpe``; errors name the file and line.

    ``special_tokens``: strings of any shape to treat as special tokens (CS336's
    ``<|endoftext|><|endoftext|>`` beside ``<|endoftext|>``). Each keeps the id
    ``encoder.json`` gives it; one it does not list takes the next id after the file's,
    in the order given (as tiktoken numbers an extra special token)."""
    encoder_path, vocab_path = Path(encoder_json_path), Path(vocab_bpe_path)
    wanted = check_special_tokens(special_tokens)
    encoder = _read_encoder(encoder_path)
    lines = _read_merge_lines(vocab_path)
    tokens = _byte_tokens(encoder, encoder_path)
    merges = _merges(lines, encoder, tokens, encoder_path, vocab_path)
    special = _special_tokens(encoder, lines, encoder_path, vocab_path, wanted)
    return GPT2Vocabulary(tokens, merges, special)


def _read_bytes(path: Path) -> bytes:
    return read_file_bytes(path, what="GPT-2 file", error=BpeError)


def _read_encoder(path: Path) -> dict[str, int]:
    raw = _read_bytes(path)
    check_json_values(raw, name=str(path))
    data = load_json(raw, name=str(path), what="encoder.json", error=BpeError)
    if not isinstance(data, dict):
        raise BpeError(f"{path} holds a JSON {type(data).__name__}; encoder.json is an object of token -> id")
    # Each entry spells its token (one character a byte): bounded before any is built.
    check_token_lengths((len(token) for token in data), name=str(path), where=lambda index: f"entry {index + 1:,}")
    for token, token_id in data.items():
        if type(token_id) is not int or token_id < 0:
            raise BpeError(f"{path}: token {token!r} has id {token_id!r}; ids are whole numbers from 0")
    return data


def _read_merge_lines(path: Path) -> list[tuple[int, str, str]]:
    """(line number, left, right) per merge; the ``#version`` header and a final newline are skipped."""
    raw = _read_bytes(path)
    check_line_count(raw, name=str(path), max_lines=MAX_ENTRIES, what="merge")
    lines = decode_utf8(raw, name=str(path), error=BpeError).split("\n")
    start = 1 if lines and lines[0].startswith("#version") else 0
    if lines and lines[-1] == "":
        lines.pop()
    merges = []
    for number in range(start + 1, len(lines) + 1):
        parts = lines[number - 1].split()
        if len(parts) != 2:
            raise BpeError(f"{path} line {number}: expected two tokens separated by a space, got {lines[number - 1]!r}")
        merges.append((number, parts[0], parts[1]))
    return merges


def _byte_tokens(encoder: dict[str, int], path: Path) -> list[bytes]:
    """The 256 single bytes, by id: each must be listed, with an id below 256."""
    tokens: list = [None] * N_BYTES
    for value, spelled in bytes_to_unicode().items():
        token_id = encoder.get(spelled)
        if token_id is None:
            raise BpeError(
                f"{path} has no entry for byte 0x{value:02X} (spelled {spelled!r}); "
                "a GPT-2 vocabulary lists all 256 bytes"
            )
        if token_id >= N_BYTES or tokens[token_id] is not None:
            raise BpeError(
                f"{path} gives byte 0x{value:02X} (spelled {spelled!r}) id {token_id}; the 256 "
                "bytes must have the ids 0 to 255, one each (merged tokens come after them)"
            )
        tokens[token_id] = bytes([value])
    return tokens


def _merges(lines, encoder, tokens, encoder_path: Path, vocab_path: Path) -> list[tuple[bytes, bytes]]:
    """Check each merge and build its token's bytes.

    Work stays on the spelled strings: spelling is one character per byte, so spelled
    strings concatenate exactly as their bytes do, and nothing is decoded twice.
    """
    table = bytes_to_unicode()
    bytes_of = {table[token[0]]: token for token in tokens}  # spelled -> bytes, known tokens only
    made_by: dict[str, int] = {}  # spelled -> line that made it
    merges = []
    for index, (number, left, right) in enumerate(lines):
        left_bytes, right_bytes = bytes_of.get(left), bytes_of.get(right)
        if left_bytes is None or right_bytes is None:
            _unknown_part(left if left_bytes is None else right, left, right, number, vocab_path)
        spelled = left + right
        if spelled in bytes_of:
            where = f"line {made_by[spelled]} made it already" if spelled in made_by else "it is a single byte"
            raise BpeError(
                f"{vocab_path} line {number} makes {spelled!r} again ({where}); each merge must make a new token"
            )
        expected = N_BYTES + index
        actual = encoder.get(spelled)
        if actual != expected:
            if actual is None:
                raise BpeError(f"{vocab_path} line {number} makes {spelled!r}, which {encoder_path} does not list")
            raise BpeError(
                f"{vocab_path} line {number} makes {spelled!r}, which {encoder_path} gives id "
                f"{actual}; merge {index + 1} must have id {expected} (ids follow merge order: "
                "rank and id are the same number)"
            )
        token = bytes_of[spelled] = left_bytes + right_bytes
        made_by[spelled] = number
        tokens.append(token)
        merges.append((left_bytes, right_bytes))
    return merges


def _unknown_part(part: str, left: str, right: str, number: int, vocab_path: Path):
    table = unicode_to_bytes()
    bad = next((ch for ch in part if ch not in table), None)
    if bad is not None:
        raise BpeError(
            f"{vocab_path} line {number}: {part!r} holds {bad!r}, which is not in GPT-2's "
            "byte-to-unicode table (is this a GPT-2 vocab.bpe?)"
        )
    raise BpeError(
        f"{vocab_path} line {number}: the merge {left} {right} uses {part!r}, which is neither "
        "a single byte nor made by an earlier line"
    )


def _special_tokens(encoder, lines, encoder_path: Path, vocab_path: Path, wanted: tuple[str, ...]) -> dict[str, int]:
    """Entries after the bytes and merge results: each must be ``<|...|>`` (or one of the
    ``wanted`` special tokens) with an id of its own; then each wanted special token the
    file does not list, numbered on from the file's last id.

    The bytes and merges were checked to own the ids 0 .. n-1 (n = 256 + merges), so any
    other entry with an id below n shares an id with one of them.
    """
    n_mergeable = N_BYTES + len(lines)
    special = {token: token_id for token, token_id in encoder.items() if token_id >= n_mergeable}
    if len(encoder) - len(special) != n_mergeable:
        mergeable = set(bytes_to_unicode().values()) | {left + right for _number, left, right in lines}
        token = next(token for token, token_id in encoder.items() if token_id < n_mergeable and token not in mergeable)
        raise BpeError(
            f"{encoder_path} gives {token!r} id {encoder[token]}, which a byte or a merge of "
            f"{vocab_path} already has; each token needs an id of its own"
        )
    for token in wanted:
        if token in encoder and token not in special:
            raise BpeError(
                f"the special token {token!r} is an ordinary token of {encoder_path} (id {encoder[token]}); "
                "a special token needs an id of its own"
            )
    for token, token_id in special.items():
        if token not in wanted and not SPECIAL_TOKEN.fullmatch(token):
            raise BpeError(
                f"{encoder_path} lists {token!r} (id {token_id}), which is neither a byte, nor made by "
                f"a line of {vocab_path}, nor a special token like '<|endoftext|>'"
            )
    owners: dict[int, str] = {}
    for token, token_id in special.items():
        if token_id in owners:
            raise BpeError(
                f"{encoder_path} gives id {token_id} to both {owners[token_id]!r} and {token!r}; "
                "each token needs an id of its own"
            )
        owners[token_id] = token
    gaps = sorted(set(range(n_mergeable, n_mergeable + len(owners))) - owners.keys())
    if gaps:
        raise BpeError(
            f"{encoder_path}: ids must run from 0 to {len(encoder) - 1} without gaps; id {gaps[0]} is missing"
        )
    for token in wanted:
        if token not in special:
            special[token] = len(encoder) + len(special) - len(owners)
    return special
