"""The lecture hall's proxy: haproxy in front of the app processes, configured for one run.

A session lives in the process that made it (its state, its uploads, its model job), so
every request of one browser, the websocket (``/_stcore/stream``) and the uploads alike,
must reach the same process. haproxy does that with a cookie: it names the process that
served a browser's first request, and sends the browser back there ever after. The
configuration is written into a temporary folder for one run (never into the project);
it passes the websocket upgrade through, checks each process on ``/_stcore/health`` and
sends new browsers only to healthy ones, and each response carries ``X-Bpe-Server``, the
process that served it (the classroom script reports per process from it).

For example, ``haproxy_config("0.0.0.0", 8501, local_backends(8501, 2))`` listens on port
8501 of every interface and names two servers, ``127.0.0.1:8502`` and ``127.0.0.1:8503``.
"""

from __future__ import annotations

import argparse
import errno
import http.client
import os
import random
import re
import shutil
import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from bpe.errors import BpeError

DEFAULT_PORT = 8501
STICKY_COOKIE = "bpe_server"  # the proxy's cookie: which app process a browser belongs to
SERVED_BY_HEADER = "X-Bpe-Server"  # on every response: the app process that answered
HEALTH_PATH = "/_stcore/health"
HAPROXY_PLACES = ("/usr/sbin/haproxy", "/usr/local/sbin/haproxy")  # where Debian puts it: not on a user's PATH
HAPROXY_HINT = "install it with `sudo apt-get install haproxy` (Debian, Ubuntu) or give its path with --haproxy"
# haproxy's own prefix on a complaint: "[ALERT]    (123) : config : [/tmp/.../haproxy.cfg:36] : "
ALERT_PREFIX = re.compile(r"^\[ALERT\]\s*\(\d+\)\s*:\s*(config\s*:\s*)?(\[[^\]]*\]\s*:\s*)?")


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
# Written by BPE Lab's lecture hall for one run; removed when it stops.
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


def check_config(haproxy: str, config: Path) -> None:
    """`BpeError` with haproxy's first complaint (e.g. a --backend host it cannot resolve)."""
    done = subprocess.run([haproxy, "-c", "-f", str(config)], capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        alerts = [line for line in (done.stdout + done.stderr).splitlines() if "ALERT" in line]
        # "[ALERT]    (123) : config : [/tmp/.../haproxy.cfg:36] : what went wrong"
        first = ALERT_PREFIX.sub("", alerts[0]) if alerts else f"exit status {done.returncode}"
        raise BpeError(f"haproxy refused the configuration: {first.strip()}")


def wait_listening(address: str, port: int, proxy: subprocess.Popen, seconds: float = 20.0) -> None:
    """Until the proxy (``proxy``, started) accepts connections on ``port``; `BpeError` if it exits."""
    host = "127.0.0.1" if address in ("0.0.0.0", "::") else address
    ends = time.monotonic() + seconds
    while time.monotonic() < ends:
        if proxy.poll() is not None:
            raise BpeError(f"haproxy exited with status {proxy.returncode} (its output is above)")
        try:
            with socket.create_connection((host, port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise BpeError(f"haproxy did not listen on port {port} within {seconds:g} s")


def healthy(url: str, timeout: float = 2.0) -> bool:
    """Whether the app process (or the proxy) at ``url`` answers its health check."""
    try:
        with urllib.request.urlopen(url + HEALTH_PATH, timeout=timeout) as reply:
            return reply.status == 200
    except (OSError, http.client.HTTPException):  # e.g. BadStatusLine: something else, not HTTP, has the port
        return False


# ==================== Ports


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


def free_ports(span: int = 1) -> int:
    """A loopback port with the ``span - 1`` ports after it free as well (the proxy's port
    and its app processes'): where a measurement or a test starts a server.

    Picked outside the kernel's ephemeral range, from which it gives outgoing connections
    their local ports: a port there that is free now may be some connection's before the
    server binds it. On a machine running two test suites (browsers, HTTP clients) one was:
    "Port 56906 is not available", and the lecture hall stopped.
    """
    low, high = ephemeral_ports()
    below, above = range(FIRST_PICKED, low - span + 1), range(high + 1, 65536 - span + 1)
    chooser = random.Random()  # its own: the process's random state is left alone
    for _ in range(200):
        index = chooser.randrange(len(below) + len(above))
        port = below[index] if index < len(below) else above[index - len(below)]
        if all(port_free(port + n) for n in range(span)):
            return port
    raise RuntimeError(f"no free run of {span} loopback ports outside the ephemeral range {low}-{high}")


FIRST_PICKED = 10_000  # below: ports that services are known to use (8501, 8080, 5432, ...)


def ephemeral_ports() -> tuple[int, int]:
    """The kernel's range of ports for outgoing connections, first and last (Linux says;
    elsewhere the range IANA suggests, 49152-65535)."""
    try:
        low, high = map(int, Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    except (OSError, ValueError):
        return 49152, 65535
    return low, high


def port_free(port: int) -> bool:
    """Whether loopback ``port`` can be listened on now."""
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True
