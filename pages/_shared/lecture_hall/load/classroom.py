"""A classroom on one server: 30 students through one lesson, measured (not a test).

    .venv/bin/python -m pages._shared.lecture_hall.load.classroom                 # 30 sessions, the whole lesson
    .venv/bin/python -m pages._shared.lecture_hall.load.classroom --sessions 5 --merges 10 --model-steps 20
    .venv/bin/python -m pages._shared.lecture_hall.load.classroom --url http://127.0.0.1:8501 --sessions 100

Starts the real server (`streamlit run app.py`) on a free loopback port, or with ``--url``
uses one already running (the lecture hall's proxy, with several app processes behind
it), and drives N browser sessions through Streamlit's own websocket protocol (a real
browser per student would measure the browsers instead of the server). Each session, like
a student given the teacher's link:

1. opens the link (``?corpus=...&vocab=...``) and then every page in turn;
2. steps through ``--merges`` merges on Merge by merge, pausing ``--think`` seconds
   (on average) between clicks, as a reader does;
3. uploads a small text of its own (through the same HTTP upload a browser uses);
4. one session in ``--jobs-per`` starts a model job on the Model page and keeps the page
   open (its fragment ticks every second, as a browser's does) until the job ends;
5. then the lesson runs a second time (every page, the merges, another upload), so the
   server's memory after the first round (warm-up) can be compared with after the second.

It reports the latency of each kind of request (median and 95th percentile, from
sending the request to Streamlit's ``script_finished``), the server's memory over time,
every error (exceptions, error boxes, timeouts), and whether any session ever received
another session's data (each upload carries a marker unique to its session; every byte
a session receives is searched for the other sessions' markers). ``--json`` writes it all.

Through a proxy each session is a browser of its own: it keeps the proxy's cookie, and
every response says which app process answered (``X-Bpe-Server``, set by its `proxy`).
So the figures come per process as well as in total, with the memory of each process
that runs on this machine (found by the loopback port it listens on), and a session that
is ever answered by two processes (not stuck to its own) is an error.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.Common_pb2 import FileUploaderState, FileURLsRequest, UploadedFileInfo
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import connect

from bpe.paths import PROJECT_ROOT
from pages._shared.lecture_hall.app_processes import app_command
from pages._shared.lecture_hall.proxy import SERVED_BY_HEADER, Backend, free_ports, healthy
from pages._shared.lecture_hall.warm_up import STREAM_PATH, browser_cookies, navigation_pages, shown_problem
from pages._shared.state.controls import STEPS as MODEL_STEPS

MERGE_PAGE, MODEL_PAGE = "Merge by merge", "Model"
REQUEST_TIMEOUT = 300.0  # seconds one request may take before it counts as an error
FIRST_VISITS = "first page visits (all pages)"
VERBOSE = False


# ==================== The server


def free_port() -> int:
    return free_ports(1)


def start_server(port: int, env: dict) -> subprocess.Popen:
    """`streamlit run app.py` on 127.0.0.1:port, as the lecture hall starts an app process;
    its output goes to a file, `server_log(process)`."""
    log = tempfile.TemporaryFile()  # a pipe nobody reads would fill up and stall the server
    command = app_command(Backend("127.0.0.1", port))
    process = subprocess.Popen(command, cwd=PROJECT_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    process.log = log
    return healthy_or_stop(process, port, 60)


def healthy_or_stop(process: subprocess.Popen, port: int, seconds: float) -> subprocess.Popen:
    """``process`` once the server it started answers its health check on loopback ``port``;
    if it does not within ``seconds``, kill it and end the script with the end of its log."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if healthy(f"http://127.0.0.1:{port}", timeout=1):
            return process
        time.sleep(0.2)
    process.kill()
    raise SystemExit(f"the server did not start: {server_log(process)[-2000:]}")


def server_log(process: subprocess.Popen) -> str:
    process.log.seek(0)
    return process.log.read().decode(errors="replace")


def stop_server(process: subprocess.Popen, timeout: float = 60) -> str:
    """SIGTERM (as a service manager stops it), wait, and return its whole output."""
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    return server_log(process)


class MemorySampler:
    """The server's resident memory (MB) and CPU seconds, sampled twice a second."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.samples: list[tuple[float, float, float]] = []  # (seconds since start, RSS MB, CPU s)
        self.marks: dict[str, float] = {}
        self._stop = threading.Event()
        self._started = time.monotonic()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> MemorySampler:
        self._thread.start()
        return self

    def rss(self) -> float:
        with open(f"/proc/{self.pid}/status") as status:
            return int(re.search(r"VmRSS:\s+(\d+)", status.read()).group(1)) / 1024

    def cpu(self) -> float:
        with open(f"/proc/{self.pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def mark(self, name: str) -> None:
        self.marks[name] = self.rss()

    def _run(self) -> None:
        while not self._stop.wait(0.5):
            try:
                self.samples.append((time.monotonic() - self._started, self.rss(), self.cpu()))
            except (OSError, AttributeError):
                return

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def listening_pid(port: int) -> int | None:
    """The pid of this machine's process listening on TCP ``port`` (one of this user's), or None."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:  # 0A: LISTEN
                inodes.add(f"socket:[{fields[9]}]")
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if any(os.readlink(fd) in inodes for fd in (entry / "fd").iterdir()):
                    return int(entry.name)
            except OSError:
                continue
    return None


class Samplers:
    """A `MemorySampler` per app process (by the name the sessions know it by), marked together.
    ``known`` maps names to pids; any other name of the form ``127.0.0.1:PORT`` is looked up
    by its port; a process on another machine has no sampler (its latency is still reported)."""

    def __init__(self, known: dict[str, int] | None = None) -> None:
        self.known = dict(known or {})
        self.samplers: dict[str, MemorySampler] = {}

    def start(self, names) -> None:
        for name in sorted(names):
            host, _, port = name.rpartition(":")
            pid = self.known.get(name)
            if pid is None and host in ("127.0.0.1", "localhost", "[::1]") and port.isdigit():
                pid = listening_pid(int(port))
            if pid is not None and name not in self.samplers:
                self.samplers[name] = MemorySampler(pid).start()

    def of(self, name: str) -> MemorySampler | None:
        return self.samplers.get(name)

    def mark(self, name: str) -> None:
        for sampler in self.samplers.values():
            try:
                sampler.mark(name)
            except OSError:  # the process has gone
                pass

    def stop(self) -> None:
        for sampler in self.samplers.values():
            sampler.stop()


# ==================== One browser session, spoken in Streamlit's protocol


@dataclass
class Report:
    latencies: dict[str, list[float]] = field(default_factory=dict)
    by_process: dict[str, dict[str, list[float]]] = field(default_factory=dict)  # app process -> latencies
    errors: list[str] = field(default_factory=list)
    leaks: list[str] = field(default_factory=list)

    round: int = 1  # requests of later rounds are reported apart, each under its number: the class after warm-up

    def key(self, kind: str) -> str:
        return kind if self.round == 1 else f"{kind} (round {self.round})"

    def add(self, kind: str, seconds: float, process: str = "") -> None:
        self.latencies.setdefault(self.key(kind), []).append(seconds)
        if process:
            self.by_process.setdefault(process, {}).setdefault(self.key(kind), []).append(seconds)

    def replace_last(self, kind: str, seconds: float, process: str = "") -> None:
        self.latencies[self.key(kind)][-1] = seconds
        if process:
            self.by_process[process][self.key(kind)][-1] = seconds


class Session:
    """One student's browser tab: a websocket, the widgets it has seen, what it received.
    ``server`` is a loopback port or a base URL (``http://host:port``, e.g. a proxy's)."""

    def __init__(self, number: int, server: int | str, cookie: str, xsrf: str, report: Report, markers: dict) -> None:
        self.base = server.rstrip("/") if isinstance(server, str) else f"http://127.0.0.1:{server}"
        self.number, self.cookie, self.xsrf = number, cookie, xsrf
        self.report, self.markers = report, markers  # markers: session number -> its secret bytes
        # Every frame is searched for the other sessions' markers. They share a prefix
        # ("SECRET"), so one search for it rules out almost every frame, instead of 99
        # searches of each frame for each of 100 students: this script's CPU would grow with
        # the square of the class, on the machine whose CPU the servers share.
        self._others = [(other, secret) for other, secret in markers.items() if other != number]
        self._others_prefix = os.path.commonprefix([secret for _, secret in self._others]) if self._others else b""
        self.served_by: list[str] = []  # the app process of each HTTP answer (proxy header), in order
        self.pages: dict[str, str] = {}  # page name -> page_script_hash
        self.page = ""  # the hash of the page shown
        self.widgets: dict[str, str] = {}  # widget key -> widget id
        self.widget_fragments: dict[str, str] = {}  # widget key -> the fragment it is in ("" for none)
        self.fragment: str | None = None  # a fragment the server asked to rerun on a timer
        self.session_id = ""
        self._finished: asyncio.Future | None = None
        self._file_urls: asyncio.Future | None = None
        self._uploaded: dict[str, str] = {}  # uploader key -> the delete URL of the file it holds
        self.texts: list[str] = []  # progress-bar and markdown texts of the last run (for the job)
        self.last_status = ""  # how the last script run finished (FINISHED_FRAGMENT_RUN_SUCCESSFULLY, ...)

    @property
    def process(self) -> str:
        """The app process this session belongs to: the first that answered it."""
        return self.served_by[0] if self.served_by else ""

    def answered_by(self, headers) -> None:
        self.served_by.append(headers.get(SERVED_BY_HEADER) or urllib.parse.urlsplit(self.base).netloc)

    async def open(self, query: str) -> None:
        self.ws = await connect(
            self.base.replace("http", "ws", 1) + STREAM_PATH,
            subprotocols=["streamlit"],
            origin=self.base,
            additional_headers={"Cookie": self.cookie},
            max_size=None,
            compression=None,
            ping_interval=None,
        )
        self.answered_by(self.ws.response.headers)
        self._reader = asyncio.create_task(self._read())
        self.query = query

    async def close(self) -> None:
        await self.ws.close()
        self._reader.cancel()

    async def _read(self) -> None:
        async for frame in self.ws:
            if self._others_prefix in frame:  # b"" (markers without a common prefix) is in every frame
                for other, secret in self._others:
                    if secret in frame:
                        self.report.leaks.append(f"session {self.number} received session {other}'s text")
            msg = ForwardMsg.FromString(frame)
            kind = msg.WhichOneof("type")
            if kind == "new_session":
                self.session_id = msg.new_session.initialize.session_id or self.session_id
                if not msg.metadata.run.fragment_ids:  # a full script run: a browser drops its fragment timers
                    self.fragment = None
            elif kind == "navigation":  # the pages in the sidebar, in their order
                self.pages = navigation_pages(msg.navigation)
            elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                self._element(msg.delta.new_element, msg.delta.fragment_id)
            elif kind == "auto_rerun":
                self.fragment = msg.auto_rerun.fragment_id
            elif kind == "stop_auto_rerun":
                self.fragment = None
            elif kind == "file_urls_response" and self._file_urls is not None and not self._file_urls.done():
                self._file_urls.set_result(msg.file_urls_response)
            elif kind == "session_event" and msg.session_event.HasField("script_compilation_exception"):
                self.report.errors.append(f"session {self.number}: the script did not compile")
            elif (
                kind == "script_finished"
                # not a run cut short by a rerun, whose own finish follows: a model job's last tick
                # calls st.rerun(), and the wait must end with that run, not with the tick it cut off
                and msg.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN
                and self._finished is not None
                and not self._finished.done()
            ):
                self.last_status = ForwardMsg.ScriptFinishedStatus.Name(msg.script_finished)
                self._finished.set_result(msg.script_finished)

    def _element(self, element, fragment_id: str) -> None:
        kind = element.WhichOneof("type")
        problem = shown_problem(element)
        if problem is not None:
            self.report.errors.append(f"session {self.number}: {problem}")
        elif kind in ("progress", "markdown"):
            self.texts.append(getattr(element, kind).text if kind == "progress" else element.markdown.body)
        widget = getattr(element, kind, None)
        widget_id = getattr(widget, "id", "") if widget is not None else ""
        if widget_id:  # "$$ID-<hash>-<key>": the key a page gave the widget
            key = re.sub(r"^\$\$ID-[0-9a-f]+-", "", widget_id)
            self.widgets[key] = widget_id
            self.widget_fragments[key] = fragment_id  # a widget in a fragment reruns only its fragment

    async def rerun(
        self, kind: str, page: str | None = None, widgets: list[WidgetState] = (), fragment: str | None = None
    ) -> float:
        """Ask for a script run (a page, a widget change, a fragment tick); wait for it to finish."""
        if VERBOSE:
            print(f"{time.strftime('%X')} session {self.number}: {kind}", file=sys.stderr, flush=True)
        if page is not None and page != self.page:
            self.page, self.widgets, self.widget_fragments = page, {}, {}
        msg = BackMsg()
        state = msg.rerun_script
        state.query_string = self.query
        state.page_script_hash = self.page
        state.widget_states.widgets.extend(widgets)
        if fragment:
            state.fragment_id, state.is_auto_rerun = fragment, not widgets
        self.texts = []
        self._finished = asyncio.get_running_loop().create_future()
        started = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        try:
            await asyncio.wait_for(self._finished, REQUEST_TIMEOUT)
        except TimeoutError:
            self.report.errors.append(f"session {self.number}: {kind} took over {REQUEST_TIMEOUT:.0f} s")
            return REQUEST_TIMEOUT
        seconds = time.perf_counter() - started
        self.report.add(kind, seconds, self.process)
        return seconds

    def widget(self, key: str) -> str:
        found = self.widgets.get(key)
        if found is None:
            raise RuntimeError(f"session {self.number}: no widget {key!r} on this page ({sorted(self.widgets)[:20]})")
        return found

    async def click(self, kind: str, key: str) -> float:
        return await self.rerun(
            kind,
            widgets=[WidgetState(id=self.widget(key), trigger_value=True)],
            fragment=self.widget_fragments.get(key) or None,
        )

    async def set_int(self, kind: str, key: str, value: int) -> float:
        return await self.rerun(
            kind,
            widgets=[WidgetState(id=self.widget(key), int_value=value)],
            fragment=self.widget_fragments.get(key) or None,
        )

    async def set_text(self, kind: str, key: str, value: str) -> float:
        """Type ``value`` into a text box (sent whole, as a client that ignores the box's
        ``maxlength`` sends it)."""
        return await self.rerun(
            kind,
            widgets=[WidgetState(id=self.widget(key), string_value=value)],
            fragment=self.widget_fragments.get(key) or None,
        )

    async def upload(self, kind: str, key: str, name: str, data: bytes) -> float:
        """What a browser does: ask for an upload URL, PUT the file, rerun with the uploader's new
        state; a single-file uploader that held a file deletes it from the server first (without,
        the server keeps every file a session ever uploaded until the session ends)."""
        started = time.perf_counter()
        replaced = self._uploaded.pop(key, None)
        if replaced is not None:
            await asyncio.to_thread(self._http, replaced, "DELETE", None, {})
        self._file_urls = asyncio.get_running_loop().create_future()
        msg = BackMsg()
        msg.file_urls_request.CopyFrom(
            FileURLsRequest(request_id=uuid.uuid4().hex, file_names=[name], session_id=self.session_id)
        )
        await self.ws.send(msg.SerializeToString())
        urls = (await asyncio.wait_for(self._file_urls, REQUEST_TIMEOUT)).file_urls[0]
        await asyncio.to_thread(self._put, urls.upload_url, name, data)
        self._uploaded[key] = urls.delete_url
        state = FileUploaderState(
            uploaded_file_info=[UploadedFileInfo(name=name, size=len(data), file_id=urls.file_id, file_urls=urls)]
        )
        await self.rerun(kind, widgets=[WidgetState(id=self.widget(key), file_uploader_state_value=state)])
        seconds = time.perf_counter() - started
        self.report.replace_last(kind, seconds, self.process)  # the whole upload, not only its rerun
        return seconds

    def _put(self, url: str, name: str, data: bytes) -> None:
        boundary = uuid.uuid4().hex
        body = (
            (
                f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
                f"Content-Type: text/plain\r\n\r\n"
            ).encode()
            + data
            + f"\r\n--{boundary}--\r\n".encode()
        )
        self._http(url, "PUT", body, {"Content-Type": f"multipart/form-data; boundary={boundary}"})

    def _http(self, url: str, method: str, body: bytes | None, headers: dict[str, str]) -> None:
        """One request to the upload endpoint, with the browser's cookie and XSRF token."""
        full = url if url.startswith("http") else f"{self.base}{url}"
        request = urllib.request.Request(
            full,
            data=body,
            method=method,
            headers={**headers, "Cookie": self.cookie, "X-Xsrftoken": self.xsrf, "Origin": self.base},
        )
        with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT) as reply:
            reply.read()
            self.answered_by(reply.headers)


# ==================== The lesson


async def think(seconds: float) -> None:
    await asyncio.sleep(random.uniform(0.5, 1.5) * seconds)


async def lesson(session: Session, args, round_: int, jobs: list) -> None:
    if round_ == 1:
        await session.rerun("open the link", page="")
    for name, page in list(session.pages.items()):
        await think(args.think)
        await session.rerun(f"page: {name}", page=page)
    await session.rerun(f"page: {MERGE_PAGE}", page=session.pages[MERGE_PAGE])
    for _ in range(args.merges):
        await think(args.think)
        await session.click("merge step", "merges_forward")
    if round_ == 1 and session.number % args.jobs_per == 0:
        await model_job(session, args, jobs)  # on the class's corpus, before the student's own text
    await think(args.think)
    await session.upload(
        "upload a text", "settings_upload", f"student-{session.number}-{round_}.txt", student_text(session, round_)
    )


def student_text(session: Session, round_: int) -> bytes:
    """A few kilobytes of the student's own notes, carrying the session's secret marker."""
    words = random.Random(session.number * 10 + round_).choices(
        "the a of merge token pair count vocabulary text byte learns frequent most new".split(), k=600
    )
    secret = session.markers[session.number].decode()
    return f"Notes of student {session.number}, round {round_} ({secret}): {' '.join(words)}\n".encode()


async def model_job(session: Session, args, jobs: list) -> None:
    await session.rerun(f"page: {MODEL_PAGE}", page=session.pages[MODEL_PAGE])
    await session.set_int("model: set steps", f"_w_{MODEL_STEPS.key}", args.model_steps)
    await session.click("model: start", "model_start")
    started, waited = time.monotonic(), []
    while session.fragment is not None:  # the page's timer: one fragment run per second, as a browser does
        await asyncio.sleep(1.0)
        if session.fragment is None:
            break
        await session.rerun("model: progress tick", fragment=session.fragment)
        if any("The server is busy" in text for text in session.texts):
            waited.append(time.monotonic())
    jobs.append(
        {
            "session": session.number,
            "seconds": round(time.monotonic() - started, 1),
            "waited_in_line_s": round(waited[-1] - started, 1) if waited else 0.0,
        }
    )


def xsrf_cookie(server: int | str) -> tuple[str, str, str]:
    """(Cookie header, XSRF token, the app process that answered): what a browser holds
    after its first request, before it may upload a file. Through a proxy the cookies
    include the proxy's, which keeps this browser on the same app process."""
    base = server.rstrip("/") if isinstance(server, str) else f"http://127.0.0.1:{server}"
    cookies, headers = browser_cookies(base)
    served_by = headers.get(SERVED_BY_HEADER) or urllib.parse.urlsplit(base).netloc
    xsrf = next((c.split("=", 1)[1].strip('"') for c in cookies if c.startswith("_streamlit_xsrf=")), "")
    return "; ".join(cookies), xsrf, served_by


async def classroom(args, server: int | str, samplers: Samplers) -> tuple[Report, list, dict]:
    report, jobs, phases = Report(), [], {}
    markers = {n: f"SECRET{n:03d}{uuid.uuid4().hex[:8]}".encode() for n in range(args.sessions)}
    query = urllib.parse.urlencode({"corpus": args.corpus, "vocab": args.vocab})
    sessions = []
    for n in range(args.sessions):  # each its own browser: its own cookies, so the proxy places each
        cookie, xsrf, served_by = await asyncio.to_thread(xsrf_cookie, server)
        sessions.append(Session(n, server, cookie, xsrf, report, markers))
        sessions[-1].served_by.append(served_by)
    await asyncio.gather(*(s.open(query) for s in sessions))
    samplers.start({s.process for s in sessions})
    samplers.mark("idle")
    for round_ in range(1, args.rounds + 1):
        report.round = round_
        started = time.monotonic()
        results = await asyncio.gather(*(lesson(s, args, round_, jobs) for s in sessions), return_exceptions=True)
        for number, result in enumerate(results):
            if isinstance(result, BaseException):
                report.errors.append(f"session {number}: the lesson broke off: {type(result).__name__}: {result}")
        phases[f"round {round_}"] = round(time.monotonic() - started, 1)
        samplers.mark(f"after round {round_}")
    report.round = 1
    phases["alone"] = await alone(sessions[0], args, samplers.of(sessions[0].process))
    await asyncio.gather(*(s.close() for s in sessions))
    for session in sessions:
        if len(set(session.served_by)) > 1:
            report.errors.append(
                f"session {session.number} was answered by more than one app process: {sorted(set(session.served_by))}"
            )
    phases["sessions_by_process"] = {
        process: [s.number for s in sessions if s.process == process]
        for process in sorted({s.process for s in sessions})
    }
    return report, jobs, phases


async def alone(session: Session, args, sampler: MemorySampler | None, steps: int = 20) -> dict:
    """One student stepping with nobody else on the server: the latency floor, and what one
    step costs the server in CPU seconds, which a busy machine hardly changes (the server
    runs every session's script under one GIL, so 1 / cost is its ceiling in steps/s)."""
    await session.rerun("alone: page", page=session.pages[MERGE_PAGE])
    cpu, started = sampler.cpu() if sampler else 0.0, time.perf_counter()
    latencies = [await session.click("alone: merge step", "merges_forward") for _ in range(steps)]
    return {
        "steps": steps,
        "median_s": round(statistics.median(latencies), 3),
        "server_cpu_per_step_s": round((sampler.cpu() - cpu) / steps, 3) if sampler else None,
        "wall_per_step_s": round((time.perf_counter() - started) / steps, 3),
    }


# ==================== Report


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def latency_rows(latencies: dict[str, list[float]]) -> dict:
    """Median, 95th percentile and maximum of each kind of request, and of every page's
    first visit together (round 1's page requests: a student opening each page)."""
    first_visits = [t for kind, v in latencies.items() if kind.startswith("page: ") and "(round" not in kind for t in v]
    kinds = {**dict(sorted(latencies.items())), **({FIRST_VISITS: first_visits} if first_visits else {})}
    return {
        kind: {
            "n": len(v),
            "median_s": round(statistics.median(v), 3),
            "p95_s": round(percentile(v, 0.95), 3),
            "max_s": round(max(v), 3),
        }
        for kind, v in kinds.items()
    }


def memory(sampler: MemorySampler) -> dict:
    rss = [mb for _, mb, _ in sampler.samples]
    return {
        "start": round(rss[0]) if rss else None,
        "peak": round(max(rss)) if rss else None,
        **{name: round(mb) for name, mb in sampler.marks.items()},
    }


def summary(report: Report, jobs: list, phases: dict, samplers: Samplers, args, cores: int) -> dict:
    by_process = phases.pop("sessions_by_process", {})
    per_process = {
        name: {
            "sessions": len(numbers),
            "latency": latency_rows(report.by_process.get(name, {})),
            "memory_mb": memory(samplers.of(name)) if samplers.of(name) else None,
            "memory_timeline": [(round(t, 1), round(mb)) for t, mb, _ in samplers.of(name).samples[::10]]
            if samplers.of(name)
            else None,
            "cpu_s": round(samplers.of(name).samples[-1][2], 1)
            if samplers.of(name) and samplers.of(name).samples
            else None,
        }
        for name, numbers in by_process.items()
    }
    measured = [row["memory_mb"] for row in per_process.values() if row["memory_mb"]]
    total_memory = {key: sum(m[key] or 0 for m in measured) for key in (measured[0] if measured else {})}
    return {
        "url": args.url,
        "sessions": args.sessions,
        "merges": args.merges,
        "think_s": args.think,
        "cores": cores,
        "corpus": args.corpus,
        "vocab": args.vocab,
        "model_job_steps": args.model_steps,  # each model of a job trains this many steps
        "latency": latency_rows(report.latencies),
        "errors": report.errors,
        "leaks": sorted(set(report.leaks)),
        "jobs": jobs,
        "rounds_s": phases,
        "processes": len(per_process),
        "per_process": per_process,
        "memory_mb": total_memory,  # summed over the app processes of this machine ("peak": of each one's peak)
        "server_cpu_s": round(sum(row["cpu_s"] or 0 for row in per_process.values()), 1),
        # The students' side runs on this machine too: its CPU is taken from the servers'.
        "client_cpu_s": round(time.process_time(), 1),
        "load_average": os.getloadavg(),  # other work on the machine slows every request
    }


def print_summary(found: dict) -> None:
    print(
        f"\n{found['sessions']} sessions, {found['merges']} merges each, think time {found['think_s']} s, "
        f"{found['cores']} cores, {found['processes']} app process(es); rounds took {found['rounds_s']}"
    )
    print(f"{'request':<36} {'n':>5} {'median':>8} {'p95':>8} {'max':>8}")
    for kind, row in found["latency"].items():
        print(f"{kind:<36} {row['n']:>5} {row['median_s']:>7.3f}s {row['p95_s']:>7.3f}s {row['max_s']:>7.3f}s")
    if found["processes"] > 1:
        print(f"\n{'app process':<22} {'sessions':>8} {'step p50':>9} {'step p95':>9} {'visit p95':>10}  memory (MB)")
        for name, row in found["per_process"].items():
            step, visit = row["latency"].get("merge step", {}), row["latency"].get(FIRST_VISITS, {})
            print(
                f"{name:<22} {row['sessions']:>8} {step.get('median_s', float('nan')):>8.3f}s "
                f"{step.get('p95_s', float('nan')):>8.3f}s {visit.get('p95_s', float('nan')):>9.3f}s  {row['memory_mb']}"
            )
    print(
        f"memory (MB, all app processes here): {found['memory_mb']}; server CPU {found['server_cpu_s']} s; "
        f"the students' CPU (this script) {found['client_cpu_s']} s; "
        f"machine load average {found['load_average']}"
    )
    print(f"model jobs: {found['jobs']}")
    print(f"errors: {len(found['errors'])}", *found["errors"][:20], sep="\n  ")
    print(f"cross-session leaks: {len(found['leaks'])}", *found["leaks"][:20], sep="\n  ")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--merges", type=int, default=50, help="merge steps per session per round")
    parser.add_argument("--think", type=float, default=2.0, help="mean seconds a student pauses between actions")
    parser.add_argument("--jobs-per", type=int, default=10, help="one model job per this many sessions")
    parser.add_argument("--model-steps", type=int, default=60, help="training steps per model of a job")
    parser.add_argument("--corpus", default="Python language reference")
    parser.add_argument("--vocab", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--rounds",
        type=int,
        default=2,
        help="rounds of the lesson: the first on the teacher's link, each later one on the student's own text, "
        "new each round (more than 2: a longer class, to see where each process's memory settles)",
    )
    parser.add_argument(
        "--url",
        help="drive the class through this running server (e.g. the lecture hall's proxy, "
        "http://127.0.0.1:8501) instead of starting one",
    )
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--verbose", action="store_true", help="log each session's steps to stderr")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error(f"--rounds {args.rounds}: a lesson has at least one round")
    random.seed(args.seed)
    global VERBOSE
    VERBOSE = args.verbose
    if args.url:
        samplers = Samplers()
        try:
            report, jobs, phases = asyncio.run(classroom(args, args.url, samplers))
            time.sleep(2)
            samplers.mark("end")
        finally:
            samplers.stop()
        found = summary(report, jobs, phases, samplers, args, os.cpu_count() or 1)
    else:
        found = one_server(args)
    print_summary(found)
    if args.json:
        args.json.write_text(json.dumps(found, indent=2))
    return 0 if not found["errors"] and not found["leaks"] else 1


def one_server(args) -> dict:
    """The class on a server of its own, started here and stopped after (its log checked)."""
    port = free_port()
    env = {**os.environ, "BPE_SESSION_GRACE_SECONDS": "20"}  # a student who leaves gives up the job
    # So the server is stopped on the way out; only the main thread may set a handler (a
    # test runs this on a thread of its own: tests.helpers.on_own_thread).
    on_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, lambda *_: sys.exit(143)) if on_main else None
    server = start_server(port, env)
    samplers = Samplers({f"127.0.0.1:{port}": server.pid})
    try:
        report, jobs, phases = asyncio.run(classroom(args, port, samplers))
        time.sleep(2)
        samplers.mark("end")
    finally:
        samplers.stop()
        output = stop_server(server)
        if on_main:
            signal.signal(signal.SIGTERM, previous)
    found = summary(report, jobs, phases, samplers, args, os.cpu_count() or 1)
    found["server_exit"] = server.returncode
    found["server_log_tail"] = output[-3000:]
    if "Traceback" in output or "terminate called" in output:
        found["errors"].append("the server log holds a traceback or an abort (see server_log_tail)")
    return found


if __name__ == "__main__":
    sys.exit(main())
