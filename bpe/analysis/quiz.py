"""Predict the next merge: a learner's guess judged against the merge training made.

A guess is right when it is the merged pair; "right by count" when it occurs exactly as
often as the merged pair and lost only to the tie rule; wrong otherwise. Counts come from
the step's record (`MergeStep.top_pairs`: the most frequent pairs before the merge), so
judging never touches the text.

    step 1 of "low lower newest widest": e + s and s + t both occur 9 times; e + s wins
    judge(step, ("e", "s"))  -> right
    judge(step, ("s", "t"))  -> tie   (as often as e + s; the tie rule chose e + s)
    judge(step, ("l", "o"))  -> wrong (2 times)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from bpe.errors import BpeError
from bpe.steps import MergeStep, Pair
from bpe.text import VISIBLE_WHITESPACE, pair_label, printable
from bpe.wording import most_frequent_pairs, times

Kind = Literal["right", "tie", "wrong"]
_FROM_VISIBLE = {shown: real for real, shown in VISIBLE_WHITESPACE.items()}


@dataclass(frozen=True)
class Verdict:
    """How a guess fared: its kind, its count before the merge (None when the record does
    not reach it) and one paragraph saying why, in plain text (not escaped)."""

    kind: Kind
    guess: Pair
    guess_count: int | None
    explanation: str


def judge(step: MergeStep, guess: Pair, *, tie_rule: str, recorded: int) -> Verdict:
    """Judge ``guess`` against ``step``. ``tie_rule`` says in words how ties are broken
    ("ties go to the pair whose first occurrence ... comes earliest"); ``recorded`` is how
    many pairs a step records, so a shorter ``top_pairs`` lists every pair there is."""
    counts = dict(step.top_pairs)
    winner, best = pair_label(step.pair), times(step.frequency)
    tied = [pair for pair, count in step.top_pairs if count == step.frequency and pair != step.pair]
    if guess == step.pair:
        why = f"Right: {winner} occurs {best} before this merge"
        if tied:
            others = ", ".join(pair_label(pair) for pair in tied)
            return Verdict(
                "right", guess, step.frequency, f"{why}, and so does {others}. The tie rule picked it: {tie_rule}."
            )
        return Verdict("right", guess, step.frequency, f"{why}, more than any other pair.")
    count = counts.get(guess)
    label = pair_label(guess)
    if count == step.frequency:
        return Verdict(
            "tie",
            guess,
            count,
            f"Right by count: {label} occurs {best}, as often as {winner}, the pair "
            f"merged. The tie rule decided between them: {tie_rule}.",
        )
    if count is not None:
        return Verdict(
            "wrong",
            guess,
            count,
            f"Not this one: {label} occurs {times(count)}; {winner} occurs {best}, "
            "more than any other pair, so it is merged.",
        )
    if len(step.top_pairs) < recorded:
        return Verdict(
            "wrong",
            guess,
            0,
            f"Not this one: {label} does not occur in the text at this step; {winner} occurs "
            f"{best}, more than any other pair.",
        )
    floor = step.top_pairs[-1][1] if step.top_pairs else 0
    return Verdict(
        "wrong",
        guess,
        None,
        f"Not this one: {label} {_not_among(len(step.top_pairs))} "
        f"(it occurs at most {times(floor)}); {winner} occurs {best}, more than any other.",
    )


def _not_among(recorded: int) -> str:
    return "is not the most frequent pair" if recorded == 1 else f"is not among {most_frequent_pairs(recorded)}"


def question_order(top_pairs) -> list:
    """The competing pairs (with their counts) in the order of their labels: asked in the
    recorded order (most frequent first, ties by the tie rule), the first would be the answer."""
    return sorted(top_pairs, key=lambda entry: (pair_label(entry[0]), entry[1]))


def parse_guess(typed: str, step: MergeStep) -> Pair:
    """A typed pair, ``t + h`` or ``t h`` (``·`` for a space, ``↵`` for a newline), as a pair
    of the step's tokens. A pair the step records is matched by how it is shown, so a
    byte-level pair can be typed as it appears on screen. Raises `BpeError` when the text
    is not two tokens."""
    text = typed.strip()
    halves = text.split(" + ") if " + " in text else text.split()
    if len(halves) != 2 or not all(halves):
        raise BpeError(f"{typed!r} is not a pair: type two tokens, like 't + h' (· for a space).")
    halves = [half.strip() for half in halves]
    for pair, _count in step.top_pairs:
        if [printable(pair[0]), printable(pair[1])] == halves:
            return pair
    real = tuple("".join(_FROM_VISIBLE.get(ch, ch) for ch in half) for half in halves)
    if isinstance(step.pair[0], bytes):
        return tuple(half.encode("utf-8") for half in real)
    return real


@dataclass(frozen=True)
class Score:
    right: int  # the merged pair itself
    by_count: int  # a pair tied with it
    wrong: int

    @property
    def answered(self) -> int:
        return self.right + self.by_count + self.wrong

    def line(self) -> str:
        """``Score: 5 of 7 right (1 of them by count, a tie)``."""
        if not self.answered:
            return "Score: no merge predicted yet."
        ties = f" ({self.by_count} of them by count, a tie)" if self.by_count else ""
        return f"Score: {self.right + self.by_count} of {self.answered} right{ties}."


def score(kinds: Iterable[Kind]) -> Score:
    kinds = list(kinds)
    return Score(kinds.count("right"), kinds.count("tie"), kinds.count("wrong"))
