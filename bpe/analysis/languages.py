"""The same content in several languages: how many tokens each costs.

The lighthouse paragraph (`bpe.corpora.builtin.LIGHTHOUSE`) says the same thing in eleven
languages, so its token count in each language is a fair price tag: a tokenizer trained
mostly on one script cuts the others into many more pieces, and a model then pays for
that in context length and compute. Two ways to train, both byte-level (every script is
encodable, and every tokenizer starts from the same 256 base tokens):

- ``shared``: one tokenizer trained on all the paragraphs together, as a multilingual
  model's tokenizer is; each language is then encoded with it.
- ``separate``: one tokenizer per language, trained on that paragraph alone, all with
  the same number of merges (so the same vocab size, 256 + merges at most).

Nothing here draws; `language_costs` returns rows a page shows.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bpe.alphabet import BYTES
from bpe.analysis.evaluation import gini
from bpe.run import train_run
from bpe.training import MAX_VOCAB_CHARACTERS

MODES = ("shared", "separate")
MINIMUM_PAIR_FREQUENCY = 2


@dataclass(frozen=True)
class LanguageCost:
    """One language's paragraph and its price in tokens."""

    language: str
    characters: int
    utf8_bytes: int
    tokens: int
    vocab_size: int  # of the tokenizer that encoded it (training may stop short)
    baseline_tokens: int  # the baseline language's tokens with the same kind of tokenizer

    @property
    def times_baseline(self) -> float:
        """How many times the baseline language's token count the same content costs."""
        return self.tokens / max(self.baseline_tokens, 1)


def train_byte_tokenizer(text: str, merges: int):
    """A byte-level BPE with at most ``merges`` merges learned from ``text``."""
    run = train_run(
        text,
        target_vocab_size=256 + merges,
        minimum_pair_frequency=MINIMUM_PAIR_FREQUENCY,
        alphabet=BYTES,
        top_k=0,
        max_vocab_characters=MAX_VOCAB_CHARACTERS,  # the app's bound, whatever the texts
    )
    return run.tokenizer()


def language_costs(
    texts: Mapping[str, str], *, merges: int, mode: str = "shared", baseline: str | None = None
) -> list[LanguageCost]:
    """Tokens per language for ``texts`` ({language: the same content}), with byte-level
    BPE trained ``mode``-wise for ``merges`` merges; ``baseline`` (default: the first
    language) is the one the others are compared with.

    >>> costs = language_costs({"English": "the sea", "Greek": "η θάλασσα"}, merges=0)
    >>> [(c.language, c.tokens, round(c.times_baseline, 2)) for c in costs]
    [('English', 7, 1.0), ('Greek', 17, 2.43)]
    """
    if mode not in MODES:
        raise ValueError(f"mode={mode!r} must be one of {', '.join(MODES)}")
    if not texts:
        return []
    baseline = next(iter(texts)) if baseline is None else baseline
    if mode == "shared":
        shared = train_byte_tokenizer("\n".join(texts.values()), merges)
        tokenizers = {language: shared for language in texts}
    else:
        tokenizers = {language: train_byte_tokenizer(text, merges) for language, text in texts.items()}
    counts = {language: len(tokenizers[language].encode(text)) for language, text in texts.items()}
    return [
        LanguageCost(
            language,
            len(text),
            len(text.encode("utf-8")),
            counts[language],
            tokenizers[language].vocab_size,
            counts[baseline],
        )
        for language, text in texts.items()
    ]


def encoded_costs(texts: Mapping[str, str], tokenizer, *, baseline: str | None = None) -> list[LanguageCost]:
    """The same rows for a ready tokenizer (e.g. GPT-2's), which must encode any text."""
    if not texts:
        return []
    baseline = next(iter(texts)) if baseline is None else baseline
    counts = {language: len(tokenizer.encode(text)) for language, text in texts.items()}
    return [
        LanguageCost(
            language, len(text), len(text.encode("utf-8")), counts[language], tokenizer.vocab_size, counts[baseline]
        )
        for language, text in texts.items()
    ]


def run_costs(run, merges: int, *, texts: Mapping[str, str], baseline: str | None = None) -> list[LanguageCost]:
    """The rows of a `bpe.variants.parity.MultilingualRun` after its first ``merges`` merges:
    one shared tokenizer, so every language has the same vocab size."""
    tokens = dict(zip(run.languages, run.tokens_after(merges)))
    baseline = run.languages[0] if baseline is None else baseline
    vocab_size = len(run.base_tokens) + len({step.token for step in run.steps[:merges]} - set(run.base_tokens))
    return [
        LanguageCost(language, len(text), len(text.encode("utf-8")), tokens[language], vocab_size, tokens[baseline])
        for language, text in texts.items()
    ]


@dataclass(frozen=True)
class EvennessPoint:
    """How even a run's languages are after ``merges`` merges."""

    merges: int
    worst_times_baseline: float  # the costliest language's tokens over the baseline's
    spread: float  # the costliest language's tokens over the cheapest's
    total_tokens: int
    # the Gini coefficient of the languages' token counts (`bpe.analysis.evaluation.gini`): 0 when
    # the same content costs the same in every language (Foroutan et al.'s headline measure)
    gini: float


def evenness_curve(run, *, baseline_index: int = 0) -> list[EvennessPoint]:
    """One point per merge count, 0 to the run's last merge: what a parity chart draws."""
    points = []
    for merges in range(len(run.steps) + 1):
        tokens = run.tokens_after(merges)
        points.append(
            EvennessPoint(
                merges,
                max(tokens) / max(tokens[baseline_index], 1),
                max(tokens) / max(min(tokens), 1),
                sum(tokens),
                gini(tokens) or 0.0,
            )
        )
    return points


def served_counts(run, merges: int) -> dict[str, int]:
    """How many of the first ``merges`` merges each language's counts chose."""
    served = dict.fromkeys(run.languages, 0)
    for step in run.steps[:merges]:
        served[step.language] += 1
    return served
