"""Warm a running app process for a class: open the teacher's link there, then every page.

    python -m pages._shared.lecture_hall.warm_up http://127.0.0.1:8502 "http://lab:8501/?corpus=Tiny+Shakespeare&vocab=1000"

Why: a page's shared results (the run of the class's settings, its comparisons, charts and
token checks) are computed once per process and setting, and every session that asks
meanwhile waits for that one computation. Without a warm-up the first students of a
lecture wait on each of those in turn (the whole class at once, on each page); after it
they only read the caches. The lecture hall's ``--warm LINK`` runs `warm` against each
app process it starts, before the proxy lets browsers in, and again for a process that
was started anew (`app_processes.warm_backends`).

It speaks Streamlit's own websocket protocol as a browser does: one session, the link's
query string, then each page of the navigation in order, each script run waited for; it
closes the session after. (The load scripts of `load/` speak it with the same pieces:
`browser_cookies`, `navigation_pages`, `shown_problem`.) A page that shows an exception or
an error box is reported, not retried: the same page would show it to the students; so is
a warning about the link itself (a corpus that is not here, a value out of range).
"""

from __future__ import annotations

import argparse
import sys
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.exceptions import WebSocketException
from websockets.sync.client import connect

from pages._shared.lecture_hall.proxy import HEALTH_PATH  # the proxy's health check: the same address

STREAM_PATH = "/_stcore/stream"
ERROR_BOX, WARNING_BOX = 1, 2  # Streamlit's Alert.Format values
PAGE_SECONDS = 600.0  # one page's first run may train the class's run: minutes, not hours


@dataclass
class Warmed:
    """What one warm-up did: the pages run (name -> seconds) and what went wrong on them."""

    pages: dict[str, float] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @property
    def seconds(self) -> float:
        return sum(self.pages.values())


class WarmingFailed(Exception):
    """The app process could not be warmed (not reachable, closed the session, too slow)."""


def link_query(link: str) -> str:
    """The query string of a link as the app's "Copy link" gives it (a full URL, a path with
    a query, or the bare query, with or without its ``?``)."""
    link = link.strip()
    if "?" in link:
        return link.split("?", 1)[1].split("#", 1)[0]
    if "=" in link and "/" not in link:
        return link
    return ""  # an address with no settings: the app's defaults


def browser_cookies(base: str) -> tuple[list[str], object]:
    """The cookies (``name=value``) and the headers of a browser's first request to ``base``
    (``http://host:port``): through the lecture hall's proxy they include the proxy's cookie,
    which keeps the browser on its app process for its websocket too."""
    with urllib.request.urlopen(base + HEALTH_PATH, timeout=30) as reply:
        return [c.split(";", 1)[0] for c in reply.headers.get_all("Set-Cookie") or []], reply.headers


def navigation_pages(navigation) -> dict[str, str]:
    """A navigation message's pages, in the sidebar's order: page name -> page_script_hash."""
    return {p.page_name or p.url_pathname or "home": p.page_script_hash for p in navigation.app_pages}


def shown_problem(element, *, warnings: bool = False) -> str | None:
    """What a new element shows that a student should not see: an exception or an error box
    (and with ``warnings`` a warning box); None for anything else."""
    shown = element.WhichOneof("type")
    if shown == "exception":
        return f"an exception: {element.exception.type}: {element.exception.message[:200]}"
    if shown == "alert" and element.alert.format == ERROR_BOX:
        return f"an error box: {element.alert.body[:200]}"
    if shown == "alert" and element.alert.format == WARNING_BOX and warnings:
        return f"a warning: {element.alert.body[:200]}"
    return None


def _connect(base: str):
    """A browser's websocket to ``base`` (``http://host:port``), with the cookies its first
    request was given (a context manager: the session closes with it)."""
    cookies, _ = browser_cookies(base)
    return connect(
        base.replace("http", "ws", 1) + STREAM_PATH,
        subprotocols=["streamlit"],
        origin=base,
        additional_headers={"Cookie": "; ".join(cookies)} if cookies else None,
        max_size=None,
        compression=None,
        open_timeout=30,
    )


class _Session:
    """One browser session on an open websocket, script run by script run."""

    def __init__(self, ws) -> None:
        self.ws = ws
        self.pages: dict[str, str] = {}  # page name -> page_script_hash, from the navigation message

    def run(self, query: str, page: str, seconds: float, *, warnings: bool = False) -> list[str]:
        """Run the script of ``page`` ("" for the entry page) with ``query``; the problems shown
        (exceptions, error boxes, and with ``warnings`` warning boxes too)."""
        msg = BackMsg()
        msg.rerun_script.query_string = query
        msg.rerun_script.page_script_hash = page
        self.ws.send(msg.SerializeToString())
        problems, ends = [], time.monotonic() + seconds
        while True:
            left = ends - time.monotonic()
            if left <= 0:
                raise WarmingFailed(f"a page took over {seconds:.0f} s")
            try:
                frame = self.ws.recv(timeout=left)
            except TimeoutError:
                continue  # the loop's deadline says so
            except Exception as error:  # the connection closed or broke: the process is gone
                raise WarmingFailed(f"the app process closed the session ({type(error).__name__})") from error
            forward = ForwardMsg.FromString(frame)
            kind = forward.WhichOneof("type")
            if kind == "navigation":
                self.pages = navigation_pages(forward.navigation)
            elif kind == "delta" and forward.delta.WhichOneof("type") == "new_element":
                problem = shown_problem(forward.delta.new_element, warnings=warnings)
                if problem is not None:
                    problems.append(problem)
            elif kind == "script_finished":
                return problems


def warm(url: str, link: str, *, page_seconds: float = PAGE_SECONDS, seconds: float | None = None) -> Warmed:
    """Open ``link``'s settings on the app process at ``url``, then each of its pages; a
    page may take ``page_seconds``, the whole warm-up ``seconds`` (None: no bound)."""
    query, done = link_query(link), Warmed()
    ends = None if seconds is None else time.monotonic() + seconds

    def budget() -> float:  # what the next page may take
        if ends is None:
            return page_seconds
        if time.monotonic() >= ends:
            raise WarmingFailed(f"gave up after {seconds:g} s")
        return min(page_seconds, ends - time.monotonic())

    try:
        ws = _connect(url.rstrip("/"))
    except (OSError, TimeoutError, WebSocketException) as error:
        raise WarmingFailed(f"cannot reach {url} ({error})") from error
    with ws:
        session, started = _Session(ws), time.monotonic()
        # The link's own notes (a corpus not here, a value out of range) are warnings on its
        # first run: the teacher should hear of them before the class does.
        for problem in session.run(query, "", budget(), warnings=True):
            done.problems.append(f"the link: {problem}")
        done.pages["the link"] = time.monotonic() - started
        for name, page in session.pages.items():
            started = time.monotonic()
            done.problems.extend(f"{name}: {problem}" for problem in session.run(query, page, budget()))
            done.pages[name] = time.monotonic() - started
    return done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url", help="the app process (http://127.0.0.1:8502), not the proxy")
    parser.add_argument(
        "link", help='the class\'s link, as "Copy link" gives it, or its query ("corpus=...&vocab=...")'
    )
    args = parser.parse_args(argv)
    try:
        done = warm(args.url, args.link)
    except WarmingFailed as failed:
        print(f"not warmed: {failed}", flush=True)
        return 1
    print(f"warmed {len(done.pages)} pages in {done.seconds:.1f} s", flush=True)
    for problem in done.problems:
        print(f"note: {problem}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
