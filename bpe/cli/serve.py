"""`python -m bpe serve`: a lecture hall, N app processes behind one sticky proxy.

    python -m bpe serve                                  # one app process per core, proxy on :8501
    python -m bpe serve --processes 2 --port 8501
    python -m bpe serve --warm "http://lab:8501/?corpus=Tiny+Shakespeare&vocab=1000"   # ready for the class's link
    python -m bpe serve --backend 10.0.0.5:8501 --backend 10.0.0.6:8501   # processes on other machines

Why several processes: a Streamlit server runs every session's script under one
interpreter lock, so one process is the ceiling of a class however many cores the machine
has. Why a proxy that sticks: a session lives in the process that made it (its state, its
uploads, its model job), so every request of one browser, the websocket
(``/_stcore/stream``) and the uploads alike, must reach the same process.

The proxy is haproxy, from the system's packages, configured for this run only (a file in
a temporary folder, never in the project): it sets a cookie naming the process that
served a browser's first request and sends the browser back there ever after; it passes
the websocket upgrade through; it checks each process on ``/_stcore/health`` and sends
new browsers only to healthy ones; and each response carries ``X-Bpe-Server``, the
process that served it (the classroom script reports per process from it).

This module only starts programs (``streamlit run app.py``, haproxy, and with ``--warm`` the
app's warm-up client, `pages._shared.data.warm`); it imports none of them. ``--warm LINK``
opens the class's link and every page in each app process before the proxy lets browsers
in: the run of the class's settings and every page's shared results are then computed
once per process ahead of the lecture, instead of by its first students, all waiting.
An app process that exits is started again on its port (up to 3 times in two minutes).
Ctrl-C or SIGTERM stops the proxy first, then every app process (each in a process group
of its own, so nothing they started survives), and waits for them; a process that
outlives ``--stop-seconds`` is killed. Should this command itself be killed, the kernel
kills each child (``PR_SET_PDEATHSIG``), so no app process is left behind.
"""

from __future__ import annotations

import argparse
import errno
import importlib.util
import ipaddress
import math
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bpe.errors import BpeError
from bpe.paths import PROJECT_ROOT

DEFAULT_PORT = 8501
STICKY_COOKIE = "bpe_server"  # the proxy's cookie: which app process a browser belongs to
SERVED_BY_HEADER = "X-Bpe-Server"  # on every response: the app process that answered
HEALTH_PATH = "/_stcore/health"
HAPROXY_PLACES = ("/usr/sbin/haproxy", "/usr/local/sbin/haproxy")  # where Debian puts it: not on a user's PATH
HAPROXY_HINT = "install it with `sudo apt-get install haproxy` (Debian, Ubuntu) or give its path with --haproxy"
# haproxy's own prefix on a complaint: "[ALERT]    (123) : config : [/tmp/.../haproxy.cfg:36] : "
ALERT_PREFIX = re.compile(r"^\[ALERT\]\s*\(\d+\)\s*:\s*(config\s*:\s*)?(\[[^\]]*\]\s*:\s*)?")
# Streamlit's start-up lines name the app process's own loopback URL, which browsers must
# not use (it bypasses the proxy): the command prints the proxy's URL instead.
STREAMLIT_BANNER = ("You can now view your Streamlit app", "URL: http", "Local URL:", "Network URL:")
START_SECONDS = 120.0  # how long app processes may take to answer their health check
RESTARTS_PER_WINDOW, RESTART_WINDOW_SECONDS = 3, 120.0  # an app process that keeps exiting is given up
WARM_MODULE = "pages._shared.data.warm"  # the app's warm-up client, run as a program (see --warm)
WARM_SECONDS = 1200.0  # a warm-up may train the class's run first: minutes on a big text
STOP_SECONDS = 40.0  # an app process stopping waits up to 30 s for model jobs to end their step
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


@dataclass(frozen=True)
class Backend:
    """One app process the proxy sends browsers to."""

    host: str
    port: int

    @property
    def address(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    @property
    def name(self) -> str:
        """How the proxy names it (and `X-Bpe-Server` reports it): ``host:port``, no brackets."""
        return f"{self.host}:{self.port}"


def parse_backend(value: str) -> Backend:
    """``HOST:PORT`` (``[::1]:8501`` for IPv6) as a `Backend`; argparse's type for --backend."""
    host, sep, port = value.strip().rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536 or any(c in host for c in " /#"):
        raise argparse.ArgumentTypeError(f"{value!r} is not HOST:PORT (e.g. 10.0.0.5:8501)")
    return Backend(host, int(port))


def local_backends(port: int, processes: int) -> list[Backend]:
    """The app processes of one machine: loopback ports after the proxy's own."""
    return [Backend("127.0.0.1", port + n) for n in range(1, processes + 1)]


# ==================== The proxy's configuration


def haproxy_config(address: str, port: int, backends: list[Backend]) -> str:
    """haproxy's configuration: listen on ``address:port``, stick each browser to one of
    ``backends`` by cookie, pass websockets through, check health, say who answered."""
    # Each server is named by its address, which `X-Bpe-Server` then reports; the cookie
    # holds only a short label.
    servers = "\n".join(
        f"    server {backend.name} {backend.address} cookie app{n}" for n, backend in enumerate(backends, start=1)
    )
    bind = f"[{address}]:{port}" if ":" in address else f"{address}:{port}"
    return f"""\
# Written by `python -m bpe serve` for one run; removed when it stops.
global
    maxconn 4096
    log stderr format raw local0 notice

defaults
    mode http
    log global
    option dontlognull
    timeout connect 5s
    timeout client 120s
    timeout server 120s
    timeout http-request 30s
    # An open websocket (a student's tab) is a tunnel once upgraded: idle up to an hour
    # (Streamlit pings it far more often than that).
    timeout tunnel 1h
    # A process busy with a whole class answers its health check late, not never.
    timeout check 10s
    # A browser whose process has gone is sent to another (its page starts afresh there).
    option redispatch
    retries 2

frontend lecture_hall
    bind {bind}
    default_backend app_processes

backend app_processes
    # A new browser goes to the process with the fewest open connections (tabs); then
    # the cookie keeps it there: its session, uploads and model job live in that process.
    balance leastconn
    cookie {STICKY_COOKIE} insert indirect nocache httponly
    option httpchk GET {HEALTH_PATH}
    http-check expect status 200
    default-server check inter 5s fall 3 rise 1
    http-response set-header {SERVED_BY_HEADER} %[srv_name]
{servers}
"""


def find_haproxy(explicit: str | None = None) -> str:
    """The haproxy program to run, or `BpeError` saying how to install it."""
    if explicit:
        if not (os.path.isfile(explicit) and os.access(explicit, os.X_OK)):
            raise BpeError(f"--haproxy {explicit!r} is not an executable program; {HAPROXY_HINT}")
        return explicit
    found = shutil.which("haproxy") or next((path for path in HAPROXY_PLACES if os.access(path, os.X_OK)), None)
    if found is None:
        raise BpeError(f"haproxy is not installed (the proxy in front of the app processes); {HAPROXY_HINT}")
    return found


def check_port_free(host: str, port: int, what: str) -> None:
    """`BpeError` naming ``port`` when something already listens there (or it cannot be had)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a port in TIME_WAIT is free
        try:
            sock.bind((host, port))
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                raise BpeError(
                    f"port {port} ({what}) is taken by another program; choose another --port "
                    "(the proxy listens on --port, its app processes on the ports after it)"
                ) from None
            raise BpeError(f"cannot listen on {host}:{port} ({what}): {error.strerror or error}") from None


# ==================== Processes


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


def healthy(url: str, timeout: float = 2.0) -> bool:
    # imported here: every `python -m bpe` command (and each of count's worker processes,
    # which start from the same main module) loads this module, and ssl with urllib.request
    import urllib.request

    try:
        with urllib.request.urlopen(url + HEALTH_PATH, timeout=timeout) as reply:
            return reply.status == 200
    except OSError:
        return False


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


# ==================== The command


def add_serve_command(commands) -> None:
    p = commands.add_parser(
        "serve",
        help="a lecture hall: several app processes behind haproxy, each browser kept on its process",
        description=__doc__.split("\n\n")[0],
    )
    p.add_argument(
        "--processes",
        type=_positive,
        default=os.cpu_count() or 1,
        help=f"app processes to start on this machine (default: one per core, {os.cpu_count() or 1} here)",
    )
    p.add_argument(
        "--port",
        type=_port,
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
        type=_stop_seconds,
        default=STOP_SECONDS,
        help=f"how long stopping waits for each app process before killing it (default {STOP_SECONDS:g})",
    )
    p.set_defaults(func=run_serve)


def run_serve(args, *, say: Callable[[str], None] | None = None) -> int:
    say = say or (lambda line: print(line, flush=True))
    haproxy = find_haproxy(args.haproxy)
    _check_address(args.address)
    remote = args.backend is not None
    backends = args.backend if remote else local_backends(args.port, args.processes)
    if not remote and args.port + args.processes > 65535:
        raise BpeError(f"--port {args.port} leaves no room for {args.processes} app processes after it")
    check_port_free(args.address, args.port, "proxy")
    for backend in [] if remote else backends:
        check_port_free(backend.host, backend.port, f"app process {backend.port}")
    # Every local process signs cookies with the same secret, as Streamlit asks of replicas.
    env = {**os.environ, "STREAMLIT_SERVER_COOKIE_SECRET": secrets.token_hex(32)}
    children: list[Child] = []
    with tempfile.TemporaryDirectory(prefix="bpe-serve-") as folder:
        config = Path(folder) / "haproxy.cfg"
        config.write_text(haproxy_config(args.address, args.port, backends), encoding="utf-8")
        _check_config(haproxy, config)
        try:
            if not remote:
                note = speedups_note()
                if note:
                    say(note)
                for n, backend in enumerate(backends, start=1):
                    children.append(start_child(f"app{n} :{backend.port}", app_command(backend), env=env, say=say))
                wait_healthy(children, backends, START_SECONDS)
            # each app process by the name `serve` says it under: its child's, or its address
            named = dict(zip([b.address for b in backends] if remote else [c.name for c in children], backends))
            if args.warm is not None:
                warm_backends(named, args.warm, env=env, say=say)
            children.insert(0, start_child("haproxy", [haproxy, "-db", "-f", str(config)], env=env, say=say))
            _wait_proxy(children[0], args.address, args.port)
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
                    say("stopped the proxy" + ("" if remote else f" and {len(children) - 1} app process(es)"))


def warm_command(backend: Backend, link: str) -> list[str]:
    """The app's own warm-up client (`pages._shared.data.warm`) against one app process."""
    return [sys.executable, "-m", WARM_MODULE, f"http://{backend.address}", link]


def warm_backends(backends: dict[str, Backend], link: str, *, env: dict, say: Callable[[str], None]) -> None:
    """Warm every app process for ``link`` at once and wait for all of them. One that cannot
    be warmed is said, not fatal: its first students compute what it lacks, as without."""
    warming = [start_child(f"warm {name}", warm_command(b, link), env=env, say=say) for name, b in backends.items()]
    try:
        for child in warming:
            try:
                child.process.wait(WARM_SECONDS)
            except subprocess.TimeoutExpired:
                say(f"[{child.name}] gave up after {WARM_SECONDS:g} s")
            child.forwarder.join(timeout=2)
    finally:
        stop_children(warming, 5)


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
                _warm_when_healthy(child.name, backends[child.name], warm_link, env=env, say=say)
        time.sleep(0.5)


def _warm_when_healthy(name: str, backend: Backend, link: str, *, env: dict, say: Callable[[str], None]) -> None:
    """Warm a process started again, on a thread of its own once it answers (the others
    serve on meanwhile). Should this command die first, the kernel ends the warm-up too."""

    def run() -> None:
        ends = time.monotonic() + START_SECONDS
        while not healthy(f"http://{backend.address}", timeout=1.0):
            if time.monotonic() > ends:
                return  # watch() says what became of the process
            time.sleep(0.5)
        warm_backends({name: backend}, link, env=env, say=say)

    threading.Thread(target=run, name=f"warm {name}", daemon=True).start()


# Streamlit's "performance" extra (requirements.txt pins both): with them its server runs
# on uvloop and parses HTTP with httptools, and a page visit costs an app process about a
# third less CPU (tests/load/page_cost.py), which is what a lecture hall runs out of.
SPEEDUPS = ("uvloop", "httptools")


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


def _check_config(haproxy: str, config: Path) -> None:
    """`BpeError` with haproxy's first complaint (e.g. a --backend host it cannot resolve)."""
    done = subprocess.run([haproxy, "-c", "-f", str(config)], capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        alerts = [line for line in (done.stdout + done.stderr).splitlines() if "ALERT" in line]
        # "[ALERT]    (123) : config : [/tmp/.../haproxy.cfg:36] : what went wrong"
        first = ALERT_PREFIX.sub("", alerts[0]) if alerts else f"exit status {done.returncode}"
        raise BpeError(f"haproxy refused the configuration: {first.strip()}")


def _wait_proxy(proxy: Child, address: str, port: int, seconds: float = 20.0) -> None:
    host = "127.0.0.1" if address in ("0.0.0.0", "::") else address
    ends = time.monotonic() + seconds
    while time.monotonic() < ends:
        if proxy.process.poll() is not None:
            raise BpeError(f"haproxy exited with status {proxy.process.returncode} (its output is above)")
        try:
            with socket.create_connection((host, port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise BpeError(f"haproxy did not listen on port {port} within {seconds:g} s")


def _check_address(address: str) -> None:
    try:
        ipaddress.ip_address(address)
    except ValueError:
        raise BpeError(f"--address {address!r} is not an IP address (e.g. 0.0.0.0 or 127.0.0.1)") from None


def _positive(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"{number} is not a number of processes; give 1 or more")
    return number


def _stop_seconds(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of seconds") from None
    if not 0 <= seconds < math.inf:  # nan too: stopping would wait on it forever, or not at all
        raise argparse.ArgumentTypeError(f"{value} is not a number of seconds; give 0 or more")
    return seconds


def _port(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a port number") from None
    if not 0 < number < 65536:
        raise argparse.ArgumentTypeError(f"{number} is not a port number (1-65535)")
    return number
