"""Context window: how much text a block of T tokens holds, per tokenizer, and what attention costs."""

import streamlit as st

from bpe.analysis.metrics import context_coverage, relative_attention_cost, token_lengths
from bpe.errors import BpeError
from pages._shared import bind, setup_page
from pages._shared.analysis import base_level, bpe_at, extra_tokenizers, measured_lengths, measured_text
from pages._shared.context_view import chosen_sizes, size_choices
from pages._shared.figures import coverage_figure
from pages._shared.html import context_window_html, escape_markdown
from pages._shared.numbers import show_table
from pages._shared.presenter import presented

MAX_PASSAGE = 12_000  # characters drawn per tokenizer in the highlighted passage

settings, run = setup_page(
    "Context window",
    "A model reads a fixed number of tokens at once: its block size *T*. The longer the tokens, "
    "the more text fits in that window. Here the same *T* is measured for several tokenizers.",
)
if run is None:
    st.stop()
ss = st.session_state
choices = size_choices(settings, run)  # sizes the run reaches: a chip reads like its row
chosen_sizes(settings, run, choices)
ss.setdefault("context_block", 128)
ss.setdefault("context_passage", 1_000)

left, right = st.columns(2)
with left:
    bind(st.select_slider, "Block size T (tokens)", "context_block", options=[2**k for k in range(5, 12)])
with right:
    bind(
        st.multiselect,
        "BPE vocab sizes to compare (up to three)",
        "context_sizes",
        options=choices,
        max_selections=3,
        format_func=lambda s: f"{s:,}",
    )
block = ss.context_block
what, text = measured_text(settings)
compared, lengths = [], {}
candidates = [base_level(settings, run)] + [bpe_at(settings, run, s) for s in sorted(ss.context_sizes)]
for c in candidates + extra_tokenizers():
    try:
        lengths[c.label] = measured_lengths(settings, c)
        compared.append(c)
    except BpeError as error:  # an uploaded tokenizer whose alphabet lacks characters of this text
        st.warning(f"{escape_markdown(c.label)} is left out: {escape_markdown(str(error))}", icon="⚠️")
coverages = {c.label: context_coverage(lengths[c.label], block) for c in compared}

st.plotly_chart(
    presented(coverage_figure([(c.label, c.vocab_size, coverages[c.label]) for c in compared], block, what)),
    key="context_chart",
)
show_table(
    [
        {
            "tokenizer": c.label,
            "vocab size": c.vocab_size,
            "mean characters": coverages[c.label].mean,
            f"× {compared[0].label}": coverages[c.label].mean / coverages[compared[0].label].mean,
            "10th percentile": coverages[c.label].p10,
            "90th percentile": coverages[c.label].p90,
            "windows": coverages[c.label].windows,
        }
        for c in compared
    ],
    decimals={"mean characters": 1, "10th percentile": 1, "90th percentile": 1},
)
st.caption(
    f"Measured on {len(text):,} characters of {what}, cut into non-overlapping windows of {block:,} "
    "tokens (a text shorter than one window counts as one window)."
)

st.subheader(f"The first {block:,} tokens of the same passage")
passage = text[: min(MAX_PASSAGE, max(6 * block, 600))]
for c in compared:
    cut = c.tokenizer.encode_tokens(passage)
    passage_lengths = token_lengths(cut)
    st.markdown(
        f"**{escape_markdown(c.label)}**: {sum(passage_lengths[:block]):,} characters in "
        f"{min(block, len(cut)):,} tokens"
    )
    st.html(context_window_html(passage, passage_lengths, block))

st.subheader("What attention costs")
bind(st.number_input, "Passage length (characters)", "context_passage", min_value=10, max_value=100_000, step=500)
fixed = text[: ss.context_passage]
needed = {c.label: len(c.tokenizer.encode(fixed)) for c in compared}
base_tokens = needed[compared[0].label]
show_table(
    [
        {
            "tokenizer": c.label,
            "tokens for the passage": needed[c.label],
            "attention cost vs " + compared[0].label: f"{relative_attention_cost(needed[c.label], base_tokens):.1%}",
        }
        for c in compared
    ]
)
best = min(compared, key=lambda c: needed[c.label])
st.info(
    escape_markdown(
        "Attention compares every token with every other, so its cost grows with the square of the tokens. "
        f"These {len(fixed):,} characters take {base_tokens:,} tokens as {compared[0].label} and "
        f"{needed[best.label]:,} with {best.label}: attention over them costs "
        f"{relative_attention_cost(needed[best.label], base_tokens):.1%} as much "
        f"({needed[best.label]:,}² vs {base_tokens:,}²)."
    )
)
