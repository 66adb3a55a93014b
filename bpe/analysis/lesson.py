"""Lesson files: one frame of BPE Lab written down, to hand out and to open again.

A lesson names the page, the corpus and a short hash of the text it trained on, the
sidebar's settings and the page's own controls (step, window, ...). A link carries the
same fields as query parameters; a file can also carry the text itself, which a link
cannot (pasted or uploaded text). The app decides what each field means and checks its
value; this module only writes the file and checks that it is whole:

    {"format": "bpe-lab-lesson", "version": 1, "page": "pages/1_Merge_by_merge.py",
     "corpus": {"name": "low lower lowest", "text_hash": "6e4d16cc619c", "text": null},
     "settings": {"vocab": 30, "min_freq": 2, ...}, "controls": {"step": 4, ...},
     "checksum": "<sha256 of the rest>"}

The checksum catches a file edited by hand or cut short: it proves integrity, not who
wrote it (anyone can recompute it), which is all a classroom needs.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field

from bpe.errors import BpeError
from bpe.io.budget import check_json_values
from bpe.io.jsonfile import load_json
from bpe.io.untrusted import check_size
from bpe.text import shown_name, shown_value

FORMAT = "bpe-lab-lesson"
VERSION = 1
HASH_CHARS = 12  # 48 bits: two different texts of the same name will not collide by chance
TOP_LEVEL = ("format", "version", "page", "corpus", "settings", "controls", "checksum")
# A lesson holds a few dozen values (the settings, the page's controls, lists of at most 20)
# and perhaps one text. Its JSON is checked to be that small before it is parsed: 10 MB of
# "{}," (as much as an upload may be) parsed into 3.5 million dicts took 280 MB before
# the file was found not to be a lesson. The text's own commas are not counted.
MAX_LESSON_VALUES = 10_000


class LessonError(BpeError):
    """A lesson file or link that cannot be used: malformed, edited, or of another version."""


def text_hash(text: str) -> str:
    """A short hash of a text's content (SHA-256 of its UTF-8, first `HASH_CHARS` hex digits).

    >>> text_hash("low lower lowest")
    '6e4d16cc619c'
    """
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:HASH_CHARS]


Value = int | float | bool | str | list | None


@dataclass(frozen=True)
class Lesson:
    """One frame: ``settings`` and ``controls`` map link parameter names to plain values
    (int, float, bool, str, or a list of int/str). ``text`` is the corpus text when a link
    could not name it (pasted or uploaded), else None."""

    page: str
    corpus: str
    text_hash: str
    settings: dict[str, Value] = field(default_factory=dict)
    controls: dict[str, Value] = field(default_factory=dict)
    text: str | None = None


def lesson_json(lesson: Lesson) -> str:
    """The lesson as a small, readable JSON file with its checksum."""
    body = {
        "format": FORMAT,
        "version": VERSION,
        "page": lesson.page,
        "corpus": {"name": lesson.corpus, "text_hash": lesson.text_hash, "text": lesson.text},
        "settings": dict(lesson.settings),
        "controls": dict(lesson.controls),
    }
    for part in ("settings", "controls"):
        for name, value in body[part].items():
            _check_value(f"{part}.{name}", value)
    body["checksum"] = _checksum(body)
    return json.dumps(body, ensure_ascii=False, indent=1) + "\n"


def parse_lesson(data: bytes, *, name: str = "The lesson file", max_bytes: int) -> Lesson:
    """Read a lesson file, or raise `LessonError` saying in one line what is wrong with it.

    Checks the size, how many JSON values it holds (before parsing it), the JSON, the format
    and version, the checksum, the embedded text against its hash, and that every value is
    a plain value. It does not judge whether a
    setting makes sense here: the app does (see ``pages/_shared/frame/lesson_links.py``).
    """
    check_size(len(data), name=name, max_bytes=max_bytes, error=LessonError)
    check_json_values(
        data, name=name, max_values=MAX_LESSON_VALUES, strings_count=False, what="a lesson file", error=LessonError
    )
    body = load_json(data, name=name, what="a lesson file", error=LessonError)
    if not isinstance(body, dict) or body.get("format") != FORMAT:
        raise LessonError(f'{name} is not a BPE Lab lesson file (no "format": {FORMAT!r}).')
    if body.get("version") != VERSION:
        raise LessonError(
            f"{name} is lesson format version {shown_value(body.get('version'))}; this BPE Lab reads version {VERSION}."
        )
    unknown = sorted(set(body) - set(TOP_LEVEL))
    if unknown:
        raise LessonError(f"{name} has unknown fields {shown_value(unknown)}.")
    checksum = body.pop("checksum", None)
    if checksum != _checksum(body):
        raise LessonError(f"{name} does not match its checksum: it was changed after it was saved.")
    corpus = body.get("corpus")
    if not isinstance(corpus, dict) or set(corpus) != {"name", "text_hash", "text"}:
        raise LessonError(f"{name} has no corpus name, text hash and text.")
    corpus_name, hashed, text = corpus["name"], corpus["text_hash"], corpus["text"]
    if not isinstance(corpus_name, str) or not corpus_name or not isinstance(hashed, str):
        raise LessonError(
            f"{name} names its corpus {shown_value(corpus_name)} with text hash {shown_value(hashed)}: not usable."
        )
    if text is not None and (not isinstance(text, str) or text_hash(text) != hashed):
        raise LessonError(f"{name} holds a corpus text that does not match its hash {shown_value(hashed)}.")
    page = body.get("page")
    if not isinstance(page, str):
        raise LessonError(f"{name} names no page (page={shown_value(page)}).")
    parts = {}
    for part in ("settings", "controls"):
        values = body.get(part)
        if not isinstance(values, dict):
            raise LessonError(f"{name} has {part}={shown_value(values)}, not a mapping of names to values.")
        for key, value in values.items():
            _check_value(f"{part}.{shown_name(key)}", value, error=LessonError, where=name)
        parts[part] = values
    return Lesson(page, corpus_name, hashed, parts["settings"], parts["controls"], text)


def _checksum(body: dict) -> str:
    canonical = json.dumps(body, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _check_value(label: str, value, *, error=ValueError, where: str = "A lesson") -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise error(f"{where}: {label}={shown_value(value)} is not a finite number.")
    if isinstance(value, list):
        if all(isinstance(item, (int, str)) and not isinstance(item, bool) for item in value):
            return
        raise error(f"{where}: {label}={shown_value(value)} is a list of something other than numbers and text.")
    if value is not None and not isinstance(value, (bool, int, float, str)):
        raise error(f"{where}: {label}={shown_value(value)} is not a number, text, true/false or a list.")
