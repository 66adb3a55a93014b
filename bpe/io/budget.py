"""What a file from a stranger may cost, checked before anything is built: the one cost model.

A file *describes* its tokens, and a description can be far smaller than what it
describes. minbpe's ``.model`` names each merge by the ids of its two halves, so the line
``256 256`` joins the newest token with itself: 40 such lines (about 400 bytes) describe
a token of 2**40 bytes, and 50,000 lines ``k 97``, each adding one byte to the last
token, describe 1.25 GB (the cost grows with the square of the lines). JSON is a
description too: every ``{},`` of ``[{},{},...]`` (three bytes) becomes a dictionary of a
few dozen bytes, so a few megabytes of it become millions of dictionaries.

A compressed file is a description too: gzip turns 500 MB of zeros into 500 KB, and
Parquet one repeated chunk of 300 million characters into 21 KB.

So every reader of a stranger's file (tokenizer files of every format, run files, counts
files, lesson files, corpora) first checks, from what it can see cheaply (lengths and
counts, a header, a Parquet footer: integers, one pass, stopping at the first excess),
that what the file describes fits these bounds, and refuses it in one line that names
the bound:

- one token: at most `MAX_TOKEN_LENGTH` bytes (characters, for a character alphabet);
  real tokenizers stay under a few hundred. Every file that names a merge's halves by id
  is held to it, token by token, before the token is built: minbpe's ``.model`` and BPE
  Lab's run files (`bpe.scale.run_file`, whose writer holds a run to the same bound, so
  it writes only what it reads back). A BPE Lab tokenizer file spells every token out in
  full, so its size already bounds its tokens, and it is held to the total alone;
- all tokens together: at most as many bytes as the file itself may hold
  (`MAX_TOTAL_TOKEN_BYTES` from disk, the server's upload limit from a visitor);
- a compressed file: at most `MAX_INFLATION` times its stored size once inflated, as its
  header or footer says before anything is inflated (`check_inflation`): a real run file
  inflates about 4 times, a real counts file 2 to 4 times;
- JSON: at most `MAX_JSON_VALUES` values, counted from the punctuation before parsing
  (lesson files too, with a bound of their own: `bpe.analysis.lesson`);
- files of lines: at most `line_limit` lines, counted before they are split.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence

from bpe.errors import BpeError, TokenizerFileError

# Longest token accepted from another library's file, in bytes (or characters).
MAX_TOKEN_LENGTH = 4096
# All tokens together, in bytes: as much as the largest tokenizer file BPE Lab reads
# (`bpe.formats.fileio.MAX_FILE_BYTES`), so a file costs at most what it could spell out.
MAX_TOTAL_TOKEN_BYTES = 64 * 1024 * 1024
# Values in a tokenizer's JSON: a file of a million merges as [left, right] lists and a
# million-token vocabulary counts about 5 million. Each value costs at most ~70 bytes
# of memory once parsed, so the parse stays within a few hundred MB.
MAX_JSON_VALUES = 6_000_000
# A server's bound on merges bounds its JSON too: a merge costs about 5 values (its
# [left, right] list and its vocabulary entry); 10 a merge leaves room for the rest.
JSON_VALUES_PER_MERGE = 10
# A compressed file once inflated, at most this many times its stored bytes. Real files
# inflate 2 to 5 times (tinyshakespeare.bperun: 4.3); a body of one repeated value
# inflates a thousand times, and would be parsed into a thousand times the memory.
MAX_INFLATION = 32


class TokenTally:
    """Adds up the tokens a file describes, in order, and raises `TokenizerFileError` at
    the first one longer than ``max_length`` or the first that takes the total past
    ``max_total``. For readers that go line by line; `check_token_lengths` for the rest."""

    def __init__(
        self,
        *,
        name: str,
        max_total: int = MAX_TOTAL_TOKEN_BYTES,
        max_length: int | None = MAX_TOKEN_LENGTH,
        unit: str = "bytes",
        error: type[BpeError] = TokenizerFileError,
    ) -> None:
        self.name = name
        self.max_total = max_total
        self.max_length = max_length
        self.unit = unit
        self.error = error
        self.total = 0

    def add(self, length: int, where: str) -> None:
        """Count one token of ``length``; ``where`` says where it is ("line 12")."""
        unit = self.unit
        if self.max_length is not None and length > self.max_length:
            raise self.error(
                f"{self.name}: {where} makes a token of {length:,} {unit}; the longest BPE Lab "
                f"accepts is {self.max_length:,} {unit}"
            )
        self.total += length
        if self.total > self.max_total:
            raise self.error(
                f"{self.name}: by {where} its tokens hold {self.total:,} {unit} in all; the most BPE Lab "
                f"accepts is {self.max_total:,} {unit} of tokens"
            )


def check_token_lengths(
    lengths: Iterable[int],
    *,
    name: str,
    max_total: int = MAX_TOTAL_TOKEN_BYTES,
    max_length: int | None = MAX_TOKEN_LENGTH,
    where: Callable[[int], str] = lambda index: f"token {index + 1:,}",
    unit: str = "bytes",
    error: type[BpeError] = TokenizerFileError,
) -> int:
    """The total of ``lengths`` (the tokens a file describes, in order), checked by a
    `TokenTally`; ``where(index)`` says where a token is, for the message."""
    tally = TokenTally(name=name, max_total=max_total, max_length=max_length, unit=unit, error=error)
    for index, length in enumerate(lengths):
        if (max_length is not None and length > max_length) or tally.total + length > max_total:
            tally.add(length, where(index))  # raises, saying which bound
        tally.total += length
    return tally.total


def merged_lengths(base_lengths: Sequence[int], merges: Iterable[tuple[int, int]]) -> Iterator[int]:
    """The length of each token ``merges`` make, when a merge names its halves by id (the
    base tokens are ids 0..n-1; merge k makes id n + k, as in minbpe). Lazy: with
    `check_token_lengths` it stops at the first excess, before any length grows large."""
    lengths = list(base_lengths)
    for left, right in merges:
        length = lengths[left] + lengths[right]
        lengths.append(length)
        yield length


def check_inflation(
    inflated: int, stored: int, *, name: str, what: str, error: type[BpeError], max_ratio: int = MAX_INFLATION
) -> None:
    """``error`` when ``stored`` bytes say they inflate to ``inflated`` bytes, more than
    ``max_ratio`` times as many (a header's or a footer's word, checked before anything is
    inflated): 30 MB of "1," gzipped to 281 KB is 107 times, refused; a real run, 4 times."""
    if inflated > max_ratio * max(stored, 1):
        raise error(
            f"{name} says it holds {inflated:,} bytes of {what} in {stored:,} bytes, {inflated / max(stored, 1):,.0f} "
            f"times as many; real files hold at most {max_ratio} times, so it is refused before it is inflated"
        )


def check_json_values(
    raw: bytes,
    *,
    name: str,
    max_values: int = MAX_JSON_VALUES,
    strings_count: bool = True,
    what: str = "a tokenizer file",
    error: type[BpeError] = TokenizerFileError,
) -> None:
    """``error`` when ``raw`` could hold more than ``max_values`` JSON values.

    Every value after the first in a list or an object is preceded by a comma, every
    object member has a colon, every container an opening bracket: their count bounds
    the number of values, and it is counted in C without parsing anything. Commas inside
    strings count too, which only overestimates; ``strings_count=False`` leaves them out
    (one more pass, a regex in C) for a file whose one long string is text with commas
    of its own, a lesson's pasted text: ``{"text": "a, b, c"}`` counts 1, not 3."""
    shape = raw if strings_count else _JSON_STRING.sub(b'""', raw)
    counted = shape.count(b",") + shape.count(b":") + shape.count(b"[") + shape.count(b"{")
    if counted > max_values:
        raise error(
            f"{name} holds about {counted:,} JSON values; {what} holds at most "
            f"{max_values:,}, so it is refused before it is parsed"
        )


# A JSON string: its quotes and everything between them, escapes included (unrolled, so
# that a long string is one tight loop, not one alternation a character).
_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)


def check_line_count(raw: bytes, *, name: str, max_lines: int, what: str) -> None:
    """`TokenizerFileError` when ``raw`` has more than ``max_lines`` line breaks (``\\n``, or
    ``\\r`` alone), counted before the text is split. ``what`` says what a line holds."""
    breaks = max(raw.count(b"\n"), raw.count(b"\r"))
    if breaks > max_lines:
        raise TokenizerFileError(
            f"{name} has {breaks:,} lines; it holds one {what} per line and at most {max_lines:,} lines "
            "are read, so it is refused before it is split"
        )
