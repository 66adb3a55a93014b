"""One folder per page, named after it, each of the same shape: an ``__init__`` naming the
blocks its page arranges (``__all__``), and a module per block. A view draws with
streamlit and may use every room below it (frame, data, state, render); it imports no
other page's view, except where tests/app/test_ui_layers.py names the import (the "What
if" buttons under a step of Merge by merge open Compare runs)."""
