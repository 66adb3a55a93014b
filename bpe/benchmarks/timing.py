"""How the benchmarks time a job in their own process: once (`timed`), or as the fastest of
several runs (`best_of`), the usual way to time a job of a second or less on a shared
machine, where a moment's load moves one run by a tenth. Both return ``(result, seconds)``,
of wall time unless ``clock`` says otherwise (``time.process_time``: this process's CPU)."""

from __future__ import annotations

import time
from collections.abc import Callable


def timed(job: Callable[[], object], clock: Callable[[], float] = time.perf_counter) -> tuple[object, float]:
    """``job()``'s result and the seconds it took by ``clock``."""
    started = clock()
    result = job()
    return result, clock() - started


def best_of(repeats: int, job: Callable[[], object]) -> tuple[object, float]:
    """The last run's result and the fewest seconds any of ``repeats`` runs of ``job()`` took."""
    result, best = None, float("inf")
    for _ in range(repeats):
        result, seconds = timed(job)
        best = min(best, seconds)
    return result, best
