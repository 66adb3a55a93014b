"""The merge log as rows: the table and CSV a page shows, and what one merge changed.

Rows are plain dicts (no pandas here), with token text made printable by `bpe.text`.
The CSV keeps tokens as written (real spaces and newlines, quoted by `csv`), so it can
be read back exactly; bytes tokens are written as `bpe.text.readable_token` shows them.
"""

from __future__ import annotations

import csv
import io

from bpe.run import TrainingRun
from bpe.steps import MergeStep
from bpe.text import pair_label, printable, readable_token


def log_row(step: MergeStep, merges_applied: int) -> dict:
    """One step as a table row. "frequency" is the pair count training compared
    (overlapping occurrences included); "merges applied" is how many really merged
    (`bpe.run.TrainingRun.merges_applied`): fewer when the pair overlaps itself."""
    return {
        "step": step.number,
        "pair": pair_label(step.pair),
        "new token": printable(step.token),
        "frequency": step.frequency,
        "merges applied": merges_applied,
        "sequence length": step.sequence_length,
        "vocab size": step.vocab_size,
    }


def log_rows_around(run: TrainingRun, current: int, last: int | None = None, radius: int = 5) -> list[dict]:
    """The log rows of the run's first ``last`` steps (all: None) within ``radius`` of step
    ``current`` (1-based), the current one marked ▶."""
    steps = run.steps[:last]
    low = max(current - radius, 1)
    high = min(low + 2 * radius, len(steps))
    low = max(high - 2 * radius, 1)
    return [
        {"": "▶" if step.number == current else "", **log_row(step, run.merges_applied(step.number))}
        for step in steps[low - 1 : high]
    ]


def log_csv(run: TrainingRun, last: int | None = None) -> str:
    """The run's first ``last`` merges (all: None) as CSV, one row per step: step, left,
    right, token, token_id, frequency (the pair count, overlaps included), merges_applied,
    sequence_length, vocab_size. Tokens are written as they are (a space stays a space; CSV
    quoting keeps commas and newlines safe); byte tokens as `readable_token` spells them."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        ["step", "left", "right", "token", "token_id", "frequency", "merges_applied", "sequence_length", "vocab_size"]
    )
    for s in run.steps[:last]:
        writer.writerow(
            [
                s.number,
                readable_token(s.pair[0]),
                readable_token(s.pair[1]),
                readable_token(s.token),
                s.token_id,
                s.frequency,
                run.merges_applied(s.number),
                s.sequence_length,
                s.vocab_size,
            ]
        )
    return out.getvalue()


def overlap_note(step: MergeStep, merges_applied: int) -> str | None:
    """One sentence when the step merged fewer times than its pair was counted, else None.

    Only a pair of two equal tokens can overlap itself: 'aaaaa' holds four ('a', 'a')
    pairs, all counted, but merging left to right takes 'aa', 'aa' and leaves 'a'."""
    if merges_applied == step.frequency:
        return None
    left, right = printable(step.pair[0]), printable(step.pair[1])
    return (
        f"Training counted {step.frequency:,} '{left} + {right}' pairs, overlapping ones included, but "
        f"merging left to right uses each token once, so only {merges_applied:,} merges happened"
        + (f" (in '{left * 3}' the second pair starts inside the first)." if left == right else ".")
    )


def count_change_rows(step: MergeStep) -> list[dict]:
    """What the merge did to pair counts: the merged pair, the neighbour pairs it consumed
    (negative) and the new neighbour pairs it created (positive), largest change first."""
    rows = []
    for pair, delta in step.count_changes:
        kind = "merged away" if pair == step.pair else "consumed" if delta < 0 else "created"
        rows.append({"pair": pair_label(pair), "change": delta, "what happened": kind})
    return rows


def why_stopped(run: TrainingRun, merges_shown: int) -> str:
    """Why the shown tokenizer has ``merges_shown`` merges: training's stop reason, or the
    smaller vocab the user picked (a prefix of the run)."""
    if merges_shown == 0 < len(run.steps):
        return (
            f"This tokenizer uses none of the run's {len(run.steps):,} merges: the vocab size you picked is "
            f"its alphabet ({len(run.base_tokens):,} base tokens). Training itself stopped: {run.stop_explanation}."
        )
    if merges_shown < len(run.steps):
        return (
            f"This tokenizer uses the first {merges_shown:,} of the run's {len(run.steps):,} merges "
            f"(the vocab size you picked). Training itself stopped: {run.stop_explanation}."
        )
    return f"Training stopped after {len(run.steps):,} merges: {run.stop_explanation}."
