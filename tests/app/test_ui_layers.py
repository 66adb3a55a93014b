"""The UI package is arranged by kind and imports one way (read from the source, no import).

    render  <-  state  <-  data  <-  frame  <-  views  <-  pages (app.py, pages/*.py)
                                                        <-  lecture_hall

A room may import its own room and the rooms to its left, never one to its right: pure
builders never reach for session state, the caches never draw the page frame, and so on.
The lecture hall (the command that serves the app to a class, its warm-up client and the
load scripts) comes last: it depends on the app by import, and nothing of the app on it.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from helpers import ROOT

PACKAGE = ROOT / "pages" / "_shared"
ROOMS = ("render", "state", "data", "frame", "views", "lecture_hall")  # in import order: each uses only those before it
PAGES = sorted((ROOT / "pages").glob("*.py")) + [ROOT / "app.py"]
MODULES = sorted(path for path in PACKAGE.rglob("*.py") if path != PACKAGE / "__init__.py")
# Each page's view: a folder under views/ named after the page (the home page has none).
PAGE_VIEWS = {page.name: page.stem.split("_", 1)[1].lower() for page in PAGES if page.parent.name == "pages"}
# The one import across pages, and why: under a step a tie rule decided, Merge by merge
# offers "What if <another rule>? Compare →", which opens Compare runs on the two runs.
CROSS_PAGE = {("merge_by_merge", "compare_runs.what_if"): "the What-if buttons open Compare runs"}
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
    # A view folder is named after its page (`views/vocabulary/` for pages/5_Vocabulary.py),
    # as the page's file is, whatever the core names a module of its own.
    core = {path.stem for path in (ROOT / "bpe").rglob("*.py")} | {path.name for path in (ROOT / "bpe").iterdir()}
    ui = {path.stem for path in MODULES if path.name not in ("__init__.py", "__main__.py")}
    folders = {path.name for path in PACKAGE.rglob("*") if path.is_dir() and path.name != "__pycache__"}
    ui |= folders - ROOM_FOLDERS - set(PAGE_VIEWS.values())
    assert sorted(ui & core) == []


def test_no_two_ui_modules_share_a_name():
    # Two modules of one name (plotly's builders and the cache of built charts were both
    # "figures") make every mention in prose and in a traceback ambiguous: each module's
    # name says its page or its concept, once.
    stems = [path.stem for path in MODULES if path.name not in ("__init__.py", "__main__.py")]
    assert sorted({stem for stem in stems if stems.count(stem) > 1}) == []


def test_views_are_one_folder_per_page_of_the_same_shape():
    views = PACKAGE / "views"
    assert sorted(path.name for path in views.glob("*.py")) == ["__init__.py"], "a page's view is a folder"
    folders = {path.name for path in views.iterdir() if path.is_dir() and path.name != "__pycache__"}
    assert folders == set(PAGE_VIEWS.values())
    for folder in folders:
        init = ast.parse((views / folder / "__init__.py").read_text(encoding="utf-8"))
        exported = [node for node in init.body if isinstance(node, ast.Assign) and node.targets[0].id == "__all__"]
        assert ast.get_docstring(init) and exported, f"views/{folder}/__init__.py: a docstring and __all__"
        assert len(list((views / folder).glob("*.py"))) >= 2, f"views/{folder}: its blocks in modules of their own"


def test_a_view_imports_another_pages_view_only_where_named():
    found = set()
    for path in MODULES:
        parts = module_name(path).split(".")
        if parts[2] != "views" or len(parts) < 5:
            continue
        for name in imported(path):
            other = name.split(".")
            if other[:3] == ["pages", "_shared", "views"] and len(other) > 3 and other[3] != parts[3]:
                found.add((parts[3], ".".join(other[3:5])))
    assert found == set(CROSS_PAGE), f"imports across pages: {sorted(found)}; named: {sorted(CROSS_PAGE)}"


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
    own_view = {f"pages._shared.views.{PAGE_VIEWS[page.name]}"} if page.name in PAGE_VIEWS else set()
    assert places <= {"pages._shared.frame"} | own_view, f"{page.name} imports {sorted(places)}: its view and the frame"


def test_a_pair_is_spelled_by_bpe_text_pair_label_not_rebuilt():
    import re

    rebuilt = re.compile(r"\{printable\([^)]*\)\} \+ \{printable\(")
    found = [path.relative_to(ROOT).as_posix() for path in MODULES + PAGES if rebuilt.search(path.read_text("utf-8"))]
    assert found == [], f"use bpe.text.pair_label in {found}"


def test_no_module_is_named_in_a_string_to_be_run():
    # A program started by its module's name in a string (``[python, "-m", "pages...."]``)
    # is a dependency no import shows: the lecture hall once ran the app's warm-up client
    # that way. The app's own modules reach each other by import, which the tests above see.
    module_name_pattern = re.compile(r"(pages|bpe)(\.[A-Za-z_]\w*)+")
    found = []
    for path in MODULES + PAGES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        found += [
            f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
            and module_name_pattern.fullmatch(node.value.strip())
        ]
    assert found == []


def test_the_lecture_hall_reaches_the_app_by_import():
    # Its warm-up client is the app's, imported where the app processes are warmed.
    hall = PACKAGE / "lecture_hall"
    assert "pages._shared.lecture_hall.warm_up.warm" in imported(hall / "app_processes.py")
    users = [
        module_name(path)
        for path in MODULES + PAGES
        if room(module_name(path)) != "lecture_hall" and any(room(name) == "lecture_hall" for name in imported(path))
    ]
    assert users == [], f"{users} import the lecture hall: it serves the app, the app never uses it"
