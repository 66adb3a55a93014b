"""Bytes and pre-tokenizers: the same corpus trained four ways side by side, and GPT-2."""
import pandas as pd
import streamlit as st

from bpe.analysis.compare import (CLASS_RULE, compare_tokenizers, gpt2_variant, incomplete_rows, merge_rows, multibyte_rows,
                         summary_rows, with_variant)
from pages._shared.html import escape_markdown
from bpe.errors import BpeError
from bpe.gpt2.files import find_gpt2_files, missing_files_message
from bpe.paths import shared_data_dir
from bpe.gpt2.tiktoken_check import check_against_tiktoken
from pages._shared import bind, corpus_texts, setup_page
from pages._shared.analysis import cached_gpt2

MERGE_CHOICES = [50, 100, 200, 300, 500, 1000]
CROSSING_STYLE = "background-color: #fde2e1"

settings, run = setup_page(
    "Bytes and pre-tokenizers",
    "The tutorial merges Unicode characters over the whole text. GPT-2 and its successors merge "
    "**bytes**, and first split the text with a regex so that merges never cross a word. Here the "
    "same corpus is trained both ways, for the same number of merges.",
)
if run is None: st.stop()
train_text, heldout_text = corpus_texts(settings)
ss = st.session_state
ss.setdefault("bytes_merges", 300)
ss.setdefault("bytes_gpt2_spelling", False)
c1, c2 = st.columns([3, 2], vertical_alignment="bottom")
with c1:
    bind(st.select_slider, "Merges per tokenizer", "bytes_merges", options=MERGE_CHOICES)
with c2:
    bind(st.toggle, "Spell bytes as GPT-2's files do (Ġ is a space)", "bytes_gpt2_spelling")


@st.cache_data(show_spinner="Training the same text four ways…", max_entries=8)
def comparison(key: tuple, merges: int, _train: str, _heldout: str):
    return compare_tokenizers(_train, merges=merges, heldout_text=_heldout)


@st.cache_data(show_spinner="Measuring GPT-2 on the same text…", max_entries=8)
def gpt2_column(key: tuple, merges: int, _train: str, _heldout: str):
    evaluated, gpt2 = _heldout or _train, cached_gpt2()
    full = len(evaluated) / max(len(gpt2.encode(evaluated)), 1)
    return gpt2_variant(gpt2, _train, merges=merges, heldout_text=_heldout), full


comp = comparison(settings.corpus_key(), ss.bytes_merges, train_text, heldout_text)
full_gpt2 = None
if cached_gpt2() is not None:
    column, full_gpt2 = gpt2_column(settings.corpus_key(), ss.bytes_merges, train_text, heldout_text)
    comp = with_variant(comp, column)

st.subheader("Four tokenizers, one text")
st.dataframe(pd.DataFrame(summary_rows(comp)), hide_index=True)
st.caption(f"Compression is measured on the {comp.evaluated_on}. {CLASS_RULE}")
if full_gpt2 is not None:
    st.caption(f"GPT-2's full vocabulary (50,257 tokens, learned on WebText) reaches {full_gpt2:.2f} "
               "characters per token on the same text.")
else:
    st.info(missing_files_message())

st.subheader("Merge lists side by side")
st.markdown("▶ marks where each list first differs from the first column; shaded merges cross classes.")
labels = [variant.label for variant in comp.variants]
rows = merge_rows(comp, gpt2_spelling=ss.bytes_gpt2_spelling, mark_first_divergence=True)
table = pd.DataFrame(rows).set_index("merge")
styled = table[labels].style.apply(lambda col: [CROSSING_STYLE if flag else "" for flag in table[f"{col.name} crosses"]])
st.dataframe(styled, height=420)

st.subheader("Multi-byte characters under the byte alphabet")
byte_labels = [variant.label for variant in comp.variants if variant.alphabet == "bytes"]
if ss.get("bytes_variant") not in byte_labels:
    ss.bytes_variant = byte_labels[0]
bind(st.radio, "Byte-level tokenizer", "bytes_variant", options=byte_labels, horizontal=True)
variant = comp.variants[labels.index(ss.bytes_variant)]
partial = incomplete_rows(variant.merges)
st.markdown(f"**{len(partial)}** of its {len(variant.merges)} learned tokens are not whole UTF-8 characters "
            "(part of a character, shown as `<0xE2>`).")
if partial:
    st.dataframe(pd.DataFrame(partial), hide_index=True)
chars = multibyte_rows(train_text, variant.merges)
if not chars:
    st.info("This training text has no character beyond ASCII: every character is one byte.")
else:
    st.dataframe(pd.DataFrame(chars), hide_index=True)
    st.caption("Held whole: the first merge whose token holds all the character's bytes (perhaps with more). "
               "Own token: the first merge that makes exactly that character. Empty: not within these merges.")

if cached_gpt2() is None: st.stop()
st.subheader("GPT-2, id for id like tiktoken")
wikitext = shared_data_dir() / "wikitext-2" / "test.txt"
sources = (["WikiText-2 test.txt"] if wikitext.is_file() else []) + ["this corpus's training text"]
ss.setdefault("bytes_parity_source", sources[0])
bind(st.radio, "Text", "bytes_parity_source", options=sources, horizontal=True)
if st.button("Encode it with our pure-Python GPT-2 and with tiktoken", key="bytes_parity_run"):
    text = wikitext.read_text(encoding="utf-8") if ss.bytes_parity_source == "WikiText-2 test.txt" else train_text
    try:
        parity = check_against_tiktoken(cached_gpt2(), text, *find_gpt2_files())
    except BpeError as error:
        st.warning(f"Not compared: {escape_markdown(str(error))}")
        st.stop()
    if parity.equal:
        st.success(f"Identical ids: {parity.tokens:,} tokens. Ours (pure Python): {parity.mb_per_s:.2f} MB/s; "
                   f"tiktoken (Rust): {parity.tiktoken_mb_per_s:.2f} MB/s.")
    else:
        st.error(f"The ids differ from position {parity.first_difference:,} ({parity.tokens:,} vs "
                 f"{parity.tiktoken_tokens:,} tokens).")
