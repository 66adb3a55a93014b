"""What an experiment's `ModelSummary` records say: a table and a plain-words verdict.

Unlike `cli` (which prints), this returns rows and Markdown for a page to draw. It
imports no torch: it only reads the numbers the summaries carry.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bpe.lm.experiment import ModelSummary

TIE_BITS = 0.01  # closer than this is within the noise of one short run on one seed


def model_summary_rows(summaries: Sequence[ModelSummary]) -> list[dict]:
    """One row per model: parameters (embedding vs the rest), what it saw, how fast, how well."""
    return [
        {
            "tokenizer": s.tokenizer,
            "vocab": s.config.vocab_size,
            "embedding parameters": s.parameters.embedding,
            "other parameters": s.parameters.rest,
            "steps": s.steps,
            "tokens seen": s.tokens_seen,
            "training work": flops_words(s.training_flops),
            "seconds (wall clock)": round(s.seconds, 1),
            "characters seen": s.chars_seen,
            "tokens/s": round(s.tokens_per_second),
            "characters/s": round(s.chars_per_second),
            "held-out bits/char": round(s.bits_per_char, 3),
            "held-out bits/byte": None if s.bits_per_byte is None else round(s.bits_per_byte, 3),
        }
        for s in summaries
    ]


def flops_words(flops: float) -> str:
    """FLOPs as a reader says them: 1.02e12 -> "1.02 TFLOPs", 5.4e9 -> "5.40 GFLOPs"."""
    for unit, size in (("P", 1e15), ("T", 1e12), ("G", 1e9), ("M", 1e6)):
        if flops >= size:
            return f"{flops / size:.2f} {unit}FLOPs"
    return f"{flops:,.0f} FLOPs"


def verdict(summaries: Sequence[ModelSummary], *, budget_steps: int | None = None, requested: int | None = None) -> str:
    """The closing note: each model's bits per character and speed, which won and by how much.

    The models get the same work (`budget_steps` steps of the same batch of tokens), not the
    same seconds: a clock counts whatever else the machine does, so the seconds are said,
    never compared. ``budget_steps`` and ``requested`` (the number of models asked for) let it
    say when a Stop left the comparison unequal. Example: characters 2.500 and BPE 1,000 2.000
    bits/char -> "**BPE 1,000 won** by 0.500 bits per character (20% fewer bits than
    characters) ...".
    """
    if not summaries:
        return "No model finished training, so there is nothing to compare."
    scores = "; ".join(f"{s.tokenizer} **{s.bits_per_char:.3f}**" for s in summaries)
    speeds = "; ".join(
        f"{s.tokenizer} {s.tokens_per_second:,.0f} tokens/s = {s.chars_per_second:,.0f} characters/s" for s in summaries
    )
    lines = [f"Held-out bits per character (lower is better): {scores}."]
    per_byte = [s for s in summaries if s.bits_per_byte is not None]
    if per_byte:
        bytes_scores = "; ".join(f"{s.tokenizer} {s.bits_per_byte:.3f}" for s in per_byte)
        lines.append(f"Per UTF-8 byte of the same text, the scale papers report across alphabets: {bytes_scores}.")
    lines.append(_work_line(summaries))
    lines.append(f"Training speed on this machine, as busy as it was: {speeds}.")
    short = [s for s in summaries if budget_steps is not None and s.steps < budget_steps]
    if short:
        lines.append(
            f"⚠️ Training was stopped: {short[0].tokenizer} trained {short[0].steps:,} of the "
            f"{budget_steps:,} steps, so the models did not get the same work."
        )
    if requested is not None and len(summaries) < requested:
        lines.append(f"⚠️ Only {len(summaries)} of the {requested} models trained before the run was stopped.")
    if len(summaries) < 2:
        lines.append(f"With only {summaries[0].tokenizer} trained, there is no winner.")
        return "\n\n".join(lines)
    best, second = sorted(summaries, key=lambda s: s.bits_per_char)[:2]
    gap = second.bits_per_char - best.bits_per_char
    if gap < TIE_BITS:
        lines.append(
            f"**No clear winner**: {best.tokenizer} and {second.tokenizer} are within {TIE_BITS} bits "
            "per character, which is within the noise of one short run."
        )
        return "\n\n".join(lines)
    ratio = best.chars_seen / second.chars_seen if second.chars_seen else float("inf")
    lines.append(
        f"**{best.tokenizer} won** by {gap:.3f} bits per character ({gap / second.bits_per_char:.0%} fewer bits "
        f"than {second.tokenizer}), for the same {best.tokens_seen:,} tokens of work. "
        f"In them it read {ratio:.1f}× as many characters of text "
        f"({best.chars_seen:,} against {second.chars_seen:,})."
    )
    return "\n\n".join(lines)


def _work_line(summaries: Sequence[ModelSummary]) -> str:
    """The work each model did: its steps and tokens, and what they cost in FLOPs (a larger
    vocabulary's output head costs more a token), beside the wall clock it happened to take."""
    work = "; ".join(
        f"{s.tokenizer} {s.steps:,} steps, {s.tokens_seen:,} tokens, {flops_words(s.training_flops)} "
        f"in {s.seconds:.1f} s"
        for s in summaries
    )
    return (
        f"Equal work: {work}. The steps and tokens are the same for every model (the same batch of windows); "
        "a larger vocabulary costs more FLOPs a token (its output layer); the seconds are whatever this "
        "machine's other load made them."
    )
