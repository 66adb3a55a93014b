"""How many model jobs may train at once, and the line the others wait in.

A web server shared by a class runs every visitor's job on the same few cores: two jobs
at once each run at half speed (or worse), and thirty would stall the pages. So a server
keeps one `JobSlots`: a job takes a slot before it trains and gives it back when it ends;
while none is free it waits in line, first come first served, and its page can say how
many are ahead of it.

`JobSlots` is the line of one process. A lecture hall runs several server processes on
one machine (`python -m pages._shared.lecture_hall`), which share the cores, so the cap belongs to the
machine: `MachineJobSlots` keeps the line and the slots as locked files in a folder that
every process of the machine uses (`bpe.paths.machine_dir`), so that all of them together
never train more than the cap. Torch-free and Streamlit-free: the app keeps the one
instance (see `pages/_shared/data/jobs.py`); this module holds no global state.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bpe.errors import BpeError
from bpe.io.locks import TicketLine, try_lock, unlock

POLL_SECONDS = 0.25  # how often a waiting job checks whether it should give up, or may start


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
        """Abandon every job (`bpe.lm.job.ExperimentJob.abandon`: out of torch between one
        step and the next, no summary) and wait up to ``timeout`` seconds for all to end: a
        server shutting down, whose interpreter would end a thread still inside torch and
        abort the process. True when all ended."""
        jobs = self.jobs()
        for job in jobs:
            job.abandon()
        ends = time.monotonic() + timeout
        return all(job.wait(max(0.0, ends - time.monotonic())) for job in jobs)


class MachineJobSlots(JobSlots):
    """At most ``slots`` jobs train at once among *all* the processes that give the same
    ``folder``; the others wait their turn, first come first served across processes.

    A slot is the lock on ``<folder>/slot-<i>.lock``; the line is a `bpe.io.locks.TicketLine`
    in ``<folder>/line``. Both are kernel file locks, so a process that dies (even killed)
    gives its slot and its place back at once. Every waiting job looks again every
    `POLL_SECONDS`: a freed slot is taken within that time by the first in line.
    """

    def __init__(self, slots: int, folder: str | os.PathLike[str]) -> None:
        super().__init__(slots)
        self.folder = Path(folder)
        self._line = TicketLine(self.folder / "line")
        self._held: dict[int, int] = {}  # id(job) -> the descriptor holding its slot's lock
        self._places: dict[int, Place] = {}  # id(job) -> where it waited when last looked

    def wait_turn(self, job, give_up: Callable[[], bool]) -> bool:
        ticket, ticket_fd = self._line.join()
        try:
            while True:
                ahead = self._line.ahead(ticket)
                slot = self._take_slot() if ahead == 0 else None
                with self._changed:
                    if slot is not None:
                        self._training.append(job)
                        self._held[id(job)] = slot
                        return True
                    self._places[id(job)] = Place(self.training_now(), ahead)
                    if job not in self._waiting:  # listed once its place is known
                        self._waiting.append(job)
                if give_up():
                    return False
                time.sleep(POLL_SECONDS)
        finally:
            self._line.leave(ticket, ticket_fd)
            with self._changed:
                if job in self._waiting:
                    self._waiting.remove(job)
                self._places.pop(id(job), None)

    def leave(self, job) -> None:
        with self._changed:
            if job in self._training:
                self._training.remove(job)
                unlock(self._held.pop(id(job)))

    def place(self, job) -> Place | None:
        with self._changed:
            return self._places.get(id(job)) if job in self._waiting else None

    def training_now(self) -> int:
        """How many slots are taken on the machine now (by any process)."""
        free = 0
        for index in range(self.slots):
            fd = try_lock(self._slot_path(index))
            if fd is not None:
                free += 1
                unlock(fd)
        return self.slots - free

    def _take_slot(self) -> int | None:
        for index in range(self.slots):
            fd = try_lock(self._slot_path(index))
            if fd is not None:
                return fd
        return None

    def _slot_path(self, index: int) -> Path:
        return self.folder / f"slot-{index}.lock"
