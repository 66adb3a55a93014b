"""`return_free_memory`: hand the memory the C allocator holds free back to the system.

Python's own small objects go back when a 1 MiB arena of them empties, but C arrays and
large strings come from the C library's `malloc`, and glibc keeps what is freed inside its
heap for later use: the process stays as large as at its busiest. A training's engine
frees tens of megabytes at a time (its pair table moved below a floor, its arrays once
training ends), between blocks that live on, so none of it goes back by itself: split at
whitespace, 16 M characters trained to 50,000 merges left the process 73 MB over the text
after the engine had freed all but 4 MB of it, and the tokenizer was then built on top.
``malloc_trim(0)`` releases every free page of every heap (about a millisecond for such a
heap, 10 ms at most in that training's 56 calls); it changes no setting, so it is safe
whatever else the process runs.

Elsewhere (macOS, musl) this does nothing: those allocators return memory their own way.
"""

from __future__ import annotations

import ctypes
import sys


def _malloc_trim():
    """glibc's ``malloc_trim``, or None where there is none."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        trim = ctypes.CDLL(None).malloc_trim  # the C library this process already runs on
    except (OSError, AttributeError):  # no symbol: not glibc
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


_MALLOC_TRIM = _malloc_trim()


def return_free_memory() -> None:
    """Give the pages the C allocator holds free back to the system (glibc; elsewhere nothing)."""
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)
