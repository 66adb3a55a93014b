"""The files of a corpus: what the user named (files, folders, globs), found and checked.

A corpus is a list of files, each read by its name's ending: ``.jsonl`` (one JSON object
per line, the text in a field), ``.parquet`` (the text in a column), ``.arrow`` (Arrow IPC,
the text in a column: the shards a Hugging Face ``datasets`` folder saved with
``save_to_disk`` holds, beside its dataset_info.json and state.json), and any other name as
UTF-8 text (``.txt``, CS336's ``corpus.en``, WikiText-103's ``wiki.train.raw``); text and
JSON lines compressed with gzip (``.gz``) or Zstandard (``.zst``, read by pyarrow's codec).
A file compressed otherwise (``.xz``, ``.bz2``, ``.zip``, ...) is refused, saying so.
Folders are searched for the corpus endings (`FOLDER_SUFFIXES`; hidden entries skipped)
and globs expanded, each in sorted order, and a file named twice is read once::

    find_corpus_files(["books/", "extra/*.jsonl.zst", "wiki_dataset/", "wiki.train.raw"])
    # -> [books/a.txt, books/b/c.txt.gz, extra/x.jsonl.zst, wiki_dataset/data-00000-of-00002.arrow, ...,
    #     wiki.train.raw]   (as CorpusFile records)

A name that reads nothing (no such file, a folder of other files, a device or a pipe) is
one `CorpusError` line naming it, before any counting starts.
"""

from __future__ import annotations

import glob
import hashlib
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bpe.errors import CorpusError

TEXT, JSONL, PARQUET, ARROW = "text", "jsonl", "parquet", "arrow"
GZIP, ZSTD = "gzip", "zstd"
# (kind, compression) by name ending, the first that fits; any other name is text
SUFFIXES: dict[str, tuple[str, str | None]] = {
    ".jsonl.gz": (JSONL, GZIP),
    ".jsonl.zst": (JSONL, ZSTD),
    ".jsonl": (JSONL, None),
    ".parquet": (PARQUET, None),
    ".arrow": (ARROW, None),
    ".gz": (TEXT, GZIP),
    ".zst": (TEXT, ZSTD),
}
# What a folder is searched for (a folder holds other files too: a README, a licence).
FOLDER_SUFFIXES = (".txt", ".jsonl", ".parquet", ".arrow", ".txt.gz", ".jsonl.gz", ".txt.zst", ".jsonl.zst")
# Compressions BPE Lab does not read: such a file is refused, not read as text.
OTHER_COMPRESSIONS = (".xz", ".bz2", ".lz4", ".zip", ".7z", ".tar", ".tgz", ".br")


@dataclass(frozen=True)
class CorpusFile:
    """One input file: where it is, what it holds, how big it is on disk."""

    path: Path  # absolute: a Dask worker may run in another folder
    kind: str  # TEXT, JSONL, PARQUET or ARROW
    compressed: str | None  # GZIP, ZSTD, or None
    size: int
    name: str  # as the user named it, for messages and the counts file


def kind_of(path: Path) -> tuple[str, str | None] | None:
    """(kind, compression) from a file's name: JSON lines, Parquet, Arrow, or text (any
    other name), with GZIP, ZSTD or None; None for a file compressed in a way BPE Lab does
    not read."""
    name = path.name.lower()
    for suffix, kind in SUFFIXES.items():
        if name.endswith(suffix) and len(name) > len(suffix):
            return kind
    if name.endswith(OTHER_COMPRESSIONS):
        return None
    return TEXT, None


def _in_folder(path: Path) -> bool:
    """A file a folder search reads: one of the corpus endings."""
    name = path.name.lower()
    return any(name.endswith(suffix) and len(name) > len(suffix) for suffix in FOLDER_SUFFIXES)


def find_corpus_files(inputs: Sequence[str | os.PathLike[str]]) -> list[CorpusFile]:
    """The files a list of inputs names: files as given, folders searched (recursively,
    hidden entries skipped), globs expanded, each in sorted order; a file named twice is
    read once. Raises `CorpusError` for an input that names nothing readable."""
    if isinstance(inputs, str | os.PathLike):
        inputs = [inputs]
    if not inputs:
        raise CorpusError("no input given: name the corpus files, folders or globs to read")
    found: list[CorpusFile] = []
    seen: set[Path] = set()
    for given in inputs:
        for path in _expanded(str(given)):
            resolved = path.resolve()
            if resolved not in seen:
                seen.add(resolved)
                found.append(_corpus_file(path))
    return found


def _expanded(given: str) -> list[Path]:
    path = Path(given)
    if path.is_dir():
        files = sorted(
            p
            for p in path.rglob("*")
            if _in_folder(p) and p.is_file() and not any(part.startswith(".") for part in p.relative_to(path).parts)
        )
        if not files:
            raise CorpusError(
                f"the folder {given} holds no corpus files ({', '.join(FOLDER_SUFFIXES)}); name other files, "
                "or a glob of them, to read them as text"
            )
        return files
    if path.exists() or path.is_symlink():
        _require_readable_kind(path, given)
        return [path]
    if glob.has_magic(given):
        files = sorted(Path(p) for p in glob.glob(given, recursive=True) if Path(p).is_file())
        if not files:
            raise CorpusError(f"the pattern {given} matches no files")
        for file in files:
            _require_readable_kind(file, str(file))
        return files
    raise CorpusError(f"cannot read {given}: no such file or folder")


def _require_readable_kind(path: Path, given: str) -> None:
    if kind_of(path) is None:
        raise CorpusError(
            f"{given} is compressed ({path.suffix}), which BPE Lab does not read: decompress it (or gzip it) "
            "and name that file"
        )


def _corpus_file(path: Path) -> CorpusFile:
    kind, compressed = kind_of(path)  # type: ignore[misc]
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):  # a FIFO would block the first read, a device never end
            raise CorpusError(f"cannot read {path}: it is not a regular file (a device, pipe or socket)")
        size = info.st_size
        with path.open("rb"):
            pass
    except OSError as error:
        raise CorpusError(f"cannot read {path}: {error.strerror or error}") from None
    return CorpusFile(path=path.absolute(), kind=kind, compressed=compressed, size=size, name=str(path))


def file_sha256(file: CorpusFile) -> str:
    digest = hashlib.sha256()
    try:
        with file.path.open("rb") as handle:
            while block := handle.read(1 << 20):
                digest.update(block)
    except OSError as error:
        raise CorpusError(f"cannot read {file.name}: {error.strerror or error}") from None
    return digest.hexdigest()
