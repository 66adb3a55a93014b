"""The sidebar's page list, with the home page called "Home".

With a `pages/` folder Streamlit names the entry page after its file ("app"). Its own
navigation is switched off (`client.showSidebarNavigation = false` in
`.streamlit/config.toml`) and this list of `st.page_link`s takes its place, the way
Streamlit's docs suggest for custom labels while keeping the `pages/` folder (so URLs,
links and AppTest stay as they are). `st.navigation` would also rename it, but it replaces
the folder's discovery, which the layout relies on.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st
from streamlit.errors import StreamlitAPIException

PAGES_DIR = Path(__file__).resolve().parents[1]
HOME = ("app.py", "Home", ":material/home:")  # a bundled icon font: no emoji font needed


def page_entries() -> list[tuple[str, str, str | None]]:
    """(script path, label, icon) of every page, home first, numbered pages in order."""
    numbered = sorted(PAGES_DIR.glob("[0-9]*_*.py"), key=lambda p: int(p.name.split("_", 1)[0]))
    return [HOME] + [(f"pages/{p.name}", p.stem.split("_", 1)[1].replace("_", " "), None) for p in numbered]


def draw_navigation() -> None:
    """The page list at the top of the sidebar; the current page is highlighted by Streamlit."""
    with st.sidebar:
        for path, label, icon in page_entries():
            try:
                st.page_link(path, label=label, icon=icon)
            except StreamlitAPIException:
                pass  # a page file added after the server started, or a page run alone (AppTest)
        st.divider()
