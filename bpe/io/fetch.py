"""Download a file whose SHA-256 is known, from the first mirror that serves it, safely.

Used by every download (`bpe.corpora.download` for WikiText-2, `bpe.gpt2.files` for
OpenAI's GPT-2 files). Why it is built this way (after tiktoken's `load.py`):

- Nothing half-written ever carries a final name. The body streams into
  `<target>.bpe-<host>-<pid>-<random>.part` (named by `bpe.io.files.temporary_path`), is
  hashed on the way, and only a verified file is moved into place with `os.replace`.
  Whatever happens (a broken connection, a wrong hash, Ctrl-C), the partial file is
  deleted, so the next run never mistakes it for a good one; one left by a download
  killed with SIGKILL names its dead process, and the next download of it removes it.
- Mirrors are tried in order; a mirror that fails (HTTP error, refused connection, cut
  transfer, wrong hash, a body over the cap) is noted and the next one is tried. When all
  fail, the error lists each mirror's reason and says where to put the file by hand.
- Every transfer has two limits: ``timeout`` for each connect and read, and ``deadline``
  for the whole transfer, enforced by shutting the socket (a server that sends one byte
  every 0.8 s never trips a per-read timeout).
"""

from __future__ import annotations

import hashlib
import os
import re
import socket
import threading
import urllib.error
import urllib.parse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from bpe.errors import BpeError, DownloadError
from bpe.io.files import check_writable_target, temporary_path

if TYPE_CHECKING:
    import urllib.request

CHUNK_BYTES = 64 * 1024
MAX_DOWNLOAD_BYTES = 200_000_000  # a body past this is refused (stops a wrong URL filling the disk)
DEFAULT_DEADLINE = 600.0  # seconds for one whole transfer, however the server paces it
Progress = Callable[[int, int | None], None]  # (bytes done, total bytes or None if unknown)


class _MirrorFailed(Exception):
    """One mirror failed; the reason is collected and the next mirror is tried."""


def fetch_verified(
    urls: Sequence[str],
    target: Path,
    sha256: str,
    *,
    progress: Progress | None = None,
    timeout: float = 30,
    deadline: float = DEFAULT_DEADLINE,
    max_bytes: int = MAX_DOWNLOAD_BYTES,
    advice: str = "",
) -> None:
    """Download the first mirror that answers with the right bytes to `target`, atomically.
    `target` must be a regular file or absent (a device or folder there is refused).
    ``timeout`` bounds each connect and read, ``deadline`` each mirror's whole transfer,
    ``max_bytes`` its body; ``advice`` ends the message when every mirror failed."""
    check_writable_target(target)
    check_seconds("timeout", timeout)
    check_seconds("deadline", deadline)
    failures = []
    for url in urls:
        try:
            _fetch_one(url, target, sha256, progress=progress, timeout=timeout, deadline=deadline, max_bytes=max_bytes)
            return
        except _MirrorFailed as failure:
            failures.append(f"  - {url}: {failure}")
    raise DownloadError(
        f"could not download {target.name} from any mirror:\n" + "\n".join(failures) + "\n"
        f"If this machine is offline, download {target.name} (sha256 {sha256}) elsewhere, "
        f"e.g. from {urls[0]}, put it at {target} and run this again: it is then checked "
        f"with no network.{' ' + advice if advice else ''}"
    )


# ==================== One mirror


def _fetch_one(
    url: str, target: Path, sha256: str, *, progress: Progress | None, timeout: float, deadline: float, max_bytes: int
) -> None:
    part = temporary_path(target, ".part")  # removes the .part files of killed downloads of target
    try:
        with _open_new(part) as out:
            done, total, actual = _stream(
                url, out, progress=progress, timeout=timeout, deadline=deadline, max_bytes=max_bytes
            )
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
    url: str, out: BinaryIO, *, progress: Progress | None, timeout: float, deadline: float, max_bytes: int
) -> tuple[int, int | None, str]:
    """Copy the response body into `out`; return (bytes done, Content-Length or None, sha256)."""
    # Imported here, not with the module: urllib.request brings http.client and ssl (megabytes
    # resident), and everything that imports `bpe` (counting, training, the app) reaches
    # this module through `bpe.gpt2`, while only a download ever opens a connection.
    import urllib.request
    from http.client import HTTPException

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
                    if done > max_bytes:
                        raise _MirrorFailed(f"the body is over {max_bytes:,} bytes; this is not the file")
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
    import urllib.request  # (see `_stream`)

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


# ==================== Arguments


def check_sha256_digest(value: str) -> str:
    digest = str(value).strip().lower()
    if not re.fullmatch(r"[0-9a-f]{64}", digest):
        raise BpeError(f"sha256={value!r} is not a SHA-256 digest; give 64 hexadecimal digits.")
    return digest


def check_seconds(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
        raise BpeError(f"{name}={value!r} must be a number of seconds above 0")


def check_mirrors(mirrors: Sequence[str], *, what: str = "the file") -> list[str]:
    urls = [mirrors] if isinstance(mirrors, str) else list(mirrors)
    if not urls:
        raise BpeError(f"no mirrors given; pass at least one http(s):// URL of {what}.")
    for url in urls:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise BpeError(f"mirror {url!r} is not an http:// or https:// URL.")
    return urls
