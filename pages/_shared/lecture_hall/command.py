"""The lecture hall's command: N app processes behind one sticky proxy.

    python -m pages._shared.lecture_hall                                  # one app process per core, proxy on :8501
    python -m pages._shared.lecture_hall --processes 2 --port 8501
    python -m pages._shared.lecture_hall --warm "http://lab:8501/?corpus=Tiny+Shakespeare&vocab=1000"   # ready for the class's link
    python -m pages._shared.lecture_hall --backend 10.0.0.5:8501 --backend 10.0.0.6:8501   # processes on other machines

Why several processes: a Streamlit server runs every session's script under one
interpreter lock, so one process is the ceiling of a class however many cores the machine
has. Why a proxy that sticks: a session lives in the process that made it (`proxy`).

The order of a run: check everything that can be checked before anything starts (haproxy
is there, the ports are free, haproxy accepts its configuration), start the app processes
and wait for their health checks, warm them for the class's link (``--warm``), then start
the proxy and print the one URL to give the class; then watch the processes until Ctrl-C
or SIGTERM, which stop the proxy first, then every app process (`app_processes`). Every
`BpeError` is one line on stderr and exit status 1, as on BPE Lab's command line.
"""

from __future__ import annotations

import argparse
import importlib.util
import ipaddress
import os
import secrets
import socket
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from bpe.cli.arguments import at_least_one, port_number, seconds
from bpe.cli.errors import Parser, parse_arguments, reporting_errors, terminating_cleanly
from bpe.errors import BpeError
from bpe.scale.count_phase import available_cores
from bpe.training_memory import available_memory_bytes
from pages._shared.lecture_hall.app_processes import (
    START_SECONDS,
    Child,
    app_command,
    signals_held,
    start_child,
    stop_children,
    wait_healthy,
    warm_backends,
    watch,
)
from pages._shared.lecture_hall.proxy import (
    DEFAULT_PORT,
    HEALTH_PATH,
    Backend,
    check_config,
    check_port_free,
    find_haproxy,
    haproxy_config,
    healthy,
    local_backends,
    parse_backend,
    wait_listening,
)

PROGRAM = "python -m pages._shared.lecture_hall"
STOP_SECONDS = 40.0  # an app process stopping waits up to 30 s for model jobs to end their step
# Streamlit's "performance" extra (requirements.txt pins both): with them its server runs
# on uvloop and parses HTTP with httptools, and a page visit costs an app process less CPU
# (`load.page_cost` measures it; docs/speed.md), which is what a lecture hall runs out of.
SPEEDUPS = ("uvloop", "httptools")
# What one app process holds once its class is in (docs/speed.md: 380 MB measured), and
# the most app processes a core carries: each runs its sessions under one interpreter
# lock, so a second process on a core adds memory, not speed.
APP_PROCESS_BYTES = 384 << 20
PROCESSES_PER_CORE = 1


def main(argv: list[str] | None = None) -> int:
    parser = make_parser()
    with terminating_cleanly():
        # Ctrl-C and SIGTERM are how a lecture hall ends: it says what it stopped, not "interrupted"
        return reporting_errors(lambda: run_lecture_hall(parse_arguments(parser, argv)), interrupted=None)


def make_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog=PROGRAM,
        description="BPE Lab's lecture hall: several app processes behind haproxy, each browser kept on its process.",
    )
    p.add_argument(
        "--processes",
        type=at_least_one,
        default=os.cpu_count() or 1,
        help=f"app processes to start on this machine (default: one per core, {os.cpu_count() or 1} here)",
    )
    p.add_argument(
        "--port",
        type=port_number,
        default=DEFAULT_PORT,
        help=f"the proxy's port, the one browsers open (default {DEFAULT_PORT}); "
        "local app processes take the ports after it",
    )
    p.add_argument(
        "--address",
        default="0.0.0.0",
        help="where the proxy listens (default 0.0.0.0: every interface, so a class can reach it; "
        "127.0.0.1 for this machine only); app processes always listen on loopback",
    )
    p.add_argument(
        "--backend",
        type=parse_backend,
        action="append",
        metavar="HOST:PORT",
        help="send browsers to an app process already running there (repeat for each); no local processes are started",
    )
    p.add_argument(
        "--warm",
        metavar="LINK",
        help="the class's link (as the app's \"Copy link\" gives it): each app process opens it and every page "
        "once before the proxy lets browsers in, so the students find its results computed",
    )
    p.add_argument("--haproxy", help="the haproxy program (default: haproxy on PATH, or /usr/sbin/haproxy)")
    p.add_argument(
        "--stop-seconds",
        type=seconds,
        default=STOP_SECONDS,
        help=f"how long stopping waits for each app process before killing it (default {STOP_SECONDS:g})",
    )
    return p


def run_lecture_hall(args, *, say: Callable[[str], None] | None = None) -> int:
    """Check, start, warm, open, watch; stop everything on the way out (see the module's docstring)."""
    say = say or (lambda line: print(line, flush=True))
    haproxy = find_haproxy(args.haproxy)
    remote = args.backend is not None
    backends = args.backend if remote else local_backends(args.port, args.processes)
    _check_before_starting(args, backends, remote)
    # Every local process signs cookies with the same secret, as Streamlit asks of replicas.
    env = {**os.environ, "STREAMLIT_SERVER_COOKIE_SECRET": secrets.token_hex(32)}
    children: list[Child] = []
    with tempfile.TemporaryDirectory(prefix="bpe-lecture-hall-") as folder:
        config = Path(folder) / "haproxy.cfg"
        config.write_text(haproxy_config(args.address, args.port, backends), encoding="utf-8")
        check_config(haproxy, config)
        try:
            named = _start_app_processes(children, backends, remote, env=env, say=say)
            if args.warm is not None:
                warm_backends(named, args.warm, say=say)
            children.insert(0, start_child("haproxy", [haproxy, "-db", "-f", str(config)], env=env, say=say))
            wait_listening(args.address, args.port, children[0].process)
            say(_serving_line(args.address, args.port, backends, remote))
            for backend in backends if remote else []:
                if not healthy(f"http://{backend.address}"):
                    say(
                        f"note: {backend.address} does not answer {HEALTH_PATH} yet; browsers go elsewhere until it does"
                    )
            watch(children, env=env, say=say, warm_link=args.warm, backends={} if remote else named)
        finally:
            with signals_held():
                stop_children(children, args.stop_seconds)
                if children:
                    say("stopped the proxy" if remote else _stopped_line(children))


def _check_before_starting(args, backends: list[Backend], remote: bool) -> None:
    """One line for each mistake that would otherwise surface after processes started."""
    _check_address(args.address)
    if not remote:
        check_processes(args.processes)
    if not remote and args.port + args.processes > 65535:
        raise BpeError(f"--port {args.port} leaves no room for {args.processes} app processes after it")
    check_port_free(args.address, args.port, "proxy")
    for backend in [] if remote else backends:
        check_port_free(backend.host, backend.port, f"app process {backend.port}")


def _start_app_processes(
    children: list[Child], backends: list[Backend], remote: bool, *, env: dict, say: Callable[[str], None]
) -> dict[str, Backend]:
    """Start the local app processes (none with ``--backend``) into ``children`` and wait for
    their health checks; each app process by the name the command says it under (its
    child's, or its address)."""
    if remote:
        return {b.address: b for b in backends}
    note = speedups_note()
    if note:
        say(note)
    for n, backend in enumerate(backends, start=1):
        children.append(start_child(f"app{n} :{backend.port}", app_command(backend), env=env, say=say))
    wait_healthy(children, backends, START_SECONDS)
    return dict(zip([c.name for c in children], backends))


def speedups_note(installed: Callable[[str], bool] | None = None) -> str | None:
    """A line for the teacher when the app processes will run without `SPEEDUPS` (they
    start with this Python), or None."""
    installed = installed or (lambda name: importlib.util.find_spec(name) is not None)
    missing = [name for name in SPEEDUPS if not installed(name)]
    if not missing:
        return None
    return (
        f"note: {' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} not installed in {sys.executable}: "
        "each app process spends about half as much CPU again on a page visit "
        "(pip install -r requirements.txt installs them)"
    )


def _serving_line(address: str, port: int, backends: list[Backend], remote: bool) -> str:
    shown = socket.gethostname() if address in ("0.0.0.0", "::") else address
    count = f"{len(backends)} app process" + ("es" if len(backends) > 1 else "")
    if remote:
        where = "at " + ", ".join(b.address for b in backends)
    elif len(backends) == 1:
        where = f"on port {backends[0].port}"
    else:
        where = f"on ports {backends[0].port}-{backends[-1].port}"
    return (
        f"BPE Lab: open http://{shown}:{port}/ ({count} {where}, behind haproxy; each browser stays on "
        "its process). Ctrl-C stops them all."
    )


def most_processes(cores: int, available: int | None) -> int:
    """The most app processes this machine carries: one per core (`PROCESSES_PER_CORE`), and
    no more than its available memory holds at `APP_PROCESS_BYTES` each (unknown: no bound)."""
    most = max(1, cores * PROCESSES_PER_CORE)
    if available is not None:
        most = max(1, min(most, available // APP_PROCESS_BYTES))
    return most


def check_processes(processes: int, cores: int | None = None, available: int | None = -1) -> None:
    """`BpeError` naming the cores and the memory when ``processes`` is more than
    `most_processes` (30 on 2 cores took 1.9 GB in 7 s and served no one faster)."""
    cores = available_cores() if cores is None else cores
    available = available_memory_bytes() if available == -1 else available
    most = most_processes(cores, available)
    if processes > most:
        memory = "" if available is None else f" and {available / 2**30:.1f} GiB of memory available"
        raise BpeError(
            f"--processes {processes}: this machine has {cores} core{'s' if cores != 1 else ''}{memory}; an app process "
            f"needs a core and about {APP_PROCESS_BYTES >> 20} MiB once its class is in, so at most {most} here "
            "(more machines: --backend)"
        )


def _stopped_line(children: list[Child]) -> str:
    """What stopping stopped: the proxy (if it had started) and the app processes."""
    apps = sum(child.name != "haproxy" for child in children)
    proxy_started = len(children) > apps
    return f"stopped {'the proxy and ' if proxy_started else ''}{apps} app process(es)"


def _check_address(address: str) -> None:
    try:
        ipaddress.ip_address(address)
    except ValueError:
        raise BpeError(f"--address {address!r} is not an IP address (e.g. 0.0.0.0 or 127.0.0.1)") from None
