"""A character-vs-BPE experiment run in a background thread, for a page to poll.

Unlike `experiment.train_model_per_tokenizer` (a generator the caller drives), an
`ExperimentJob` drives that generator itself, on its own thread, and keeps what it yields:
the page that started it returns at once, redraws from `snapshot()` on a timer, and a
Stop button calls `stop()`, which the training loop checks between steps. The job holds
no global state: whoever starts it keeps it (a page keeps it in its session).

A job can be tied to its owner (``owner_alive``: the app passes "is this browser session
still connected?") and then stops by itself once the owner has gone, and it can take its
turn in a server's `bpe.lm.slots.JobSlots` (``slots``) before it trains, and train at a
lower priority than the server's own threads (``niceness``: its thread's alone). It never
changes process-wide settings such as torch's thread count: that is the caller's policy
(the app sets it once per server, see `training_threads`).

Also here, torch-free, is what a page offers and sends: the model shapes, the text
(training text, then held-out text) and the training settings for it.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from bpe.errors import BpeError
from bpe.lm.config import Abandoned, Budget, ModelConfig, TrainSettings
from bpe.lm.slots import JobSlots, Place

# The shapes a page offers; vocab_size is each tokenizer's own (1 is a placeholder).
MODEL_SHAPES = {
    "tiny": ModelConfig(vocab_size=1, block_size=64, width=64, depth=2, heads=4),
    "small": ModelConfig(vocab_size=1, block_size=64, width=128, depth=4, heads=4),  # the CLI's default
    "medium": ModelConfig(vocab_size=1, block_size=128, width=192, depth=6, heads=6),
}
DEFAULT_SHAPE = "small"
TRAIN_CHARS = 500_000  # encoding stays quick (about a second for BPE) and the models never run out of text
HELDOUT_CHARS = 10_000  # scored in full at every evaluation: short enough to score often (docs/speed.md)
EVAL_EVERY = 25  # optimizer steps between held-out evaluations: a few seconds of CPU training for "small"


@dataclass(frozen=True)
class ExperimentText:
    """The text handed to `train_model_per_tokenizer` and the fraction of it held out.

    tokenizer_saw_heldout is True when there was no held-out text to use, so the end of
    the training text (which the BPE tokenizer was trained on) is held out instead.
    """

    text: str
    heldout_fraction: float
    heldout_chars: int
    tokenizer_saw_heldout: bool


def experiment_text(
    train_text: str, heldout_text: str, *, train_chars: int = TRAIN_CHARS, heldout_chars: int = HELDOUT_CHARS
) -> ExperimentText:
    """Join the start of the training text and the start of the held-out text, with the
    fraction that makes `split_text` cut exactly between them: the models are then scored
    on text that neither they nor the tokenizer trained on.

    Example: ("abcdefgh", "ij") -> text "abcdefghij", heldout_fraction 0.2, split back into
    "abcdefgh" and "ij".
    """
    train, held = train_text[:train_chars], heldout_text[:heldout_chars]
    if not train:
        raise BpeError("the training text is empty; choose a corpus with some text in the sidebar")
    if held:
        return ExperimentText(train + held, len(held) / (len(train) + len(held)), len(held), False)
    held_chars = max(1, min(heldout_chars, len(train) // 10))  # nothing held out in the sidebar: take the end
    return ExperimentText(train, held_chars / len(train), held_chars, True)


def train_settings(config: ModelConfig, heldout_chars: int, *, device: str | None = None) -> TrainSettings:
    """Settings for a page's experiment: enough evaluation windows to score the whole
    held-out text (so every tokenizer is scored on the same characters)."""
    windows = heldout_chars // config.block_size + 1  # a character-level model needs the most
    return TrainSettings(eval_every=EVAL_EVERY, eval_windows=windows, device=device)


def training_slots() -> int:
    """How many jobs a server trains at once: one per two cores (at least one), so the
    jobs together use half the machine and the web server keeps the rest."""
    return max(1, min(8, (os.cpu_count() or 1) // 2))


def training_threads() -> int:
    """torch CPU threads per job when `training_slots` jobs run at once: half the cores
    shared among them (at least one). On a busy machine more threads make torch slower,
    not faster. torch's setting is process-wide, so only an entry point applies it."""
    return max(1, ((os.cpu_count() or 1) // 2) // training_slots())


def lower_this_thread(niceness: int) -> None:
    """Give the calling thread ``niceness`` more nice steps (the scheduler's priority; 19
    at most), so that on a busy machine whatever else runs goes first. Linux keeps a nice
    value per thread, so the process's other threads (a server's, answering pages) keep
    theirs; where the value is the whole process's, this does nothing. A thread cannot be
    made less nice again without privileges: call it only on a thread of its own."""
    if niceness <= 0 or not sys.platform.startswith("linux"):
        return
    thread = threading.get_native_id()
    try:
        os.setpriority(os.PRIO_PROCESS, thread, min(os.getpriority(os.PRIO_PROCESS, thread) + niceness, 19))
    except OSError:  # not allowed here (a sandbox): the job trains at its caller's priority
        pass


@dataclass
class _Shared:
    """What the worker thread writes and the page reads, under the job's lock."""

    evaluated: list = field(default_factory=list)  # ExperimentProgress records with an evaluation
    latest: dict = field(default_factory=dict)  # tokenizer name -> its last TrainProgress
    summaries: list = field(default_factory=list)  # ModelSummary, in training order
    device: str | None = None
    threads: int | None = None
    error: str | None = None
    place: Place | None = None  # where the job waits for a free slot; None once it trains (or without slots)
    abandoned: bool = False  # stopped because its owner (a browser session) went away


class ExperimentJob:
    """One `train_model_per_tokenizer` run on a daemon thread. Start it with `start()`.

    tokenizers are (name, tokenizer) pairs; a tokenizer needs encode, decode, itos,
    vocab_size and fingerprint() (see `TokenizerSpec.from_tokenizer`). torch is imported
    on the worker thread, so creating and starting a job is instant. ``niceness`` (0: none)
    lowers the worker thread's priority (`lower_this_thread`) before it waits or trains.
    """

    def __init__(
        self,
        tokenizers: Sequence[tuple[str, object]],
        config: ModelConfig,
        budget: Budget,
        *,
        text: ExperimentText,
        settings: TrainSettings,
        slots: JobSlots | None = None,
        owner_alive: Callable[[], bool] | None = None,
        niceness: int = 0,
    ) -> None:
        if len(tokenizers) < 1:
            raise BpeError("choose at least one tokenizer to train a model on")
        self.names = [name for name, _ in tokenizers]
        self.config, self.budget, self.text, self.settings = config, budget, text, settings
        self._tokenizers = list(tokenizers)
        self._slots = slots
        self._owner_alive = owner_alive
        self.niceness = niceness
        self._stop = threading.Event()
        self._abandon = threading.Event()
        self._lock = threading.Lock()
        self._shared = _Shared()
        self._thread = threading.Thread(target=self._work, name="bpe-lm-experiment", daemon=True)
        self.started_at: float | None = None

    def tokenizer(self, name: str):
        """The tokenizer the model ``name`` trained on (to spell its token ids)."""
        return dict(self._tokenizers)[name]

    def start(self) -> ExperimentJob:
        self.started_at = time.monotonic()
        self._thread.start()
        return self

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def stop(self) -> None:
        """Ask the job to stop: the model in training is summarised and no other starts."""
        self._stop.set()

    def abandon(self) -> None:
        """Stop at once, with no summary: the job's thread leaves torch between one step (or
        evaluation batch, or sampled token) and the next, and its model is dropped. For a
        server stopping (`bpe.lm.slots.JobSlots.stop_all`). A stop that summarises evaluates
        the whole held-out text and samples a text first, and a job trains at a low priority
        (``niceness``): on a busy machine that took more than the 30 s a stopping server
        waits, and the interpreter then ended with the thread inside torch, which aborts the
        process ("terminate called without an active exception", SIGABRT)."""
        self._abandon.set()
        self._stop.set()

    @property
    def stop_requested(self) -> bool:
        return self._stop.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the job ends (for scripts and tests); True when it has ended."""
        self._thread.join(timeout)
        return not self.running

    def snapshot(self) -> _Shared:
        """A copy of what the job has so far, safe to read while it runs."""
        place = self._slots.place(self) if self._slots is not None else None
        with self._lock:
            s = self._shared
            return _Shared(
                list(s.evaluated), dict(s.latest), list(s.summaries), s.device, s.threads, s.error, place, s.abandoned
            )

    def _should_stop(self) -> bool:
        """Stop asked for, or the owner gone (then the job stops for good, and says why)."""
        if self._stop.is_set():
            return True
        if self._owner_alive is not None and not self._owner_alive():
            with self._lock:
                self._shared.abandoned = True
            self._stop.set()
            return True
        return False

    def _work(self) -> None:
        lower_this_thread(self.niceness)
        try:
            if self._slots is not None and not self._slots.wait_turn(self, give_up=self._should_stop):
                return  # stopped (or abandoned) while waiting: nothing trained, nothing to show
        except Exception:  # noqa: BLE001 - e.g. the machine's lock folder gone: say so, never end silently
            # The lock error names a server path: the page gets words, the server's log (stderr)
            # the traceback, as for any thread that fails.
            traceback.print_exc(file=sys.stderr)
            self._fail(
                "could not take a turn to train: the server's line of model jobs cannot be used now; "
                "try again, and if it persists tell whoever runs the server"
            )
            return
        try:
            self._train()
        finally:
            if self._slots is not None:
                self._slots.leave(self)

    def _train(self) -> None:
        try:
            import torch

            from bpe.lm.experiment import ExperimentProgress, TokenizerSpec, train_model_per_tokenizer
            from bpe.lm.train import default_device

            device = torch.device(self.settings.device) if self.settings.device else default_device()
            with self._lock:
                self._shared.device, self._shared.threads = str(device), torch.get_num_threads()
            specs = [TokenizerSpec.from_tokenizer(name, tokenizer) for name, tokenizer in self._tokenizers]
            records = train_model_per_tokenizer(
                specs,
                self.config,
                self.budget,
                text=self.text.text,
                settings=self.settings,
                heldout_fraction=self.text.heldout_fraction,
                should_stop=self._should_stop,
                abandoned=self._abandon.is_set,
            )
            for record in records:
                with self._lock:
                    if isinstance(record, ExperimentProgress):
                        self._shared.latest[record.tokenizer] = record.progress
                        if record.progress.evaluation is not None:
                            self._shared.evaluated.append(record)
                    else:
                        self._shared.summaries.append(record)
        except Abandoned:
            return  # abandoned: nothing more to compute or show
        except BpeError as error:
            self._fail(str(error))
        except Exception as error:  # noqa: BLE001 - a thread that dies silently leaves the page waiting
            self._fail(f"{type(error).__name__}: {error}")

    def _fail(self, message: str) -> None:
        with self._lock:
            self._shared.error = message
