"""The fast engine's own guarantees, beyond agreeing with the reference."""
import gc

from bpe import train_steps

TEXT = "the cat sat on the mat; the cat ate the rat. " * 20


def test_garbage_collector_is_left_as_it_was_found():
    assert gc.isenabled() and gc.get_freeze_count() == 0
    assert len(list(train_steps(TEXT, target_vocab_size=40))) > 5
    assert gc.isenabled() and gc.get_freeze_count() == 0
    stream = train_steps(TEXT, target_vocab_size=40)
    next(stream)
    assert gc.isenabled() and gc.get_freeze_count() > 0  # frozen between steps, on purpose
    stream.close()  # stopping early unfreezes too
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_a_disabled_collector_stays_disabled():
    gc.disable()
    try:
        list(train_steps(TEXT, target_vocab_size=40))
        assert not gc.isenabled()
    finally:
        gc.enable()
