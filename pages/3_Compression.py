"""Compression: how many characters a token carries as the vocabulary grows, and what that costs."""
import pandas as pd
import streamlit as st

from bpe.text import printable
from pages._shared.figures import compression_curve_figure
from bpe.analysis.metrics import embedding_parameters, parting_point, size_summary
from pages._shared import bind, setup_page
from pages._shared.analysis import run_curve, seen_curves

TABLE_SIZES = [300, 500, 1_000, 2_000]

settings, run = setup_page(
    "Compression",
    "Each merge makes the text shorter. The curve shows characters per token on the training text "
    "and on held-out text the tokenizer never saw, for every vocab size of **one** training run "
    "(a smaller vocab is a prefix of the same merges, so nothing is retrained).",
)
if run is None: st.stop()
ss = st.session_state
ss.setdefault("compression_d", 128)
ss.setdefault("compression_gap", 5)
ss.setdefault("compression_sizes", TABLE_SIZES)
ss.setdefault("compression_overlays", [])

curve = run_curve(settings, run)
others = seen_curves(settings)
ss.compression_overlays = [label for label in ss.compression_overlays if label in others]
merges = run.merge_count(settings.vocab_size)
shown = next(p for p in reversed(curve) if p.merges <= merges)

chart, cost = st.columns([3, 2])
with chart:
    bind(st.slider, "Curves part when held-out compression is lower by more than (%)", "compression_gap",
         min_value=1, max_value=30)
    parting = parting_point(curve, ss.compression_gap / 100)
    bind(st.multiselect, "Overlay other runs from this session", "compression_overlays", options=list(others),
         help="Train on another corpus, minimum frequency or alphabet in the sidebar, then come back.")
    st.plotly_chart(compression_curve_figure(curve, parting=parting, shown_vocab=shown.vocab_size,
                                             overlays={k: others[k] for k in ss.compression_overlays}),
                    key="compression_chart")
    if shown.heldout_compression is None:
        st.caption("Nothing is held out for this corpus, so there is no held-out curve.")
    elif parting is None:
        st.caption(f"The curves stay within {ss.compression_gap}% of each other up to vocab "
                   f"{curve[-1].vocab_size:,}: what was learned carries over to unseen text.")
    else:
        st.caption(f"From vocab {parting.vocab_size:,} on, held-out text compresses more than "
                   f"{ss.compression_gap}% worse than training text ({parting.heldout_compression:.2f} vs "
                   f"{parting.train_compression:.2f} characters/token): new merges start to fit this text's quirks.")
with cost:
    st.metric(f"Characters per token at vocab {shown.vocab_size:,}", f"{shown.train_compression:.2f}",
              help="compression of the training text: its characters divided by its tokens")
    if shown.heldout_compression is not None:
        st.metric("Held-out characters per token", f"{shown.heldout_compression:.2f}")
    length = run.sequence_length(shown.merges)
    st.metric("Sequence length of the training text", f"{length:,} tokens",
              delta=f"{length - run.initial_length:,} vs {run.initial_length:,} without merges", delta_color="inverse")
    bind(st.number_input, "Embedding width d", "compression_d", min_value=1, max_value=16_384, step=64)
    params = embedding_parameters(shown.vocab_size, ss.compression_d)
    st.metric("Embedding parameters (vocab × d)", f"{params:,}")
    st.caption(f"With the output head tied to the embedding, that is all the vocabulary costs; an untied "
               f"head adds as much again: {embedding_parameters(shown.vocab_size, ss.compression_d, tied=False):,}.")

st.subheader("Vocab sizes side by side")
bind(st.multiselect, "Vocab sizes", "compression_sizes", accept_new_options=True,
     options=sorted(set(TABLE_SIZES) | set(ss.compression_sizes)))
rows = []
for size in sorted({int(s) for s in ss.compression_sizes if str(s).isdigit()}):
    if size < len(run.base_tokens):
        st.warning(f"Vocab {size:,} is below the alphabet ({len(run.base_tokens):,} base tokens); skipped.")
        continue
    row = size_summary(run, size, ss.compression_d)
    reached = "" if row.vocab_size == size else f" (run stops at {row.vocab_size:,})"
    rows.append({
        "vocab size": f"{size:,}{reached}",
        "training time (s)": None if row.training_seconds is None else round(row.training_seconds, 2),
        "sequence length": row.sequence_length, "characters/token": round(row.compression, 3),
        "held-out characters/token": None if row.heldout_compression is None else round(row.heldout_compression, 3),
        "token-count reduction": f"{row.reduction:.1%}", "embedding parameters": row.embedding_parameters,
        "10 longest tokens": "  ".join(repr(printable(t)) for t in row.longest_tokens),
    })
st.dataframe(pd.DataFrame(rows), hide_index=True, key="compression_table")
if getattr(run, "step_seconds", None) is None:
    st.caption(f"Training time per size is not recorded by this run; the whole run (to vocab "
               f"{run.final_vocab_size:,}) took {run.training_seconds:.2f} s. Each row is read from that one run.")
