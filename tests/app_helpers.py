"""Helpers for AppTest tests of app.py and the pages (no browser, no server)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
SMALL_CORPUS = "low lower newest widest"  # built in; 17 merges with minimum frequency 2


def new_app(script: str = "app.py", *, run: bool = True, query: dict | None = None, **state) -> AppTest:
    """AppTest of ``script`` (relative to the repo root) with session state seeded from
    keyword arguments, e.g. ``new_app("pages/1_Merge_by_merge.py", settings_corpus="aaaaa")``."""
    at = AppTest.from_file(str(ROOT / script), default_timeout=60)
    for key, value in state.items():
        at.session_state[key] = value
    for key, value in (query or {}).items():
        at.query_params[key] = value
    return at.run() if run else at


def plotly_specs(at: AppTest) -> list[dict]:
    """Every plotly figure on the page as JSON (AppTest has no typed accessor for charts)."""
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def title_text(spec: dict) -> str:
    """A chart's title as one line of words (the app breaks long titles into lines)."""
    return re.sub(r"\s+", " ", re.sub(r"<br>|</?sup>", " ", spec["layout"]["title"]["text"])).strip()


def metric(at: AppTest, label: str) -> str:
    """The shown value of the metric labelled ``label``."""
    found = [m.value for m in at.metric if m.label == label]
    assert found, f"no metric {label!r}; there are {[m.label for m in at.metric]}"
    return found[0]


def unescape_markdown(text: str) -> str:
    """Error texts as the user reads them (the app backslash-escapes Markdown in user text)."""
    return text.replace("\\", "")


def capture_downloads(monkeypatch) -> dict:
    """Every file a download button offers from now on, by file name (filled as pages run)."""
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    files = {}
    original = MemoryMediaFileStorage.load_and_get_id

    def keep(self, path_or_data, mimetype, kind, filename=None):
        files[filename] = path_or_data.encode() if isinstance(path_or_data, str) else path_or_data
        return original(self, path_or_data, mimetype, kind, filename)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", keep)
    return files


def own_values_held() -> dict[str, int]:
    """How many values this session's own caches hold, by function (those holding any):
    what `cache_scopes.hold_values_of` bounds. Call it from a script AppTest runs, so that
    "this session" is AppTest's. Streamlit has no public count, so this reads its cache
    objects: a data cache's values are in its storage, a resource cache's in the cache itself."""
    from pages._shared.data.cache_scopes import SESSION_CACHES

    held = {}
    for name, cached in SESSION_CACHES.items():
        cache = cached._info.get_function_cache(cached._function_key)
        values = cache._mem_cache if hasattr(cache, "_mem_cache") else cache.storage._mem_cache
        if len(values):
            held[name] = len(values)
    return held
