"""Download WikiText-2 (raw, v1) once, check its SHA-256, and unpack it into the cache.

Why it is built this way (after tiktoken's `load.py`):
- Nothing half-written ever carries a final name. The archive streams into
  `<archive>.<uuid>.part`, is hashed on the way, and only a verified file is moved into
  place with `os.replace`; every unpacked file goes through a temporary name the same
  way. Whatever happens (a broken connection, a wrong hash, Ctrl-C), the partial file is
  deleted, so the next run never mistakes it for a good one.
- Mirrors are tried in order; a mirror that fails (HTTP error, refused connection, cut
  transfer, wrong hash) is noted and the next one is tried. When all fail, the error
  lists each mirror's reason and says where to put the archive by hand.
- A second call finds the clean files (written last) and makes no request at all. An
  archive already in the cache (put there by hand on an offline machine) is verified and
  unpacked without any network.
"""
from __future__ import annotations

import hashlib
import os
import re
import urllib.error
import urllib.parse
import urllib.request
import uuid
import zipfile
import zlib
from collections.abc import Callable, Sequence
from http.client import HTTPException
from pathlib import Path
from typing import BinaryIO

from bpe.errors import BpeError, CorpusError, DownloadError
from bpe.files import atomic_write_bytes, verified_cached_file
from bpe.corpora.wikitext import ARCHIVE_NAME, CACHE_FOLDER, RAW_MEMBERS, clean_files, clean_text, has_clean_files

WIKITEXT2_MIRRORS = (
    "https://s3.amazonaws.com/research.metamind.io/wikitext/wikitext-2-raw-v1.zip",
    "https://wikitext.smerity.com/wikitext-2-raw-v1.zip",
)
# The published SHA-256 of wikitext-2-raw-v1.zip, as we believe it to be correct (not
# re-verified from this project's machines). If a mirror serves another build, check it
# yourself and pass sha256=... (the command line's --sha256).
WIKITEXT2_SHA256 = "ef7edb566e3e2b2d31b29c1fdb0c89a4cc683597484c3dc2517919c615435a11"

CHUNK_BYTES = 64 * 1024
MAX_ARCHIVE_BYTES = 200_000_000  # the real archive is ~4.5 MB; stop a wrong URL filling the disk
Progress = Callable[[int, int | None], None]  # (bytes done, total bytes or None if unknown)


class _MirrorFailed(Exception):
    """One mirror failed; the reason is collected and the next mirror is tried."""


def download_wikitext2(
    cache_dir: str | os.PathLike[str],
    *,
    mirrors: Sequence[str] | None = None,
    sha256: str | None = None,
    progress: Progress | None = None,
    timeout: float = 30,
) -> Path:
    """Make sure `<cache_dir>/wikitext-2-raw/` holds WikiText-2, and return that folder.

    The folder ends up with the three raw splits as published (`wiki.train.raw`,
    `wiki.valid.raw`, `wiki.test.raw`) and, written last, the files the app reads:
    `wikitext2_train_clean.txt`, `wikitext2_val_clean.txt`, `wikitext2_test_clean.txt`.
    "Clean" means checked, not changed: each is its raw split, verified to be UTF-8
    without NUL bytes, with the text kept exactly (see `bpe.wikitext.clean_text`).
    The archive itself stays in `cache_dir` as `wikitext-2-raw-v1.zip`.

    `progress(done_bytes, total_bytes_or_None)` is called as the archive arrives.
    """
    cache_dir = Path(cache_dir)
    folder = cache_dir / CACHE_FOLDER
    if has_clean_files(folder):
        return folder
    expected = _check_sha256(WIKITEXT2_SHA256 if sha256 is None else sha256)
    urls = _check_mirrors(WIKITEXT2_MIRRORS if mirrors is None else mirrors)
    archive = cache_dir / ARCHIVE_NAME
    if not verified_cached_file(archive, expected, error=DownloadError,
                                advice="Delete it to download again, or pass --sha256 with its hash if you "
                                       "trust this file."):
        _mkdir(cache_dir)
        fetch_verified(urls, archive, expected, progress=progress, timeout=timeout)
    _unpack(archive, folder)
    return folder


def fetch_verified(
    urls: Sequence[str],
    target: Path,
    sha256: str,
    *,
    progress: Progress | None = None,
    timeout: float = 30,
) -> None:
    """Download the first mirror that answers with the right bytes to `target`, atomically."""
    failures = []
    for url in urls:
        try:
            _fetch_one(url, target, sha256, progress=progress, timeout=timeout)
            return
        except _MirrorFailed as failure:
            failures.append(f"  - {url}: {failure}")
    raise DownloadError(
        f"could not download {target.name} from any mirror:\n" + "\n".join(failures) + "\n"
        f"If this machine is offline, download {target.name} (sha256 {sha256}) elsewhere, "
        f"e.g. from {urls[0]}, put it at {target} and run this again: it is then checked "
        "and unpacked with no network. Another source can be given with --mirror URL."
    )


# ==================== One mirror


def _fetch_one(url: str, target: Path, sha256: str, *, progress: Progress | None, timeout: float) -> None:
    part = target.with_name(f"{target.name}.{uuid.uuid4().hex}.part")
    try:
        with _open_new(part) as out:
            done, total, actual = _stream(url, out, progress=progress, timeout=timeout)
        if total is not None and done < total:
            raise _MirrorFailed(f"the transfer broke off after {done:,} of {total:,} bytes")
        if actual != sha256:
            raise _MirrorFailed(
                f"sha256 mismatch: expected {sha256}, got {actual} ({done:,} bytes); "
                "the mirror serves a different file. If you trust it, pass --sha256 with its hash."
            )
        os.replace(part, target)
    finally:
        part.unlink(missing_ok=True)  # gone already after os.replace; otherwise a partial file


def _stream(url: str, out: BinaryIO, *, progress: Progress | None, timeout: float) -> tuple[int, int | None, str]:
    """Copy the response body into `out`; return (bytes done, Content-Length or None, sha256)."""
    digest, done = hashlib.sha256(), 0
    request = urllib.request.Request(url, headers={"User-Agent": "bpe-lab"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            total = _content_length(response.headers.get("Content-Length"))
            if progress is not None:
                progress(0, total)
            while chunk := response.read(CHUNK_BYTES):
                done += len(chunk)
                if done > MAX_ARCHIVE_BYTES:
                    raise _MirrorFailed(f"the body is over {MAX_ARCHIVE_BYTES:,} bytes; this is not the archive")
                digest.update(chunk)
                _write(out, chunk)
                if progress is not None:
                    progress(done, total)
    except urllib.error.HTTPError as error:
        error.close()
        raise _MirrorFailed(f"HTTP {error.code} {error.reason}") from error
    except urllib.error.URLError as error:
        raise _MirrorFailed(f"cannot connect ({error.reason})") from error
    except (OSError, HTTPException) as error:  # timeouts, resets, malformed responses
        raise _MirrorFailed(f"the transfer failed after {done:,} bytes ({error!r})") from error
    return done, total, digest.hexdigest()


def _content_length(value: str | None) -> int | None:
    return int(value) if value is not None and value.strip().isdigit() else None


# ==================== Local files (errors here are ours, not the mirror's: no retry)


def _open_new(path: Path) -> BinaryIO:
    try:
        return path.open("xb")
    except OSError as error:
        raise DownloadError(f"cannot write {path}: {error.strerror}. Choose a writable --cache-dir.") from error


def _write(out: BinaryIO, chunk: bytes) -> None:
    try:
        out.write(chunk)
    except OSError as error:
        raise DownloadError(
            f"cannot write {out.name}: {error.strerror}. Free some disk space or choose another --cache-dir."
        ) from error


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
    """Write the raw splits, then (last, so a complete folder means done) the clean files."""
    _mkdir(folder)
    cleaned = {}
    try:
        with zipfile.ZipFile(archive) as zf:
            for split, name in RAW_MEMBERS.items():
                member = f"{CACHE_FOLDER}/{name}"
                try:
                    raw = zf.read(member)
                except KeyError:
                    raise DownloadError(
                        f"{archive} has no {member}: it is not wikitext-2-raw-v1.zip. "
                        "Delete it and download again."
                    ) from None
                try:
                    cleaned[split] = clean_text(raw, name=f"{member} in {archive.name}").encode("utf-8")
                except CorpusError as error:
                    raise DownloadError(f"{error} Delete {archive} and download again.") from error
                _write_atomic(folder / name, raw)
    except (zipfile.BadZipFile, zlib.error, EOFError) as error:
        raise DownloadError(f"{archive} is not a readable zip file ({error}). Delete it and download again.") from error
    for split, path in clean_files(folder).items():
        _write_atomic(path, cleaned[split])


# ==================== Arguments


def _check_sha256(value: str) -> str:
    digest = str(value).strip().lower()
    if not re.fullmatch(r"[0-9a-f]{64}", digest):
        raise BpeError(f"sha256={value!r} is not a SHA-256 digest; give 64 hexadecimal digits.")
    return digest


def _check_mirrors(mirrors: Sequence[str]) -> list[str]:
    urls = [mirrors] if isinstance(mirrors, str) else list(mirrors)
    if not urls:
        raise BpeError("no mirrors given; pass at least one http(s):// URL of wikitext-2-raw-v1.zip.")
    for url in urls:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise BpeError(f"mirror {url!r} is not an http:// or https:// URL.")
    return urls
