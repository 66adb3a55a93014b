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
- Every transfer has two limits: ``timeout`` for each connect and read, and ``deadline``
  for the whole transfer, enforced by shutting the socket (a server that sends one byte
  every 0.8 s never trips a per-read timeout). Unpacking streams each member to disk with
  a size cap, so a small archive that inflates to gigabytes is refused, not held in memory.
- A second call finds the clean files (written last) and makes no request at all. An
  archive already in the cache (put there by hand on an offline machine) is verified and
  unpacked without any network.
- Several server processes may share one cache (`python -m bpe serve`): they take turns
  on the machine's lock for the cache folder (`bpe.locks.folder_lock`), so whichever gets
  there first downloads and unpacks, and the others wait for it and then find the files.
"""

from __future__ import annotations

import hashlib
import os
import re
import socket
import threading
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

from bpe.corpora.textfile import DEFAULT_MAX_BYTES
from bpe.corpora.wikitext import ARCHIVE_NAME, CACHE_FOLDER, RAW_MEMBERS, clean_files, clean_text, has_clean_files
from bpe.errors import BpeError, CorpusError, DownloadError
from bpe.files import atomic_write_bytes, atomic_writer, check_writable_target, verified_cached_file
from bpe.locks import folder_lock

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
MAX_MEMBER_BYTES = DEFAULT_MAX_BYTES  # an unpacked split; the largest real one (train) is ~11 MB
DEFAULT_DEADLINE = 600.0  # seconds for one whole transfer, however the server paces it
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
    deadline: float = DEFAULT_DEADLINE,
) -> Path:
    """Make sure `<cache_dir>/wikitext-2-raw/` holds WikiText-2, and return that folder.

    The folder ends up with the three raw splits as published (`wiki.train.raw`,
    `wiki.valid.raw`, `wiki.test.raw`) and, written last, the files the app reads:
    `wikitext2_train_clean.txt`, `wikitext2_val_clean.txt`, `wikitext2_test_clean.txt`.
    "Clean" means checked, not changed: each is its raw split, verified to be UTF-8
    without NUL bytes, with the text kept exactly (see `bpe.wikitext.clean_text`).
    The archive itself stays in `cache_dir` as `wikitext-2-raw-v1.zip`.

    `progress(done_bytes, total_bytes_or_None)` is called as the archive arrives.
    ``timeout`` bounds each connect and read, ``deadline`` each mirror's whole transfer.
    """
    cache_dir = Path(cache_dir)
    folder = cache_dir / CACHE_FOLDER
    if has_clean_files(folder):
        return folder
    expected = _check_sha256(WIKITEXT2_SHA256 if sha256 is None else sha256)
    urls = _check_mirrors(WIKITEXT2_MIRRORS if mirrors is None else mirrors)
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
            fetch_verified(urls, archive, expected, progress=progress, timeout=timeout, deadline=deadline)
        _unpack(archive, folder)
    return folder


def fetch_verified(
    urls: Sequence[str],
    target: Path,
    sha256: str,
    *,
    progress: Progress | None = None,
    timeout: float = 30,
    deadline: float = DEFAULT_DEADLINE,
) -> None:
    """Download the first mirror that answers with the right bytes to `target`, atomically.
    `target` must be a regular file or absent (a device or folder there is refused)."""
    check_writable_target(target)
    _check_seconds("timeout", timeout)
    _check_seconds("deadline", deadline)
    failures = []
    for url in urls:
        try:
            _fetch_one(url, target, sha256, progress=progress, timeout=timeout, deadline=deadline)
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


def _fetch_one(
    url: str, target: Path, sha256: str, *, progress: Progress | None, timeout: float, deadline: float
) -> None:
    part = target.with_name(f"{target.name}.{uuid.uuid4().hex}.part")
    try:
        with _open_new(part) as out:
            done, total, actual = _stream(url, out, progress=progress, timeout=timeout, deadline=deadline)
        if total is not None and done < total:
            raise _MirrorFailed(f"the transfer broke off after {done:,} of {total:,} bytes")
        if actual != sha256:
            raise _MirrorFailed(
                f"sha256 mismatch: expected {sha256}, got {actual} ({done:,} bytes); "
                "the mirror serves a different file. If you trust it, pass --sha256 with its hash."
            )
        check_writable_target(target)  # still a regular file or absent, never a device
        os.replace(part, target)
    finally:
        part.unlink(missing_ok=True)  # gone already after os.replace; otherwise a partial file


def _stream(
    url: str, out: BinaryIO, *, progress: Progress | None, timeout: float, deadline: float
) -> tuple[int, int | None, str]:
    """Copy the response body into `out`; return (bytes done, Content-Length or None, sha256)."""
    digest, done = hashlib.sha256(), 0
    request = urllib.request.Request(url, headers={"User-Agent": "bpe-lab"})
    with _Deadline(deadline) as limit:
        try:
            with _opener(limit).open(request, timeout=timeout) as response:
                total = _content_length(response.headers.get("Content-Length"))
                if progress is not None:
                    progress(0, total)
                # read1: whatever has arrived, so the deadline is checked between small reads
                while chunk := response.read1(CHUNK_BYTES):
                    done += len(chunk)
                    if done > MAX_ARCHIVE_BYTES:
                        raise _MirrorFailed(f"the body is over {MAX_ARCHIVE_BYTES:,} bytes; this is not the archive")
                    digest.update(chunk)
                    _write(out, chunk)
                    if progress is not None:
                        progress(done, total)
                    limit.check(done)
                limit.check(done)  # a socket shut at the deadline reads as the end of the body
        except urllib.error.HTTPError as error:
            error.close()
            raise _MirrorFailed(f"HTTP {error.code} {error.reason}") from error
        except urllib.error.URLError as error:
            limit.check(done)
            raise _MirrorFailed(f"cannot connect ({error.reason})") from error
        except (OSError, HTTPException) as error:  # timeouts, resets, malformed responses
            limit.check(done)
            raise _MirrorFailed(f"the transfer failed after {done:,} bytes ({error!r})") from error
    return done, total, digest.hexdigest()


class _Deadline:
    """A whole transfer's time limit. A per-read timeout never fires while a server keeps
    sending a byte now and then, so when the deadline passes a timer shuts down the
    connection's socket: the read that is waiting returns at once."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.expired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def __enter__(self) -> _Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self._timer.cancel()

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            if self.expired:
                _shut(sock)

    def check(self, done: int) -> None:
        if self.expired:
            raise _MirrorFailed(
                f"the transfer did not finish within the deadline of {self.seconds:g} s "
                f"({done:,} bytes arrived); a slow or stalling server"
            )

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                _shut(sock)


def _shut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # already closed


def _opener(deadline: _Deadline) -> urllib.request.OpenerDirector:
    """urllib's opener, with every connection it makes (redirects too) watched by ``deadline``."""

    def watched(connection_class: type) -> type:
        class Watched(connection_class):
            def connect(self) -> None:
                super().connect()
                deadline.watch(self.sock)

        return Watched

    class Handler(urllib.request.HTTPHandler):
        def do_open(self, http_class, req, **kwargs):
            return super().do_open(watched(http_class), req, **kwargs)

    class SecureHandler(urllib.request.HTTPSHandler):
        def do_open(self, http_class, req, **kwargs):
            return super().do_open(watched(http_class), req, **kwargs)

    return urllib.request.build_opener(Handler, SecureHandler)


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


def _check_sha256(value: str) -> str:
    digest = str(value).strip().lower()
    if not re.fullmatch(r"[0-9a-f]{64}", digest):
        raise BpeError(f"sha256={value!r} is not a SHA-256 digest; give 64 hexadecimal digits.")
    return digest


def _check_seconds(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
        raise BpeError(f"{name}={value!r} must be a number of seconds above 0")


def _check_mirrors(mirrors: Sequence[str]) -> list[str]:
    urls = [mirrors] if isinstance(mirrors, str) else list(mirrors)
    if not urls:
        raise BpeError("no mirrors given; pass at least one http(s):// URL of wikitext-2-raw-v1.zip.")
    for url in urls:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise BpeError(f"mirror {url!r} is not an http:// or https:// URL.")
    return urls
