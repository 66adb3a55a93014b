"""Bytes and pre-tokenizers: the same corpus trained four ways (characters or bytes, with
or without a pre-tokenizer) for the same number of merges, cached; the tables that
compare them, their merge lists side by side, and what the byte alphabet does to
multi-byte characters."""

from __future__ import annotations

import streamlit as st

from bpe.analysis.compare import (
    CLASS_RULE,
    Comparison,
    incomplete_rows,
    summary_rows,
    with_variant,
)
from bpe.gpt2.files import missing_files_details, missing_files_note
from bpe.scale.corpus_profile import profile_words
from pages._shared.data.comparisons import four_way_comparison, gpt2_column, merge_lists, multibyte_table
from pages._shared.data.runs import opened_run
from pages._shared.data.tokenizers import cached_gpt2, session_owns
from pages._shared.frame.tables import grid_table, show_table
from pages._shared.render.html import escape_markdown
from pages._shared.render.numbers import table_frame
from pages._shared.state.controls import BYTES_MERGES, BYTES_VARIANT, GPT2_SPELLING
from pages._shared.state.settings import Replayed, Settings, bind


def four_ways(settings: Settings, merges: int, train_text: str, heldout_text: str) -> tuple[Comparison, float | None]:
    """The corpus trained four ways (characters/bytes × no split/GPT-2's), plus GPT-2's own
    first ``merges`` merges when its files are here; and GPT-2's full compression (or None)."""
    own = session_owns(settings)
    comp = four_way_comparison(settings.corpus_key(), merges, train_text, heldout_text, own=own)
    if cached_gpt2() is None:
        return comp, None
    column, full = gpt2_column(settings.corpus_key(), merges, train_text, heldout_text, own=own)
    return with_variant(comp, column), full


# The summary in two tables of six columns: eleven side by side do not fit a projector's
# 1024 px in large type without breaking their headers and numbers mid-word.
COMPARED_COLUMNS = [
    "tokenizer",
    "characters per token",
    "bytes per token",
    "vocab",
    "merges crossing classes",
    "first divergent merge",
]
TRAINED_COLUMNS = ["tokenizer", "base vocab", "merges", "chunks", "distinct chunks", "seconds"]
SUMMARY_DECIMALS = {"characters per token": 2, "bytes per token": 2, "seconds": 2}


def measured_text(settings: Settings, comp: Comparison, train_text: str) -> str:
    """What the four tokenizers are trained and measured on, in words: "the held-out text",
    or, for a run file (which keeps no corpus), "the run's held-out sample, 4,000 characters"."""
    if isinstance(settings, Replayed):
        return run_sample_words(train_text)
    return f"the {comp.evaluated_on}"


def train_text_words(settings: Settings, train_text: str) -> str:
    """What the page's training text is, in words: a run file's is its held-out sample."""
    return run_sample_words(train_text) if isinstance(settings, Replayed) else "this corpus's training text"


def run_sample_words(sample: str) -> str:
    return f"the run's held-out sample, {len(sample):,} characters"


def draw_run_corpus(settings: Settings, train_text: str) -> None:
    """For a run file: that this page trains on its sample, and what its whole corpus holds
    (the profile its file records), so the sample is never taken for the corpus."""
    if not isinstance(settings, Replayed):
        return
    profile = opened_run(settings).source.profile
    held = (
        f"The run's corpus (its training part): {profile_words(profile)}."
        if profile is not None
        else "Its file does not record what its corpus holds (written before BPE Lab recorded it: train it again)."
    )
    st.info(
        f"A run file keeps no corpus: the four tokenizers here are trained and measured on "
        f"{run_sample_words(train_text)}. {escape_markdown(held)}",
        icon=":material/info:",
    )


def draw_summary(comp: Comparison, full_gpt2: float | None, measured_on: str) -> None:
    """What a class compares (compression, crossings, where the merges part ways), then how
    each tokenizer was trained (its base alphabet, the chunks its pre-tokenizer made)."""
    rows = summary_rows(comp)
    show_table([{name: row[name] for name in COMPARED_COLUMNS} for row in rows], decimals=SUMMARY_DECIMALS)
    st.caption(f"Compression is measured on {measured_on}. {CLASS_RULE}")
    if full_gpt2 is not None:
        st.caption(
            f"GPT-2's full vocabulary (50,257 tokens, learned on WebText) reaches {full_gpt2:.2f} "
            "characters per token on the same text."
        )
    else:
        st.info(missing_files_note(), icon=":material/info:")
        with st.expander("How to get GPT-2's files"):
            for line in missing_files_details():
                st.markdown(f"- {line}")
    st.markdown("**How each was trained**")
    show_table([{name: row[name] for name in TRAINED_COLUMNS} for row in rows], decimals=SUMMARY_DECIMALS)


def draw_merge_lists(settings: Settings, comp: Comparison, *, gpt2_spelling: bool) -> None:
    st.markdown("▶ marks where each list first differs from the first column; shaded merges cross classes.")
    labels = tuple(variant.label for variant in comp.variants)
    st.html(
        merge_lists(settings.corpus_key(), comp.merges, labels, gpt2_spelling, _comp=comp, own=session_owns(settings))
    )


def draw_multibyte(settings: Settings, comp: Comparison, train_text: str, measured_on: str) -> None:
    """Which learned byte tokens are partial characters, and when each character is held whole."""
    labels = [variant.label for variant in comp.variants]
    byte_labels = [variant.label for variant in comp.variants if variant.alphabet == "bytes"]
    if st.session_state.get(BYTES_VARIANT.key) not in byte_labels:
        st.session_state[BYTES_VARIANT.key] = byte_labels[0]
    bind(st.radio, "Byte-level tokenizer", BYTES_VARIANT.key, options=byte_labels, horizontal=True)
    variant = comp.variants[labels.index(st.session_state[BYTES_VARIANT.key])]
    partial = incomplete_rows(variant.merges)
    st.markdown(
        f"**{len(partial)}** of its {len(variant.merges)} learned tokens are not whole UTF-8 characters "
        "(part of a character, shown as `<0xE2>`)."
    )
    if partial:
        grid_table(table_frame(partial, markdown=False))
    chars = multibyte_table(
        settings.corpus_key(),
        len(variant.merges),
        variant.label,
        _train=train_text,
        _merges=variant.merges,
        own=session_owns(settings),
    )
    if not chars:
        corpus = ""
        if isinstance(settings, Replayed) and opened_run(settings).source.profile is not None:
            profile = opened_run(settings).source.profile
            corpus = f" The run's corpus: {escape_markdown(profile_words(profile))}."
        st.info(
            f"{measured_on[0].upper()}{measured_on[1:]} has no character beyond ASCII: every character is one byte."
            + corpus
        )
        return
    grid_table(table_frame(chars, markdown=False))
    st.caption(
        "Held whole: the first merge whose token holds all the character's bytes (perhaps with more). "
        "Own token: the first merge that makes exactly that character. —: not within these merges."
    )


def draw_controls() -> tuple[int, bool]:
    """Merges per tokenizer and the byte spelling; returns both."""
    state = st.session_state
    BYTES_MERGES.setdefault()
    GPT2_SPELLING.setdefault()
    c1, c2 = st.columns([3, 2], vertical_alignment="bottom")
    with c1:
        BYTES_MERGES.draw(st.select_slider, "Merges per tokenizer")
    with c2:
        GPT2_SPELLING.draw(st.toggle, "Spell bytes as GPT-2's files do (Ġ is a space)")
    return state[BYTES_MERGES.key], state[GPT2_SPELLING.key]
