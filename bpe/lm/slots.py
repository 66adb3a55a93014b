"""How many model jobs may train at once in one process, and the line the others wait in.

A web server shared by a class runs every visitor's job in one process on the same few
cores: two jobs at once each run at half speed (or worse), and thirty would stall the
pages. So a server keeps one `JobSlots`: a job takes a slot before it trains and gives it
back when it ends; while none is free it waits in line, first come first served, and its
page can say how many are ahead of it. Torch-free and Streamlit-free: the app keeps the
one instance (see `pages/_shared/model.py`); this module holds no global state.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from bpe.errors import BpeError

POLL_SECONDS = 0.25  # how often a waiting job checks whether it should give up


@dataclass(frozen=True)
class Place:
    """Where a waiting job stands: ``training`` jobs hold the slots, ``ahead`` wait before it."""

    training: int
    ahead: int


class JobSlots:
    """At most ``slots`` jobs train at once; the others wait their turn (thread-safe)."""

    def __init__(self, slots: int) -> None:
        if isinstance(slots, bool) or not isinstance(slots, int) or slots < 1:
            raise BpeError(f"slots={slots!r} must be a whole number >= 1")
        self.slots = slots
        self._changed = threading.Condition()
        self._training: list = []
        self._waiting: list = []  # in arrival order

    def wait_turn(self, job, give_up: Callable[[], bool]) -> bool:
        """Block until ``job`` holds a slot (True), or until ``give_up()`` is true (False,
        and the job has left the line). Every job that got a slot must `leave`."""
        with self._changed:
            self._waiting.append(job)
            try:
                while not (self._waiting[0] is job and len(self._training) < self.slots):
                    if give_up():
                        return False
                    self._changed.wait(POLL_SECONDS)
                self._training.append(job)
                return True
            finally:
                self._waiting.remove(job)
                self._changed.notify_all()

    def leave(self, job) -> None:
        """Give ``job``'s slot back (nothing happens if it holds none)."""
        with self._changed:
            if job in self._training:
                self._training.remove(job)
            self._changed.notify_all()

    def place(self, job) -> Place | None:
        """Where ``job`` waits, or None when it is not waiting (training, or done)."""
        with self._changed:
            if job not in self._waiting:
                return None
            return Place(len(self._training), self._waiting.index(job))

    def jobs(self) -> list:
        """Every job training or waiting now."""
        with self._changed:
            return [*self._training, *self._waiting]

    def stop_all(self, timeout: float) -> bool:
        """Ask every job to stop and wait up to ``timeout`` seconds for all to end (a server
        shutting down: a thread killed inside torch aborts the process). True when all ended."""
        jobs = self.jobs()
        for job in jobs:
            job.stop()
        ends = time.monotonic() + timeout
        return all(job.wait(max(0.0, ends - time.monotonic())) for job in jobs)
