"""Training never touches Python's garbage collector: sessions of the app train side by
side in one process, so a library that pauses or freezes the collector changes theirs."""

import ast
import gc
from pathlib import Path

import pytest

from bpe.fast import fast_steps
from bpe.reference import reference_steps
from bpe.training import prepare_words

TEXT = "the cat sat on the mat; the cat ate the rat. " * 20
PACKAGE = Path(__file__).resolve().parents[2] / "bpe"


def steps(engine):
    base = sorted(set(TEXT))
    return engine(
        prepare_words(TEXT, "characters", None),
        base,
        target_vocab_size=len(base) + 30,
        minimum_pair_frequency=2,
        top_k=5,
    )


@pytest.mark.parametrize("engine", [fast_steps, reference_steps])
def test_the_collector_is_untouched_during_and_after_training(engine):
    assert gc.isenabled() and gc.get_freeze_count() == 0
    stream = steps(engine)
    next(stream)
    assert gc.isenabled() and gc.get_freeze_count() == 0  # between steps too
    assert sum(1 for _ in stream) > 5
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_a_disabled_collector_stays_disabled():
    gc.disable()
    try:
        assert sum(1 for _ in steps(fast_steps)) > 5
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_no_library_module_uses_the_gc_module():
    users = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [alias.name for alias in node.names] if isinstance(node, (ast.Import, ast.ImportFrom)) else []
            if "gc" in names or (isinstance(node, ast.ImportFrom) and node.module == "gc"):
                users.append(str(path.relative_to(PACKAGE.parent)))
    assert users == []
