"""Files written whole or not at all, and files checked by their SHA-256.

One home for the two habits every writer and downloader in the package shares, after
tiktoken's ``load.py``: write to a temporary name beside the target and move it into
place with `os.replace` (a crash or Ctrl-C leaves the old file as it was), and trust a
file on disk only when its hash is the one expected.

A temporary name says whose it is: ``<name>.bpe-<host>-<pid>-<random>.tmp`` (``.old`` for
the backups a group commit keeps, ``.part`` for a download under way). A process killed
with SIGKILL cannot clean up, so the next write (or download) of the same target removes
the temporaries of that target whose process, on this host, is gone; never another's, nor
one of a live process. Any failure, clean-up
included (a read-only file system refuses even the removal of a temporary file that
was never made), is one `BpeError` naming the file, and the old file stays as it was.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from bpe.errors import BpeError

CHUNK_BYTES = 1 << 20
# (os, not socket and uuid: a training that writes one file need not load the network modules)
_HOST = re.sub(r"[^A-Za-z0-9]", "", os.uname().nodename)[:32] or "host"
_OWNED = re.compile(r"\.bpe-(?P<host>[A-Za-z0-9]*)-(?P<pid>[0-9]+)-[0-9a-f]{32}\.(?:tmp|old|part)")


def temporary_path(target: Path, suffix: str = ".tmp") -> Path:
    """A fresh temporary name beside ``target`` that names this host and process, after
    removing the ones of ``target`` left by processes of this host that are gone."""
    remove_stale_temporaries(target)
    return target.with_name(f"{target.name}.bpe-{_HOST}-{os.getpid()}-{_random_hex()}{suffix}")


def _random_hex() -> str:
    """32 random hex digits, as ``uuid.uuid4().hex`` would give (from the same source)."""
    return os.urandom(16).hex()


def remove_stale_temporaries(target: Path) -> list[Path]:
    """Remove the temporary files of ``target`` whose writer (this host, a pid that is no
    longer running) was killed before it could; return them. Others' are left alone."""
    removed = []
    try:
        names = os.listdir(target.parent)
    except OSError:  # no folder yet, or one that cannot be listed: nothing of ours there
        return removed
    prefix = target.name
    for name in names:
        if not name.startswith(prefix):
            continue
        owned = _OWNED.fullmatch(name, len(prefix))
        if owned is None or owned["host"] != _HOST or _running(int(owned["pid"])):
            continue
        stale = target.with_name(name)
        if _remove_quietly(stale):
            removed.append(stale)
    return removed


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):  # another user's process (or no such pid number)
        return True
    return True


def _remove_quietly(path: Path) -> bool:
    """Remove ``path`` if it is there; True if it was removed. Never raises: clean-up must
    not hide the error that made it necessary (EROFS refuses even a missing file)."""
    try:
        path.unlink()
    except OSError:
        return False
    return True


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
        raise BpeError(
            f"cannot write {str(target)!r}: it exists and is not a regular file (a device, pipe "
            "or socket); choose a file path"
        )
    return target


def check_distinct_paths(outputs: dict[str, Path | None], inputs: dict[str, Path | None]) -> None:
    """`BpeError` before any work when an output is one of the inputs (``train --counts X
    --run-output X`` would replace hours of counting with a run file, and say "wrote X") or
    when two outputs are one file (the second would replace the first). Paths are compared
    once resolved, and as files where both exist (a hard link, or a folder named twice
    through a symlink, is the same file). ``outputs`` and ``inputs`` map what the command
    calls each (its option) to the path; None is not given."""
    seen: dict[str, Path] = {}  # option -> resolved path, inputs first
    for option, path in [*inputs.items(), *outputs.items()]:
        if path is None:
            continue
        resolved = Path(path).resolve()
        for earlier, other in seen.items():
            if resolved == other or _same_file(resolved, other):
                what = "the file it reads" if earlier in inputs else "the file it also writes"
                raise BpeError(
                    f"{option} {str(path)!r} is {earlier} {str(inputs.get(earlier) or outputs[earlier])!r}, "
                    f"{what}: writing it would replace that; choose another path"
                )
        seen[option] = resolved


def _same_file(one: Path, other: Path) -> bool:
    try:
        return os.path.samefile(one, other)
    except OSError:  # one of them does not exist yet: then they differ by name alone
        return False


def check_writable_folder(folder: str | os.PathLike[str]) -> Path:
    """``folder`` as a `Path` once a file could be written in it; `BpeError` otherwise.
    For commands that write at the end of a long job: they check first, so a read-only
    folder is found before the work, not after it. Folders it had to create for the check
    are removed again (the writer creates them at the end), so a command that fails
    later leaves no new empty folders behind."""
    target = Path(folder)
    created = [parent for parent in (target, *target.parents) if not parent.exists()]
    probe = target / f".bpe-write-check.{_random_hex()}.tmp"
    try:
        target.mkdir(parents=True, exist_ok=True)
        with open(probe, "xb"):
            pass
    except OSError as error:
        raise BpeError(f"cannot write in the folder {str(target)!r}: {error.strerror or error}") from None
    finally:
        try:
            probe.unlink(missing_ok=True)
            for made in created:  # deepest first; one another process filled meanwhile stays
                made.rmdir()
        except OSError:
            pass
    return target


@contextmanager
def atomic_writer(path: str | os.PathLike[str], *, suffix: str = ".tmp") -> Iterator[BinaryIO]:
    """Open a temporary file beside ``path``; on a clean exit it replaces ``path``.

    On any error (or KeyboardInterrupt) the temporary file is removed and ``path`` is
    untouched. OS errors become `BpeError` naming the file.
    """
    target = check_writable_target(path)
    temp = temporary_path(target, suffix)
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
        _remove_quietly(temp)  # already gone after os.replace; otherwise a partial file


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` whole, or leave the old file as it was."""
    with atomic_writer(path) as handle:
        handle.write(data)


class StagedFiles:
    """Several files that change together or not at all (`staged_files` makes one).

    `write` puts each file's bytes under a temporary name beside its target (so every
    destination is known to be writable, and refused if it is a device or a folder,
    before anything is replaced); `commit` then moves them all into place. Should a move
    fail, or Ctrl-C arrive, in the middle, the targets already replaced get their old
    files back (kept under a hard link until the end), so the group is all new or all old.
    """

    def __init__(self) -> None:
        self._staged: dict[Path, Path] = {}  # target -> temporary file

    @property
    def targets(self) -> list[Path]:
        return list(self._staged)

    def write(self, path: str | os.PathLike[str], data: bytes) -> Path:
        """Stage ``data`` for ``path``; return the temporary file it is in."""
        target = check_writable_target(path)
        temp = temporary_path(target)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(temp, "wb") as handle:
                self._staged[target] = temp  # from here on, `discard` removes it
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as error:
            raise BpeError(f"cannot write {str(target)!r}: {error.strerror or error}") from None
        return temp

    def commit(self) -> None:
        """Move every staged file into place; on any failure put the old files back."""
        backups: dict[Path, Path | None] = {}  # target -> its old file (None: there was none)
        try:
            for target, temp in self._staged.items():
                check_writable_target(target)  # nothing turned into a device meanwhile
                backups[target] = _hard_link_backup(target)
                os.replace(temp, target)
        except BaseException as error:
            failed = target
            for target, backup in backups.items():
                if backup is not None:
                    os.replace(backup, target)
                elif not self._staged[target].exists():  # replaced, and there was no old file
                    _remove_quietly(target)
            if isinstance(error, OSError):
                raise BpeError(f"cannot write {str(failed)!r}: {error.strerror or error}") from None
            raise
        finally:
            for backup in backups.values():
                if backup is not None:
                    _remove_quietly(backup)
        self._staged.clear()

    def discard(self) -> None:
        """Remove the temporary files not committed."""
        for temp in self._staged.values():
            _remove_quietly(temp)
        self._staged.clear()


def _hard_link_backup(target: Path) -> Path | None:
    """A second name for ``target``'s current file (None when there is no file), so it can
    be put back after ``target`` is replaced."""
    if not target.exists():
        return None
    backup = temporary_path(target, ".old")
    try:
        os.link(target, backup)
    except OSError:  # a file system without hard links: copy instead
        shutil.copy2(target, backup)
    return backup


@contextmanager
def staged_files() -> Iterator[StagedFiles]:
    """``with staged_files() as stage: stage.write(a, ...); stage.write(b, ...)``: on a
    clean exit every file is moved into place together; on any error none is, and the
    temporary files are removed."""
    stage = StagedFiles()
    try:
        yield stage
        stage.commit()
    finally:
        stage.discard()


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
        raise BpeError(
            f"{path} has sha256 {actual}, expected {expected}: it is not the file it should be "
            "(damaged, cut short or another release)"
        )


def verified_cached_file(
    path: str | os.PathLike[str],
    expected: str,
    *,
    error: type[BpeError] = BpeError,
    advice: str = "Delete it to download it again.",
) -> bool:
    """Is a good copy already there? False when ``path`` is absent; True when it holds
    exactly the bytes with SHA-256 ``expected``; ``error`` when it holds anything else."""
    target = Path(path)
    if not target.is_file():
        return False
    actual = sha256_file(target)
    if actual != expected.lower():
        raise error(f"{target} is already there, but its sha256 is {actual}, not {expected}. {advice}")
    return True
