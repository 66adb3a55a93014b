"""The house plan, guarded: what each part of `bpe` may import, and that imports go one way.

- No module under `bpe/` loads streamlit, plotly or pandas; torch only `bpe.lm` and the
  tensor writer do. Each module is imported alone in a fresh interpreter, so a heavy
  import hidden behind another module is caught too.
- The import graph inside `bpe/` (read with `ast`, every import statement, wherever it
  sits) has no cycle, and no import points from the algorithm at `bpe/`'s root up into a
  sub-package.
- No function imports a `bpe` module to dodge a cycle: the only imports inside functions
  are of heavy optional libraries, and of `bpe.lm` modules that load torch.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

PACKAGE = ROOT / "bpe"
UI_LIBRARIES = ("streamlit", "plotly", "pandas")
TORCH_ALLOWED = ("bpe.lm", "bpe.analysis.exports", "bpe.cli.pipeline", "bpe.benchmarks.lm")
ROOT_FLOOR = {
    "errors",
    "paths",
    "files",
    "alphabet",
    "pretokenize",
    "pairs",
    "steps",
    "reference",
    "fast",
    "training",
    "encoder",
    "tokenizer",
    "storage",
    "run",
    "text",
    "jsonfile",
    "regex_syntax",
}


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


def test_every_module_loads_no_ui_library_and_torch_only_where_allowed():
    code = (
        "import importlib, json, sys; importlib.import_module(sys.argv[1]); "
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    # one interpreter per module: a module must not rely on another having loaded first
    script = "\n".join(
        [
            "import json, subprocess, sys",
            f"modules = {MODULES!r}",
            "out = {}",
            "for name in modules:",
            f"    r = subprocess.run([sys.executable, '-c', {code!r}, name], capture_output=True, text=True)",
            "    out[name] = json.loads(r.stdout) if r.returncode == 0 else 'FAILED: ' + r.stderr[-300:]",
            "print(json.dumps(out))",
        ]
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    loaded = json.loads(result.stdout)
    failures = {name: value for name, value in loaded.items() if isinstance(value, str)}
    assert failures == {}
    ui = {name: sorted(set(mods) & set(UI_LIBRARIES)) for name, mods in loaded.items() if set(mods) & set(UI_LIBRARIES)}
    assert ui == {}, f"modules that load a UI library: {ui}"
    torch = sorted(name for name, mods in loaded.items() if "torch" in mods and not name.startswith(TORCH_ALLOWED))
    assert torch == [], f"modules that load torch outside bpe.lm and the tensor writer: {torch}"


def test_importing_bpe_and_its_command_line_loads_nothing_heavy():
    code = (
        "import sys, bpe, bpe.cli.main; bpe.BPETokenizer.train('abab', 3); bpe.cli.main.make_parser(); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('streamlit', 'plotly', 'pandas', 'torch')))"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


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


def test_the_algorithm_at_the_root_imports_no_sub_package():
    graph = import_graph()
    upward = {
        module: sorted(m for m in targets if m.count(".") >= 1 and m.split(".")[1] not in ROOT_FLOOR)
        for module, targets in graph.items()
        if module.count(".") == 1 and module.split(".")[1] in ROOT_FLOOR
    }
    assert {m: t for m, t in upward.items() if t} == {}


def test_no_relative_imports_and_no_bpe_import_inside_a_function_except_torch_users():
    torch_users = {
        module_name(p)
        for p in PACKAGE.rglob("*.py")
        if any(
            isinstance(n, (ast.Import, ast.ImportFrom))
            and any(
                (getattr(n, "module", None) or "").startswith("torch") or a.name.startswith("torch") for a in n.names
            )
            for n in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
        )
    }
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        for module, inside in imported_bpe_modules(path):
            if module == "<relative>":
                offenders.append(f"{path.relative_to(ROOT)}: a relative import")
            elif inside and resolve(module) not in torch_users:
                offenders.append(f"{path.relative_to(ROOT)}: imports {module} inside a function")
    assert offenders == []
