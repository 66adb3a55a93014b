"""Cached measurements, keyed by what they depend on: token lengths, the Context window's
passages, compression curves (and this session's earlier curves, for overlays), the vocab
sizes' rows, token usage, the training ids, the text hash of lessons, pretrained
tokenizers' prefix curves, the report card's rows, the encode film, the languages' costs.
Computation stays in `bpe.analysis`; this only caches and remembers.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa
import streamlit as st

from bpe.analysis.encode_film import EncodeFilm, encode_film
from bpe.analysis.languages import LanguageCost, encoded_costs, language_costs
from bpe.analysis.lesson import text_hash
from bpe.analysis.metrics import (
    Coverage,
    CurvePoint,
    SizeSummary,
    compression_curve,
    context_coverage,
    size_summary,
    token_lengths,
    token_usage,
)
from bpe.analysis.pretrained import PrefixPoint, full_compression, prefix_curve
from bpe.analysis.report_card import CardRow, report_card
from bpe.analysis.tie_rules import tie_rule_label
from bpe.analysis.vocabulary import LearnedToken, learned_tokens
from bpe.corpora.builtin import LIGHTHOUSE
from bpe.pretokenize import pretokenizer_name
from bpe.run import TrainingRun
from bpe.steps import DEFAULT_TIE_RULE
from bpe.text import printable
from bpe.variants.parity import RULES, MultilingualRun, train_multilingual
from pages._shared.data.cache_scopes import cache_data_by_owner, cache_resource_by_owner
from pages._shared.data.runs import corpus_texts
from pages._shared.data.tokenizers import Compared, session_owns
from pages._shared.render.html import context_window_html
from pages._shared.state.settings import DEFAULTS, PREFIX_CAP, Settings, Trained
from pages._shared.state.stores import MAX_SEEN_CURVES, SEEN_CURVES, is_own_text, recent, remember

MEASURE_CHARS = 200_000  # coverage is measured on at most this much held-out text: enough, and quick
MAX_PASSAGE = 12_000  # characters drawn per tokenizer in the Context window's highlighted passage


# ==================== Cached measurements


def measured_text(settings: Settings) -> tuple[str, str]:
    """(what, text): held-out text (its first `MEASURE_CHARS`), or the training text when
    nothing is held out, so the pages can say which they measured."""
    train, heldout = corpus_texts(settings)
    if not isinstance(settings, Trained):  # a replayed run's text is the sample its file keeps
        return "the run's sample", train[:MEASURE_CHARS]
    if heldout:
        return "held-out text", heldout[:MEASURE_CHARS]
    return "training text (nothing is held out)", train[:MEASURE_CHARS]


def measured_coverage(settings: Settings, compared: Compared, block: int) -> Coverage:
    """`context_coverage` of ``block`` tokens over the `measured_text`, encoded by ``compared``.
    Cached; raises `BpeError` when ``compared`` cannot encode the text."""
    _what, text = measured_text(settings)
    own = session_owns(settings, compared)
    lengths = _lengths(compared.key, settings.corpus_key(), _tokenizer=compared.tokenizer, _text=text, own=own)
    return _coverage(compared.key, settings.corpus_key(), block, _lengths=lengths, own=own)


# Resources, shared and never changed: a data cache unpickled a copy of each tokenizer's
# lengths (one int per token of 200,000 characters) on every Context window visit. The page
# measures up to 7 tokenizers in one run (characters, three vocab sizes, GPT-2, GPT-4 and an
# uploaded one), so a session keeps 7 of these and of `_coverage` and `_token_count`.
@cache_resource_by_owner(show_spinner=False, max_entries=32, session_entries=7)
def _lengths(tokenizer_key: tuple, corpus_key: tuple, _tokenizer, _text: str) -> list[int]:
    return token_lengths(_tokenizer.encode_tokens(_text))


@cache_resource_by_owner(show_spinner=False, max_entries=64, session_entries=7)
def _coverage(tokenizer_key: tuple, corpus_key: tuple, block: int, _lengths: list[int]) -> Coverage:
    return context_coverage(_lengths, block)


def passage_tokens(settings: Settings, compared: Compared, chars: int) -> int:
    """How many tokens ``compared`` makes of the first ``chars`` characters of the `measured_text`. Cached."""
    _what, text = measured_text(settings)
    own = session_owns(settings, compared)
    return _token_count(
        compared.key, settings.corpus_key(), chars, _tokenizer=compared.tokenizer, _text=text[:chars], own=own
    )


@dataclass(frozen=True)
class Passage:
    """The Context window's passage as one tokenizer cuts it: the characters and tokens of
    its first window, and the passage drawn with that window highlighted."""

    window_characters: int
    window_tokens: int
    html: str


def passage_window(settings: Settings, compared: Compared, block: int) -> Passage:
    """The start of the `measured_text` (`MAX_PASSAGE` characters at most) cut by ``compared``,
    its first ``block`` tokens highlighted. Cached: a class opening the page with one setting
    encodes and draws each passage once, not once a student."""
    _what, text = measured_text(settings)
    own = session_owns(settings, compared)
    passage = text[: min(MAX_PASSAGE, max(6 * block, 600))]
    return _passage(
        compared.key, settings.corpus_key(), block, _tokenizer=compared.tokenizer, _passage=passage, own=own
    )


# A few hundred kB of HTML each (a span per token): fewer kept than of the numbers above.
@cache_resource_by_owner(show_spinner=False, max_entries=24, session_entries=7)
def _passage(tokenizer_key: tuple, corpus_key: tuple, block: int, _tokenizer, _passage: str) -> Passage:
    lengths = token_lengths(_tokenizer.encode_tokens(_passage))
    return Passage(sum(lengths[:block]), min(block, len(lengths)), context_window_html(_passage, lengths, block))


@cache_data_by_owner(show_spinner=False, max_entries=64, session_entries=7)
def _token_count(tokenizer_key: tuple, corpus_key: tuple, chars: int, _tokenizer, _text: str) -> int:
    return len(_tokenizer.encode(_text))


def run_curve(settings: Settings, run: TrainingRun) -> list[CurvePoint]:
    """The run's compression curve (cached), remembered for overlays on later runs."""
    curve = _curve(settings.training_key(), _run=run, own=is_own_text(settings))
    remember(SEEN_CURVES, run_label(settings), curve, MAX_SEEN_CURVES)
    return curve


# A resource, shared and never changed: every page visit asks for the curve (`setup_page`),
# and a data cache would unpickle a copy of every point each time.
@cache_resource_by_owner(show_spinner=False, max_entries=16)
def _curve(training_key: tuple, _run: TrainingRun) -> list[CurvePoint]:
    return compression_curve(_run)


def seen_curves(settings: Settings) -> dict[str, list[CurvePoint]]:
    """Curves of the other runs seen in this session, most recent first."""
    return {label: curve for label, curve in recent(SEEN_CURVES).items() if label != run_label(settings)}


def run_label(settings: Settings) -> str:
    """A short name for a run that tells it apart from the others in a legend."""
    pre = (
        f", pre-tokenizer {pretokenizer_name(settings.training.pretokenizer)}" if settings.training.pretokenizer else ""
    )
    ties = (
        f", ties {tie_rule_label(settings.training.tie_rule)}" if settings.training.tie_rule != DEFAULT_TIE_RULE else ""
    )
    cut = ""
    if isinstance(settings, Trained) and settings.prefix_cap != DEFAULTS[PREFIX_CAP]:
        cut = f", first {settings.prefix_cap:,} characters"
    return (
        f"{settings.corpus} ({settings.training.alphabet}, min freq {settings.training.minimum_pair_frequency}{pre}{ties}{cut}, "
        f"to {settings.training.target_vocab_size:,})"
    )


def run_usage(settings: Settings, run: TrainingRun, merges: int):
    """Token counts in the final encoding of the training text at ``merges`` merges. Cached.
    A replayed run has no training text: its recorded base-token counts stand in for it."""
    train = None if not isinstance(settings, Trained) else corpus_texts(settings)[0]
    return _usage(settings.training_key(), merges, _run=run, _train=train, own=is_own_text(settings))


@cache_data_by_owner(show_spinner=False, max_entries=16)
def _usage(training_key: tuple, merges: int, _run: TrainingRun, _train: str | None):
    return token_usage(_run, _train, merges)


def learned_rows(settings: Settings, run: TrainingRun, merges: int) -> list[LearnedToken]:
    """`bpe.analysis.vocabulary.learned_tokens` of the first ``merges`` merges, with their
    uses (`run_usage`). Cached and shared: each row is frozen, and building them reads
    every step of the run, once per setting rather than once per visit."""
    return _learned(settings.training_key(), merges, _settings=settings, _run=run, own=is_own_text(settings))


@cache_resource_by_owner(show_spinner=False, max_entries=16)
def _learned(training_key: tuple, merges: int, _settings: Settings, _run: TrainingRun) -> list[LearnedToken]:
    return learned_tokens(_run, merges, run_usage(_settings, _run, merges))


def token_table(settings: Settings, merges: int, rows: list[LearnedToken]) -> pa.Table:
    """`learned_rows` ``rows`` of the first ``merges`` merges as the Vocabulary page's table
    (token text spelled for reading). An Arrow table, which cannot be changed, so every
    visitor of a setting shares one and Streamlit sends it as it is: a pandas frame built
    and converted per visit was a sixth of the page's server time."""
    return _token_table(settings.training_key(), merges, _rows=rows, own=is_own_text(settings))


@cache_resource_by_owner(show_spinner=False, max_entries=16)
def _token_table(training_key: tuple, merges: int, _rows: list[LearnedToken]) -> pa.Table:
    return pa.table(  # typed columns: an empty vocabulary still has them
        {
            "id": pa.array([r.id for r in _rows], pa.int64()),
            "token": pa.array([printable(r.token) for r in _rows], pa.string()),
            "length": pa.array([r.length for r in _rows], pa.int64()),
            "step": pa.array([r.step for r in _rows], pa.int64()),
            "pair count at creation": pa.array([r.frequency for r in _rows], pa.int64()),
            "uses": pa.array([r.uses for r in _rows], pa.int64()),
            "absorbed": pa.array([r.absorbed for r in _rows], pa.float64()),
        }
    )


def size_summaries(settings: Settings, run: TrainingRun, sizes: tuple, d: int) -> list[SizeSummary]:
    """`size_summary` of each of ``sizes`` (embedding width ``d``). Cached: each builds the
    run's tokenizer at that size to find its longest tokens."""
    return _size_summaries(settings.training_key(), sizes, d, _run=run, own=is_own_text(settings))


@cache_data_by_owner(show_spinner=False, max_entries=32)
def _size_summaries(training_key: tuple, sizes: tuple, d: int, _run: TrainingRun) -> list[SizeSummary]:
    return [size_summary(_run, size, d) for size in sizes]


def corpus_hash(settings: Settings) -> str:
    """`text_hash` of the text trained on: the corpus cut to the prefix (training and
    held-out part together). Raises `BpeError` when the corpus cannot be read."""
    train, heldout = corpus_texts(settings)
    return _hash(settings.corpus_key(), _text=train + heldout, own=is_own_text(settings))


@cache_data_by_owner(show_spinner=False, max_entries=16)
def _hash(key: tuple, _text: str) -> str:
    return text_hash(_text)


# ==================== Pretrained tokenizers cut to a run's vocab sizes


# Compression asks two of each pretrained or uploaded tokenizer in one run (its curve, and
# the row at the vocab shown): up to 6 a session.
@cache_data_by_owner(show_spinner=False, max_entries=64, session_entries=6)
def pretrained_prefix_curve(
    tokenizer_key: tuple, corpus_key: tuple, sizes: tuple, _tokenizer, _text: str
) -> list[PrefixPoint]:
    return prefix_curve(_tokenizer, _text, sizes)


@cache_data_by_owner(show_spinner=False, max_entries=16)
def pretrained_compression(tokenizer_key: tuple, corpus_key: tuple, _tokenizer, _text: str) -> float:
    return full_compression(_tokenizer, _text)


# ==================== The same paragraph in several languages


@cache_resource_by_owner(show_spinner=False, max_entries=8)  # a film of GPT-4 over 2,000 characters: a few MB
def film_of(tokenizer_key: tuple, text: str, _tokenizer, _steps) -> EncodeFilm:
    """`bpe.analysis.encode_film.encode_film`; ``_steps`` (a run's steps) give each merge's count."""
    return encode_film(_tokenizer, text, steps=_steps)


@cache_data_by_owner(show_spinner="Measuring the report card…", max_entries=32)
def card_rows_of(tokenizer_key: tuple, corpus_key: tuple, label: str, _tokenizer, _texts) -> list[CardRow]:
    """One tokenizer (``label``) on every report-card text of the corpus."""
    return report_card({label: _tokenizer}, _texts)


def lighthouse_texts() -> dict[str, str]:
    """{language name: the lighthouse paragraph}, English first (the original)."""
    return {name: text for name, text in LIGHTHOUSE.values()}


@st.cache_data(show_spinner="Training byte-level BPE on the paragraphs…", max_entries=16)
def trained_costs(merges: int, mode: str, baseline: str) -> list[LanguageCost]:
    return language_costs(lighthouse_texts(), merges=merges, mode=mode, baseline=baseline)


@st.cache_data(show_spinner=False, max_entries=1)
def gpt2_costs(baseline: str, _gpt2) -> list[LanguageCost]:
    """GPT-2's costs of the paragraphs: the same for every visit of the page (one GPT-2 per
    process: `data.tokenizers.cached_gpt2`), so encoded once, not at each visit."""
    return encoded_costs(lighthouse_texts(), _gpt2, baseline=baseline)


@st.cache_data(show_spinner="Training standard and parity-aware BPE on the paragraphs…", max_entries=4)
def multilingual_runs(merges: int) -> dict[str, MultilingualRun]:
    """Standard and parity-aware byte-level BPE on the paragraphs, ``merges`` merges each:
    any smaller merge count is a prefix, so the page trains once for its largest choice."""
    return {rule: train_multilingual(lighthouse_texts(), merges=merges, rule=rule) for rule in RULES}
