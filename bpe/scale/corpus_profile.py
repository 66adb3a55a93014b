"""What a corpus is made of, in the few numbers a page needs to speak of it whole: its
characters, its UTF-8 bytes, how many of its characters take more than one byte, and its
largest code points.

A run file keeps a sample of a few thousand characters, never the corpus; a page that
measures the sample must not speak of the corpus from it (a Python-sources corpus whose
first 4,000 characters are ASCII still holds 34,378 characters that are not). So the count
phase profiles the corpus from its chunk table (each distinct chunk once, times its count:
exactly the text's numbers), the counts file and the run file record the profile, and the
page says both: what it measured on the sample, and what the corpus holds. For the text
``"naïve café"`` the profile is 10 characters, 12 bytes, 2 multi-byte characters (ï, é),
largest code points U+00EF, U+00E9, U+0076, ...
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from dataclasses import dataclass

from bpe.errors import BpeError
from bpe.text import printable

LARGEST_KEPT = 5  # the largest code points a profile names
MAX_CODE_POINT = 0x10FFFF


@dataclass(frozen=True)
class CorpusProfile:
    """A text's characters, UTF-8 bytes, characters of more than one byte (above U+007F),
    and its `LARGEST_KEPT` largest distinct code points, largest first."""

    characters: int
    utf8_bytes: int
    multibyte_characters: int
    largest_code_points: tuple[int, ...] = ()

    @property
    def multibyte_share(self) -> float:
        """The share of characters that take more than one byte: 0.0 for ASCII text."""
        return self.multibyte_characters / self.characters if self.characters else 0.0

    def to_json(self) -> dict:
        return {
            "characters": self.characters,
            "utf8_bytes": self.utf8_bytes,
            "multibyte_characters": self.multibyte_characters,
            "largest_code_points": list(self.largest_code_points),
        }


def profile_words(profile: CorpusProfile) -> str:
    """The profile in words, as a page says it: "918,799 characters in 918,799 UTF-8 bytes,
    every one ASCII", or "64,000,000 characters in 64,034,378 UTF-8 bytes; 34,378 of them
    (0.05%) take more than one byte; the largest code points: U+1F600 😀, U+4E2D 中"."""
    said = f"{profile.characters:,} characters in {profile.utf8_bytes:,} UTF-8 bytes"
    if not profile.multibyte_characters:
        return said + ", every one ASCII"
    share = profile.multibyte_share
    percent = f"{share:.0%}" if share >= 0.01 else f"{share:.2%}" if share >= 0.0001 else "under 0.01%"
    wide = [point for point in profile.largest_code_points if point > 0x7F]
    return (
        f"{said}; {profile.multibyte_characters:,} of them ({percent}) take more than one byte; "
        f"the largest code points: {', '.join(code_point_words(point) for point in wide)}"
    )


def code_point_words(point: int) -> str:
    """``U+1F600 😀``: the code point, and the character itself when it shows as one
    (controls and spaces are shown as `bpe.text.printable` marks them)."""
    return f"U+{point:04X} {printable(chr(point))}"


def profile_of_chunks(chunks, counts: Iterable[int]) -> CorpusProfile:
    """The profile of the text a chunk table counts: ``chunks`` (strings, or a
    `bpe.scale.chunk_counts.Chunks`) each occurring ``counts[i]`` times. Only the chunks
    that are not ASCII are looked into, character by character."""
    characters = utf8_bytes = multibyte = 0
    wide: set[str] = set()
    narrow: set[str] = set()  # ASCII characters seen, for a text with fewer than 5 others
    for chunk, count in zip(chunks, counts):
        characters += len(chunk) * count
        if chunk.isascii():
            utf8_bytes += len(chunk) * count
            if len(narrow) < 128:
                narrow.update(chunk)
            continue
        utf8_bytes += len(chunk.encode("utf-8")) * count
        others = [ch for ch in chunk if ch > "\x7f"]
        multibyte += len(others) * count
        wide.update(others)
        narrow.update(ch for ch in chunk if ch <= "\x7f")
    largest = sorted(map(ord, wide | narrow), reverse=True)[:LARGEST_KEPT]
    return CorpusProfile(characters, utf8_bytes, multibyte, tuple(largest))


def profile_of_text(text: str) -> CorpusProfile:
    """The profile of one text in memory: ``profile_of_text("naïve")`` is 5 characters, 6 bytes."""
    return profile_of_chunks([text], [1])


def profile_from_json(fields) -> CorpusProfile:
    """A profile read from a file (a stranger's): every number a count, the multi-byte
    characters at most the characters, the bytes between one and four a character (one
    exactly when none is multi-byte), the code points distinct, largest first, within
    Unicode and at most `LARGEST_KEPT`; `BpeError` in one line otherwise."""
    if not isinstance(fields, dict) or set(fields) != {
        "characters",
        "utf8_bytes",
        "multibyte_characters",
        "largest_code_points",
    }:
        raise BpeError("its corpus profile must hold characters, utf8_bytes, multibyte_characters, largest_code_points")
    numbers = [fields[key] for key in ("characters", "utf8_bytes", "multibyte_characters")]
    if not all(type(n) is int and 0 <= n < 1 << 63 for n in numbers):
        raise BpeError("its corpus profile's counts must be whole numbers of at least 0 and below 2**63")
    characters, utf8_bytes, multibyte = numbers
    points = fields["largest_code_points"]
    if (
        not isinstance(points, list)
        or len(points) > LARGEST_KEPT
        or not all(type(p) is int and 0 <= p <= MAX_CODE_POINT for p in points)
        or any(map(operator.le, points, points[1:]))
    ):
        raise BpeError(
            f"its corpus profile's largest code points must be at most {LARGEST_KEPT} distinct code points, largest first"
        )
    if multibyte > characters or not characters + multibyte <= utf8_bytes <= characters + 3 * multibyte:
        raise BpeError(
            f"its corpus profile holds {characters:,} characters, {multibyte:,} of them multi-byte, in "
            f"{utf8_bytes:,} bytes: no text is spelled so in UTF-8"
        )
    return CorpusProfile(characters, utf8_bytes, multibyte, tuple(points))
