"""Shared test helpers: where the shared reference data is, how many hypothesis examples,
two step streams compared merge for merge and the chunks they train on, a loopback HTTP server for the download tests, and a thread of its own for asyncio."""

from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from hypothesis import strategies as st

from bpe.fast import HEAVY
from pages._shared.lecture_hall.proxy import free_ports, port_free  # noqa: F401  (the tests' loopback ports)

ROOT = Path(__file__).resolve().parents[1]
# ../shared/data beside the project; BPE_SHARED_DATA points elsewhere when it lives elsewhere.
SHARED_DATA = Path(os.environ.get("BPE_SHARED_DATA", ROOT.parent / "shared" / "data"))
MAX_EXAMPLES = int(os.environ.get("BPE_MAX_EXAMPLES", "100"))


def shared_file(relative: str) -> Path:
    """A file of the shared data, or skip the test saying what is missing and how to point at it."""
    path = SHARED_DATA / relative
    if not path.is_file():
        pytest.skip(f"{relative} not found under {SHARED_DATA} (set BPE_SHARED_DATA to the shared data folder)")
    return path


def assert_same_steps(expected, actual) -> None:
    """Two engines' (or paths') steps equal merge for merge: the first that differs is
    named, so a failure reads "first difference at merge 17" rather than two long lists."""
    for want, have in zip(expected, actual):
        assert want == have, f"first difference at merge {want.number}"
    assert len(expected) == len(actual)


# Distinct chunks with their counts, as the merge phase trains on them: a small alphabet
# (ties, overlapping runs such as "aaa"), counts on both sides of the fast engine's HEAVY
# line (a weight kept in a byte below it, aside above) and past 2**32; and minimum pair
# frequencies on both sides of it too.
WEIGHTED_CHUNKS = st.lists(
    st.tuples(
        st.text(alphabet="abc ", min_size=1, max_size=8),
        st.one_of(st.integers(1, 3), st.integers(HEAVY - 2, HEAVY + 2), st.integers(10**6, 10**12)),
    ),
    min_size=1,
    max_size=12,
)
CHUNK_FLOORS = st.sampled_from([1, 2, 3, HEAVY + 1])

# Pre-tokenizer patterns a hostile tokenizer file may carry (issue 15). EXPANDING is small
# enough to be harmless if compiled (4 million characters), big enough to be refused.
EXPANDING_PATTERN = r"(?:x{2000}){2000}|[\s\S]"
EXPONENTIAL_PATTERN = r"(?:a|aa)+$|[\s\S]"
CAPTURING_PATTERN = r"(a)|[\s\S]"


def tokenizer_file_with_pattern(pattern: str) -> bytes:
    """A character tokenizer file carrying ``pattern``, with a correct fingerprint (anyone can compute one)."""
    base, merges = ["a", "b", "x", " "], [["a", "b"]]
    payload = {"base_tokens": base, "merges": merges, "pretokenizer": pattern}
    fingerprint = hashlib.sha256(json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()).hexdigest()
    return json.dumps(
        {
            "type": "character_bpe",
            "base_tokens": base,
            "merges": merges,
            "vocab_size": 5,
            "pretokenizer": pattern,
            "fingerprint": fingerprint,
        }
    ).encode()


def on_own_thread(function, *args):
    """``function(*args)`` on a thread of its own, its result or error returned here. For
    ``asyncio.run`` (directly or inside the classroom script): the browser tests' Playwright
    keeps an event loop running on the main thread, where ``asyncio.run`` is refused."""
    result = {}

    def target():
        try:
            result["value"] = function(*args)
        except BaseException as error:  # re-raised below, on the test's thread
            result["error"] = error

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in result:
        raise result["error"]
    return result["value"]


# ==================== A loopback HTTP server: real HTTP on 127.0.0.1, never the internet


@dataclass
class Route:
    body: bytes = b""
    status: int = 200
    declared_length: int | None = None  # Content-Length to send; None: the true length (more: a cut transfer)


class RoutesHandler(BaseHTTPRequestHandler):
    """Answers each GET from the server's ``routes`` (404 for any other path) and records the path."""

    def do_GET(self) -> None:
        self.server.requests.append(self.path)
        route = self.server.routes.get(self.path, Route(b"not found", 404))
        length = len(route.body) if route.declared_length is None else route.declared_length
        self.send_response(route.status)
        self.send_header("Content-Length", str(length))
        self.end_headers()
        self.wfile.write(route.body)  # then HTTP/1.0 closes the connection, short or not

    def log_message(self, *args) -> None:
        pass


class LoopbackServer:
    """An HTTP server on a free loopback port, serving on a thread of its own."""

    def __init__(self, handler: type[BaseHTTPRequestHandler] = RoutesHandler) -> None:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True  # a handler still sending (a trickle) does not hold up close()
        self.routes: dict[str, Route] = {}
        self.requests: list[str] = []
        self.httpd.routes, self.httpd.requests = self.routes, self.requests
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
        self.thread.start()

    def serve(self, path: str, body: bytes, **options) -> str:
        """Answer ``path`` with ``body`` (``status``, ``declared_length`` as `Route`); its URL."""
        self.routes[path] = Route(body, **options)
        return self.url(path)

    def url(self, path: str = "") -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}{path}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


@contextmanager
def loopback_server(monkeypatch, handler: type[BaseHTTPRequestHandler] = RoutesHandler):
    """A `LoopbackServer` for one test, with no proxy configured to see its requests."""
    for var in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    server = LoopbackServer(handler)
    try:
        yield server
    finally:
        server.close()


# ==================== The lecture hall (`python -m pages._shared.lecture_hall`): ports and processes

LECTURE_HALL = "pages._shared.lecture_hall"  # the command, as a teacher runs it: python -m LECTURE_HALL ...


def nobody_listens(port: int, seconds: float = 10) -> bool:
    """True once a connection to ``port`` is refused, within ``seconds`` (a process that was
    just stopped may take a moment to close its listening socket, as `gone` allows too)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
        except ConnectionRefusedError:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.2)


def start_lecture_hall(
    *arguments: str, env: dict | None = None, seconds: float = 120
) -> tuple[subprocess.Popen, list[str]]:
    """`python -m pages._shared.lecture_hall ...` in a session of its own (as a terminal runs
    it), once it says it is serving; with its output lines so far (the rest: ``process.stdout``)."""
    process = subprocess.Popen(
        [sys.executable, "-m", LECTURE_HALL, *arguments],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    lines = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line)
        if line.startswith("BPE Lab: open"):
            return process, lines
    process.kill()
    raise AssertionError("the lecture hall did not start:\n" + "".join(lines))


def children_of(pid: int) -> list[int]:
    """The pids whose parent is ``pid``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    if int(stat.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(entry))
            except OSError:
                continue
    return found


def gone(pids: list[int], seconds: float = 10) -> bool:
    """True once none of ``pids`` runs (a zombie counts as gone), within ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(_running(pid) for pid in pids):
            return True
        time.sleep(0.1)
    return False


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


# ==================== Runs made as a user makes them: count, then train from the counts

COUNTED_SETTINGS = ["--alphabet", "bytes", "--pretokenizer", "gpt2", "--heldout-fraction", "0.1"]


def counted_runs(folder: Path, corpus: Path) -> tuple[Path, Path]:
    """Count ``corpus`` with the CLI (``bpe count``, every core), then train two runs from
    the counts (``bpe train --counts``) into ``folder`` (a BPE_RUNS folder): to vocab 2,000
    with ties by first occurrence (``counted-first``; Tiny Shakespeare's is the shipped
    run, merge for merge), and with ties by lexicographic order (``counted-lexicographic``)."""
    from bpe.cli.main import main

    counts = folder.parent / f"{folder.name}.counts.parquet"
    assert main(["count", str(corpus), *COUNTED_SETTINGS, "--output", str(counts), "--quiet"]) == 0
    made = []
    for rule in ("first_occurrence", "lexicographic"):
        name = f"counted-{rule.split('_')[0]}"
        run = folder / f"{name}.bperun"
        argv = ["train", "--counts", str(counts), "--vocab-size", "2000", "--tie-rule", rule, "--name", name]
        assert main([*argv, "--run-output", str(run), "--quiet"]) == 0
        made.append(run)
    return made[0], made[1]
