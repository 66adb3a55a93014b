"""The sidebar's page list, with the home page called "Home".

With a `pages/` folder Streamlit names the entry page after its file ("app"). Its own
navigation is switched off (`client.showSidebarNavigation = false` in
`.streamlit/config.toml`) and this list of `st.page_link`s takes its place, the way
Streamlit's docs suggest for custom labels while keeping the `pages/` folder (so URLs,
links and AppTest stay as they are). `st.navigation` would also rename it, but it replaces
the folder's discovery, which the layout relies on.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

import streamlit as st
from streamlit.errors import StreamlitAPIException
from streamlit.runtime.scriptrunner import get_script_run_ctx

ROOT = Path(__file__).resolve().parents[3]
PAGES_DIR = ROOT / "pages"
HOME = "app.py"
HOME_ICON = ":material/home:"  # a bundled icon font: no emoji font needed


@dataclass(frozen=True)
class AppPage:
    """One page of the app: its script (relative to the repository, as Streamlit and lesson
    files name it) and the label the page lists show."""

    path: str
    label: str
    icon: str | None = None


def app_pages() -> list[AppPage]:
    """Every page, in the one order the app shows them: home first, then the numbered
    pages by number (``pages/10_…`` after ``pages/9_…``). The home page's list, the
    sidebar and lesson files all read it."""
    return list(_pages_in(PAGES_DIR))


@functools.cache
def _pages_in(folder: Path) -> tuple[AppPage, ...]:
    # Read once per process: every page run lists the pages twice or more (the sidebar, the
    # home page, lesson links), and the folder does not change while the server runs:
    # Streamlit itself learns of a new page file only on a restart.
    numbered = sorted(folder.glob("[0-9]*_*.py"), key=lambda p: int(p.name.split("_", 1)[0]))
    return (AppPage(HOME, "Home", HOME_ICON),) + tuple(
        AppPage(f"pages/{p.name}", p.stem.split("_", 1)[1].replace("_", " ")) for p in numbered
    )


def known_pages() -> list[str]:
    return [page.path for page in app_pages()]


def _link(page: AppPage) -> None:
    try:
        st.page_link(page.path, label=page.label, icon=page.icon)
    except StreamlitAPIException:
        pass  # a page file added after the server started, or a page run alone (AppTest)


def draw_navigation() -> None:
    """The page list at the top of the sidebar; the current page is highlighted by Streamlit."""
    with st.sidebar:
        for page in app_pages():
            _link(page)
        st.divider()


def page_links() -> None:
    """A link to each page but home, for the home page."""
    for page in app_pages()[1:]:
        _link(AppPage(page.path, page.label))


# ==================== Which page is running, and its address


def current_page() -> str:
    """The running script relative to the repository: ``app.py``, ``pages/1_Merge_by_merge.py``."""
    ctx = get_script_run_ctx()
    if ctx is None:
        return "app.py"
    info = ctx.pages_manager.get_pages().get(ctx.pages_manager.current_page_script_hash) or {}
    return _relative_script(info.get("script_path") or ctx.main_script_path)


@functools.lru_cache(maxsize=64)  # one entry per page script (AppTest runs pages from elsewhere too)
def _relative_script(script_path: str) -> str:
    # Resolving the path walks it on disk (realpath), several times a page run: once per script.
    path = Path(script_path).resolve()
    try:
        return path.relative_to(ROOT).as_posix()
    except ValueError:
        return path.name


def page_address(page: str) -> str:
    """The page's address as the browser shows it (``st.context.url``); without a browser
    (tests), the path alone: ``/Merge_by_merge``."""
    url = st.context.url
    if url:
        return url
    return "/" + ("" if page == "app.py" else re.sub(r"^\d+_", "", Path(page).stem))
