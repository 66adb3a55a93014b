"""What each page visit and each merge step costs the server, in CPU seconds (not a test).

    .venv/bin/python -m pages._shared.lecture_hall.load.page_cost           # 5 visits of each page, 20 steps
    .venv/bin/python -m pages._shared.lecture_hall.load.page_cost --visits 10 --url http://127.0.0.1:8502

Wall times on a shared machine say as much about the other work as about the app; the CPU
seconds the server process spends on a request hardly change with the load, and since a
Streamlit server runs every session's script under one interpreter lock, 1 / (CPU per
request) is what one process can serve per second. So this starts the real server (or
uses one app process already running: ``--url``, not a proxy, whose CPU it could not
read), opens the class's link once so every cached result is there, and then, one
request at a time: for each page, ``--visits`` new sessions each open the link and then
visit that page (its first visit, as a student's), and the server's CPU seconds over the
page requests alone are averaged; then one session steps ``--steps`` merges on Merge by
merge (a fragment rerun each). The sessions speak Streamlit's websocket protocol
(`classroom.Session`).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
import urllib.parse
import uuid
from pathlib import Path

from pages._shared.lecture_hall.load.classroom import (
    MERGE_PAGE,
    MemorySampler,
    Report,
    Session,
    free_port,
    listening_pid,
    start_server,
    stop_server,
    xsrf_cookie,
)


async def new_session(server: int | str, number: int, report: Report, query: str) -> Session:
    cookie, xsrf, _ = await asyncio.to_thread(xsrf_cookie, server)
    session = Session(number, server, cookie, xsrf, report, {number: uuid.uuid4().hex.encode()})
    await session.open(query)
    await session.rerun("open the link", page="")
    return session


async def measure(server: int | str, pid: int, args) -> dict[str, tuple[float, float]]:
    """{request: (server CPU seconds per request, wall seconds per request)}."""
    report, cpu = Report(), MemorySampler(pid).cpu
    query = urllib.parse.urlencode({"corpus": args.corpus, "vocab": args.vocab})
    warm = await new_session(server, 0, report, query)
    for page in warm.pages.values():  # every cached result of the class's setting is there now
        await warm.rerun("warm-up", page=page)
    pages = dict(warm.pages)
    await warm.close()
    found, number = {}, 1
    for name, page in pages.items() if args.visits else ():
        spent = wall = 0.0
        for _ in range(args.visits):
            session = await new_session(server, number, report, query)
            number += 1
            before = cpu()
            wall += await session.rerun(f"page: {name}", page=page)
            spent += cpu() - before
            await session.close()
        found[f"first visit: {name}"] = (spent / args.visits, wall / args.visits)
    session = await new_session(server, number, report, query)
    await session.rerun("page", page=pages[MERGE_PAGE])
    before, wall = cpu(), 0.0
    for _ in range(args.steps):
        wall += await session.click("merge step", "merges_forward")
    found["merge step"] = ((cpu() - before) / args.steps, wall / args.steps)
    await session.close()
    if report.errors:
        raise SystemExit("errors: " + "; ".join(report.errors[:5]))
    return found


def event_loop(pid: int) -> str:
    """Which event loop the server runs: uvloop (Streamlit's "performance" extra, which
    requirements.txt pins) costs a page visit about a third less CPU than asyncio's own."""
    try:
        maps = Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return "unknown"
    return "uvloop" if "uvloop" in maps else "asyncio's own (uvloop is not loaded)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--visits", type=int, default=5, help="new sessions visiting each page")
    parser.add_argument("--steps", type=int, default=20, help="merge steps of one session")
    parser.add_argument("--corpus", default="Python language reference")
    parser.add_argument("--vocab", type=int, default=1000)
    parser.add_argument("--url", help="one app process already running (http://127.0.0.1:PORT)")
    args = parser.parse_args(argv)
    if args.url:
        port = urllib.parse.urlsplit(args.url).port
        pid = listening_pid(port)
        if pid is None:
            raise SystemExit(f"no process of this user listens on port {port} of this machine")
        found = asyncio.run(measure(args.url, pid, args))
        loop = event_loop(pid)
    else:
        port = free_port()
        server = start_server(port, dict(os.environ))
        try:
            found = asyncio.run(measure(port, server.pid, args))
            loop = event_loop(server.pid)
        finally:
            stop_server(server)
    print(f"{'request':<42} {'server CPU (s)':>15} {'wall (s)':>9}")
    for kind, (spent, wall) in found.items():
        print(f"{kind:<42} {spent:>15.3f} {wall:>9.3f}")
    print(f"total of first visits: {sum(v[0] for k, v in found.items() if k.startswith('first')):.3f} s CPU")
    print(f"the server's event loop: {loop}")
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at {time.strftime('%H:%M:%S')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
