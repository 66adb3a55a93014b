"""Real browser, issue 21's flow: count a corpus and train two runs from the counts with the
CLI into a BPE_RUNS folder, open the first, play its film, move the vocab slider to its last
merge, then compare it with the run of other settings, in chromium; screenshots at 1280x800
and 1024x768, presenter mode too."""

from __future__ import annotations

import os
import re
from urllib.parse import quote

import pytest
from conftest import running_app, settle
from helpers import counted_runs
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from bpe.paths import DATA_DIR
from bpe.scale.run_listing import list_runs

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def runs_app(tmp_path_factory, browser):
    """A server listing two runs the CLI counted and trained from Tiny Shakespeare (the first
    as the shipped one, merge for merge; the other with ties by lexicographic order)."""
    folder = tmp_path_factory.mktemp("runs")
    first, second = counted_runs(folder, DATA_DIR / "tinyshakespeare.txt")
    labels = {listing.path: listing.label for listing in list_runs([folder])}
    env = {**os.environ, "BPE_RUNS": str(folder)}
    with running_app(tmp_path_factory.mktemp("streamlit") / "server.log", env=env) as url:
        yield url, labels[first], labels[second]


def sidebar(pg):
    return pg.get_by_test_id("stSidebar")


@pytest.mark.parametrize("width, height", [(1280, 800), (1024, 768)])
def test_open_play_slide_and_compare_a_run_file(browser, runs_app, width, height, screenshot):
    url, opened, other = runs_app
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    own = (url, url.replace("http", "ws", 1), "data:", "blob:")
    off_origin: list[str] = []
    page.on("request", lambda request: request.url.startswith(own) or off_origin.append(request.url))
    try:
        page.goto(f"{url}/Merge_by_merge?corpus={quote(opened)}&vocab=1000&step=740")
        expect(page.get_by_role("heading", name="Merge by merge")).to_be_visible()
        expect(sidebar(page).get_by_text("Replaying a recorded run")).to_be_visible(timeout=60_000)
        step = page.get_by_test_id("stMetricValue").first
        expect(step).to_have_text("740 of 744")
        # the vocab slider to the run's last merge: End on the focused slider thumb, once the
        # replay's run is over (a key pressed while the slider is drawn anew is dropped)
        settle(page)
        thumb = sidebar(page).get_by_role("slider").first
        thumb.focus()
        thumb.press("End")
        expect(thumb).to_have_attribute("aria-valuetext", "2000")
        expect(step).to_have_text(re.compile(r"^[\d,]+ of 1,744$"))  # the film now runs to the run's last merge
        screenshot(page, f"run_before_play_{width}x{height}", height=height)
        page.get_by_role("button", name="Play").click()
        # the film moves (a plain string would have to match the metric's whole text, "740 of 1,744")
        expect(step).not_to_have_text(re.compile(r"^740 of"), timeout=30_000)
        pause(page)
        # the last merge, looked at
        page.goto(f"{url}/Merge_by_merge?corpus={quote(opened)}&vocab=2000&step=1744")
        expect(page.get_by_test_id("stMetricValue").first).to_have_text("1,744 of 1,744", timeout=60_000)
        expect(page.locator(".bpe-segments .tok").first).to_be_visible()
        screenshot(page, f"run_merge_by_merge_{width}x{height}", height=height)
        sidebar(page).get_by_text("Presenter mode: larger type").click()
        expect(page.locator(".bpe-segments").first).to_be_visible()
        screenshot(page, f"run_merge_by_merge_presenter_{width}x{height}", height=height)
        sidebar(page).get_by_text("Presenter mode: larger type").click()
        # the other run, picked in the sidebar, then Compare runs in the same session
        picker = sidebar(page).get_by_test_id("stSelectbox").first
        picker.click()
        page.get_by_role("option", name=other).click()
        expect(sidebar(page).get_by_text("counted-lexicographic")).to_be_visible(timeout=60_000)
        sidebar(page).get_by_role("link", name="Compare runs").click()
        expect(page.get_by_role("heading", name="Compare runs")).to_be_visible()
        expect(page.get_by_text("A tie rule decided")).to_be_visible(timeout=60_000)
        screenshot(page, f"run_compare_{width}x{height}", height=height)
        page.get_by_role("link", name="Compression").first.click()
        expect(page.locator(".js-plotly-plot .scatterlayer .trace").first).to_be_visible(timeout=60_000)
        screenshot(page, f"run_compression_{width}x{height}", height=height)
        assert off_origin == []
    finally:
        context.close()


def pause(page):
    """Click Pause until the film stops. While the film plays, its fragment redraws the
    button every step; on a busy machine a click can land on the one being replaced and
    is lost, and a person would simply click again (the test run's other worker keeps
    this machine busy)."""
    play, pause_button = page.get_by_role("button", name="Play"), page.get_by_role("button", name="Pause")
    for _ in range(5):
        try:
            pause_button.click(timeout=5_000)
            expect(play).to_be_visible(timeout=5_000)
            return
        except (AssertionError, PlaywrightError):
            if play.is_visible():
                return
    expect(play).to_be_visible()
