"""BPE Lab's home page: what it is, the shared sidebar, and a summary of the current run."""

import streamlit as st

from bpe.analysis.merge_log import why_stopped
from bpe.analysis.metrics import compression
from pages._shared.frame import page_links, setup_page

settings, run = setup_page(
    "BPE Lab",
    "Byte Pair Encoding, trained in front of you. Pick a text and a vocabulary size in the "
    "sidebar: BPE starts from single characters (or bytes) and, again and again, merges the most "
    "frequent adjacent pair into a new token. The pages replay that training merge by merge.",
)
if run is None:
    st.stop()

merges = run.merge_count(settings.vocab_size)
tokens = run.sequence_length(merges)
c1, c2, c3, c4 = st.columns(4)
c1.metric("Corpus size (characters)", f"{run.training_characters + run.heldout_characters:,}")
c2.metric("Merges learned", f"{merges:,}")
c3.metric("Training time", f"{run.training_seconds:.2f} s")
c4.metric(
    "Characters per token",
    f"{compression(run.training_characters, tokens):.2f}",
    help="compression of the training text",
)
st.info(why_stopped(run, merges))
st.subheader("Pages")
page_links()
