"""Real browser: a live training to 50,000 shows merges done, merges per second and the
time left with a Stop button; Stop ends it within seconds and the page shows the merges
learned so far, labelled "stopped at N of M merges"; screenshots at 1280x800 and
1024x768, presenter mode too."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e
LONG = "vocab=50000&prefix=600000"  # 540,000 characters to train on: the live limit


@pytest.mark.parametrize("width, height", [(1280, 800), (1024, 768)])
def test_stop_a_live_training_and_keep_its_merges(browser, app_url, width, height, screenshot):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    own = (app_url, app_url.replace("http", "ws", 1), "data:", "blob:")
    off_origin: list[str] = []
    page.on("request", lambda request: request.url.startswith(own) or off_origin.append(request.url))
    try:
        page.goto(f"{app_url}/Merge_by_merge?{LONG}")
        expect(page.get_by_role("heading", name="Merge by merge")).to_be_visible()
        bar = page.get_by_test_id("stProgress")
        expect(bar).to_contain_text(
            re.compile(r"Training: merge [\d,]+ of 49,936 · [\d,]+ merges/s · about"), timeout=90_000
        )
        screenshot(page, f"live_training_{width}x{height}", height=height)
        pressed = time.monotonic()
        page.get_by_role("button", name="Stop training").click()
        note = page.get_by_text("Training stopped at")
        expect(note).to_be_visible(timeout=30_000)
        assert time.monotonic() - pressed < 10  # promptly, not at the end of 50,000 merges
        merges = int(re.search(r"stopped at ([\d,]+) of 49,936", note.inner_text()).group(1).replace(",", ""))
        assert 0 < merges < 49_936
        # the step metric: "Step", "1 of 1,014"
        expect(page.get_by_test_id("stMetric").first).to_contain_text(f"of {merges:,}", timeout=60_000)
        expect(page.get_by_role("button", name="Train to 50,000 again")).to_be_visible()
        screenshot(page, f"live_training_stopped_{width}x{height}", height=height)
        sidebar = page.get_by_test_id("stSidebar")
        sidebar.get_by_text("Presenter mode: larger type").click()
        expect(note).to_be_visible()
        screenshot(page, f"live_training_stopped_presenter_{width}x{height}", height=height)
        sidebar.get_by_text("Presenter mode: larger type").click()
        assert off_origin == []
    finally:
        context.close()


def test_one_sessions_stop_leaves_another_sessions_training_to_its_end(browser, app_url):
    """Two sessions wait for one training (the same settings): the first presses Stop and
    keeps its merges; the second's progress goes on, and it gets the full run."""
    first = browser.new_context(viewport={"width": 1280, "height": 800})
    second = browser.new_context(viewport={"width": 1024, "height": 768})
    try:
        a, b = first.new_page(), second.new_page()
        shared = f"{app_url}/Merge_by_merge?{LONG}"
        # Both open before either waits: opened one after the other, the second could find
        # the training already finished on a fast machine (it was, in CI), with no bar to see.
        for page in (a, b):
            page.goto(shared)
        for page in (a, b):
            expect(page.get_by_test_id("stProgress")).to_contain_text("Training: merge", timeout=90_000)
        a.get_by_role("button", name="Stop training").click()
        expect(a.get_by_text("Training stopped at")).to_be_visible(timeout=30_000)
        expect(b.get_by_test_id("stMetricValue").first).to_have_text(re.compile(r"^[\d,]+ of [\d,]+$"), timeout=180_000)
        assert b.get_by_text("Training stopped at").count() == 0
    finally:
        first.close()
        second.close()


@pytest.mark.parametrize("width, height", [(1280, 800), (1024, 768)])
def test_a_run_stopped_at_the_bound_on_its_tokens_says_why(browser, app_url, width, height, screenshot):
    """The probe's case: pairs seen once (minimum pair frequency 1), no pre-tokenizer, 50,000
    merges of 540,000 characters. It stops at the app's bound and says so in plain words."""
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    try:
        page.goto(f"{app_url}/Merge_by_merge?{LONG}&min_freq=1")
        note = page.get_by_text(re.compile(r"Training stopped at [\d,]+ of 49,936 merges: the next merge"))
        expect(note).to_be_visible(timeout=180_000)
        assert "the most one run may hold here; a minimum pair frequency of 2 keeps tokens short" in note.inner_text()
        merges = int(re.search(r"stopped at ([\d,]+) of", note.inner_text()).group(1).replace(",", ""))
        expect(page.get_by_test_id("stMetric").first).to_contain_text(f"of {merges:,}", timeout=60_000)
        screenshot(page, f"vocab_characters_{width}x{height}", height=height)
        sidebar = page.get_by_test_id("stSidebar")
        sidebar.get_by_text("Presenter mode: larger type").click()
        expect(note).to_be_visible()
        screenshot(page, f"vocab_characters_presenter_{width}x{height}", height=height)
        sidebar.get_by_text("Presenter mode: larger type").click()
    finally:
        context.close()
