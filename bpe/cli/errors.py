"""How every command ends: a `BpeError` is one line on stderr and exit status 1, Ctrl-C is
status 130, SIGTERM status 143, and none of them ever shows a traceback.

SIGTERM (what `kill` and service managers send) would end the process on the spot,
skipping every ``finally``: a download would leave its ``.part`` file, a build its
temporary files. `terminating_cleanly` turns it into an exception for the length of a
command, so the same clean-up that Ctrl-C gets runs for it too.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from bpe.errors import BpeError


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived: stop like Ctrl-C (the same clean-up runs), and exit with 143."""


def reporting_errors(action: Callable[[], int], *, interrupted: str = "interrupted") -> int:
    """Run ``action`` and return its exit status, turning errors into one clear line."""
    try:
        return action()
    except BpeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as stop:
        print(f"\n{interrupted}", file=sys.stderr)
        return stop_status(stop)


def stop_status(stop: KeyboardInterrupt) -> int:
    """The exit status of a command stopped by Ctrl-C (130) or SIGTERM (143)."""
    return 143 if isinstance(stop, Terminated) else 130


@contextmanager
def terminating_cleanly() -> Iterator[None]:
    """While inside, SIGTERM raises `Terminated` (in the main thread, where signals land).
    For the command line's entry point only: it sets a process-wide signal handler, and
    puts the previous one back on the way out."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame) -> None:
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
