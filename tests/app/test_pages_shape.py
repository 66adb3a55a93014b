"""Pages only arrange and draw: short, one shape, no computation of their own.

Caching, file reading, data wrangling and tables live in `pages/_shared/` (the UI package:
its views and the rooms below them) or in `bpe/` (pure), where they can be tested; a page
reads like a description of the screen.
"""

from __future__ import annotations

import ast

import pytest
from helpers import ROOT

PAGES = sorted((ROOT / "pages").glob("*.py")) + [ROOT / "app.py"]
MAX_LINES = 80
FORBIDDEN_CALLS = {"cache_data", "cache_resource", "open", "read_text", "read_bytes", "query", "groupby", "apply"}
# A table is built in a view: the rows (a comprehension), the frame, the widget that shows it.
TABLE_CALLS = {"DataFrame", "dataframe", "table", "data_editor", "show_table"}
COMPREHENSIONS = (ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_a_page_is_short(page):
    lines = page.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_LINES, (
        f"{page.name} has {len(lines)} lines; move blocks into its view in pages/_shared/views/"
    )


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


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_a_page_builds_no_table_itself(page):
    tree = ast.parse(page.read_text(encoding="utf-8"))
    calls = {
        node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
    }
    imports = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    built = [type(node).__name__ for node in ast.walk(tree) if isinstance(node, COMPREHENSIONS)]
    assert not calls & TABLE_CALLS, f"{page.name} draws a table itself ({sorted(calls & TABLE_CALLS)}): its view does"
    assert "pandas" not in imports, f"{page.name} imports pandas: tables are built in its view"
    assert built == [], f"{page.name} builds rows inline ({built}): its view does"


# The one door for tables: frame/tables.py draws every one, so presenter mode and the
# number formats reach them all (a table drawn directly skipped presenter mode's large type).
TABLES_DOOR = ROOT / "pages" / "_shared" / "frame" / "tables.py"
TABLE_WIDGETS = {"dataframe", "table", "data_editor"}


def test_every_table_goes_through_the_frames_table_helpers():
    found = []
    for path in sorted((ROOT / "pages").rglob("*.py")) + [ROOT / "app.py"]:
        if path == TABLES_DOOR:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            owner = node.func.value
            if node.func.attr in TABLE_WIDGETS and not (isinstance(owner, ast.Name) and owner.id == "pa"):  # pyarrow's
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: .{node.func.attr}(")
    assert found == [], "draw tables with pages/_shared/frame/tables.py: " + ", ".join(found)
