"""Tokenize: any text cut into tokens, side by side per tokenizer, and where each token came from."""
import pandas as pd
import streamlit as st

from pages._shared.html import escape_markdown, linked_tokens_html

from bpe.text import printable
from bpe.errors import BpeError
from bpe.analysis.lineage import applied_merges, lineage_lines, lineage_of
from bpe.analysis.metrics import compression
from bpe.analysis.segments import Segment
from pages._shared import bind, setup_page
from pages._shared.analysis import base_level, bpe_at, extra_tokenizers

PRESETS = {
    "Example sentence": "Artificial intelligence is transforming technology.",
    "Rare words": "electromagnetism neurocomputational uncharacteristically",
}

settings, run = setup_page(
    "Tokenize",
    "Type any text and see how each tokenizer cuts it. Hover a token to see its id (and the id "
    "lights up in the list below it); hover an id to find its token. Spaces show as ·, newlines as ↵.",
)
if run is None: st.stop()
ss = st.session_state
ss.setdefault("tokenize_text", PRESETS["Example sentence"])


def use_preset(name: str) -> None:
    ss.tokenize_text = PRESETS[name]


bind(st.text_area, "Text to tokenize", "tokenize_text", height=100)
for column, name in zip(st.columns(len(PRESETS) + 2), PRESETS):  # spare columns keep the buttons narrow
    column.button(name, key=f"tokenize_preset_{name}", on_click=use_preset, args=(name,))
text = ss.tokenize_text
trained = bpe_at(settings, run, settings.vocab_size)
compared = [base_level(settings, run), trained] + extra_tokenizers()
encoded = {}
for column, c in zip(st.columns(len(compared)), compared):
    with column:
        st.markdown(f"**{escape_markdown(c.label)}** (vocab {c.vocab_size:,})")
        try:
            ids = c.tokenizer.encode(text)
        except BpeError as error:
            st.error(escape_markdown(str(error)), icon="⚠️")
            continue
        encoded[c.label] = ids
        a, b = st.columns(2)
        a.metric("Tokens", f"{len(ids):,}")
        b.metric("Characters/token", f"{compression(len(text), len(ids)):.2f}")
        segments = [Segment(c.tokenizer.itos[i], i) for i in ids]
        st.html(linked_tokens_html(segments, scope=f"tokenize-{c.label}"))

st.subheader("Merge lineage")
ids = encoded.get(trained.label)
if ids is None:
    st.info("Fix the text above (characters outside the alphabet) to trace its tokens.")
    st.stop()
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
    st.caption("Each node: the training step that first created the token, and how often its pair "
               "occurred at that step. Base tokens are the leaves.")
    st.code("\n".join(lineage_lines(lineage_of(run, ss.tokenize_lineage, len(tokenizer.merges)))), language=None)
with right:
    fired = applied_merges(tokenizer, text)
    st.markdown(f"**Merges applied while encoding this text**: {len(fired):,} of the {len(tokenizer.merges):,} "
                "learned, in the order training learned them")
    st.dataframe(pd.DataFrame([{
        "step": m.step, "pair": f"{printable(m.pair[0])} + {printable(m.pair[1])}", "token": printable(m.token),
        "times here": m.times, "pair count in training": run.steps[m.step - 1].frequency,
    } for m in fired]), hide_index=True, key="tokenize_applied")
