"""Model jobs on a shared server (issue 15, point 2): a job stops when its owner (a browser
session) goes away, a server trains at most N at once and tells the rest where they stand,
stopping every job is prompt, and a job never changes torch's process-wide thread count."""

from __future__ import annotations

import os
import sys
import threading
import time

import pytest
import torch

from bpe import BPETokenizer
from bpe.lm.config import Budget, ModelConfig, TrainSettings
from bpe.lm.job import ExperimentJob, experiment_text
from bpe.lm.slots import JobSlots, MachineJobSlots, Place

torch.set_num_threads(1)  # tiny models: extra threads only add contention

TEXT = "the quick brown fox jumps over the lazy dog. " * 60
CONFIG = ModelConfig(vocab_size=1, block_size=16, width=32, depth=1, heads=4)
SETTINGS = TrainSettings(batch_size=4, eval_every=5, eval_windows=4, warm_up=False, device="cpu")
TOKENIZER = BPETokenizer.train(TEXT, target_vocab_size=len(set(TEXT)))


def job(seconds: float = 60.0, **options) -> ExperimentJob:
    return ExperimentJob(
        [("chars", TOKENIZER)],
        CONFIG,
        Budget(seconds=seconds),
        text=experiment_text(TEXT[:2000], TEXT[2000:2400]),
        settings=SETTINGS,
        **options,
    )


def until(condition, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def training(j: ExperimentJob) -> bool:
    return bool(j.snapshot().latest)


def test_a_job_stops_soon_after_its_owner_goes_away():
    owner_here = threading.Event()
    owner_here.set()
    j = job(seconds=300, owner_alive=owner_here.is_set).start()
    until(lambda: training(j))
    owner_here.clear()  # the tab was closed
    assert j.wait(timeout=20), "the job kept training for its owner who had gone"
    shared = j.snapshot()
    assert shared.abandoned and j.stop_requested
    assert shared.summaries[0].seconds < 60


def test_the_server_trains_one_job_per_slot_and_the_rest_wait_in_line():
    slots = JobSlots(1)
    first = job(seconds=300, slots=slots).start()
    until(lambda: training(first))
    second, third = job(slots=slots).start(), job(slots=slots).start()
    until(lambda: second.snapshot().place is not None and third.snapshot().place is not None)
    assert second.snapshot().place == Place(training=1, ahead=0)
    assert third.snapshot().place == Place(training=1, ahead=1)
    assert not training(second) and not training(third)

    third.stop()  # giving up a place in line ends the job at once, with nothing trained
    assert third.wait(timeout=5) and third.snapshot().summaries == []
    first.stop()
    assert first.wait(timeout=20)
    until(lambda: training(second))  # the next in line starts when the slot is free
    assert second.snapshot().place is None
    assert slots.stop_all(timeout=20) and not second.running
    assert slots.jobs() == []


def test_a_waiting_job_whose_owner_leaves_gives_up_its_place():
    slots = JobSlots(1)
    first = job(seconds=300, slots=slots).start()
    until(lambda: training(first))
    owner_here = threading.Event()
    owner_here.set()
    waiting = job(slots=slots, owner_alive=owner_here.is_set).start()
    until(lambda: waiting.snapshot().place is not None)
    owner_here.clear()
    assert waiting.wait(timeout=5) and waiting.snapshot().abandoned
    assert slots.jobs() == [first]
    assert slots.stop_all(timeout=20)


def test_stop_all_ends_every_job_promptly():
    slots = JobSlots(2)
    jobs = [job(seconds=300, slots=slots).start() for _ in range(3)]
    until(lambda: training(jobs[0]) and training(jobs[1]))
    started = time.monotonic()
    assert slots.stop_all(timeout=30)
    assert time.monotonic() - started < 30 and not any(j.running for j in jobs)


def test_a_stopping_server_gets_every_job_out_of_torch_within_a_step_on_a_slow_machine(monkeypatch):
    """Failure 17: stopping the server while a Model training ran aborted it (SIGABRT,
    "terminate called without an active exception") on a busy machine. Its log showed why:
    `stop_all` waited its 30 s and the job had not ended, because a stop summarises (the
    whole held-out text evaluated, a sample drawn) and the job's thread, at nice +10 behind
    the machine's other work, took longer than that; the interpreter then ended with the
    thread inside torch. A busy machine is made here by slowing every torch step: stopping
    the server now abandons the job between one step and the next, so it ends within a
    step however slow the machine, instead of after an evaluation and a sample."""
    from bpe.lm.model import TinyGPT

    real_forward = TinyGPT.forward

    def slow_forward(self, *args, **kwargs):  # every step, evaluation batch and sampled token: 50 ms more
        time.sleep(0.05)
        return real_forward(self, *args, **kwargs)

    slots = JobSlots(1)
    slow = ExperimentJob(
        [("chars", TOKENIZER)],
        CONFIG,
        Budget(seconds=300),
        text=experiment_text(TEXT[:2000], TEXT[2000:2600]),
        settings=TrainSettings(batch_size=4, eval_every=1000, eval_windows=600, warm_up=False, device="cpu"),
        slots=slots,
    ).start()
    until(lambda: training(slow))  # the first evaluation is done: it trains
    monkeypatch.setattr(TinyGPT, "forward", slow_forward)
    time.sleep(0.5)
    started = time.monotonic()
    assert slots.stop_all(timeout=3), "the job was still inside torch when the server would have ended"
    assert time.monotonic() - started < 3 and not slow.running
    assert slow.snapshot().summaries == [] and slow.snapshot().error is None  # nothing more computed, no error


def test_a_job_leaves_torch_thread_count_alone():
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        j = job(seconds=1).start()
        assert j.wait(timeout=60)
        assert torch.get_num_threads() == 2, "the job changed a process-wide setting"
        assert j.snapshot().summaries and j.snapshot().threads == 2
    finally:
        torch.set_num_threads(before)


def test_slots_must_be_a_positive_whole_number():
    with pytest.raises(ValueError, match="slots=0 must be a whole number >= 1"):
        JobSlots(0)


def thread_id(job) -> int | None:
    """The operating system's id of the job's training thread (None before `start`)."""
    return job._thread.native_id


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a thread's own nice value is Linux's")
def test_a_job_trains_at_the_niceness_it_was_given_and_leaves_the_other_threads_alone():
    """A server's students come first: its jobs' training thread is niced (issue 25), while the
    threads serving pages (here: this one) keep their priority."""
    mine = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    j = job(seconds=300, niceness=5).start()
    try:
        until(lambda: training(j))
        assert os.getpriority(os.PRIO_PROCESS, thread_id(j)) == min(mine + 5, 19)
        assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == mine, "the job niced another thread"
    finally:
        j.stop()
        assert j.wait(timeout=20)
    plain = job(seconds=300).start()  # a job given no niceness keeps its caller's
    try:
        until(lambda: training(plain))
        assert os.getpriority(os.PRIO_PROCESS, thread_id(plain)) == mine
    finally:
        plain.stop()
        assert plain.wait(timeout=20)


def test_a_job_whose_line_fails_says_why_instead_of_ending_silently(tmp_path):
    # The machine's line of jobs is a folder of lock files: one that cannot be made (here a
    # file stands where the folder should be) must reach the page as the job's error, not
    # end the job's thread with nothing shown.
    blocked = tmp_path / "model-slots"
    blocked.write_text("not a folder")
    failed = job(slots=MachineJobSlots(1, blocked)).start()
    assert failed.wait(timeout=30)
    shared = failed.snapshot()
    assert shared.error is not None and "could not take a turn to train" in shared.error
    assert str(tmp_path) not in shared.error  # a page never shows a server path
    assert not shared.summaries and not shared.abandoned
