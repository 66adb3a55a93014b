"""The UI package is arranged by kind and imports one way (read from the source, no import).

    render  <-  state  <-  data  <-  frame  <-  views  <-  pages (app.py, pages/*.py)

A room may import its own room and the rooms to its left, never one to its right: pure
builders never reach for session state, the caches never draw the page frame, and so on.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from helpers import ROOT

PACKAGE = ROOT / "pages" / "_shared"
ROOMS = ("render", "state", "data", "frame", "views")  # in import order: each uses only those before it
PAGES = sorted((ROOT / "pages").glob("*.py")) + [ROOT / "app.py"]
MODULES = sorted(path for path in PACKAGE.rglob("*.py") if path != PACKAGE / "__init__.py")
# Folder names the brief gives the rooms (`data/`, `views/model/` for the Model page): a
# folder, not a module that could be mistaken for the core's `bpe.lm.data` or `bpe.lm.model`.
ROOM_FOLDERS = {"data", "model"}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports, anywhere in the file, relative imports resolved."""
    package = module_name(path).split(".") if path.name == "__init__.py" else module_name(path).split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            name = ".".join(base + ([node.module] if node.module else []))
            found.add(name)
            found.update(f"{name}.{alias.name}" for alias in node.names)  # `from pkg import module`
    return found


def room(module: str) -> str | None:
    parts = module.split(".")
    if parts[:2] != ["pages", "_shared"] or len(parts) < 3 or parts[2] not in ROOMS:
        return None
    return parts[2]


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_a_module_imports_only_its_own_room_and_the_rooms_before_it(path):
    own = room(module_name(path))
    assert own is not None, f"{path.relative_to(ROOT)} is in no room of {ROOMS}"
    upward = sorted(
        name for name in imported(path) if room(name) is not None and ROOMS.index(room(name)) > ROOMS.index(own)
    )
    assert upward == [], f"{module_name(path)} ({own}) imports from a later room: {upward}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_streamlit_plotly_and_caches_each_stay_in_their_room(path):
    own = room(module_name(path))
    names = imported(path)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    caches = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)} & {
        "cache_data",
        "cache_resource",
    }
    if own == "render":
        assert not any(name.split(".")[0] == "streamlit" for name in names), "render/ never imports streamlit"
    else:
        assert not any(name.split(".")[0] == "plotly" for name in names), "plotly is built in render/ only"
    if own != "data":
        assert not caches, f"st.{sorted(caches)} belongs in data/"


def test_no_ui_module_takes_the_name_of_a_core_module():
    core = {path.stem for path in (ROOT / "bpe").rglob("*.py")} | {path.name for path in (ROOT / "bpe").iterdir()}
    ui = {path.stem for path in MODULES if path.name != "__init__.py"}
    ui |= {path.name for path in PACKAGE.rglob("*") if path.is_dir() and path.name != "__pycache__"} - ROOM_FOLDERS
    assert sorted(ui & core) == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_a_page_imports_from_the_frame_and_its_own_view_only(page):
    tree = ast.parse(page.read_text(encoding="utf-8"))
    places = {
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pages._shared")
    }
    places |= {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
        if alias.name.startswith("pages._shared")
    }
    views = {place for place in places if place.startswith("pages._shared.views.")}
    assert places - views <= {"pages._shared.frame"}, f"{page.name} imports {sorted(places)}"
    assert len(places) <= 2, f"{page.name} imports from {sorted(places)}: one view and the frame"


def test_a_pair_is_spelled_by_bpe_text_pair_label_not_rebuilt():
    import re

    rebuilt = re.compile(r"\{printable\([^)]*\)\} \+ \{printable\(")
    found = [path.relative_to(ROOT).as_posix() for path in MODULES + PAGES if rebuilt.search(path.read_text("utf-8"))]
    assert found == [], f"use bpe.text.pair_label in {found}"
