"""How every command ends: a `BpeError` is one line on stderr and exit status 1, Ctrl-C is
status 130, SIGTERM status 143, a reader that stops reading (``... | head``) status 141,
and none of them ever shows a traceback.

A bad option value (``--top-k 1000000``, ``--vocab-size 300.5``, ``--engine turbo``) is
a `BpeError` too (`parse_arguments`): argparse would print its usage block and exit 2,
a second format for the same kind of mistake as ``--vocab-size -1``, which the settings
refuse after parsing. A command line of the wrong shape (an unknown option, a missing
one, an option without its value) still gets argparse's usage, which is what helps there.

SIGTERM (what `kill` and service managers send) would end the process on the spot,
skipping every ``finally``: a download would leave its ``.part`` file, a build its
temporary files. `terminating_cleanly` turns it into an exception for the length of a
command, so the same clean-up that Ctrl-C gets runs for it too.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from bpe.errors import BpeError


class Parser(argparse.ArgumentParser):
    """An argument parser whose bad values reach `parse_arguments` as `argparse.ArgumentError`
    instead of exiting; its subcommands' parsers are of this class too (argparse makes
    them of the parent's class)."""

    def __init__(self, *args, exit_on_error: bool = False, **kwargs) -> None:
        super().__init__(*args, exit_on_error=exit_on_error, **kwargs)


def parse_arguments(parser: argparse.ArgumentParser, argv: list[str] | None):
    """``parser``'s namespace for ``argv``; a value an option refuses (its type or choices)
    is a `BpeError` naming the option and the value, e.g. "argument --top-k: 1000000 is
    outside 0..100"."""
    try:
        return parser.parse_args(argv)
    except argparse.ArgumentError as bad:
        if str(bad.message).startswith(_WRONG_SHAPE):  # a count of values, not a value: usage, status 2
            _command_parser(parser, sys.argv[1:] if argv is None else argv).error(str(bad))
        raise BpeError(str(bad)) from None


# argparse's words for an option given the wrong number of values ("--ids" with none), the
# one shape mistake that reaches `parse_arguments` as an ArgumentError rather than as usage
_WRONG_SHAPE = "expected "  # "expected one argument", "expected at least one argument", ...


def _command_parser(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.ArgumentParser:
    """The parser of the subcommand ``argv`` names (its usage is the one that helps), else ``parser``."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and argv and argv[0] in action.choices:
            return action.choices[argv[0]]
    return parser


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived: stop like Ctrl-C (the same clean-up runs), and exit with 143."""


# Set by `terminating_cleanly`'s handler when SIGTERM arrives. `Terminated` is raised wherever
# the main thread is, and there CPython may replace it with another exception: landing while
# ssl's ``from _ssl import RAND_egd`` built its ImportError (a download's first connection), it
# came out as "TypeError: expected a message argument", a traceback and status 1. Once the
# signal has arrived, whatever exception ends the command is that stop.
_sigterm_arrived = threading.Event()


def reporting_errors(action: Callable[[], int], *, interrupted: str | None = "interrupted") -> int:
    """Run ``action`` and return its exit status, turning errors into one clear line; Ctrl-C
    or SIGTERM says ``interrupted`` (None: nothing, for a server whose stop is its normal end
    and which says itself what it stopped)."""
    try:
        status = action()
        sys.stdout.flush()  # a reader gone shows here, not in the flush at exit (a traceback)
        return status
    except BpeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except MemoryError:
        # What a file or a setting would cost is bounded before the work wherever it can be
        # said (bpe.io.budget); what is left is this machine's memory running out.
        print("error: this machine ran out of memory; try a smaller input or setting", file=sys.stderr)
        return 1
    except KeyboardInterrupt as stop:
        return _stopped(stop, interrupted)
    except BrokenPipeError:
        return _reader_gone()
    except Exception:
        if not _sigterm_arrived.is_set():
            raise
        return _stopped(Terminated(), interrupted)


def _stopped(stop: KeyboardInterrupt, interrupted: str | None) -> int:
    """Say ``interrupted`` (unless None) and return the stop's exit status."""
    if interrupted is not None:
        print(f"\n{interrupted}", file=sys.stderr)
    return stop_status(stop)


def _reader_gone() -> int:
    """Standard output's reader closed the pipe (``python -m bpe inspect ... | head -8`` once
    ``head`` has its lines): stop quietly, as a command killed by SIGPIPE does, with its
    status, 128 + 13. What is still buffered for standard output goes to the null device,
    or flushing it at exit would raise again and print "Exception ignored ..." (Python's
    documentation, "Note on SIGPIPE", does the same)."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # a standard output that is no file (a test's capture)
        pass
    return 128 + signal.SIGPIPE


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
        _sigterm_arrived.set()
        raise Terminated()

    _sigterm_arrived.clear()
    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
