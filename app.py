"""BPE Lab's home page: what it is, the shared sidebar, and a summary of the current run."""

import streamlit as st

from bpe.analysis.merge_log import why_stopped
from bpe.analysis.metrics import compression
from pages._shared.frame import corpus_length, page_links, setup_page

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
c1, c2, c3 = st.columns(3)  # two rows of three: a count of millions fits a column at 1024 px
c4, c5, c6 = st.columns(3)
c1.metric("Corpus size (characters)", f"{corpus_length(settings):,}")
# The same two numbers as the sidebar's "Training on ... characters, ... held out": the
# corpus's first characters (the sidebar's cap), split into what BPE learns from and what
# measures it.
c2.metric(
    "Trained on (characters)",
    f"{run.training_characters:,}",
    help="the first characters of the corpus (the sidebar's cap), less the held-out part",
)
c6.metric(
    "Held out (characters)",
    f"{run.heldout_characters:,}",
    help="kept from training: the held-out curves measure the merges on text they never saw",
)
# The merges of the vocab shown, and of all the run learned when it learned more: a run trained
# to 49,744 merges and shown at a smaller vocab says "Merges used (of 49,744)", never "744" alone.
learned = len(run.steps)
c3.metric(
    "Merges learned" if merges == learned else f"Merges used (of {learned:,})",
    f"{merges:,}",
    help="the merges of the vocab size shown, of all the run learned (every smaller vocab is a prefix of them)",
)
c4.metric("Training time", f"{run.training_seconds:.2f} s")
c5.metric(
    "Characters per token",
    f"{compression(run.training_characters, tokens):.2f}",
    help="compression of the training text",
)
st.info(why_stopped(run, merges))
st.subheader("Pages")
page_links()
