"""Locks between the processes of one machine: "one at a time" on a file, and a line of tickets.

Several server processes behind one proxy (`python -m pages._shared.lecture_hall`) share the machine's
download cache and its cores. Threads of one process can share a `threading.Lock`;
processes cannot, so these are `flock(2)` locks on small files. Two properties make them
the right tool:

- the kernel drops a lock when the process holding it ends, however it ends: a killed
  server never leaves a stale lock for someone to delete by hand;
- a lock belongs to an *open file*, not to a process, so two threads of one process that
  each open the file exclude each other exactly as two processes do.

A file lock is only as shared as its folder: processes on one machine that use the same
folder (see `bpe.paths.machine_dir`) see each other's locks; processes on other machines
do not (and need not: they have their own cores).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from bpe.errors import BpeError
from bpe.paths import machine_dir

POLL_SECONDS = 0.25  # how often a waiter that may give up looks again


def try_lock(path: str | os.PathLike[str]) -> int | None:
    """An open descriptor of ``path`` holding its exclusive lock, or None when another holds
    it. The file is created if missing and never removed: removing a lock file while
    someone waits on it would let a third process lock a new file of the same name."""
    fd = _open(Path(path))
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    except OSError as error:
        os.close(fd)
        raise BpeError(f"cannot lock {str(path)!r}: {error.strerror or error}") from None
    return fd


def unlock(fd: int) -> None:
    """Give back a lock taken by `try_lock` (closing the descriptor drops the lock)."""
    os.close(fd)


@contextmanager
def file_lock(path: str | os.PathLike[str], *, give_up: Callable[[], bool] | None = None) -> Iterator[bool]:
    """``with file_lock(path) as held:`` holds ``path``'s lock inside the block, waiting for
    it as long as it takes; with ``give_up``, ``held`` is False once ``give_up()`` says
    so before the lock was free (the block then runs without it)."""
    if give_up is None:
        fd = _open(Path(path))
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)  # sleeps in the kernel until the holder lets go
        except BaseException:
            os.close(fd)
            raise
    else:
        fd = try_lock(path)
        while fd is None:
            if give_up():
                yield False
                return
            time.sleep(POLL_SECONDS)
            fd = try_lock(path)
    try:
        yield True
    finally:
        unlock(fd)


@contextmanager
def folder_lock(folder: str | os.PathLike[str], purpose: str) -> Iterator[None]:
    """Hold the machine's lock on ``folder`` for one ``purpose`` (e.g. "download"): the
    processes filling one download cache take turns, so the first downloads and the others
    wait, then find the files. The lock file lives in `bpe.paths.machine_dir`, named by a
    hash of the folder's real path, so the cache itself holds nothing but data."""
    real = os.path.realpath(folder)
    name = hashlib.sha256(f"{purpose}\0{real}".encode()).hexdigest()[:24]
    with file_lock(machine_dir() / "locks" / f"{purpose}-{name}.lock"):
        yield


class TicketLine:
    """A first-come-first-served line in a folder, shared by every process that uses it.

    `join` draws a ticket: a file named by the time it was drawn, locked by its holder for
    as long as it waits. `ahead` counts the live tickets drawn before it. A ticket whose
    file is unlocked belongs to a process that ended without leaving the line: it is
    removed as it is found. Tickets come into view already locked (each is locked under a
    temporary name, then renamed), so a new ticket is never mistaken for an abandoned one.
    """

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)

    def join(self) -> tuple[Path, int]:
        """(the ticket, the descriptor that holds it) for a new place at the end of the line."""
        name = f"{time.time_ns():020d}-{os.getpid()}-{uuid.uuid4().hex[:8]}.ticket"
        drawing = self.folder / f".{name}.new"
        fd = try_lock(drawing)
        if fd is None:  # nobody else knows this unique name
            raise BpeError(f"cannot lock the new ticket {str(drawing)!r}")
        ticket = self.folder / name
        os.replace(drawing, ticket)  # the lock stays with the open file
        return ticket, fd

    def leave(self, ticket: Path, fd: int) -> None:
        """Leave the line: the ticket is removed, then its lock dropped."""
        ticket.unlink(missing_ok=True)
        unlock(fd)

    def ahead(self, ticket: Path) -> int:
        """How many live tickets were drawn before ``ticket`` (abandoned ones are cleared)."""
        count = 0
        for other in sorted(self.folder.glob("*.ticket")):
            if other.name >= ticket.name:
                break
            try:
                fd = os.open(other, os.O_RDWR | os.O_CLOEXEC)
            except FileNotFoundError:  # it left the line meanwhile
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:  # held: a job waiting ahead of this one
                count += 1
            else:  # nobody holds it: its process ended without leaving the line
                other.unlink(missing_ok=True)
            finally:
                os.close(fd)
        return count


def _open(path: Path) -> int:
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)  # this user's locks only
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError as error:
        raise BpeError(f"cannot open the lock file {str(path)!r}: {error.strerror or error}") from None
