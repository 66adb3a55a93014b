"""Download WikiText-2 (raw, v1) once, check its SHA-256, and unpack it into the cache.

The transfer is `bpe.io.fetch.fetch_verified`'s (mirrors in order, a deadline per transfer,
SHA-256 checked before the archive gets its name). Here:
- every unpacked file goes through a temporary name too; unpacking streams each member to
  disk with a size cap, so a small archive that inflates to gigabytes is refused, not
  held in memory;
- a second call finds the clean files (written last) and makes no request at all. An
  archive already in the cache (put there by hand on an offline machine) is verified and
  unpacked without any network.
- Several server processes may share one cache (`python -m pages._shared.lecture_hall`): they take turns
  on the machine's lock for the cache folder (`bpe.io.locks.folder_lock`), so whichever gets
  there first downloads and unpacks, and the others wait for it and then find the files.
"""

from __future__ import annotations

import os
import zipfile
import zlib
from collections.abc import Sequence
from pathlib import Path

from bpe.corpora.textfile import DEFAULT_MAX_BYTES
from bpe.corpora.wikitext import ARCHIVE_NAME, CACHE_FOLDER, RAW_MEMBERS, clean_files, clean_text, has_clean_files
from bpe.errors import BpeError, CorpusError, DownloadError
from bpe.io.fetch import CHUNK_BYTES, DEFAULT_DEADLINE, Progress, check_mirrors, check_sha256_digest, fetch_verified
from bpe.io.files import atomic_write_bytes, atomic_writer, verified_cached_file
from bpe.io.locks import folder_lock

WIKITEXT2_MIRRORS = (
    "https://s3.amazonaws.com/research.metamind.io/wikitext/wikitext-2-raw-v1.zip",
    "https://wikitext.smerity.com/wikitext-2-raw-v1.zip",
)
# The published SHA-256 of wikitext-2-raw-v1.zip, as we believe it to be correct (not
# re-verified from this project's machines). If a mirror serves another build, check it
# yourself and pass sha256=... (the command line's --sha256).
WIKITEXT2_SHA256 = "ef7edb566e3e2b2d31b29c1fdb0c89a4cc683597484c3dc2517919c615435a11"

MAX_ARCHIVE_BYTES = 200_000_000  # the real archive is ~4.5 MB; stop a wrong URL filling the disk
MAX_MEMBER_BYTES = DEFAULT_MAX_BYTES  # an unpacked split; the largest real one (train) is ~11 MB


def download_wikitext2(
    cache_dir: str | os.PathLike[str],
    *,
    mirrors: Sequence[str] | None = None,
    sha256: str | None = None,
    progress: Progress | None = None,
    timeout: float = 30,
    deadline: float = DEFAULT_DEADLINE,
) -> Path:
    """Make sure `<cache_dir>/wikitext-2-raw/` holds WikiText-2, and return that folder.

    The folder ends up with the three raw splits as published (`wiki.train.raw`,
    `wiki.valid.raw`, `wiki.test.raw`) and, written last, the files the app reads:
    `wikitext2_train_clean.txt`, `wikitext2_val_clean.txt`, `wikitext2_test_clean.txt`.
    "Clean" means checked, not changed: each is its raw split, verified to be UTF-8
    without NUL bytes, with the text kept exactly (see `bpe.corpora.wikitext.clean_text`).
    The archive itself stays in `cache_dir` as `wikitext-2-raw-v1.zip`.

    `progress(done_bytes, total_bytes_or_None)` is called as the archive arrives.
    ``timeout`` bounds each connect and read, ``deadline`` each mirror's whole transfer.
    """
    cache_dir = Path(cache_dir)
    folder = cache_dir / CACHE_FOLDER
    if has_clean_files(folder):
        return folder
    expected = check_sha256_digest(WIKITEXT2_SHA256 if sha256 is None else sha256)
    urls = check_mirrors(WIKITEXT2_MIRRORS if mirrors is None else mirrors, what=ARCHIVE_NAME)
    archive = cache_dir / ARCHIVE_NAME
    with folder_lock(cache_dir, "download"):
        if has_clean_files(folder):  # another process finished it while this one waited
            return folder
        if not verified_cached_file(
            archive,
            expected,
            error=DownloadError,
            advice="Delete it to download again, or pass --sha256 with its hash if you trust this file.",
        ):
            _mkdir(cache_dir)
            fetch_verified(
                urls,
                archive,
                expected,
                progress=progress,
                timeout=timeout,
                deadline=deadline,
                max_bytes=MAX_ARCHIVE_BYTES,
                advice="It is then unpacked too. Another source can be given with --mirror URL.",
            )
        _unpack(archive, folder)
    return folder


def _mkdir(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise DownloadError(f"cannot create {folder}: {error.strerror}. Choose a writable --cache-dir.") from error


def _write_atomic(path: Path, data: bytes) -> None:
    try:
        atomic_write_bytes(path, data)
    except BpeError as error:
        raise DownloadError(f"{error}. Free some disk space or choose another --cache-dir.") from None


def _unpack(archive: Path, folder: Path) -> None:
    """Stream the raw splits to disk (each capped at `MAX_MEMBER_BYTES`), check them, then
    (last, so a complete folder means done) write the clean files."""
    _mkdir(folder)
    members = {split: f"{CACHE_FOLDER}/{name}" for split, name in RAW_MEMBERS.items()}
    try:
        with zipfile.ZipFile(archive) as zf:
            for split, member in members.items():
                _copy_member(zf, member, folder / RAW_MEMBERS[split], archive)
    except (zipfile.BadZipFile, zlib.error, EOFError) as error:
        raise DownloadError(f"{archive} is not a readable zip file ({error}). Delete it and download again.") from error
    # Every split is checked before any clean file is written; one split in memory at a time.
    for write in (False, True):
        for split, path in clean_files(folder).items():
            raw = (folder / RAW_MEMBERS[split]).read_bytes()
            try:
                cleaned = clean_text(raw, name=f"{members[split]} in {archive.name}")
            except CorpusError as error:
                raise DownloadError(f"{error} Delete {archive} and download again.") from error
            if write:
                _write_atomic(path, cleaned.encode("utf-8"))


def _copy_member(zf: zipfile.ZipFile, member: str, target: Path, archive: Path) -> None:
    """Copy one member to ``target`` in chunks, refusing it past `MAX_MEMBER_BYTES` by its
    header and by the bytes that actually come out (a header can lie)."""
    try:
        info = zf.getinfo(member)
    except KeyError:
        raise DownloadError(
            f"{archive} has no {member}: it is not wikitext-2-raw-v1.zip. Delete it and download again."
        ) from None
    too_big = (
        f"{member} in {archive.name} unpacks to more than {MAX_MEMBER_BYTES:,} bytes: it is not "
        f"WikiText-2. Delete {archive} and download again."
    )
    if info.file_size > MAX_MEMBER_BYTES:
        raise DownloadError(too_big)
    try:
        with zf.open(info) as source, atomic_writer(target) as out:
            copied = 0
            while chunk := source.read(CHUNK_BYTES):
                copied += len(chunk)
                if copied > MAX_MEMBER_BYTES:
                    raise DownloadError(too_big)
                out.write(chunk)
    except DownloadError:
        raise
    except BpeError as error:
        raise DownloadError(f"{error}. Free some disk space or choose another --cache-dir.") from None


# ==================== Arguments
