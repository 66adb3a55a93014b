"""A span diff: how several tokenizers cut the same text, aligned by character position.

Unlike `bpe.analysis.run_diff` (two runs, step by step), this takes 2-4 finished
tokenizers and one text. Each row is one tokenizer's tokens with where they sit in the
text, in characters (for display) and in UTF-8 bytes (the exact boundaries: a byte-level
token may end inside a character). A token is *shared* when every row has a token with
exactly its boundaries; every other token sits in a *differing region*, a stretch between
two boundaries all rows share, which a page rings in every row.

    >>> diff = span_diff("lowest", {"A": ["low", "est"], "B": ["lo", "west"]})
    >>> [s.shared for s in diff.rows[0].spans], diff.regions, diff.spread
    ([False, False], ((0, 6),), 0.0)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bpe.analysis.segments import Segment
from bpe.errors import BpeError

MAX_ROWS = 4


@dataclass(frozen=True)
class TokenSpan:
    """One token of a row: characters ``start:end`` of the text (every character it touches)
    and bytes ``byte_start:byte_end`` of its UTF-8 (exact)."""

    start: int
    end: int
    byte_start: int
    byte_end: int
    token: str | bytes
    token_id: int | None  # None for plain tokens, and for `unknown` characters
    shared: bool  # every row has a token with these very boundaries
    unknown: bool = False  # a character outside the tokenizer's alphabet (see bpe.analysis.encodable)
    special: bool = False  # a special token (`bpe.specials`): drawn in a style of its own


@dataclass(frozen=True)
class DiffRow:
    label: str
    spans: tuple[TokenSpan, ...]

    @property
    def count(self) -> int:
        return len(self.spans)


@dataclass(frozen=True)
class SpanDiff:
    text: str
    rows: tuple[DiffRow, ...]
    regions: tuple[tuple[int, int], ...]  # character ranges where the rows cut differently

    @property
    def counts(self) -> tuple[int, ...]:
        return tuple(row.count for row in self.rows)

    @property
    def spread(self) -> float:
        """(max - min) / min of the token counts: 0.25 means the longest row has 25% more tokens."""
        low, high = min(self.counts, default=0), max(self.counts, default=0)
        return (high - low) / low if low else 0.0


def span_diff(text: str, rows: Mapping[str, Sequence]) -> SpanDiff:
    """Align each row's tokens (token strings or bytes, or `Segment`s) on ``text``.

    Raises `BpeError` naming the row whose tokens do not spell ``text`` (a tokenizer that
    normalizes the text or adds a space cannot be aligned character by character).
    """
    if not 1 <= len(rows) <= MAX_ROWS:
        raise BpeError(f"a span diff compares 1 to {MAX_ROWS} tokenizers, got {len(rows)}")
    data = text.encode("utf-8")
    char_at = _char_at_byte(text)
    placed = {label: _place(label, tokens, data, char_at) for label, tokens in rows.items()}
    boundary_sets = [{(span[2], span[3]) for span in spans} for spans in placed.values()]
    common = set.intersection(*boundary_sets) if boundary_sets else set()
    built = tuple(
        DiffRow(label, tuple(TokenSpan(*span[:6], (span[2], span[3]) in common, *span[6:]) for span in spans))
        for label, spans in placed.items()
    )
    return SpanDiff(text, built, _regions(built, char_at, len(data)))


def _place(label: str, tokens: Sequence, data: bytes, char_at: list[int]) -> list[tuple]:
    spans = []
    at = 0
    for item in tokens:
        token, token_id = (item.token, item.token_id) if isinstance(item, Segment) else (item, None)
        unknown = isinstance(item, Segment) and item.mark == "unknown"
        special = isinstance(item, Segment) and item.mark == "special"
        raw = token if isinstance(token, bytes) else token.encode("utf-8")
        if not raw or data[at : at + len(raw)] != raw:
            raise BpeError(
                f"{label}'s tokens do not spell the text at byte {at:,} (it changes the text, e.g. normalizes it "
                "or adds a space): it cannot be aligned with the others"
            )
        end = at + len(raw)
        spans.append((char_at[at], char_at[end - 1] + 1, at, end, token, token_id, unknown, special))
        at = end
    if at != len(data):
        raise BpeError(f"{label}'s tokens stop at byte {at:,} of {len(data):,}: they do not spell the whole text")
    return spans


def _char_at_byte(text: str) -> list[int]:
    """For each UTF-8 byte of ``text``, the index of the character it belongs to (one more at the end)."""
    found = []
    for index, char in enumerate(text):
        found += [index] * len(char.encode("utf-8"))
    found.append(len(text))
    return found


def _regions(rows: tuple[DiffRow, ...], char_at: list[int], size: int) -> tuple[tuple[int, int], ...]:
    """Character ranges between boundaries every row shares, where some row cuts inside."""
    cuts = [{span.byte_start for span in row.spans} | {size} for row in rows]
    shared = sorted(set.intersection(*cuts) | {0}) if cuts else [0]
    every = set.union(*cuts) if cuts else set()
    regions = []
    for start, end in zip(shared, shared[1:]):
        inside = any(start < cut < end for cut in every)
        if inside:
            regions.append((char_at[start], char_at[end - 1] + 1))
    return tuple(regions)


def display_lines(text: str, width: int) -> list[tuple[int, int]]:
    """``text`` cut into lines of at most ``width`` characters, as (start, end) ranges: after
    each newline, else after the last space that fits, else at ``width``. All rows of a
    span diff wrap at the same places, so they stay aligned."""
    if width < 1:
        raise BpeError(f"width={width} must be at least 1")
    lines = []
    start = 0
    while start < len(text):
        end = min(start + width, len(text))
        newline = text.find("\n", start, end)
        if newline >= 0:
            end = newline + 1
        elif end < len(text):
            space = text.rfind(" ", start, end)
            if space > start:
                end = space + 1
        lines.append((start, end))
        start = end
    return lines
