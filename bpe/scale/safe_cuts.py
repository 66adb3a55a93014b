"""Where a named pre-tokenizer certainly cuts a text, found in its bytes without running it.

A cut between two characters is *safe* for a pattern when the pattern's chunks of the
whole text are the chunks of the text before the cut followed by the chunks of the text
after it. GPT-2's pattern cuts ``"the cat"`` before the space: ``["the", " cat"]`` either
way, so a reader may end a passage there and count each side alone. The named patterns
read at most one character past a chunk and nothing before it, so a few positions are safe
by construction (each rule below says why); tests check every rule with hypothesis
against counting the whole text. A custom pattern has no rule: its text files are read whole.

"S" below is a character that is certainly not whitespace: not in GPT2_WHITESPACE and
not str.isspace() (the regex module's \\s is a subset of both together).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from bpe.pretokenize import GPT2_WHITESPACE

CONTEXT_BYTES = 16  # what a cut rule looks at before a cut: two characters of up to 4 bytes, and more


@lru_cache(maxsize=1)
def _whitespace() -> frozenset[str]:
    return frozenset(GPT2_WHITESPACE) | frozenset(c for c in map(chr, range(0x3001)) if c.isspace())


def _char_after(buffer: bytes, at: int) -> str | None:
    """The character whose UTF-8 starts at ``buffer[at]``; None if none, incomplete or invalid."""
    if at >= len(buffer):
        return None
    lead = buffer[at]
    width = 1 if lead < 0x80 else 2 if 0xC0 <= lead < 0xE0 else 3 if 0xE0 <= lead < 0xF0 else 4 if lead < 0xF8 else 0
    try:
        return buffer[at : at + width].decode("utf-8") if width and at + width <= len(buffer) else None
    except UnicodeDecodeError:
        return None


def _char_before(buffer: bytes, at: int) -> str | None:
    """The character whose UTF-8 ends just before ``buffer[at]``; None if none or invalid."""
    start = at - 1
    while start >= 0 and at - start < 4 and 0x80 <= buffer[start] < 0xC0:
        start -= 1
    if start < 0:
        return None
    try:
        return buffer[start:at].decode("utf-8")
    except UnicodeDecodeError:
        return None


def _solid(char: str | None) -> bool:
    """Certainly not whitespace (and a character at all)."""
    return char is not None and char not in _whitespace()


def _whitespace_cuts(buffer: bytes, start: int, stop: int) -> Iterator[int]:
    """`\\s*\\S+|\\s+`: before a space, tab or newline that follows an S. The chunk holding
    that S ends there (\\S+ stops at whitespace) and the next one starts there."""
    for found in _WHITESPACE_ANCHOR.finditer(buffer, start, stop):
        if _solid(_char_before(buffer, found.start())):
            yield found.start()


def _gpt2_cuts(buffer: bytes, start: int, stop: int) -> Iterator[int]:
    """GPT-2: (a) before a space followed by an S: ` ?\\p{L}++`, ` ?\\p{N}++` or
    ` ?[^\\s\\p{L}\\p{N}]++` starts a chunk there, and a whitespace run before it ends one
    character early (\\s+(?!\\S)) in the whole text and at the cut (\\s++$) in the piece:
    the same chunk (see `bpe.pretokenize.gpt2_segments`). (b) after S + newline, before an
    S: the newline is a chunk of its own either way (\\s, or \\s++$ at the piece's end)."""
    for found in _GPT2_ANCHOR.finditer(buffer, max(start - 1, 0), stop):
        at = found.start()
        if buffer[at] == 0x20:
            if at >= start and _solid(_char_after(buffer, at + 1)):
                yield at
        elif _solid(_char_before(buffer, at)) and _solid(_char_after(buffer, at + 1)) and at + 1 >= start:
            yield at + 1


def _gpt4_cuts(buffer: bytes, start: int, stop: int) -> Iterator[int]:
    """GPT-4 (cl100k): (a) after a newline, before an S. No chunk reaches across: letters
    may take one leading character but never \\r or \\n, and the whitespace before ends at
    its last newline (\\s*[\\r\\n]) in the whole text and at the cut (\\s++$) in the piece.
    (b) before a space that follows an S: the chunk holding the S stops at the space either
    way (no alternative takes a space after an S, and \\s++$ cannot reach back past an S),
    and the chunks from the space on are the same, the regex reading nothing to its left."""
    for found in _GPT2_ANCHOR.finditer(buffer, max(start - 1, 0), stop):
        at = found.start()
        if buffer[at] == 0x20:
            if at >= start and _solid(_char_before(buffer, at)):
                yield at
        elif at + 1 >= start and _solid(_char_after(buffer, at + 1)):
            yield at + 1


_WHITESPACE_ANCHOR = re.compile(rb"[ \t\n\r]")
_GPT2_ANCHOR = re.compile(rb"[ \n]")
CUT_RULES = {"whitespace": _whitespace_cuts, "gpt2": _gpt2_cuts, "gpt4": _gpt4_cuts}


def first_cut(rule, buffer: bytes | bytearray, start: int, *, final: bool) -> int | None:
    """The first safe cut at or after ``buffer[start]``, or None when there is none in
    ``buffer``. Unless ``final`` (the buffer ends the file), the last bytes are left alone:
    a rule looks a character or two past a cut (`context_bytes`)."""
    stop = len(buffer) if final else len(buffer) - context_bytes(rule)
    if stop <= start:
        return None
    return next(rule(buffer, start, stop), None)


def context_bytes(rule) -> int:
    """How far a rule looks on either side of a cut: `CONTEXT_BYTES`, or more for a rule
    that keeps clear of special tokens (`AvoidingSpecials`). A reader keeps this much of the
    text before each place it may cut, and reads this much past it."""
    return getattr(rule, "context", CONTEXT_BYTES)


class AvoidingSpecials:
    """A cut rule that also keeps clear of special tokens (`bpe.specials`): the text is cut
    at them before it is pre-tokenized, so a cut inside one, or next to one where the
    pattern's own rule looks (GPT-2 cuts before ``" <"``; the space belongs to the
    whitespace before it when ``<|endoftext|>`` follows), could change the count. So a cut is
    taken only where no special token occurs within the longest one's length (plus the
    rule's own `CONTEXT_BYTES`) on either side: a test of the file's bytes there alone, the
    same whatever the partition. ``"a b<|endoftext|>c d"`` is cut before ``" d"`` and not
    before ``" b"`` (4 bytes from the special token)."""

    def __init__(self, rule, special_tokens) -> None:
        self.rule = rule
        self.specials = [special.encode("utf-8") for special in special_tokens]
        self.context = max(map(len, self.specials)) + CONTEXT_BYTES

    def __call__(self, buffer: bytes | bytearray, start: int, stop: int) -> Iterator[int]:
        reach, specials = self.context, self.specials
        for cut in self.rule(buffer, start, stop):
            window = bytes(buffer[max(cut - reach, 0) : cut + reach])
            if not any(special in window for special in specials):
                yield cut


def cut_rule(pretokenizer: str | None, special_tokens=()):
    """The rule for where a text file may be cut for ``pretokenizer`` (None: nowhere), kept
    clear of ``special_tokens`` when there are any."""
    rule = CUT_RULES.get(pretokenizer)
    if rule is None or not special_tokens:
        return rule
    return AvoidingSpecials(rule, special_tokens)
