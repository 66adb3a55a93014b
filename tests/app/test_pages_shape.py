"""Pages only arrange and draw: short, one shape, no computation of their own.

Caching, file reading and data wrangling live in `pages/_shared/` (Streamlit glue) or in
`bpe/` (pure), where they can be tested; a page reads like a description of the screen.
"""

from __future__ import annotations

import ast

import pytest
from helpers import ROOT

PAGES = sorted((ROOT / "pages").glob("*.py")) + [ROOT / "app.py"]
MAX_LINES = 85  # "about 80"
FORBIDDEN_CALLS = {"cache_data", "cache_resource", "open", "read_text", "read_bytes", "query", "groupby", "apply"}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_a_page_is_short(page):
    lines = page.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_LINES, f"{page.name} has {len(lines)} lines; move blocks into pages/_shared/"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_a_page_caches_reads_and_computes_nothing_itself(page):
    tree = ast.parse(page.read_text(encoding="utf-8"))
    functions = [
        node.name
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.Lambda))
        if isinstance(node, ast.FunctionDef)
    ]
    calls = {
        node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
    }
    assert functions == [], f"{page.name} defines {functions}: put them in pages/_shared/"
    assert not calls & FORBIDDEN_CALLS, f"{page.name} calls {sorted(calls & FORBIDDEN_CALLS)}"
