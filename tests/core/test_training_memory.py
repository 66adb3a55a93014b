"""What training a whole text in memory needs (`bpe.training_memory`), said up front."""

from __future__ import annotations

import pytest

from bpe.errors import BpeError
from bpe.training_memory import in_memory_bytes


def test_in_memory_training_needs_more_memory_for_more_text():
    small, large = in_memory_bytes(1_000_000), in_memory_bytes(100_000_000)
    assert 0 < small < large
    assert in_memory_bytes(100_000_000, "bytes", "gpt2") < in_memory_bytes(100_000_000, "bytes", None)


@pytest.mark.parametrize("alphabet", ["characters", "bytes"])
def test_a_split_that_keeps_punctuation_on_words_needs_more_than_gpt2s(alphabet):
    # Split at whitespace (or by a pattern of one's own, which may be \S+), code keeps
    # "self.count(x)," whole: many more distinct chunks than GPT-2's or GPT-4's split makes.
    gpt2 = in_memory_bytes(16_000_000, alphabet, "gpt2")
    assert in_memory_bytes(16_000_000, alphabet, "gpt4") == gpt2
    assert in_memory_bytes(16_000_000, alphabet, "whitespace") == in_memory_bytes(16_000_000, alphabet, r"\S+")
    assert gpt2 < in_memory_bytes(16_000_000, alphabet, "whitespace") < in_memory_bytes(16_000_000, alphabet, None)


def test_a_text_too_big_for_this_machine_is_refused_up_front(monkeypatch):
    from bpe.training_memory import check_fits_in_memory

    monkeypatch.setattr("bpe.training_memory.available_memory_bytes", lambda: 1 << 30)
    check_fits_in_memory(10_000_000)  # ~160 MB: fits in 1 GiB
    with pytest.raises(BpeError, match="training 100,000,000 characters in memory needs about 1.2 GiB, and this"):
        check_fits_in_memory(100_000_000)
    check_fits_in_memory(100_000_000, "bytes", "gpt2")  # pre-tokenized, the text and its chunks' table: ~640 MB
    with pytest.raises(BpeError, match="count it with .venv/bin/python -m bpe count"):
        check_fits_in_memory(200_000_000, "bytes", "gpt2")
    monkeypatch.setattr("bpe.training_memory.available_memory_bytes", lambda: 30 << 20)
    with pytest.raises(BpeError, match="needs about 46 MiB, and this machine has 30 MiB available"):
        check_fits_in_memory(500_000)  # below a GiB, in MiB: "0.0 GiB" would say nothing
    monkeypatch.setattr("bpe.training_memory.available_memory_bytes", lambda: None)
    check_fits_in_memory(10**12)  # unknown: nothing refused
