"""A report card: characters and bytes per token on fixed kinds of text, beside GPT-2 and GPT-4.

Unlike `bpe.analysis.metrics` (one run's curve on its own corpus), this measures any
tokenizers on the same fixed texts, so a run is graded against the tokenizers people
use (nanochat's ``tok_eval`` does the same):

- English prose, Python code and mathematics that ship in ``data/report_card/`` (see
  ``data/README.md`` for their sources);
- the lighthouse paragraph in each of its languages (`bpe.corpora.builtin.LIGHTHOUSE`);
- the start of the corpus's training part and of its held-out part.

A character alphabet may lack some of a text's characters (Tiny Shakespeare has no
``"``). Then the tokenizer is measured on the part it covers (the stretches between those
characters, `bpe.analysis.encodable`), and the measure says how much that is; below
`MIN_COVERAGE` it gets no number at all, since so small a share would not compare. The relative difference of a tokenizer against a
reference is ``ours / theirs - 1`` in characters per token (on the same text this is the
same for bytes per token): positive where ours compresses better.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bpe.analysis.encodable import segments_marking_unknown, unknown_characters
from bpe.corpora.builtin import LIGHTHOUSE
from bpe.errors import BpeError
from bpe.paths import DATA_DIR

CARD_DIR = DATA_DIR / "report_card"
# (file, name, kind, source) of the texts that ship with the project
SHIPPED = (
    ("english.txt", "English prose", "prose", "written for BPE Lab"),
    ("code.txt", "Python code", "code", "Python 3.11's Lib/textwrap.py (end), PSF licence"),
    ("math.txt", "Mathematics", "math", "written for BPE Lab"),
)
MIN_COVERAGE = 0.9  # of a text's characters a tokenizer must encode to be graded on it
CORPUS_CHARACTERS = 100_000  # of each corpus part: enough for a stable figure, quick for GPT-2 in pure Python


@dataclass(frozen=True)
class CardText:
    name: str
    kind: str  # "prose", "code", "math", "language" or "corpus"
    text: str
    source: str


@dataclass(frozen=True)
class Measure:
    """One tokenizer on one text: its tokens on the ``characters`` (and ``bytes``) it covers,
    or None when it covers less than `MIN_COVERAGE` of the text."""

    tokens: int | None
    characters: int
    bytes: int
    unknown: int = 0  # distinct characters outside the tokenizer's alphabet
    coverage: float = 1.0  # share of the text's characters measured

    @property
    def characters_per_token(self) -> float | None:
        return self.characters / self.tokens if self.tokens else None

    @property
    def bytes_per_token(self) -> float | None:
        return self.bytes / self.tokens if self.tokens else None


@dataclass(frozen=True)
class CardRow:
    text: CardText
    measures: dict[str, Measure] = field(default_factory=dict)  # by tokenizer label

    def relative(self, label: str, reference: str) -> float | None:
        """``label``'s characters per token over ``reference``'s, minus 1 (None without both)."""
        ours = self.measures[label].characters_per_token
        theirs = self.measures[reference].characters_per_token
        return relative_difference(ours, theirs)


def relative_difference(ours: float | None, theirs: float | None) -> float | None:
    """``ours / theirs - 1``: 0.1 means 10% more characters per token (fewer tokens) than theirs."""
    if ours is None or not theirs:
        return None
    return ours / theirs - 1


def shipped_texts(folder: Path = CARD_DIR) -> list[CardText]:
    """The fixed texts: prose, code and maths from ``folder``, then each lighthouse language."""
    texts = []
    for file_name, name, kind, source in SHIPPED:
        path = folder / file_name
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise BpeError(f"the report card's text {file_name!r} cannot be read: {error.__class__.__name__}") from None
        texts.append(CardText(name, kind, text, source))
    for code, (language, paragraph) in LIGHTHOUSE.items():
        texts.append(CardText(language, "language", paragraph, f"the lighthouse paragraph in {language} ({code})"))
    return texts


def card_texts(
    train_text: str, heldout_text: str, *, corpus: str = "the corpus", kept_sample: bool = False
) -> list[CardText]:
    """`shipped_texts`, then the start of the corpus's training part and held-out part (each
    when there is one). ``kept_sample``: the held-out text is the sample a run file keeps."""
    texts = shipped_texts()
    for part, text in (("training part", train_text), ("held-out part", heldout_text)):
        if text:
            cut = text[:CORPUS_CHARACTERS]
            source = f"first {len(cut):,} characters of {corpus}'s {part}"
            if kept_sample and part == "held-out part":
                source = f"the {len(cut):,} characters of {corpus}'s {part} that its run file keeps"
            texts.append(CardText(f"Corpus, {part}", "corpus", cut, source))
    return texts


def measure(tokenizer, text: str) -> Measure:
    """Tokens of ``text`` (of the part the tokenizer covers, see `Measure`)."""
    characters, size = len(text), len(text.encode("utf-8"))
    lacking = unknown_characters(tokenizer, text)
    if lacking:
        segments = segments_marking_unknown(tokenizer, text)
        missing = "".join(s.token for s in segments if s.mark == "unknown")
        covered = characters - len(missing)
        coverage = covered / characters
        tokens = sum(1 for s in segments if s.mark != "unknown") if coverage >= MIN_COVERAGE else None
        return Measure(tokens, covered, size - len(missing.encode("utf-8")), len(lacking), coverage)
    try:
        tokens = len(tokenizer.encode(text))
    except BpeError:  # an imported character tokenizer that refuses the text
        return Measure(None, characters, size, 1)
    return Measure(tokens, characters, size)


def report_card(tokenizers: Mapping[str, object], texts: Sequence[CardText]) -> list[CardRow]:
    """Every tokenizer (by label) measured on every text."""
    return [CardRow(text, {label: measure(t, text.text) for label, t in tokenizers.items()}) for text in texts]


def card_table(rows: Sequence[CardRow], ours: str, references: Sequence[str]) -> list[dict]:
    """Flat rows for a table and the CSV: the text, its size, then per tokenizer characters
    and bytes per token, then ``ours`` against each reference (relative difference)."""
    table = []
    for row in rows:
        line = {"text": row.text.name, "kind": row.text.kind, "characters": len(row.text.text)}
        line["bytes"] = len(row.text.text.encode("utf-8"))
        for label, found in row.measures.items():
            line[f"{label}: characters/token"] = found.characters_per_token
            line[f"{label}: bytes/token"] = found.bytes_per_token
        for reference in references:
            if reference in row.measures and reference != ours:
                line[f"{ours} vs {reference}"] = row.relative(ours, reference)
        table.append(line)
    return table


def card_csv(rows: Sequence[CardRow], ours: str, references: Sequence[str]) -> str:
    """`card_table` as CSV, with each text's source; empty cells where a tokenizer has no number."""
    table = card_table(rows, ours, references)
    out = io.StringIO()
    if not table:
        return ""
    fields = [*table[0], "source"]
    writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for line, row in zip(table, rows):
        writer.writerow({key: _cell(value) for key, value in {**line, "source": row.text.source}.items()})
    return out.getvalue()


def _cell(value):
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.4f}"
    return value
