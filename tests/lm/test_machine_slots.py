"""Model jobs are capped per machine, not per process (issue 25): two server processes that
share a slots folder never train more than the cap together, and a process that dies
gives its slot and its place in line back at once."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
import time

import pytest
from helpers import ROOT

from bpe.errors import BpeError
from bpe.lm.slots import MachineJobSlots, Place

# A server process in miniature: `jobs` jobs on threads, each holding a slot for `hold`
# seconds and printing when it had it (CLOCK_MONOTONIC is one clock for the machine).
PROCESS = textwrap.dedent(
    """
    import json, sys, threading, time
    from bpe.lm.slots import MachineJobSlots
    folder, cap, jobs, hold = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    slots = MachineJobSlots(cap, folder)
    printing = threading.Lock()  # print writes a line and its newline apart: two threads could mix them
    print("ready", flush=True)

    def job(number):
        me = object()
        assert slots.wait_turn(me, give_up=lambda: False)
        started = time.monotonic()
        time.sleep(hold)
        ended = time.monotonic()
        slots.leave(me)
        with printing:
            print(json.dumps([started, ended]), flush=True)

    threads = [threading.Thread(target=job, args=(n,)) for n in range(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    """
)


def server_process(folder, cap: int, jobs: int, hold: float) -> subprocess.Popen:
    process = subprocess.Popen(
        [sys.executable, "-c", PROCESS, str(folder), str(cap), str(jobs), str(hold)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout.readline().strip() == "ready"
    return process


def intervals(process: subprocess.Popen) -> list[tuple[float, float]]:
    out, _ = process.communicate(timeout=60)
    assert process.returncode == 0
    return [tuple(json.loads(line)) for line in out.splitlines()]


def most_at_once(spans: list[tuple[float, float]]) -> int:
    events = sorted([(start, 1) for start, _ in spans] + [(end, -1) for _, end in spans])
    running = most = 0
    for _, change in events:  # an end sorts before a start at the same instant
        running += change
        most = max(most, running)
    return most


@pytest.mark.parametrize("cap", [1, 2])
def test_two_processes_together_never_train_more_than_the_cap(tmp_path, cap):
    # Each job holds its slot for longer than a waiting job takes to notice a free one
    # (POLL_SECONDS), even on a busy machine, so the slots are used together.
    first, second = (server_process(tmp_path, cap, jobs=3, hold=0.4 if cap == 1 else 1.0) for _ in range(2))
    spans = intervals(first) + intervals(second)
    assert len(spans) == 6
    assert most_at_once(spans) == cap  # never more, and the free slots were used


def test_a_killed_process_gives_its_slot_back_at_once(tmp_path):
    holder = server_process(tmp_path, 1, jobs=1, hold=600)
    slots = MachineJobSlots(1, tmp_path)
    deadline = time.monotonic() + 10
    while slots.training_now() == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert slots.training_now() == 1
    waiter, got = object(), threading.Event()
    thread = threading.Thread(target=lambda: slots.wait_turn(waiter, give_up=lambda: False) and got.set())
    thread.start()
    time.sleep(0.6)
    assert not got.is_set() and slots.place(waiter) == Place(training=1, ahead=0)
    holder.kill()
    holder.wait()
    thread.join(timeout=5)
    assert got.is_set()
    slots.leave(waiter)
    assert slots.training_now() == 0


def test_the_line_is_first_come_first_served_across_processes(tmp_path):
    holder = server_process(tmp_path, 1, jobs=1, hold=600)
    here = MachineJobSlots(1, tmp_path)
    while here.training_now() == 0:
        time.sleep(0.05)
    # A job of another process joins the line, then its process dies: its ticket is not ahead.
    abandoned = server_process(tmp_path, 1, jobs=1, hold=0)
    time.sleep(0.5)
    first, second = object(), object()
    threads = []
    for job in (first, second):
        threads.append(threading.Thread(target=here.wait_turn, args=(job, lambda: False)))
        threads[-1].start()
        time.sleep(0.4)
    assert here.place(first) == Place(training=1, ahead=1) and here.place(second) == Place(training=1, ahead=2)
    abandoned.kill()
    abandoned.wait()
    time.sleep(0.6)
    assert here.place(first) == Place(training=1, ahead=0) and here.place(second) == Place(training=1, ahead=1)
    holder.kill()
    holder.wait()
    threads[0].join(timeout=5)
    assert here.place(first) is None and here.jobs() == [first, second]
    here.leave(first)
    threads[1].join(timeout=5)
    assert here.jobs() == [second] and here.place(second) is None
    here.leave(second)


def test_a_waiting_job_that_gives_up_leaves_the_line(tmp_path):
    holder = server_process(tmp_path, 1, jobs=1, hold=600)
    slots = MachineJobSlots(1, tmp_path)
    while slots.training_now() == 0:
        time.sleep(0.05)
    started = time.monotonic()
    assert slots.wait_turn(object(), give_up=lambda: time.monotonic() - started > 0.5) is False
    assert list((tmp_path / "line").glob("*.ticket")) == [] and slots.jobs() == []
    holder.kill()
    holder.wait()


def test_slots_must_be_a_positive_whole_number(tmp_path):
    with pytest.raises(BpeError, match="slots=0"):
        MachineJobSlots(0, tmp_path)
