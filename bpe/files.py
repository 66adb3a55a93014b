"""Files written whole or not at all, and files checked by their SHA-256.

One home for the two habits every writer and downloader in the package shares, after
tiktoken's ``load.py``: write to ``<path>.<uuid>.tmp`` beside the target and move it into
place with `os.replace` (a crash or Ctrl-C leaves the old file as it was), and trust a
file on disk only when its hash is the one expected.
"""
from __future__ import annotations

import hashlib
import os
import stat
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from bpe.errors import BpeError

CHUNK_BYTES = 1 << 20


def check_writable_target(path: str | os.PathLike[str]) -> Path:
    """``path`` as a `Path`, or `BpeError` when it exists and is not a regular file.

    Replacing a device (``/dev/null`` as root), a folder or a pipe with a regular file
    would destroy it, so such outputs are refused before anything is written.
    """
    target = Path(path)
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        return target
    except OSError as error:
        raise BpeError(f"cannot write {str(target)!r}: {error.strerror or error}") from None
    if stat.S_ISDIR(mode):
        raise BpeError(f"cannot write {str(target)!r}: it is a folder")
    if not stat.S_ISREG(mode):
        raise BpeError(f"cannot write {str(target)!r}: it exists and is not a regular file (a device, pipe "
                       "or socket); choose a file path")
    return target


@contextmanager
def atomic_writer(path: str | os.PathLike[str], *, suffix: str = ".tmp") -> Iterator[BinaryIO]:
    """Open a temporary file beside ``path``; on a clean exit it replaces ``path``.

    On any error (or KeyboardInterrupt) the temporary file is removed and ``path`` is
    untouched. OS errors become `BpeError` naming the file.
    """
    target = check_writable_target(path)
    temp = target.with_name(f"{target.name}.{uuid.uuid4().hex}{suffix}")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(temp, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, target)
    except OSError as error:
        raise BpeError(f"cannot write {str(target)!r}: {error.strerror or error}") from None
    finally:
        temp.unlink(missing_ok=True)  # already gone after os.replace; otherwise a partial file


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` whole, or leave the old file as it was."""
    with atomic_writer(path) as handle:
        handle.write(data)


def sha256_file(path: str | os.PathLike[str]) -> str:
    """The SHA-256 of a file, read in chunks, as 64 lowercase hex digits."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as file:
        while chunk := file.read(CHUNK_BYTES):
            digest.update(chunk)
    return digest.hexdigest()


def check_sha256(path: str | os.PathLike[str], expected: str) -> None:
    """`BpeError` unless the file's SHA-256 is ``expected``."""
    actual = sha256_file(path)
    if actual != expected.lower():
        raise BpeError(f"{path} has sha256 {actual}, expected {expected}: it is not the file it should be "
                       "(damaged, cut short or another release)")


def verified_cached_file(path: str | os.PathLike[str], expected: str, *, error: type[BpeError] = BpeError,
                         advice: str = "Delete it to download it again.") -> bool:
    """Is a good copy already there? False when ``path`` is absent; True when it holds
    exactly the bytes with SHA-256 ``expected``; ``error`` when it holds anything else."""
    target = Path(path)
    if not target.is_file():
        return False
    actual = sha256_file(target)
    if actual != expected.lower():
        raise error(f"{target} is already there, but its sha256 is {actual}, not {expected}. {advice}")
    return True
