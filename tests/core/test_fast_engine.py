"""The fast engine's own guarantees, beyond agreeing with the reference."""
import gc

from bpe import train_steps

TEXT = "the cat sat on the mat; the cat ate the rat. " * 20


def test_the_garbage_collector_is_never_touched():
    # Several sessions of one server train at once: library code must leave the
    # interpreter's collector alone, before, between and after steps.
    assert gc.isenabled() and gc.get_freeze_count() == 0
    stream = train_steps(TEXT, target_vocab_size=40)
    for _ in stream:
        assert gc.isenabled() and gc.get_freeze_count() == 0
    stream = train_steps(TEXT, target_vocab_size=40)
    next(stream)
    stream.close()
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_a_disabled_collector_stays_disabled():
    gc.disable()
    try:
        list(train_steps(TEXT, target_vocab_size=40))
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_no_module_of_the_library_uses_the_gc_module():
    from helpers import ROOT

    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "bpe").rglob("*.py")
                 if "import gc" in p.read_text(encoding="utf-8")]
    assert offenders == []
