"""Segments: a piece of text cut into tokens, before and after one merge of a run.

A page shows a window of the corpus as coloured tokens. For step k of a run it needs the
segmentation with the first k-1 merges ("before") and with k merges ("after"), and which
tokens the k-th merge touched. Encoding replays merges in learned order, so "after" is
exactly "before" with the k-th pair merged left to right, without overlap, inside each
pre-tokenizer chunk. `step_segments` computes both in one pass and marks the pieces:

    before: l o w · l o w e r      pair ('l', 'o'): both halves marked "left"/"right"
    after:  lo w · lo w e r        each new 'lo' marked "merged"

Caching tokenizers per step count is the page's job; this module only computes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bpe.pairs import merge_positions
from bpe.steps import MergeStep
from bpe.tokenizer import BPETokenizer

Mark = (
    Literal["left", "right", "merged", "differs", "unknown", "special"] | None
)  # "differs": cut unlike the other run (bpe.analysis.run_diff)
# "unknown": a character outside the tokenizer's alphabet, token_id None (bpe.analysis.encodable)
# "special": a special token (`bpe.specials`): one token no merge touches, drawn in a style of its own


@dataclass(frozen=True)
class Segment:
    """One token of a segmented text: the token (str, or bytes for the byte alphabet),
    its id, and how the current merge touched it (None: not at all)."""

    token: str | bytes
    token_id: int | None
    mark: Mark = None


def window(text: str, start: int, size: int) -> str:
    """``text[start:start+size]`` with ``start`` clamped so the window stays inside the text."""
    start = min(max(start, 0), max(len(text) - size, 0))
    return text[start : start + size]


def window_around(text: str, token: str | bytes, size: int) -> int:
    """Where a ``size``-character window should start to show the first occurrence of
    ``token`` in ``text``: from the start of its line when that fits, else a third of
    the window before it; 0 when the token's text does not occur."""
    if isinstance(token, bytes):  # find the bytes, then count the characters before them
        encoded = text.encode("utf-8")
        found = encoded.find(token)
        at = -1 if found < 0 else len(encoded[:found].decode("utf-8", errors="ignore"))
    else:
        at = text.find(token)
    if at < 0:
        return 0
    line = text.rfind("\n", 0, at) + 1
    return line if at - line < size // 2 else max(at - size // 3, 0)


def segment(tokenizer: BPETokenizer, text: str) -> list[Segment]:
    """``text`` as the tokenizer cuts it, unmarked but for its special tokens."""
    return segments_of(tokenizer, tokenizer.encode(text))


def segments_of(tokenizer, ids) -> list[Segment]:
    """The tokens of ``ids`` as segments, each special token marked "special"."""
    itos, specials = tokenizer.itos, special_ids(tokenizer)
    return [Segment(itos[i], i, "special" if i in specials else None) for i in ids]


def special_ids(tokenizer) -> frozenset[int]:
    """The ids of a tokenizer's special tokens (none for one without them)."""
    return frozenset(getattr(tokenizer, "special_tokens", {}).values())


def step_segments(before: BPETokenizer, text: str, step: MergeStep) -> tuple[list[Segment], list[Segment]]:
    """(before, after) segments of ``text`` around ``step``.

    ``before`` must be the tokenizer with the merges preceding ``step`` (see
    `bpe.run.TrainingRun.tokenizer` with ``merges=step.number - 1``). In "before", each occurrence the merge consumes is marked
    left/right; in "after", each token the merge produced is marked "merged".
    """
    itos, stoi, specials = before.itos, before.stoi, special_ids(before)
    left_id, right_id = stoi[step.pair[0]], stoi[step.pair[1]]
    old, new = [], []
    for chunk in before.encode_with_chunks(text):
        merged_at = set(merge_positions(chunk, (left_id, right_id)))  # no overlap: "a a a" gives "aa a"
        i, n = 0, len(chunk)
        while i < n:
            if i in merged_at:
                old += [Segment(step.pair[0], left_id, "left"), Segment(step.pair[1], right_id, "right")]
                new.append(Segment(step.token, step.token_id, "merged"))
                i += 2
            else:
                plain = Segment(itos[chunk[i]], chunk[i], "special" if chunk[i] in specials else None)
                old.append(plain)
                new.append(plain)
                i += 1
    return old, new


def merged_count(segments: list[Segment]) -> int:
    """How many tokens in ``segments`` the current merge produced."""
    return sum(1 for s in segments if s.mark == "merged")
