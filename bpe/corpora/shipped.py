"""Texts that ship as files in `data/`, listed under a proper name with their source.

Any `*.txt` in `data/` is a corpus named after its file (`bpe.corpora.corpus`). The files
described here are the project's own choice of real text, so the picker shows them by
name, with where they come from, instead of as a bare file name. The default corpus of
the app is one of them: English prose a class can read, not code.
"""

from __future__ import annotations

from dataclasses import dataclass

TINY_SHAKESPEARE = "Tiny Shakespeare"


@dataclass(frozen=True)
class ShippedText:
    """A text file in `data/`: the corpus name it is listed as, its language, and its credit."""

    file_name: str
    name: str
    language: str
    description: str


SHIPPED_TEXTS: dict[str, ShippedText] = {
    text.file_name: text
    for text in (
        ShippedText(
            "tinyshakespeare.txt",
            TINY_SHAKESPEARE,
            "en",
            "About 40,000 lines from Shakespeare's plays (1.1 MB, public domain), the text of "
            "Karpathy's char-rnn and of the usual tiny-GPT examples.",
        ),
    )
}
