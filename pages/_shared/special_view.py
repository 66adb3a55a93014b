"""Tokenize: GPT-2's ``<|endoftext|>`` as plain text and as its special token, side by side.

Drawn only when GPT-2's files are here (`analysis.cached_gpt2`); the comparison itself is
`bpe.analysis.special_tokens`.
"""

from __future__ import annotations

import streamlit as st

from bpe.analysis.special_tokens import ENDOFTEXT, SAMPLE, special_token_comparison
from bpe.errors import BpeError

from .analysis import cached_gpt2
from .html import escape_markdown, linked_tokens_html
from .settings import bind

TEXT = "tokenize_special_text"  # plain key: the text of the special-token comparison


def draw_special_tokens() -> None:
    gpt2 = cached_gpt2()
    if gpt2 is None:
        return
    st.subheader(f"Special tokens: GPT-2's `{ENDOFTEXT}`")
    st.session_state.setdefault(TEXT, SAMPLE)
    bind(st.text_input, f"A text with `{ENDOFTEXT}`", TEXT)
    try:
        found = special_token_comparison(gpt2, st.session_state[TEXT])
    except BpeError as error:
        st.error(escape_markdown(str(error)), icon="⚠️")
        return
    left, right = st.columns(2)
    left.markdown(f"**As plain text** (`allowed_special` empty) · {len(found.as_text):,} tokens")
    left.html(linked_tokens_html(list(found.as_text), scope="special-as-text"))
    right.markdown(f"**As the special token** (`allowed_special={{'{ENDOFTEXT}'}}`) · {len(found.as_special):,} tokens")
    right.html(linked_tokens_html(list(found.as_special), scope="special-as-special"))
    st.markdown(escape_markdown(found.explanation))
