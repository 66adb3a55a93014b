"""BPE Lab's UI package (not a page: Streamlit ignores folders inside pages/), arranged by
kind. Imports run one way, each room using only the rooms above it in this list:

1. `render/` — pure builders of HTML and plotly figures from core results; no streamlit.
   All plotly and all HTML strings live here, and all escaping happens here.
2. `state/`  — session state: `Settings` and `bind`, every linked control declared once,
   the link (URL) reader and writer, the bounded stores, state that belongs to one run,
   the browser session watch.
3. `data/`   — the cached computations (`st.cache_data` / `st.cache_resource`): corpus
   texts and runs, tokenizers, measurements, comparisons, the model-job line.
4. `frame/`  — what every page shares: `setup_page`, the sidebar, navigation, presenter
   mode, lesson links and files, the WikiText-2 download, tables.
5. `views/`  — one module (or folder: `merges/`, `model/`) per page: its blocks.

A page (``app.py``, ``pages/*.py``) imports from `frame` and its own view, and only
arranges::

    from pages._shared.frame import setup_page
    from pages._shared.views.tokenize_page import draw_lineage, text_box

    settings, run = setup_page("Tokenize", "One paragraph saying what this page shows.")
    if run is None: st.stop()

tests/app/test_ui_layers.py holds the package to this order.
"""
