"""The lecture hall's app processes: started, warmed, watched, started again, stopped.

Each app process is ``streamlit run app.py`` on a loopback port, in a process group of its
own (Ctrl-C at the terminal reaches only the lecture hall's command, which stops the
children in order), its output passed on line by line with its name in front
(``[app1 :8502] ...``). An app process that exits is started again on its port (up to 3
times in two minutes); one started again is warmed again for the class's link. Stopping
sends SIGTERM to each child's whole group, waits, then kills what is left. Should the
command itself be killed, the kernel kills each child (``PR_SET_PDEATHSIG``), so no app
process is left behind.

The warm-up (`warm_up.warm`) runs here, on a thread per app process: it is the app's own
client, imported, so the one place the lecture hall reaches into the app is an import
that tests/app/test_ui_layers.py sees.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from bpe.errors import BpeError
from bpe.paths import PROJECT_ROOT
from pages._shared.lecture_hall.proxy import HEALTH_PATH, Backend, healthy
from pages._shared.lecture_hall.warm_up import WarmingFailed, warm

# Streamlit's start-up lines name the app process's own loopback URL, which browsers must
# not use (it bypasses the proxy): the command prints the proxy's URL instead.
STREAMLIT_BANNER = ("You can now view your Streamlit app", "URL: http", "Local URL:", "Network URL:")
START_SECONDS = 120.0  # how long app processes may take to answer their health check
RESTARTS_PER_WINDOW, RESTART_WINDOW_SECONDS = 3, 120.0  # an app process that keeps exiting is given up
WARM_SECONDS = 1200.0  # a warm-up may train the class's run first: minutes on a big text
# Run first in each child: ask the kernel to kill it should this command die (Linux's
# PR_SET_PDEATHSIG, which survives the exec), then become the program itself (same pid).
# SIGKILL, not SIGTERM: with this command gone, a child's clean stop would write to a
# pipe nobody reads, and Streamlit's stop then never finishes.
DIE_WITH_PARENT = (
    "import ctypes, os, signal, sys\n"
    "try:\n"
    "    ctypes.CDLL(None).prctl(1, signal.SIGKILL)\n"
    "except (OSError, AttributeError):\n"
    "    pass\n"
    "os.execv(sys.argv[1], sys.argv[1:])\n"
)


def app_command(backend: Backend) -> list[str]:
    """`streamlit run app.py` for one local app process, headless, on loopback."""
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        "app.py",
        "--server.port",
        str(backend.port),
        "--server.address",
        backend.host,
        "--server.headless",
        "true",
        "--server.fileWatcherType",
        "none",
        "--browser.gatherUsageStats",
        "false",
    ]


@dataclass
class Child:
    name: str
    command: list[str]
    process: subprocess.Popen
    forwarder: threading.Thread


def start_child(name: str, command: list[str], *, env: dict, say: Callable[[str], None]) -> Child:
    """Start ``command`` in a process group of its own (Ctrl-C at the terminal reaches only
    this command, which stops the children in order); every line it prints is passed on
    with ``[name]`` in front."""
    process = subprocess.Popen(
        [sys.executable, "-c", DIE_WITH_PARENT, *command],
        cwd=PROJECT_ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
        bufsize=1,
        start_new_session=True,
    )

    def forward() -> None:
        for line in process.stdout:
            if line.strip() and not line.strip().startswith(STREAMLIT_BANNER):
                say(f"[{name}] {line.rstrip()}")

    forwarder = threading.Thread(target=forward, name=f"output of {name}", daemon=True)
    forwarder.start()
    return Child(name, command, process, forwarder)


def stop_children(children: list[Child], seconds: float) -> None:
    """SIGTERM each child's whole process group, wait up to ``seconds``, then SIGKILL."""
    for child in children:
        _signal_group(child.process, signal.SIGTERM)
    ends = time.monotonic() + seconds
    for child in children:
        try:
            child.process.wait(max(0.1, ends - time.monotonic()))
        except subprocess.TimeoutExpired:
            _signal_group(child.process, signal.SIGKILL)
            child.process.wait()
        _signal_group(child.process, signal.SIGKILL)  # anything the child started and left behind
        child.forwarder.join(timeout=2)


def _signal_group(process: subprocess.Popen, signum: int) -> None:
    try:
        os.killpg(process.pid, signum)
    except (ProcessLookupError, PermissionError):
        pass


@contextmanager
def signals_held() -> Iterator[None]:
    """While stopping, a second Ctrl-C or SIGTERM must not cut the stop short (leaving
    children behind): both are ignored inside, and put back after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, signal.SIG_IGN) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def wait_healthy(children: list[Child], backends: list[Backend], seconds: float) -> None:
    """Until every local app process answers its health check; `BpeError` if one exits."""
    waiting = dict(zip([c.name for c in children], backends))
    ends = time.monotonic() + seconds
    while waiting:
        for child in children:
            if child.name in waiting and child.process.poll() is not None:
                raise BpeError(
                    f"app process {child.name} exited with status {child.process.returncode} while starting "
                    "(its output is above)"
                )
        for name, backend in list(waiting.items()):
            if healthy(f"http://{backend.address}", timeout=1.0):
                del waiting[name]
        if waiting and time.monotonic() > ends:
            raise BpeError(f"app processes {', '.join(waiting)} did not answer {HEALTH_PATH} within {seconds:g} s")
        if waiting:
            time.sleep(0.25)


# ==================== Warming for the class's link


def warm_backends(backends: dict[str, Backend], link: str, *, say: Callable[[str], None]) -> None:
    """Warm every app process for ``link`` at once (a thread each) and wait for all of them.
    One that cannot be warmed is said, not fatal: its first students compute what it lacks,
    as without a warm-up. Each line is said with ``[warm NAME]`` in front."""
    threads = [
        threading.Thread(target=_warm_one, args=(name, backend, link, say), name=f"warm {name}", daemon=True)
        for name, backend in backends.items()
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def _warm_one(name: str, backend: Backend, link: str, say: Callable[[str], None]) -> None:
    try:
        done = warm(f"http://{backend.address}", link, seconds=WARM_SECONDS)
    except WarmingFailed as failed:
        say(f"[warm {name}] not warmed: {failed}")
        return
    say(f"[warm {name}] warmed {len(done.pages)} pages in {done.seconds:.1f} s")
    for problem in done.problems:
        say(f"[warm {name}] note: {problem}")


def _warm_when_healthy(name: str, backend: Backend, link: str, *, say: Callable[[str], None]) -> None:
    """Warm a process started again, on a thread of its own once it answers (the others
    serve on meanwhile)."""

    def run() -> None:
        ends = time.monotonic() + START_SECONDS
        while not healthy(f"http://{backend.address}", timeout=1.0):
            if time.monotonic() > ends:
                return  # watch() says what became of the process
            time.sleep(0.5)
        warm_backends({name: backend}, link, say=say)

    threading.Thread(target=run, name=f"warm {name} again", daemon=True).start()


# ==================== Watching


def watch(
    children: list[Child],
    *,
    env: dict,
    say: Callable[[str], None],
    warm_link: str | None = None,
    backends: dict[str, Backend] | None = None,
) -> None:
    """Until stopped: an app process that exits is started again on its port (the proxy
    sends no browser there until its health check passes; its students' pages start
    afresh), unless it keeps exiting; the proxy exiting ends the command. With
    ``warm_link``, a process started again is warmed again, beside its first students."""
    starts: dict[str, list[float]] = {}
    while True:
        for index, child in enumerate(children):
            status = child.process.poll()
            if status is None:
                continue
            if child.name == "haproxy":
                raise BpeError(f"haproxy exited with status {status} (its output is above); stopped the app processes")
            recent = [t for t in starts.get(child.name, []) if time.monotonic() - t < RESTART_WINDOW_SECONDS]
            if len(recent) >= RESTARTS_PER_WINDOW:
                raise BpeError(
                    f"app process {child.name} exited {len(recent) + 1} times within {RESTART_WINDOW_SECONDS:g} s "
                    f"(last status {status}; its output is above); stopped the others"
                )
            say(f"app process {child.name} exited with status {status}; starting it again")
            child.forwarder.join(timeout=2)
            starts[child.name] = [*recent, time.monotonic()]
            children[index] = start_child(child.name, child.command, env=env, say=say)
            if warm_link is not None and backends and child.name in backends:
                _warm_when_healthy(child.name, backends[child.name], warm_link, say=say)
        time.sleep(0.5)
