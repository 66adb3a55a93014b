"""Counts said in English, as a teacher reads them aloud: "occurs once", "1 pair ties",
"the most frequent pair". One home for the words every page and message puts around a
number, so no sentence says "1 times" or "pair(s)".
"""

from __future__ import annotations

# How a page or a message spells a command of BPE Lab: with the project's venv, as the README
# installs it (a bare `python` is the system's, which lacks the project's packages).
BPE_COMMAND = ".venv/bin/python -m bpe"


def times(count: int) -> str:
    """How often: 1 -> "once", 12345 -> "12,345 times"."""
    return "once" if count == 1 else f"{count:,} times"


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """A count and its noun: (1, "pair") -> "1 pair", (3, "pair") -> "3 pairs"."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"


def most_frequent_pairs(count: int) -> str:
    """1 -> "the most frequent pair", 10 -> "the 10 most frequent pairs"."""
    return "the most frequent pair" if count == 1 else f"the {count:,} most frequent pairs"


def tie_with_winner(ties: int) -> str:
    """1 -> "1 pair ties with the winner", 3 -> "3 pairs tie with the winner"."""
    return f"{counted(ties, 'pair')} {'ties' if ties == 1 else 'tie'} with the winner"
