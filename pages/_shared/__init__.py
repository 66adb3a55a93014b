"""BPE Lab's UI package (not a page: Streamlit ignores folders inside pages/), arranged by
kind. Imports run one way, each room using only the rooms above it in this list:

1. `render/` — pure builders of HTML and plotly figures from core results; no streamlit.
   All plotly and all HTML strings live here, and all escaping happens here.
2. `state/`  — session state: `Settings` and `bind`, every linked control declared once,
   the link (URL) reader and writer, the bounded stores, state that belongs to one run,
   the browser session watch.
3. `data/`   — the cached computations (`st.cache_data` / `st.cache_resource`) and what they
   keep: corpus texts and runs (trained live, shared), tokenizers, measurements, token
   health, comparisons, shared charts, the model-job line; each shared by every session or
   one session's own (`data.cache_scopes`).
4. `frame/`  — what every page shares: `setup_page`, the sidebar, navigation, presenter
   mode, lesson links and files, the WikiText-2 download, tables (the one door for them).
5. `views/`  — one folder per page, named after it (`views/merge_by_merge/`, ...,
   `views/languages/`): an ``__init__`` naming the blocks its page arranges, a module per
   block.
6. `lecture_hall/` — the app served to a class: the command
   (``python -m pages._shared.lecture_hall``), its proxy and app processes, the warm-up
   client, the load scripts. It may use every room; nothing of the app uses it.

A page (``app.py``, ``pages/*.py``) imports from `frame` and its own view, and only
arranges::

    from pages._shared.frame import setup_page
    from pages._shared.views.tokenize import draw_lineage, text_box

    settings, run = setup_page("Tokenize", "One paragraph saying what this page shows.")
    if run is None: st.stop()

tests/app/test_ui_layers.py holds the package to this order.
"""
