"""The corpora BPE Lab can train on: one registry the app and the command line share.

A corpus is found by name, and the name goes into links (`?corpus=...`), so names are
unique and stay the same as long as the files and `BPE_CORPORA` do. Sources, in the
order they are listed:

- `builtin`: the teaching texts in `bpe.corpora.builtin`.
- `python-docs`: the Python language reference that ships with every Python
  (`pydoc_data.topics`, about 465,000 characters of English prose and code).
- `wikitext-2-cache`: WikiText-2's three splits, once `python -m bpe download wikitext-2`
  has filled `data/cache/wikitext-2-raw/`.
- `data-dir`: every `*.txt` directly in `data/` (not in `data/cache/`); the project's own
  texts there (`bpe.corpora.shipped`, e.g. "Tiny Shakespeare", the default) by name.
- `env`: the files, and the `*.txt` directly in the folders, named in `BPE_CORPORA`
  (separated like PATH, by `os.pathsep`). Entries that do not exist are skipped.
- `upload`: a file a visitor uploads; never listed, described by `corpus_from_upload`.

Listing is cheap: file sizes come from `stat`, so `size_bytes` is the size on disk (a
byte-order mark included) and nothing is read until `load_corpus`.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from stat import S_ISDIR
from typing import Literal

from bpe.corpora.builtin import BUILTIN_TEXTS
from bpe.corpora.shipped import SHIPPED_TEXTS, TINY_SHAKESPEARE
from bpe.corpora.textfile import DEFAULT_MAX_BYTES, decode_text_bytes, read_text_file
from bpe.corpora.wikitext import CACHE_FOLDER, clean_files, has_clean_files, is_wikitext_word_level
from bpe.errors import BpeError, CorpusError
from bpe.paths import DATA_DIR

__all__ = [
    "DEFAULT_MAX_BYTES",
    "CORPORA_ENV_VAR",
    "PYTHON_REFERENCE",
    "TINY_SHAKESPEARE",
    "WIKITEXT_NAMES",
    "MAX_HELDOUT_FRACTION",
    "CorpusInfo",
    "corpus_version",
    "list_corpora",
    "find_corpus",
    "load_corpus",
    "read_corpus",
    "corpus_from_upload",
    "split_train_heldout",
    "python_reference_text",
    "read_text_file",
    "decode_text_bytes",
    "is_wikitext_word_level",
]

CORPORA_ENV_VAR = "BPE_CORPORA"
PYTHON_REFERENCE = "Python language reference"
WIKITEXT_NAMES = {"train": "WikiText-2 train", "val": "WikiText-2 validation", "test": "WikiText-2 test"}
MAX_HELDOUT_FRACTION = 0.9

Source = Literal["builtin", "python-docs", "data-dir", "env", "upload", "wikitext-2-cache"]
_BUILTINS = {builtin.name: builtin for builtin in BUILTIN_TEXTS}


@dataclass(frozen=True)
class CorpusInfo:
    """What a corpus is, without its text: enough for a picker and for `read_corpus`."""

    name: str  # unique and stable: it goes into URLs
    source: Source
    size_bytes: int  # UTF-8 bytes; for files, the size on disk from stat
    language: str | None  # a hint like "en", "mul" (several), or None (unknown)
    description: str
    path: Path | None = None  # the file, for file-backed sources


# ==================== Listing


def list_corpora(
    data_dir: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
) -> list[CorpusInfo]:
    """Every corpus available now, builtins first. Defaults: `<repo>/data`, `os.environ`."""
    data_dir = DATA_DIR if data_dir is None else Path(data_dir)
    env = os.environ if env is None else env
    sizes = _fixed_sizes()
    infos = [CorpusInfo(b.name, "builtin", sizes[b.name], b.language, b.description) for b in BUILTIN_TEXTS]
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    infos.append(
        CorpusInfo(
            PYTHON_REFERENCE,
            "python-docs",
            sizes[PYTHON_REFERENCE],
            "en",
            f"The Python {version} language reference that ships with Python (pydoc_data): prose and code.",
        )
    )
    folder = data_dir / "cache" / CACHE_FOLDER
    if has_clean_files(folder):
        for split, path in clean_files(folder).items():
            infos.append(
                CorpusInfo(
                    WIKITEXT_NAMES[split],
                    "wikitext-2-cache",
                    _file_size(path),
                    "en",
                    f"WikiText-2 (raw) {split} split: Wikipedia articles, CC BY-SA 3.0, Merity et al. 2016.",
                    path,
                )
            )
    taken = {info.name for info in infos}
    for path in _txt_files(data_dir):
        shipped = SHIPPED_TEXTS.get(path.name)
        if shipped is not None:  # one of the project's own texts: listed by its name, with its credit
            name = _unique(shipped.name, "data", taken)
            infos.append(CorpusInfo(name, "data-dir", _file_size(path), shipped.language, shipped.description, path))
            continue
        name = _unique(path.name, "data", taken)
        infos.append(CorpusInfo(name, "data-dir", _file_size(path), None, "A text file in data/.", path))
    for path in _env_files(env.get(CORPORA_ENV_VAR, "")):
        name = _unique(path.name, path.parent.name, taken)
        description = f"A text file from {CORPORA_ENV_VAR} (folder {path.parent.name!r})."
        infos.append(CorpusInfo(name, "env", _file_size(path), None, description, path))
    return infos


@cache
def _fixed_sizes() -> dict[str, int]:
    """UTF-8 sizes of the texts that cannot change while the interpreter runs (the
    builtins, Python's reference): measured once. The app lists the corpora on every page
    view, and joining and encoding the reference each time was most of a listing's cost."""
    sizes = {b.name: len(b.text.encode("utf-8")) for b in BUILTIN_TEXTS}
    sizes[PYTHON_REFERENCE] = len(python_reference_text().encode("utf-8"))
    return sizes


def _txt_files(folder: Path) -> list[Path]:
    """The visible `*.txt` files directly in a folder, sorted by name; none if it is missing."""
    try:
        found = folder.stat()
    except OSError:
        return []
    if not S_ISDIR(found.st_mode):
        return []
    return list(_txt_files_as_of(folder, found.st_mtime_ns))


@lru_cache(maxsize=32)
def _txt_files_as_of(folder: Path, modified_ns: int) -> tuple[Path, ...]:
    # Listed again only when the folder changes (a file added, removed or renamed changes its
    # modification time): the app lists the corpora on every page view, and a glob and a stat
    # of each file would be most of a listing's cost.
    return tuple(sorted(p for p in folder.glob("*.txt") if p.is_file() and not p.name.startswith(".")))


def _env_files(value: str) -> list[Path]:
    """Files named in a BPE_CORPORA value: files as given, folders as their `*.txt`."""
    files: list[Path] = []
    for entry in value.split(os.pathsep):
        if not entry.strip():
            continue  # "a:b:" and "::" leave empty entries
        path = Path(entry).expanduser()
        files.extend([path] if path.is_file() else _txt_files(path))
    return files


def _unique(name: str, hint: str, taken: set[str]) -> str:
    """`name`, or `name (hint)`, or `name (hint 2)`...: the first not yet taken (then taken)."""
    candidate, n = name, 1
    while candidate in taken:
        candidate = f"{name} ({hint})" if n == 1 else f"{name} ({hint} {n})"
        n += 1
    taken.add(candidate)
    return candidate


def _file_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0  # vanished since listing; read_corpus will say so by name


def corpus_version(info: CorpusInfo) -> str:
    """A short string that changes whenever a listed corpus's text may have changed, for
    cache keys: a file's size, modification and change times (ns) and inode, read from
    `stat` (no read of the text); a built-in text's size. An edit that keeps the size
    still changes the times, and a file replaced by another gets a new inode."""
    if info.path is None:
        return f"{info.source}:{info.size_bytes}"
    try:
        found = info.path.stat()
    except OSError:
        return "missing"  # read_corpus will say so by name
    return f"file:{found.st_size}:{found.st_mtime_ns}:{found.st_ctime_ns}:{found.st_ino}"


# ==================== Loading


def find_corpus(
    name: str,
    *,
    data_dir: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
) -> CorpusInfo:
    """The listed corpus called `name`, or a CorpusError that lists the names there are."""
    infos = list_corpora(data_dir, env)
    for info in infos:
        if info.name == name:
            return info
    names = ", ".join(repr(info.name) for info in infos[:30])
    more = f" and {len(infos) - 30} more" if len(infos) > 30 else ""
    raise CorpusError(f"no corpus named {name!r}. Available: {names}{more}.")


def load_corpus(
    name: str,
    *,
    data_dir: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    normalize: str | None = None,
) -> str:
    """The text of the corpus called `name` (see `list_corpora` for the names)."""
    info = find_corpus(name, data_dir=data_dir, env=env)
    return read_corpus(info, max_bytes=max_bytes, normalize=normalize)


def read_corpus(
    info: CorpusInfo,
    *,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    normalize: str | None = None,
) -> str:
    """The text behind a CorpusInfo from `list_corpora`; files are read now, not before."""
    if info.path is not None:  # messages name the corpus, not the server's path to it
        return read_text_file(info.path, max_bytes=max_bytes, normalize=normalize, name=info.name)
    if info.source == "builtin" and info.name in _BUILTINS:
        text = _BUILTINS[info.name].text
    elif info.source == "python-docs":
        text = python_reference_text()
    else:
        raise CorpusError(
            f"corpus {info.name!r} ({info.source}) has no stored text; "
            "pick it again from list_corpora, or keep the text corpus_from_upload returned."
        )
    return decode_text_bytes(text.encode("utf-8"), name=info.name, max_bytes=max_bytes, normalize=normalize)


def corpus_from_upload(
    data: bytes,
    *,
    file_name: str,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    normalize: str | None = None,
) -> tuple[CorpusInfo, str]:
    """Decode an uploaded file and describe it; the name is `upload: <file name>`."""
    text = decode_text_bytes(data, name=file_name, max_bytes=max_bytes, normalize=normalize)
    info = CorpusInfo(f"upload: {file_name}", "upload", len(data), None, f"Uploaded file {file_name!r}.")
    return info, text


def python_reference_text() -> str:
    """Python's language reference topics (the text `help('if')` shows), in name order."""
    from pydoc_data.topics import topics  # a large module: loaded only when asked for

    return "\n\n".join(topics[key] for key in sorted(topics))


# ==================== Held-out split


def split_train_heldout(text: str, heldout_fraction: float) -> tuple[str, str]:
    """Split text into (train, heldout), heldout being about the last `heldout_fraction`.

    The cut goes on the line boundary nearest to it (after a newline), so no line is cut
    in two; a text with no inner newline is cut after the nearest whitespace, and one
    without either exactly at the fraction. `train + heldout == text` always.

    >>> split_train_heldout("one\\ntwo\\nthree\\nfour\\n", 0.25)
    ('one\\ntwo\\nthree\\n', 'four\\n')
    >>> split_train_heldout("low lower", 0.0)
    ('low lower', '')
    """
    if (
        isinstance(heldout_fraction, bool)
        or not isinstance(heldout_fraction, (int, float))
        or not (math.isfinite(heldout_fraction) and 0 <= heldout_fraction <= MAX_HELDOUT_FRACTION)
    ):
        raise BpeError(
            f"heldout_fraction={heldout_fraction!r} is out of range; use a number from 0 "
            f"(no held-out text) to {MAX_HELDOUT_FRACTION}."
        )
    if heldout_fraction == 0 or len(text) < 2:
        return text, ""
    target = min(max(round(len(text) * (1 - heldout_fraction)), 1), len(text) - 1)
    cut = _nearest_newline_boundary(text, target) or _nearest_space_boundary(text, target) or target
    return text[:cut], text[cut:]


def _nearest_newline_boundary(text: str, target: int) -> int | None:
    """The position just after a newline, strictly inside the text, nearest `target`."""
    before = text.rfind("\n", 0, target) + 1  # 0 when there is none
    after = text.find("\n", target) + 1  # 0 when there is none
    return _nearest_inside(text, target, before, after)


def _nearest_space_boundary(text: str, target: int, window: int = 1000) -> int | None:
    """The position just after whitespace within `window` characters of `target`."""
    low, high = max(target - window, 0), min(target + window, len(text))
    before = next((i + 1 for i in range(target - 1, low - 1, -1) if text[i].isspace()), 0)
    after = next((i + 1 for i in range(target, high) if text[i].isspace()), 0)
    return _nearest_inside(text, target, before, after)


def _nearest_inside(text: str, target: int, *boundaries: int) -> int | None:
    """Of the boundaries strictly inside the text (not 0, not the end), the one nearest `target`."""
    inside = [b for b in boundaries if 0 < b < len(text)]
    return min(inside, key=lambda b: (abs(b - target), b)) if inside else None
