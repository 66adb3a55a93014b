"""The training loop as pseudocode, played in phases beside the film.

Each merge plays in four phases, one per line of the loop, so a class sees which line
produced which change on screen:

    count   count every adjacent pair                 -> the pair chart
    pick    take the most frequent; stop if too rare  -> the winner in red
    merge   merge it everywhere, left to right        -> the text before and after
    record  add the new token                         -> vocab size, merge log

A cursor (step, phase, scan) says where the film is; `advance` moves it. ``scan`` counts
the occurrences merged so far when the merge phase is shown occurrence by occurrence
(`scan_merge`), which is where "aaaaa" -> "aa aa a" (not three "aa") becomes obvious.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bpe.pairs import merge_positions
from bpe.steps import MergeStep
from bpe.text import pair_label, printable
from bpe.wording import counted, times

PHASES = ("count", "pick", "merge", "record")
# (text, phase it belongs to); the first line is the loop itself; {ties} names the tie rule
PSEUDOCODE = (
    ("repeat until the vocabulary is full:", None),
    ("count every adjacent pair", "count"),
    ("best ← the most frequent pair (ties: {ties})", "pick"),
    ("if best occurs fewer than minimum times: stop", "pick"),
    ("merge best everywhere, left to right, without overlap", "merge"),
    ("add the new token to the vocabulary", "record"),
)


def pseudocode(ties: str = "first occurrence") -> list[tuple[str, str | None]]:
    """`PSEUDOCODE` with the tie rule's short name filled in."""
    return [(text.format(ties=ties), phase) for text, phase in PSEUDOCODE]


@dataclass(frozen=True)
class Cursor:
    """Where the film is: merge ``step`` (1-based), ``phase`` (index into `PHASES`) and,
    in the merge phase shown slowly, ``scan`` occurrences already merged."""

    step: int
    phase: int = len(PHASES) - 1
    scan: int = 0


def advance(cursor: Cursor, delta: int, *, last: int, scan_length: int = 0) -> Cursor:
    """One phase forward (``delta=1``) or back (-1), wrapping into the next or previous
    merge; it stops at the first phase of merge 1 and the last phase of merge ``last``.
    With ``scan_length`` > 0 the merge phase takes ``scan_length + 1`` frames: the scan
    at each occurrence in turn, then everything merged.

    >>> advance(Cursor(1, 3), 1, last=5)
    Cursor(step=2, phase=0, scan=0)
    >>> advance(Cursor(2, 2, scan=0), 1, last=5, scan_length=2)
    Cursor(step=2, phase=2, scan=1)
    """
    step, phase, scan = cursor.step, cursor.phase, cursor.scan
    merge = PHASES.index("merge")
    if delta > 0:
        if phase == merge and scan < scan_length:
            return Cursor(step, phase, scan + 1)
        if phase < len(PHASES) - 1:
            return Cursor(step, phase + 1, 0)
        return Cursor(step + 1, 0, 0) if step < last else cursor
    if phase == merge and scan > 0:
        return Cursor(step, phase, scan - 1)
    if phase > 0:
        back = phase - 1
        return Cursor(step, back, scan_length if back == merge else 0)
    return Cursor(step - 1, len(PHASES) - 1, 0) if step > 1 else cursor


@dataclass(frozen=True)
class Shown:
    """What a phase shows of the step: the winner in the chart and the headline, the
    consumed pairs outlined, the text after the merge, the new token in the log."""

    winner: bool
    outlines: bool
    after: bool
    recorded: bool


def shown(phase: str) -> Shown:
    """``shown("count")`` hides everything the merge decides; ``shown("record")`` shows all."""
    at = PHASES.index(phase)
    return Shown(winner=at >= 1, outlines=at >= 2, after=at >= 2, recorded=at >= 3)


def line_notes(
    step: MergeStep, phase: str, *, minimum: int, merged: int, stop: str | None, asking: bool = False
) -> list[str]:
    """What each line of `PSEUDOCODE` did at ``step``, up to ``phase`` (plain text, not
    escaped; empty where the line has not run yet). ``merged`` is how many occurrences
    the merge replaced (fewer than the count when occurrences overlap); ``stop`` says why
    training stopped, for the last step; ``asking``: the class is predicting the merge, so
    counting names no pair."""
    at = PHASES.index(phase)
    top = (
        "see the chart: which is the most frequent?"
        if asking
        else ", ".join(f"{pair_label(pair)} ×{count:,}" for pair, count in step.top_pairs[:3])
    )
    ties = sum(1 for pair, count in step.top_pairs if count == step.frequency and pair != step.pair)
    notes = [
        f"step {step.number:,}" + (f" — then training stopped: {stop}" if stop and at == 3 else ""),
        f"most frequent: {top}" if not asking else top,
        f"best = {pair_label(step.pair)}, {times(step.frequency)}"
        + (f" ({counted(ties, 'other pair')} as often: the tie rule picks it)" if ties else ""),
        f"{step.frequency:,} ≥ {minimum:,}: go on",
        f"{counted(merged, 'occurrence')} merged into {printable(step.token)!r}"
        + (f" ({step.frequency:,} counted: overlapping ones merge once)" if merged < step.frequency else ""),
        f"vocabulary: {step.vocab_size:,} tokens"
        if step.new_token
        else f"{printable(step.token)!r} was already in the vocabulary: no new token",
    ]
    runs = [0] + [PHASES.index(line_phase) for _, line_phase in PSEUDOCODE[1:]]
    return [note if ran <= at else "" for note, ran in zip(notes, runs)]


@dataclass(frozen=True)
class ScanEvent:
    """One occurrence merged by the left-to-right scan: the index of its left half, and the
    overlapping occurrence right after it (counted, but its left half is now used), if any."""

    position: int
    skipped: int | None


def scan_merge(chunks: Sequence[Sequence], pair: tuple) -> list[ScanEvent]:
    """The merges of ``pair`` in ``chunks`` (token sequences that merges never cross),
    occurrence by occurrence, with positions counted across all chunks in order.

    >>> scan_merge([["a", "a", "a", "a", "a"]], ("a", "a"))
    [ScanEvent(position=0, skipped=1), ScanEvent(position=2, skipped=3)]
    """
    events, offset = [], 0
    for chunk in chunks:
        for at in merge_positions(chunk, pair):
            overlaps = at + 2 < len(chunk) and (chunk[at + 1], chunk[at + 2]) == tuple(pair)
            events.append(ScanEvent(offset + at, offset + at + 1 if overlaps else None))
        offset += len(chunk)
    return events
