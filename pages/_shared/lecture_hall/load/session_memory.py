"""What a closed session leaves on the server (a measurement, not a test).

    .venv/bin/python -m pages._shared.lecture_hall.load.session_memory      # 10 sessions, 10 MB each
    .venv/bin/python -m pages._shared.lecture_hall.load.session_memory --sessions 3 --megabytes 2 --ttl 5 --watch 30

Starts the real server (`streamlit run app.py`) inside a small wrapper that samples,
every second, from within the server process: its resident memory (RSS), the bytes
Python's objects hold (tracemalloc's traced total: what is alive, whatever the allocator
keeps), the sessions Streamlit still holds (connected and disconnected, and the expired
ones its storage has not let go of yet), and the entries of the app's caches (shared, or
the sessions' own). At the end it asks glibc to hand back its free pages (`malloc_trim`):
what RSS falls by was the allocator's, not data. Then N sessions each open the app, upload a text of ``--megabytes``
MB (through the same HTTP upload a browser uses) and close their websocket. The report
says what was alive after the sessions closed, after Streamlit dropped them
(``server.disconnectedSessionTTL``, ``--ttl``) and at the end: if the traced total falls
and RSS does not, the memory is the allocator's; if the traced total stays, something
still holds the sessions' data, and the top allocation sites say what.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
import urllib.parse
import uuid
from pathlib import Path

from bpe.paths import PROJECT_ROOT
from pages._shared.lecture_hall.load.classroom import (
    Report,
    Session,
    free_port,
    healthy_or_stop,
    stop_server,
    xsrf_cookie,
)

# Runs inside the server process: a sampler thread, then Streamlit's own command line.
WRAPPER = r"""
import json, os, sys, threading, time, tracemalloc, gc
tracemalloc.start(8)
out = open(os.environ["PROBE_FILE"], "a", buffering=1)

def rss_mb():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0

def caches():
    from streamlit.runtime.caching import cache_data_api, cache_resource_api
    found = {}
    for kind, manager in (("data", cache_data_api._data_caches), ("resource", cache_resource_api._resource_caches)):
        for scope, by_key in list(manager._function_caches.items()):
            for key, cache in list(by_key.items()):
                store = getattr(cache, "_mem_cache", None)
                if store is None:  # cache_data keeps its entries in a storage object
                    store = getattr(getattr(cache, "storage", None), "_mem_cache", None)
                entries = len(store or {})
                if entries:
                    name = str(getattr(cache, "display_name", key)).rsplit(".", 1)[-1]
                    # scope None: shared by every session; else one session's (scope="session")
                    label = f"{kind}:{name}" + ("" if scope is None else " (sessions)")
                    found[label] = found.get(label, 0) + entries
    return found

def holders(min_chars=300_000, limit=12):
    # Strings are not tracked by gc: find the containers that hold big ones, and who holds those.
    found = []
    for obj in gc.get_objects():
        if isinstance(obj, dict):
            items = [(k, v) for k, v in obj.items() if isinstance(v, str) and len(v) >= min_chars]
        elif isinstance(obj, (list, tuple)):
            items = [(i, v) for i, v in enumerate(obj) if isinstance(v, str) and len(v) >= min_chars]
        else:
            continue
        for where, value in items:
            owners = [type(o).__name__ + (":" + ",".join(map(str, list(o)[:3])) if isinstance(o, dict) else "")
                      for o in gc.get_referrers(obj)[:3] if o is not found]
            found.append([type(obj).__name__, str(where)[:40], round(len(value) / 1e6, 2), [w[:80] for w in owners]])
            if len(found) >= limit:
                return found
    return found

def sessions():
    # (held, active, stored): Streamlit's session storage hides expired sessions from its
    # listing but drops them only on its next write, so "stored" counts what it still holds.
    try:
        from streamlit.runtime import Runtime
        manager = Runtime.instance()._session_mgr
        stored = len(getattr(manager._session_storage._cache, "_data", ()))
        return len(manager.list_sessions()), len(manager.list_active_sessions()), stored
    except Exception:
        return -1, -1, -1

def trimmed_rss_mb():
    # What RSS falls to when glibc hands its free pages back: the rest of the fall from
    # RSS to here was the allocator's, not data. Only at the end: it changes the process.
    import ctypes
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    return round(rss_mb(), 1)

def top(limit=8):
    snapshot = tracemalloc.take_snapshot()
    stats = snapshot.statistics("traceback")[:limit]
    return [[round(s.size / 1e6, 1), [f"{f.filename.split('site-packages/')[-1]}:{f.lineno}" for f in s.traceback][:6]] for s in stats]

def sample():
    started = time.monotonic()
    while True:
        want_top = os.path.exists(os.environ["PROBE_FILE"] + ".top")
        row = {"t": round(time.monotonic() - started, 1), "rss_mb": round(rss_mb(), 1),
               "traced_mb": round(tracemalloc.get_traced_memory()[0] / 1e6, 1),
               "sessions": sessions(), "caches": caches()}
        if want_top:
            os.unlink(os.environ["PROBE_FILE"] + ".top")
            gc.collect()
            row["traced_after_gc_mb"] = round(tracemalloc.get_traced_memory()[0] / 1e6, 1)
            row["top"] = top()
            row["holders"] = holders()
            if os.path.exists(os.environ["PROBE_FILE"] + ".trim"):
                row["rss_after_trim_mb"] = trimmed_rss_mb()
        out.write(json.dumps(row) + "\n")
        time.sleep(1.0)

from streamlit.web.cli import main  # imported before the sampler runs: no import from two threads
threading.Thread(target=sample, daemon=True).start()
sys.argv = ["streamlit", "run", "app.py"] + sys.argv[1:]
sys.exit(main())
"""


def start_probed_server(port: int, probe_file: Path, ttl: int):
    import subprocess

    env = dict(os.environ, PROBE_FILE=str(probe_file))
    command = [sys.executable, "-c", WRAPPER, "--server.port", str(port), "--server.address", "127.0.0.1"]
    command += ["--server.headless", "true", "--server.fileWatcherType", "none"]
    command += ["--browser.gatherUsageStats", "false", "--server.disconnectedSessionTTL", str(ttl)]
    log = tempfile.TemporaryFile()
    process = subprocess.Popen(command, cwd=PROJECT_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    process.log = log
    return healthy_or_stop(process, port, 90)


def upload_text(number: int, megabytes: float) -> bytes:
    line = f"Session {number} {uuid.uuid4().hex}: the merge of a frequent pair makes a new token.\n".encode()
    return line * int(megabytes * 1e6 / len(line))


async def one_session(number: int, port: int, cookie: str, xsrf: str, report: Report, megabytes: float) -> None:
    session = Session(number, port, cookie, xsrf, report, {})
    await session.open(urllib.parse.urlencode({"corpus": "low lower lowest"}))
    await session.rerun("open", page="")
    await session.upload("upload", "settings_upload", f"big-{number}.txt", upload_text(number, megabytes))
    await session.close()


def last_row(probe_file: Path) -> dict:
    rows = [json.loads(line) for line in probe_file.read_text().splitlines() if line.strip()]
    return rows[-1] if rows else {}


def ask_top(probe_file: Path, wait: float = 90.0, trim: bool = False) -> dict:
    """The sampler's next row with a snapshot of the heap's top allocation sites (asked for
    now: a row written before, an earlier snapshot's among them, is not the answer)."""
    # A snapshot of a big heap under load takes tens of seconds: wait for it.
    asked_after = last_row(probe_file).get("t", -1.0)
    if trim:
        Path(str(probe_file) + ".trim").touch()
    Path(str(probe_file) + ".top").touch()
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        time.sleep(0.5)
        row = last_row(probe_file)
        if "top" in row and row["t"] > asked_after:
            return row
    return last_row(probe_file)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--megabytes", type=float, default=10.0)
    parser.add_argument("--ttl", type=int, default=120, help="server.disconnectedSessionTTL (Streamlit's default: 120)")
    parser.add_argument("--watch", type=float, default=None, help="seconds to watch after closing (default ttl + 30)")
    parser.add_argument("--json", type=Path, help="write the samples here")
    args = parser.parse_args(argv)
    probe_file = Path(tempfile.mkdtemp(prefix="bpe-session-memory-")) / "samples.jsonl"
    port = free_port()
    server = start_probed_server(port, probe_file, args.ttl)
    found = {}
    try:
        time.sleep(2)
        found["idle"] = ask_top(probe_file)
        cookie, xsrf, _served_by = xsrf_cookie(port)
        report = Report()
        for number in range(args.sessions):  # one after another, as visitors come and go
            asyncio.run(one_session(number, port, cookie, xsrf, report, args.megabytes))
        found["errors"] = report.errors
        time.sleep(3)
        found["closed"] = ask_top(probe_file)
        watch = args.watch if args.watch is not None else args.ttl + 30
        time.sleep(max(watch - 10, 0))
        found["after_ttl"] = ask_top(probe_file, trim=True)
    finally:
        log = stop_server(server)
    rows = [json.loads(line) for line in probe_file.read_text().splitlines() if line.strip()]
    if args.json:
        args.json.write_text(json.dumps({"summary": found, "samples": rows}, indent=1))
    for phase in ("idle", "closed", "after_ttl"):
        row = found.get(phase, {})
        print(
            f"{phase:>9}: t={row.get('t')} s  RSS {row.get('rss_mb')} MB  traced {row.get('traced_mb')} MB "
            f"(after gc {row.get('traced_after_gc_mb')})  sessions (held, active, stored) {row.get('sessions')}  "
            f"caches {row.get('caches')}"
            + (f"  RSS after malloc_trim {row['rss_after_trim_mb']} MB" if "rss_after_trim_mb" in row else "")
        )
        for size, where in row.get("top", [])[:5]:
            print(f"           {size:>7} MB  {' <- '.join(where[:4])}")
        for holder in row.get("holders", []):
            print(f"           big text held by {holder}")
    if found.get("errors"):
        print("errors:", found["errors"])
    if "Traceback" in log:
        print(log[-3000:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
