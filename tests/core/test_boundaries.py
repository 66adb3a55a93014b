"""The house plan, guarded: what each part of `bpe` may import, and that imports go one way.

- No module under `bpe/` loads streamlit, plotly or pandas; torch only `bpe.lm` and the
  tensor writer do. Each module is imported alone in the state a fresh interpreter
  imports it in (see `FORK_TREE`), so a heavy import hidden behind another module is
  caught too.
- The import graph inside `bpe/` (read with `ast`, every import statement, wherever it
  sits) has no cycle, and it stands in floors, each importing only the floors below it:
  `bpe.errors` and `bpe.paths` at the bottom; the floor for files and the network
  (`bpe.io`) on them; the algorithm at `bpe/`'s root (at most `MAX_ROOT_MODULES` modules) on
  the floor; the sub-packages (`bpe.scale`, `bpe.formats`, `bpe.cli`, ...) on the root,
  importing one another without a circle.
- No function imports a `bpe` module to dodge a cycle: the only imports inside functions
  are of heavy optional libraries, and of `bpe` modules that load one (torch: `bpe.lm`'s;
  numba: `bpe.scale.merge_kernel`).
- The prose names what exists: every dotted `bpe` name and every file path in docstrings
  and comments.
"""

from __future__ import annotations

import ast
import io
import json
import re
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest
from helpers import ROOT

PACKAGE = ROOT / "bpe"
UI_LIBRARIES = ("streamlit", "plotly", "pandas")
TORCH_ALLOWED = ("bpe.lm", "bpe.analysis.exports", "bpe.cli.pipeline", "bpe.benchmarks.lm")
# The bottom: what every floor may import (the errors raised, where data lives).
GROUND = ("bpe.errors", "bpe.paths")
FLOOR = "bpe.io"  # files and the network: knows nothing of BPE
# Optional libraries that take seconds or tens of MB to import: a module that loads one is
# imported where it is needed, not with its package.
HEAVY_LIBRARIES = ("torch", "numba")
MAX_ROOT_MODULES = 24  # the algorithm, as minbpe's package holds it (``__init__`` and ``__main__`` counted)


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = sorted(module_name(p) for p in PACKAGE.rglob("*.py") if p.name != "__main__.py")


def imported_bpe_modules(path: Path) -> list[tuple[str, bool]]:
    """(module, inside a function) for every `bpe` import in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            if (
                isinstance(child, ast.ImportFrom)
                and child.level == 0
                and child.module
                and child.module.split(".")[0] == "bpe"
            ):
                found.append((child.module, inner))
            elif isinstance(child, ast.ImportFrom) and child.level > 0:
                found.append(("<relative>", inner))
            elif isinstance(child, ast.Import):
                found.extend((alias.name, inner) for alias in child.names if alias.name.split(".")[0] == "bpe")
            visit(child, inner)

    visit(tree, False)
    return found


def resolve(name: str) -> str:
    """``bpe.gpt2.files`` stays; a name imported from a package resolves to that package."""
    return name if name in MODULES else name.rsplit(".", 1)[0]


def import_graph() -> dict[str, set[str]]:
    graph = {}
    for path in PACKAGE.rglob("*.py"):
        if path.name == "__main__.py":
            continue
        graph[module_name(path)] = {resolve(m) for m, _ in imported_bpe_modules(path) if m != "<relative>"}
    return graph


# A fresh interpreter per module, without starting one per module. Python imports a
# module's packages first (``import bpe.formats.minbpe`` runs ``bpe/__init__.py``, then
# ``bpe/formats/__init__.py``), so the state a fresh interpreter reaches after importing
# a package is where the import of each module inside it continues. One interpreter (the
# standard library modules `bpe` uses imported, nothing else) forks a child that imports
# ``bpe`` and reports what is loaded; that child forks one per module or sub-package under
# it, and so on down: each module is imported, and reported, in exactly the state a fresh
# interpreter would import it in, and each package's import runs once instead of once per
# module. The modules allowed torch are visited from a second tree whose root imported
# torch first (seconds, once): they are checked for the UI libraries only.
FORK_TREE = """
import importlib, json, os, sys, traceback
checked, torch_allowed, standard, ui = (json.loads(arg) for arg in sys.argv[1:])
for name in standard:
    try:
        importlib.import_module(name)
    except ImportError:
        pass
modules = set(checked) | set(torch_allowed)


def loaded_packages():
    return sorted({m.split('.')[0] for m in sys.modules})


def under(name):
    prefix = name + '.' if name else ''
    return sorted(m for m in modules if m.startswith(prefix) and '.' not in m[len(prefix):])


def visit(name, wanted):
    results = {}
    if name:
        try:
            importlib.import_module(name)
        except BaseException:
            return {name: 'FAILED: ' + traceback.format_exc()[-300:]}
        if name in wanted:
            results[name] = loaded_packages()
    for child in under(name):
        if any(m == child or m.startswith(child + '.') for m in wanted):
            results.update(forked(child, wanted))
    return results


def forked(name, wanted):
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            report = json.dumps(visit(name, wanted))
        except BaseException:
            report = json.dumps({name: 'FAILED: ' + traceback.format_exc()[-300:]})
        with os.fdopen(write, 'w') as pipe:
            pipe.write(report)
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        found = json.loads(pipe.read())
    os.waitpid(pid, 0)
    return found


assert not set(loaded_packages()) & set(ui + ['torch'])  # the roots stay clean of what is checked
out = visit('', set(checked))
import torch
assert not set(loaded_packages()) & set(ui)
out.update(visit('', set(torch_allowed)))
print(json.dumps(out))
"""


def standard_library_imports() -> list[str]:
    """The standard library modules that `bpe` imports anywhere (read with `ast`)."""
    names = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module)
    return sorted(name for name in names if name.split(".")[0] in sys.stdlib_module_names)


def test_every_module_loads_no_ui_library_and_torch_only_where_allowed():
    torch_allowed = [name for name in MODULES if name.startswith(TORCH_ALLOWED)]
    checked = [name for name in MODULES if name not in torch_allowed]
    argv = [json.dumps(value) for value in (checked, torch_allowed, standard_library_imports(), list(UI_LIBRARIES))]
    result = subprocess.run(
        [sys.executable, "-c", FORK_TREE, *argv], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr
    loaded = json.loads(result.stdout)
    assert sorted(loaded) == MODULES
    failures = {name: value for name, value in loaded.items() if isinstance(value, str)}
    assert failures == {}
    ui = {name: sorted(set(mods) & set(UI_LIBRARIES)) for name, mods in loaded.items() if set(mods) & set(UI_LIBRARIES)}
    assert ui == {}, f"modules that load a UI library: {ui}"
    torch = sorted(name for name, mods in loaded.items() if "torch" in mods and not name.startswith(TORCH_ALLOWED))
    assert torch == [], f"modules that load torch outside bpe.lm and the tensor writer: {torch}"


def printed_by(code: str) -> list[str]:
    """The lines ``code`` prints in a fresh interpreter: what it imports is its own."""
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def test_importing_bpe_and_its_command_line_loads_nothing_heavy():
    code = (
        "import sys, bpe, bpe.cli.main; bpe.BPETokenizer.train('abab', 3); bpe.cli.main.make_parser(); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('streamlit', 'plotly', 'pandas', 'torch')))"
    )
    assert printed_by(code) == ["[]"]


def test_counting_training_and_the_command_line_load_no_http_client():
    """urllib.request brings http.client and ssl, about 9 MB resident in each counting
    worker and in the merge phase: only a download needs them."""
    code = (
        "import sys, bpe, bpe.scale.count_phase, bpe.scale.run_file, bpe.cli.main; bpe.cli.main.make_parser(); "
        "bpe.train_run('low lower lowest', target_vocab_size=20); "
        "print(sorted(m for m in ('urllib.request', 'http.client', 'ssl') if m in sys.modules))"
    )
    assert printed_by(code) == ["[]"]


def test_the_merge_phase_loads_neither_gpt2_nor_the_network_modules():
    """Importing any part of the package runs bpe/__init__.py: when it imported GPT-2, every
    counting worker and merge phase loaded the download code and with it socket, uuid and
    platform (1.1 MB of a merge phase that must stay within 4 MB per million characters).
    The public names still come from the package, each on first use."""
    code = (
        "import sys, bpe.scale.count_phase, bpe.run, bpe.scale.merge_phase, bpe.scale.run_file; "
        "print(sorted(m for m in ('bpe.gpt2', 'bpe.io.fetch', 'socket', 'uuid', 'platform') if m in sys.modules)); "
        "import bpe; from bpe import *; print(all(getattr(bpe, name) is not None for name in bpe.__all__))"
    )
    assert printed_by(code) == ["[]", "True"]


def test_the_import_graph_has_no_cycle():
    graph = import_graph()
    state: dict[str, str] = {}

    def walk(node, trail):
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if nxt == node or nxt not in graph:
                continue
            if state.get(nxt) == "open":
                pytest.fail("import cycle: " + " -> ".join(trail[trail.index(nxt) :] + [nxt]))
            if nxt not in state:
                walk(nxt, trail + [nxt])
        state[node] = "done"

    for module in sorted(graph):
        if module not in state:
            walk(module, [module])


def floor_of(module: str) -> int:
    """0 the ground, 1 the floor (`bpe.io`), 2 the algorithm at the root, 3 a sub-package."""
    if module in GROUND or module == "bpe":
        return 0
    if module == FLOOR or module.startswith(FLOOR + "."):
        return 1
    return 2 if module.count(".") == 1 and not (PACKAGE / module.split(".")[1]).is_dir() else 3


def room_of(module: str) -> str:
    """The room a module stands in: its sub-package (``bpe.scale``), or the root (``bpe``)."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 and (PACKAGE / parts[1]).is_dir() else "bpe"


def test_the_ground_and_the_floor_import_nothing_above_them():
    graph = import_graph()
    upward = {
        module: sorted(t for t in targets if floor_of(t) > floor_of(module) or (floor_of(module) == 0 and t != module))
        for module, targets in graph.items()
        if floor_of(module) <= 1 and module != "bpe"
    }
    assert {m: t for m, t in upward.items() if t} == {}, "the floor imports only bpe.errors, bpe.paths and itself"


def test_the_algorithm_at_the_root_imports_only_the_root_and_the_floor():
    graph = import_graph()
    upward = {
        module: sorted(t for t in targets if floor_of(t) > 2)
        for module, targets in graph.items()
        if floor_of(module) == 2
    }
    assert {m: t for m, t in upward.items() if t} == {}


def test_the_root_holds_the_algorithm_alone():
    root = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert len(root) <= MAX_ROOT_MODULES, f"bpe/ holds {len(root)} modules: {', '.join(root)}"


def test_the_sub_packages_import_one_another_without_a_circle():
    rooms: dict[str, set[str]] = {}
    for module, targets in import_graph().items():
        if floor_of(module) == 3:
            rooms.setdefault(room_of(module), set()).update(
                room_of(t) for t in targets if floor_of(t) == 3 and room_of(t) != room_of(module)
            )
    state: dict[str, str] = {}

    def walk(room, trail):
        state[room] = "open"
        for nxt in sorted(rooms.get(room, ())):
            if state.get(nxt) == "open":
                pytest.fail("sub-packages in a circle: " + " -> ".join(trail[trail.index(nxt) :] + [nxt]))
            if nxt not in state:
                walk(nxt, trail + [nxt])
        state[room] = "done"

    for room in sorted(rooms):
        if room not in state:
            walk(room, [room])


def test_no_relative_imports_and_no_bpe_import_inside_a_function_except_heavy_library_users():
    heavy_users = {
        module_name(p)
        for p in PACKAGE.rglob("*.py")
        if any(
            isinstance(n, (ast.Import, ast.ImportFrom))
            and any(
                (getattr(n, "module", None) or "").startswith(HEAVY_LIBRARIES) or a.name.startswith(HEAVY_LIBRARIES)
                for a in n.names
            )
            for n in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
        )
    }
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        for module, inside in imported_bpe_modules(path):
            if module == "<relative>":
                offenders.append(f"{path.relative_to(ROOT)}: a relative import")
            elif inside and resolve(module) not in heavy_users:
                offenders.append(f"{path.relative_to(ROOT)}: imports {module} inside a function")
    assert offenders == []


def top_level_names(path: Path) -> set[str]:
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    for node in ast.parse(path.read_text(encoding="utf-8")).body:  # names a module gives on first use
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["__all__"]:
            names.update(ast.literal_eval(node.value))
    return names


def prose_of(path: Path):
    """``(line, text)`` of every comment and docstring in a Python file."""
    source = path.read_text(encoding="utf-8")
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                yield first.lineno, first.value.value


# A file or folder of the checkout named in prose: ``bpe/scale/run_file.py``, ``pages/_shared/``,
# ``docs/speed.md``, ``app.py``. A stem such as ``pages/10_...`` (no suffix, no closing slash)
# names no one file and is not checked; ``data/`` holds what runs write (the cache, run files).
PROSE_PATH = re.compile(r"(?<![\w./-])((?:bpe|pages|tests|docs)/[\w./-]*[\w/]|app\.py)(?![\w/-])")


def named_paths(text: str) -> list[str]:
    found = []
    for match in PROSE_PATH.finditer(text):
        path = match.group(1)
        if path.endswith("/") or Path(path).suffix:
            found.append(path)
    return found


def test_the_bpe_names_in_docstrings_and_comments_exist():
    # Renamed modules leave their old names behind in prose (the metrics module was named
    # by its old name six times after it moved into bpe.analysis, and the pages' and tests'
    # prose kept three more): every dotted bpe name in the package, the pages, the tests
    # and the README must be a module, or a name defined at the top of one. Moved files
    # leave their paths behind too (three docstrings of the core named UI files gone in a
    # reorganisation): every path of the checkout that a docstring or comment of the
    # package, the pages or app.py names must exist, from the checkout or from its folder.
    missing = []
    prose = [*PACKAGE.rglob("*.py"), *(ROOT / "pages").rglob("*.py"), *(ROOT / "tests").rglob("*.py")]
    for path in sorted([*prose, ROOT / "app.py", ROOT / "README.md"]):
        text = path.read_text(encoding="utf-8")
        for found in re.finditer(r"(?<![\w/])bpe(?:\.[A-Za-z_]\w*)+", text):
            parts = found.group().split(".")
            for k in range(len(parts), 0, -1):
                module = ".".join(parts[:k])
                if module in MODULES:
                    break
            rest = parts[k:]
            base = ROOT.joinpath(*module.split("."))
            file = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
            if module not in MODULES or (rest and rest[0] not in top_level_names(file)):
                line = text.count("\n", 0, found.start()) + 1
                missing.append(f"{path.relative_to(ROOT)}:{line}: {found.group()}")
    for path in sorted([*PACKAGE.rglob("*.py"), *(ROOT / "pages").rglob("*.py"), ROOT / "app.py"]):
        for line, text in prose_of(path):
            for named in named_paths(text):
                if not ((ROOT / named).exists() or (path.parent / named).exists()):
                    missing.append(f"{path.relative_to(ROOT)}:{line}: {named}")
    assert missing == []


def test_the_top_level_holds_only_the_projects_folders():
    """The brief fixes the top level: app.py, pages/, bpe/, data/, tests/, docs/,
    requirements.txt, dot-folders (and the packaging and test config files beside them).
    A folder a tool wants at the top (Streamlit's ``static/``) lives inside one of these."""
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    folders = {path.split("/", 1)[0] for path in tracked if "/" in path and not path.startswith(".")}
    assert folders <= {"pages", "bpe", "data", "tests", "docs"}, folders
