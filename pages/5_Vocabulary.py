"""Vocabulary: every learned token, when it was learned and how much it is used; files to take away."""

import pandas as pd
import streamlit as st

from bpe.analysis.exports import ids_tensor_bytes, tokenizer_json
from bpe.analysis.merge_log import log_csv
from bpe.analysis.vocabulary import first_merges, learned_tokens
from bpe.text import printable
from pages._shared import setup_page
from pages._shared.analysis import bpe_at, encoded_training_ids, run_usage
from pages._shared.formats_view import draw_exports, draw_merges_vs_ranks, draw_upload
from pages._shared.numbers import count_columns
from pages._shared.vocabulary_view import draw_filters, draw_token_table, token_table

settings, run = setup_page(
    "Vocabulary",
    "What training learned, token by token. *Uses* counts a token in the final encoding of the "
    "training text: a token created often but used rarely was absorbed by longer tokens learned later.",
)
if run is None:
    st.stop()
trained = bpe_at(settings, run, settings.vocab_size)
merges = len(trained.tokenizer.merges)
rows = learned_tokens(run, merges, run_usage(settings, run, merges))
table = token_table(rows)

a, b, c = st.columns(3)
a.metric("Learned tokens", f"{len(rows):,}")
b.metric("Unused in the final encoding", f"{sum(1 for r in rows if r.uses == 0):,}")
c.metric("Longest token (characters)", f"{int(table['length'].max()) if len(table) else 0:,}")
draw_token_table(draw_filters(settings, table), len(rows))  # the filters start over with each run

first, tall = st.columns(2)
first.markdown("**The first 50 merges**")
first.dataframe(
    pd.DataFrame(
        [
            {"step": n, "pair": f"{printable(p[0])} + {printable(p[1])}", "token": printable(t), "pair count": f}
            for n, p, t, f in first_merges(run, min(50, merges))
        ]
    ),
    hide_index=True,
    key="vocab_first",
    column_config=count_columns("step", "pair count"),
)
tall.markdown("**The 50 longest tokens**")
tall.dataframe(
    table.sort_values(["length", "id"], ascending=[False, True]).head(50)[["id", "token", "length", "step"]],
    hide_index=True,
    key="vocab_longest",
    column_config=count_columns("id", "step"),
)

st.subheader("Take it with you")
tokenizer = trained.tokenizer
d1, d2, d3 = st.columns(3)
d1.download_button(
    "Tokenizer (JSON)",
    tokenizer_json(tokenizer),
    file_name=f"bpe_{tokenizer.vocab_size}.json",
    mime="application/json",
    key="vocab_download_json",
)
d2.download_button(
    "Merges (CSV)",
    log_csv(run, merges),
    file_name=f"bpe_{tokenizer.vocab_size}_merges.csv",
    mime="text/csv",
    key="vocab_download_csv",
)
d3.download_button(
    "Encoded training text (torch .pt)",
    lambda: ids_tensor_bytes(encoded_training_ids(settings, trained)),  # made on click
    file_name=f"train_ids_{tokenizer.vocab_size}.pt",
    mime="application/octet-stream",
    key="vocab_download_pt",
    help="A torch long tensor of the training text's ids.",
)
st.caption(f"Fingerprint {tokenizer.fingerprint()}: a loaded file must hash to the same.")

draw_exports(tokenizer)
draw_upload(settings, run)
draw_merges_vs_ranks(settings, tokenizer)
