"""Streamlit glue every page uses (not a page: Streamlit ignores folders inside pages/).

The API, in the order a page uses it::

    from pages._shared import setup_page, corpus_texts, current_tokenizer

    settings, run = setup_page("Tokenize", "One paragraph saying what this page shows.")
    if run is None: st.stop()
    train_text, heldout_text = corpus_texts(settings)      # cached
    tokenizer = current_tokenizer(settings, run)             # cached, vocab = settings.vocab_size

- `setup_page(title, intro) -> (Settings, TrainingRun | None)`: page config (wide), the
  shared sidebar, title and intro, the cached run (progress bar while training, `BpeError`
  shown with `st.error`, then run is None).
- `Settings` (frozen, hashable): corpus, corpus_version, prefix_cap, heldout_fraction,
  vocab_size (shown), trained_vocab_size (the run's maximum, >= vocab_size), min_freq,
  engine, alphabet ("characters" | "bytes"), pretokenizer (None | "whitespace" | "gpt2" |
  "gpt4"), top_k; `training_key()` for your own cache keys.
- `corpus_texts(settings) -> (train_text, heldout_text)`, cached.
- `current_tokenizer(settings, run) -> BPETokenizer` for the shown vocab, cached.
- `prefix_tokenizer(settings, run, merges) -> BPETokenizer` after the first `merges` merges.
- `bind(widget, label, key, **kwargs)`: draw a widget showing plain state `key` (set a
  default first with `st.session_state.setdefault`); survives page switches.
- `mirror_step(step)`: the Merge-by-merge step into session state and the URL.

State lives in plain session_state keys prefixed `settings_` (see `settings.py`); give a
page's own keys the page's prefix (`merges_step`, `tokenize_text`, ...).
"""

from .cache import corpus_texts, current_tokenizer, prefix_tokenizer
from .page import page_links, setup_page
from .settings import RECORDED_TOP_K, Settings, bind, mirror_step

__all__ = [
    "RECORDED_TOP_K",
    "Settings",
    "bind",
    "corpus_texts",
    "current_tokenizer",
    "mirror_step",
    "page_links",
    "prefix_tokenizer",
    "setup_page",
]
