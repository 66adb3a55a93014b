"""Tokenize: any text cut into tokens, side by side per tokenizer, and where each token came from."""

import pandas as pd
import streamlit as st

from bpe.analysis.encodable import applied_merges_in_known
from bpe.analysis.lineage import lineage_lines, lineage_of
from bpe.analysis.metrics import compression
from bpe.text import printable
from pages._shared import bind, setup_page
from pages._shared.analysis import base_level, bpe_at, extra_tokenizers
from pages._shared.encode_film_view import draw_encode_film
from pages._shared.html import escape_markdown, linked_tokens_html
from pages._shared.numbers import count_columns
from pages._shared.pretrained_view import tokenizer_columns
from pages._shared.span_diff_view import draw_span_diff
from pages._shared.special_view import draw_special_tokens
from pages._shared.tokenize_view import encode_marked, text_box, unknown_note

settings, run = setup_page(
    "Tokenize",
    "Type any text and see how each tokenizer cuts it. Hover a token to see its id (and the id "
    "lights up in the list below it); hover an id to find its token. Spaces show as ·, newlines as ↵.",
)
if run is None:
    st.stop()
ss = st.session_state
text = text_box(settings)  # starts as a sentence of this corpus; presets come from it too
trained = bpe_at(settings, run, settings.vocab_size)
compared = [base_level(settings, run), trained] + extra_tokenizers()
encoded = {}
for column, c in zip(tokenizer_columns(2, len(compared) - 2), compared):  # GPT-2 and GPT-4 in a row of their own
    with column:
        st.markdown(f"**{escape_markdown(c.label)}** (vocab {c.vocab_size:,})")
        marked = encoded[c.label] = encode_marked(c.tokenizer, text)  # unknown characters shown, not refused
        a, b = st.columns(2)
        a.metric("Tokens", f"{len(marked.ids):,}")
        b.metric("Characters/token", f"{compression(marked.encoded_characters, len(marked.ids)):.2f}")
        st.html(linked_tokens_html(marked.segments, scope=f"tokenize-{c.label}"))
        if marked.unknown:
            st.caption(escape_markdown(unknown_note(marked)))

draw_special_tokens()  # only when GPT-2's files are here
draw_span_diff(settings, run, text)
draw_encode_film(settings, run, compared[1:], text)
st.subheader("Merge lineage")
ids = encoded[trained.label].ids
tokenizer = trained.tokenizer
learned = sorted({tokenizer.itos[i] for i in ids if i >= len(tokenizer.base_tokens)}, key=lambda t: (-len(t), t))
if not learned:
    st.info("Every token of this text is a base token: no merge applies to it at this vocab size.")
    st.stop()
if ss.get("tokenize_lineage") not in learned:
    ss.tokenize_lineage = learned[0]
left, right = st.columns([2, 3])
with left:
    bind(st.selectbox, "Token to trace", "tokenize_lineage", options=learned, format_func=lambda t: repr(printable(t)))
    st.caption(
        "Each node: the training step that first created the token, and how often its pair "
        "occurred at that step. Base tokens are the leaves."
    )
    st.code("\n".join(lineage_lines(lineage_of(run, ss.tokenize_lineage, len(tokenizer.merges)))), language=None)
with right:
    fired = applied_merges_in_known(tokenizer, text)
    st.markdown(
        f"**Merges applied while encoding this text**: {len(fired):,} of the {len(tokenizer.merges):,} "
        "learned, in the order training learned them"
    )
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "step": m.step,
                    "pair": f"{printable(m.pair[0])} + {printable(m.pair[1])}",
                    "token": printable(m.token),
                    "times here": m.times,
                    "pair count in training": run.steps[m.step - 1].frequency,
                }
                for m in fired
            ]
        ),
        hide_index=True,
        key="tokenize_applied",
        column_config=count_columns("step", "times here", "pair count in training"),
    )
