"""Bytes and pre-tokenizers' last block: GPT-2, checked id for id against tiktoken, when
its files are here. On request, a text (WikiText-2's test split, or this corpus's
training text) is encoded by the pure-Python GPT-2 and by tiktoken; the page says
whether the ids agree and how fast each encoder went.
"""

from __future__ import annotations

import streamlit as st

from bpe.errors import BpeError
from bpe.gpt2.files import find_gpt2_files
from bpe.gpt2.tiktoken_check import check_against_tiktoken
from bpe.paths import shared_data_dir
from pages._shared.data.tokenizers import cached_gpt2
from pages._shared.render.html import escape_markdown
from pages._shared.state.settings import bind

WIKITEXT_TEST = "WikiText-2 test.txt"


PARITY_SOURCE = "bytes_parity_source"  # plain key: which text GPT-2 and tiktoken encode


def draw_gpt2_parity(train_text: str, train_words: str) -> None:
    """On request, encode a text with our pure-Python GPT-2 and with tiktoken; say whether the
    ids agree. ``train_words`` names ``train_text`` ("this corpus's training text")."""
    wikitext = shared_data_dir() / "wikitext-2" / "test.txt"
    sources = ([WIKITEXT_TEST] if wikitext.is_file() else []) + [train_words]
    if st.session_state.get(PARITY_SOURCE) not in sources:  # first visit, or another corpus (a run's sample)
        st.session_state[PARITY_SOURCE] = sources[0]
    bind(st.radio, "Text", PARITY_SOURCE, options=sources, horizontal=True)
    if not st.button("Encode it with our pure-Python GPT-2 and with tiktoken", key="bytes_parity_run"):
        return
    text = wikitext.read_text(encoding="utf-8") if st.session_state[PARITY_SOURCE] == WIKITEXT_TEST else train_text
    try:
        parity = check_against_tiktoken(cached_gpt2(), text, *find_gpt2_files())
    except BpeError as error:
        st.warning(f"Not compared: {escape_markdown(str(error))}")
        return
    if parity.equal:
        st.success(
            f"Identical ids: {parity.tokens:,} tokens. Ours (pure Python): {parity.mb_per_s:.2f} MB/s; "
            f"tiktoken (Rust): {parity.tiktoken_mb_per_s:.2f} MB/s."
        )
    else:
        st.error(
            f"The ids differ from position {parity.first_difference:,} ({parity.tokens:,} vs "
            f"{parity.tiktoken_tokens:,} tokens)."
        )


def draw_gpt2_section(train_text: str, train_words: str = "this corpus's training text") -> None:
    """GPT-2 checked id for id against tiktoken, when its files are here."""
    if cached_gpt2() is not None:
        st.subheader("GPT-2, id for id like tiktoken")
        draw_gpt2_parity(train_text, train_words)
