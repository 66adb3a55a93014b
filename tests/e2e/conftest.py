"""Fixtures for real-browser tests: `streamlit run app.py` on a free loopback port, driven
by Debian's chromium through Playwright (never a downloaded browser).

Reusable by every browser test in this folder:
- `app_url` (session): the server's base URL, e.g. ``http://127.0.0.1:40123``
  (`running_app` starts another, e.g. with other environment variables); `app_log`: the
  file its console goes to;
- `browser` (session): headless chromium;
- `page`: a fresh 1280x900 page; ``page.off_origin_requests`` lists every request that
  did not go to the app (tests assert it stays empty); `sized_page` one of another size;
- `screenshot`: ``screenshot(page, "merge_by_merge")`` writes ``<name>.png`` (a tall
  view of the page) to ``$SCREENSHOT_DIR`` when it is set; ``checked=True`` always takes it
  and returns its path, for a test that checks the picture;
- `settle(page)`: wait until the app's script run is over (after a click, a key, a goto).

The tests skip when chromium or playwright is missing, unless REQUIRE_BROWSER=1 (CI),
where they fail instead.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest
from helpers import free_ports

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or "chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
START_TIMEOUT_S = 60
EXPECT_TIMEOUT_MS = 30_000
RUN_TIMEOUT_MS = 180_000  # the longest run a test waits out: the first page trains the default corpus on a cold server
RUN_START_MS = 1_000  # how long `settle` looks for the run an action starts
# True while the app runs its script, or before its first run (the root says "initial").
RUN_SEEN_JS = """() => document.querySelector('[data-testid="stApp"]')?.dataset.testScriptState !== 'notRunning'"""


def _need_browser() -> None:
    missing = None
    if not shutil.which(CHROMIUM):
        missing = f"chromium not found at {CHROMIUM!r} (apt-get install -y chromium)"
    else:
        try:
            import playwright  # noqa: F401
        except ImportError:
            missing = "playwright is not installed (pip install -r requirements.txt)"
    if missing:
        if os.environ.get("REQUIRE_BROWSER") == "1":
            pytest.fail(missing)
        pytest.skip(missing)


@pytest.fixture(scope="session")
def app_server(tmp_path_factory):
    """The shared server: its base URL and the file its console goes to."""
    _need_browser()
    log = tmp_path_factory.mktemp("streamlit") / "server.log"
    with running_app(log) as url:
        yield url, log


@pytest.fixture(scope="session")
def app_url(app_server):
    return app_server[0]


@pytest.fixture(scope="session")
def app_log(app_server) -> Path:
    """What the shared server has printed on its console so far is ``app_log.read_text()``."""
    return app_server[1]


@contextmanager
def running_app(log_path: Path, env: dict | None = None):
    """`streamlit run app.py` on a free loopback port, its output in ``log_path``: yields the
    base URL once the server is healthy, and stops the server (and its children) after."""
    port = free_ports()
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "streamlit",
                "run",
                "app.py",
                "--server.headless",
                "true",
                "--server.address",
                "127.0.0.1",
                "--server.port",
                str(port),
                "--server.fileWatcherType",
                "none",
                "--browser.gatherUsageStats",
                "false",
            ],
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            start_new_session=True,  # its own process group: teardown stops it and its children
        )
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_healthy(proc, url, log_path)
            yield url
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def _wait_healthy(proc, url: str, log_path: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        if proc.poll() is not None:
            pytest.fail(f"streamlit exited with {proc.returncode}:\n{log_path.read_text()}")
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            pytest.fail(f"streamlit not healthy after {START_TIMEOUT_S} s:\n{log_path.read_text()}")
        time.sleep(0.2)


@pytest.fixture(scope="session")
def browser():
    _need_browser()
    from playwright.sync_api import expect, sync_playwright

    # The first render on a cold, busy machine can take several seconds (imports, training).
    expect.set_options(timeout=EXPECT_TIMEOUT_MS)

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, app_url):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(EXPECT_TIMEOUT_MS)
    own = (app_url, app_url.replace("http", "ws", 1), "data:", "blob:")
    off_origin: list[str] = []
    pg.on("request", lambda request: request.url.startswith(own) or off_origin.append(request.url))
    pg.off_origin_requests = off_origin
    yield pg
    context.close()


@contextmanager
def sized_page(browser, app_url: str, width: int, height: int):
    """A fresh page of ``width`` x ``height`` in a context of its own (closed after), with
    ``page.off_origin_requests`` as the `page` fixture's."""
    context = browser.new_context(viewport={"width": width, "height": height})
    pg = context.new_page()
    own = (app_url, app_url.replace("http", "ws", 1), "data:", "blob:")
    off_origin: list[str] = []
    pg.on("request", lambda request: request.url.startswith(own) or off_origin.append(request.url))
    pg.off_origin_requests = off_origin
    try:
        yield pg
    finally:
        context.close()


def settle(page, timeout_ms: int = RUN_TIMEOUT_MS, after_ms: int = 700) -> None:
    """Wait until the run an action started is over and drawn, then ``after_ms`` more (charts
    lay themselves out after it).

    Not by the status widget: Streamlit shows its running man only once a run has lasted
    500 ms, so "no status widget" also holds in every run's first half second, while elements
    are still being replaced ("Element is not attached to the DOM"). The app's root says its
    run state (``data-test-script-state``), but a click's run shows there only once the server
    answers, 30-340 ms later on two busy cores: so first wait up to `RUN_START_MS` for the root
    to leave "notRunning" (a run too quick to be seen is over by then), then for it to come
    back. Then for the placeholders of elements whose code the browser is still loading
    (``stSkeleton``: seconds, in a fresh context) to be drawn."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
    from playwright.sync_api import expect

    try:
        page.wait_for_function(RUN_SEEN_JS, timeout=RUN_START_MS)
    except PlaywrightTimeoutError:
        pass  # no run seen: it ended before we looked, or the action started none
    page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]').wait_for(
        state="attached", timeout=timeout_ms
    )
    expect(page.get_by_test_id("stSkeleton")).to_have_count(0, timeout=timeout_ms)
    page.wait_for_timeout(after_ms)


@pytest.fixture
def screenshot(tmp_path):
    """``screenshot(page, name)``: a tall picture of the page for a person to look at, taken
    only when ``$SCREENSHOT_DIR`` names where to put it (in CI nobody looks, and each costs a
    relayout and a second). ``screenshot(page, name, checked=True)`` always takes it and
    returns the PNG's path under tmp_path, for a test that checks the picture itself."""

    def take(pg, name: str, height: int = 2200, *, checked: bool = False) -> Path | None:
        target = os.environ.get("SCREENSHOT_DIR")
        if not (checked or target):
            return None
        path = tmp_path / f"{name}.png"
        # Streamlit scrolls inside its main block, so full_page alone stops at the viewport:
        # make the viewport tall for the picture, then put it back.
        size = pg.viewport_size
        pg.set_viewport_size({"width": size["width"], "height": height})
        pg.wait_for_timeout(500)  # let charts re-layout to the new size
        pg.screenshot(path=str(path), full_page=True)
        pg.set_viewport_size(size)
        if target:
            Path(target).mkdir(parents=True, exist_ok=True)
            shutil.copy(path, Path(target) / path.name)
        return path

    return take
