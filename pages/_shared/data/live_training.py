"""A training run on its own thread, shared by everyone waiting for the same settings.

A page that trains 50,000 merges live must not hold its visitor hostage: the merges are
learned on a thread (`LiveTraining`), the page draws the progress and a Stop button, and
whoever asked can leave with the merges learned so far (`RunInTraining.run`). One server
serves a class, and a class often asks for the same settings at once, so a training is
shared (`SharedTrainings`): the first asker starts it, the others join it, and it goes
on as long as anyone still waits for it. One visitor's Stop only takes that visitor
away: the training stops by itself once nobody is left (a closed tab counts as gone, see
the ``alive`` callables), and a stopped run is never kept as the finished one for others.

Nothing here is process-wide: whoever makes a `SharedTrainings` keeps it (the app keeps
one per server process).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from bpe.errors import BpeError
from bpe.run import RunInTraining, TrainingRun
from bpe.steps import StopReason
from bpe.training import TrainingSettings
from bpe.variants.rule_runs import start_training
from bpe.variants.rules import STANDARD_VARIANT, Variant

Alive = Callable[[], bool]  # is this watcher still there? (safe on any thread)
CHECK_SECONDS = 0.2  # how often the training looks whether anyone still waits: a stop takes at most this


@dataclass(frozen=True)
class Progress:
    """How far a training is: merges learned of those asked for, and at what pace."""

    merges: int
    target_merges: int
    seconds: float  # since the training started (its text's preparation included)
    preparing: bool  # the text is still being cut into chunks: no merge yet
    merging_seconds: float = 0.0  # since the first merge: the pace leaves the preparation out

    @property
    def merges_per_second(self) -> float:
        return (self.merges - 1) / self.merging_seconds if self.merges > 1 and self.merging_seconds > 0 else 0.0

    @property
    def seconds_left(self) -> float | None:
        """At the pace so far, until the target (training may stop sooner); None before a merge."""
        rate = self.merges_per_second
        return (self.target_merges - self.merges) / rate if rate > 0 else None

    @property
    def fraction(self) -> float:
        return min(self.merges / self.target_merges, 1.0) if self.target_merges > 0 else 1.0


class LiveTraining:
    """`bpe.run.train_run` of one text on a thread of its own (under ``variant``'s rule,
    `bpe.variants.rule_runs.start_training`), for watchers to wait on.

    Watchers (`watch`, `leave`) are whoever waits for the run; each may come with an
    ``alive`` callable that says False once it has gone. The training checks every
    `CHECK_SECONDS` and stops once no watcher is left. `result` is the finished run (None
    while training, after an error, or when it stopped for want of watchers), `error`
    the one-line reason it failed; `run_so_far` the merges learned until now.
    """

    def __init__(
        self, text: str, settings: TrainingSettings, *, heldout_text: str = "", variant: Variant = STANDARD_VARIANT
    ) -> None:
        self.settings = settings
        self.variant = variant  # the training rule (`bpe.variants`)
        self._text, self._heldout_text = text, heldout_text
        self._lock = threading.Lock()
        self._watchers: dict[Hashable, Alive | None] = {}
        self._unwanted = False  # nobody waits any more: the training stops (a joiner starts another)
        self._training: RunInTraining | None = None
        self._result: TrainingRun | None = None
        self._error: str | None = None
        self._started = time.monotonic()
        self._first_merge: float | None = None  # when the first merge was learned
        self._done = threading.Event()
        self._on_end: Callable[[LiveTraining], None] | None = None
        self._thread = threading.Thread(target=self._work, name="bpe-live-training", daemon=True)

    def start(self, on_end: Callable[[LiveTraining], None] | None = None) -> LiveTraining:
        """Start training; ``on_end`` is called on its thread once it has ended, however it ended."""
        self._on_end = on_end
        self._started = time.monotonic()
        self._thread.start()
        return self

    # ---------- watchers

    def watch(self, watcher: Hashable, alive: Alive | None = None) -> bool:
        """Wait for this run as ``watcher``; False when it is stopping for want of watchers
        (then start another)."""
        with self._lock:
            if self._unwanted:
                return False
            self._watchers[watcher] = alive
            return True

    def leave(self, watcher: Hashable) -> None:
        """``watcher`` waits no more; the training stops if it was the last."""
        with self._lock:
            self._watchers.pop(watcher, None)

    def watched_by(self, watcher: Hashable) -> bool:
        with self._lock:
            return watcher in self._watchers

    def _still_wanted(self) -> bool:
        with self._lock:
            for watcher, alive in list(self._watchers.items()):
                if alive is not None and not alive():
                    del self._watchers[watcher]
            if not self._watchers:
                self._unwanted = True
            return not self._unwanted

    # ---------- what it has

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the training has ended (or ``timeout`` seconds); True when it has."""
        return self._done.wait(timeout)

    @property
    def result(self) -> TrainingRun | None:
        return self._result

    @property
    def error(self) -> str | None:
        return self._error

    def progress(self) -> Progress:
        training = self._training
        settings = training.settings if training is not None else self.settings  # it knows the base tokens
        target = max(settings.target_vocab_size - len(settings.base_tokens or ()), 0)
        merges = training.merges if training is not None else 0
        now, first = time.monotonic(), self._first_merge
        merging = now - first if first is not None else 0.0
        return Progress(merges, target, now - self._started, training is None, merging)

    def run_so_far(self) -> TrainingRun | None:
        """The run of the merges learned until now (the finished run once done); None
        before training has begun or after an error."""
        if self._result is not None:
            return self._result
        training = self._training
        return training.run() if training is not None else None

    # ---------- the thread

    def _work(self) -> None:
        try:
            training = start_training(self._text, self.settings, self.variant, heldout_text=self._heldout_text)
            self._training = training
            checked = time.monotonic()
            for _ in training:
                now = time.monotonic()
                if self._first_merge is None:
                    self._first_merge = now
                if now - checked >= CHECK_SECONDS:
                    checked = now
                    if not self._still_wanted():
                        training.stop()
                        break
            run = training.run()
            if run.stop_reason is not StopReason.STOPPED:
                self._result = run
        except BpeError as error:
            self._error = str(error)
        except Exception as error:  # noqa: BLE001 - a thread that dies silently leaves its watchers waiting
            self._error = f"{type(error).__name__}: {error}"
        finally:
            self._text = self._heldout_text = ""  # the texts belong to the sessions, not to a finished job
            self._done.set()
            if self._on_end is not None:
                self._on_end(self)


class SharedTrainings:
    """The runs of one server: the last ``keep`` finished ones, and those training now, by
    key (whatever names a run's text and settings). A finished run is kept only when it
    ran to its end: a run stopped part way is never handed to another asker as the run."""

    def __init__(self, keep: int = 8) -> None:
        self.keep = keep
        self._lock = threading.Lock()
        self._finished: OrderedDict[Hashable, TrainingRun] = OrderedDict()
        self._training: dict[Hashable, LiveTraining] = {}

    def finished(self, key: Hashable) -> TrainingRun | None:
        with self._lock:
            run = self._finished.get(key)
            if run is not None:
                self._finished.move_to_end(key)
            return run

    def join(
        self, key: Hashable, make: Callable[[], LiveTraining], watcher: Hashable, alive: Alive | None = None
    ) -> LiveTraining:
        """The training of ``key``, joined as ``watcher``: the one under way, or a new one
        from ``make()`` (started here) when none is, or the one there is stopping."""
        with self._lock:
            found = self._training.get(key)
            if found is not None and found.watch(watcher, alive):
                return found
            training = make()
            training.watch(watcher, alive)
            self._training[key] = training
        return training.start(on_end=lambda ended: self._ended(key, ended))

    def training(self, key: Hashable) -> LiveTraining | None:
        with self._lock:
            return self._training.get(key)

    def _ended(self, key: Hashable, training: LiveTraining) -> None:
        with self._lock:
            if self._training.get(key) is training:
                del self._training[key]
            if training.result is not None:
                self._finished[key] = training.result
                self._finished.move_to_end(key)
                while len(self._finished) > self.keep:
                    self._finished.popitem(last=False)

    def clear(self) -> None:
        """Forget the finished runs (trainings under way go on for their watchers)."""
        with self._lock:
            self._finished.clear()
