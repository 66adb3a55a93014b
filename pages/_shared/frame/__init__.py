"""What every page shares, and the names a page needs from below:

- `setup_page(title, intro) -> (Settings, TrainingRun | None)`: page config (wide), the
  navigation, presenter toggle, lesson link, the shared sidebar, title and intro, and the
  cached run (progress bar while training; a `BpeError` shown with `st.error`, then None).
- `bind(widget, label, key, **kwargs)`: a widget showing plain state ``key``.
- `corpus_texts(settings) -> (train_text, heldout_text)`, cached.
- `page_links()`: the home page's list of pages.
"""

from pages._shared.data.runs import corpus_texts
from pages._shared.frame.navigation import page_links
from pages._shared.frame.page import setup_page
from pages._shared.state.settings import Settings, bind

__all__ = ["Settings", "bind", "corpus_texts", "page_links", "setup_page"]
