"""The core stays free of the UI: importing bpe loads no streamlit, plotly, pandas or torch."""
import subprocess
import sys

from helpers import ROOT

HEAVY = ("streamlit", "plotly", "pandas", "torch")


def modules_loaded_by(statement: str) -> set:
    code = f"import sys; {statement}; print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})))"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return set(result.stdout.split())


def test_import_bpe_loads_nothing_heavy():
    assert modules_loaded_by("import bpe; bpe.BPETokenizer.train('abab', 3)") == set()


def test_the_command_line_loads_nothing_heavy_until_needed():
    assert modules_loaded_by("import bpe.cli; bpe.cli.make_parser()") == set()


def test_no_module_under_bpe_imports_streamlit():
    offenders = [p.relative_to(ROOT) for p in (ROOT / "bpe").rglob("*.py")
                 if "import streamlit" in p.read_text(encoding="utf-8")
                 or "from streamlit" in p.read_text(encoding="utf-8")]
    assert offenders == []
