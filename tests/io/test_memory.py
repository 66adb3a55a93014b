"""`bpe.io.memory.return_free_memory` hands freed C-heap pages back: the process shrinks."""

from __future__ import annotations

from array import array

import pytest

from bpe.io import memory


def resident_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096


@pytest.mark.skipif(memory._MALLOC_TRIM is None, reason="glibc's malloc_trim is not here: nothing to give back")
def test_freed_arrays_between_live_ones_go_back_to_the_system():
    # 512 arrays of 64 KiB (below glibc's mmap threshold: its heap holds them), every other
    # one kept: the 256 freed leave 16 MiB of holes between live blocks, which glibc keeps
    # (it gives back only the top of its heap by itself). Asked, it gives them back.
    blocks = [array("b", bytes(64 * 1024)) for _ in range(512)]
    kept = blocks[1::2]
    del blocks
    before = resident_bytes()
    memory.return_free_memory()
    after = resident_bytes()
    assert before - after >= 8 * 2**20, f"{(before - after) / 2**20:.1f} MiB went back"
    assert all(len(block) == 64 * 1024 for block in kept)  # the live ones are untouched
