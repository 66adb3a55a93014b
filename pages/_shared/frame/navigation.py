"""The sidebar's page list, with the home page called "Home".

With a `pages/` folder Streamlit names the entry page after its file ("app"). Its own
navigation is switched off (`client.showSidebarNavigation = false` in
`.streamlit/config.toml`) and this list of `st.page_link`s takes its place, the way
Streamlit's docs suggest for custom labels while keeping the `pages/` folder (so URLs,
links and AppTest stay as they are). `st.navigation` would also rename it, but it replaces
the folder's discovery, which the layout relies on.
"""

from __future__ import annotations

import re
from pathlib import Path

import streamlit as st
from streamlit.errors import StreamlitAPIException
from streamlit.runtime.scriptrunner import get_script_run_ctx

ROOT = Path(__file__).resolve().parents[3]
PAGES_DIR = ROOT / "pages"
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


def page_links() -> None:
    """A link to each numbered page in `pages/`, for the home page."""
    for path in sorted(PAGES_DIR.glob("[0-9]*_*.py")):
        label = path.stem.split("_", 1)[1].replace("_", " ")
        try:
            st.page_link(f"pages/{path.name}", label=label)
        except StreamlitAPIException:
            pass  # a page file added after the server started: Streamlit has not registered it


# ==================== Which page is running, and its address


def current_page() -> str:
    """The running script relative to the repository: ``app.py``, ``pages/1_Merge_by_merge.py``."""
    ctx = get_script_run_ctx()
    if ctx is None:
        return "app.py"
    info = ctx.pages_manager.get_pages().get(ctx.pages_manager.current_page_script_hash) or {}
    path = Path(info.get("script_path") or ctx.main_script_path).resolve()
    try:
        return path.relative_to(ROOT).as_posix()
    except ValueError:
        return path.name


def known_pages() -> list[str]:
    return ["app.py"] + sorted(f"pages/{p.name}" for p in (ROOT / "pages").glob("[0-9]*_*.py"))


def page_address(page: str) -> str:
    """The page's address as the browser shows it (``st.context.url``); without a browser
    (tests), the path alone: ``/Merge_by_merge``."""
    url = st.context.url
    if url:
        return url
    return "/" + ("" if page == "app.py" else re.sub(r"^\d+_", "", Path(page).stem))
