"""The run files the app can replay, listed for the corpus picker from their headers alone.

A folder of run files may hold hundreds of megabytes of runs; the sidebar lists them on
every page visit. So a listing reads only a file's first line (`bpe.scale.run_file`
writes a summary into its header: name, inputs, characters, merges) and never the body.
``data/runs/tinyshakespeare.bperun`` is listed as::

    run: tinyshakespeare — tinyshakespeare.txt, 918,799 characters, 1,744 merges

The folders are the project's ``data/runs/`` and those ``$BPE_RUNS`` names. A file whose
header is not a run file's is left out of the list; opening it says why.

The header is not under the body's checksum, so its summary is a claim. It is listed only
when it fits the body the header describes (a merge takes at least `MIN_BODY_BYTES_PER_MERGE`
of it, so a body of 450 KB cannot hold 10**9 merges). A file of at most `MAX_CHECKED_BYTES`
(the shipped run is 107 KB) is then read whole once, as opening it would, and listed only if
its body agrees (a header claiming 3,000 merges for a body of 1,744 is left out); the check is
kept per file version (its size, time and inode), so a page visit reads no body twice. A
bigger file is listed from its header alone and its label says so::

    run: python-sources — 64M.txt, 64,000,000 characters, 49,744 merges (summary unchecked)

and opening it checks the summary against the body (`bpe.scale.run_file`).
"""

from __future__ import annotations

import os
import zlib
from collections import Counter
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import chain, count
from pathlib import Path

from bpe.io.jsonfile import load_json
from bpe.io.untrusted import open_regular_file
from bpe.paths import DATA_DIR
from bpe.scale.run_file import MAX_HEADER_BYTES, RUN_SUFFIX, RunFileError, check_header, read_run_file
from bpe.text import shown_name

RUNS_DIR = DATA_DIR / "runs"  # run files the project ships
RUNS_ENV_VAR = "BPE_RUNS"  # more folders of run files, separated by os.pathsep
# A merge's six numbers a step (its pair, count, tokens after it, and how many runners-up
# and count changes it records) take at least two characters each: "0," for the smallest.
MIN_BODY_BYTES_PER_MERGE = 12
MAX_CHECKED_BYTES = 4 << 20  # a run file listed from its checked body: read whole once, ~50 MB at most
UNCHECKED = " (summary unchecked)"


@dataclass(frozen=True)
class RunListing:
    """A run file as the corpus picker lists it, read from its header alone."""

    path: Path
    name: str
    inputs: tuple[str, ...]
    characters: int
    merges: int
    checked: bool = False  # the summary was read from the checked body, not only the header

    @property
    def label(self) -> str:
        """``run: NAME — source, characters, merges``, and ``(summary unchecked)`` for a file
        listed from its header alone."""
        inputs = ", ".join(map(shown_name, self.inputs)) or "counts"  # the file's words: never raw on a page
        label = f"run: {shown_name(self.name)} — {inputs}, {self.characters:,} characters, {self.merges:,} merges"
        return label if self.checked else label + UNCHECKED


def run_folders() -> list[Path]:
    """``data/runs/`` and the folders named by ``$BPE_RUNS``."""
    extra = [Path(part) for part in os.environ.get(RUNS_ENV_VAR, "").split(os.pathsep) if part]
    return [RUNS_DIR, *extra]


def list_runs(folders: list[Path] | None = None) -> list[RunListing]:
    """Every readable run file (``*.bperun``) in the folders, sorted by name within each
    folder; a file whose header is not a run file's is left out (opening it says why)."""
    listed = []
    for folder in run_folders() if folders is None else folders:
        try:
            paths = sorted(Path(folder).glob(f"*{RUN_SUFFIX}"))
        except OSError:
            continue
        for path in paths:
            try:
                listing = read_listing(path)
            except RunFileError:
                continue
            checked = checked_listing(listing)
            if checked is not None:
                listed.append(checked)
    return listed


def checked_listing(listing: RunListing) -> RunListing | None:
    """``listing`` checked against its body when the file is small enough to read whole
    (`MAX_CHECKED_BYTES`); None when the body refuses it (opening it says why)."""
    try:
        stat = listing.path.stat()
    except OSError:
        return None
    if stat.st_size > MAX_CHECKED_BYTES:
        return listing
    if not _body_agrees(listing.path, stat.st_size, stat.st_mtime_ns, stat.st_ino):
        return None
    return replace(listing, checked=True)


@lru_cache(maxsize=64)  # per file version; a refusal is kept too, so a bad file is read once
def _body_agrees(path, size: int, mtime_ns: int, inode: int) -> bool:
    try:
        read_run_file(path, max_bytes=MAX_CHECKED_BYTES)  # checks the header's summary against the body
    except RunFileError:
        return False
    return True


def labelled_runs(folders: list[Path] | None = None) -> dict[str, RunListing]:
    """`list_runs` by the label a picker shows, one label per file. Labels say the source,
    its size and the merges, not the settings, so runs of one counts file with two tie rules
    read the same: the first keeps the plain label (a link made before the second appeared
    still finds it), the next says its file name, then its folder too (the same file in two
    folders), and past that a number."""
    listings = list_runs(folders)
    names = Counter(listing.path.name for listing in listings)
    found: dict[str, RunListing] = {}
    for listing in listings:
        plain, path = listing.label, listing.path
        where = f"{shown_name(path.parent.name)}/{shown_name(path.name)}"
        # a file name that two folders hold says nothing alone: the folder comes with it
        candidates = (
            plain,
            f"{plain} ({shown_name(path.name) if names[path.name] == 1 else where})",
            f"{plain} ({where})",
        )
        numbered = (f"{candidates[-1]} #{number}" for number in count(2))
        found[next(c for c in chain(candidates, numbered) if c not in found)] = listing
    return found


def read_listing(path: Path) -> RunListing:
    """What `list_runs` shows of one file: its header's summary (the body is not read)."""
    name = path.name
    # Only the head is read, but the file is opened as a stranger's: a FIFO or a device
    # named *.bperun in a runs folder would block the sidebar's listing for good.
    with open_regular_file(path, what="run file", name=repr(name), max_bytes=None, error=RunFileError) as file:
        try:
            start = file.read(MAX_HEADER_BYTES)
        except OSError as error:
            raise RunFileError(f"cannot read run file {name!r}: {error.strerror or error}") from None
    try:
        head = zlib.decompressobj(31).decompress(start, MAX_HEADER_BYTES)
    except zlib.error:
        raise RunFileError(f"{name} is not a BPE Lab run file (not gzip data, or damaged)") from None
    line, newline, _ = head.partition(b"\n")
    header = load_json(line, name=name, what="a run file header", error=RunFileError) if newline else None
    check_header(header, name)
    summary = header.get("summary")
    try:
        inputs = tuple(str(Path(i).name)[:200] for i in summary["inputs"][:3] if isinstance(i, str))
        listing = RunListing(
            path, str(summary["name"])[:200], inputs, int(summary["characters"]), int(summary["merges"])
        )
    except (TypeError, KeyError, ValueError):
        raise RunFileError(f"{name} has a malformed header (summary)") from None
    if not listing.name or listing.characters < 0 or listing.merges < 0:
        raise RunFileError(f"{name} has a malformed header (summary)")
    most = header["body_bytes"] // MIN_BODY_BYTES_PER_MERGE
    if listing.merges > most:
        raise RunFileError(
            f"{name}: its header lists {listing.merges:,} merges; a body of {header['body_bytes']:,} bytes holds at "
            f"most {most:,}, so the header was edited or damaged"
        )
    return listing
