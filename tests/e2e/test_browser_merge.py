"""Real browser: the home page and Merge by merge, stepped and played in chromium."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e
SMALL = quote("low lower newest widest")  # 17 merges


def step_value(pg):
    return pg.get_by_test_id("stMetricValue").first


def test_home_page_draws_the_summary_offline(page, app_url):
    page.goto(app_url)
    expect(page.get_by_role("heading", name="BPE Lab")).to_be_visible()
    expect(page.get_by_test_id("stMetricLabel").filter(has_text="Merges learned")).to_be_visible(timeout=60_000)
    assert page.off_origin_requests == []


def test_step_forward_shows_the_merged_token(page, app_url, screenshot):
    page.goto(f"{app_url}/Merge_by_merge?corpus={SMALL}")
    expect(page.get_by_role("heading", name="Merge by merge")).to_be_visible()
    expect(step_value(page)).to_have_text("1 of 17")
    page.get_by_role("button", name="Step forward").click()
    expect(step_value(page)).to_have_text("2 of 17")
    merged = page.locator(".bpe-segments .tok.merged")
    expect(merged.first).to_be_visible()
    expect(merged.first).to_have_text("est")  # merge 2: es + t
    expect(merged.first).to_have_attribute("title", "id 12: 'est'")
    expect(page.locator(".js-plotly-plot").first).to_be_visible()  # the chart really draws
    path = screenshot(page, "merge_by_merge", checked=True)
    assert path.stat().st_size > 10_000
    assert "step=2" in page.url
    assert page.off_origin_requests == []


def test_play_runs_to_the_end_and_stops(page, app_url):
    page.goto(f"{app_url}/Merge_by_merge?corpus={SMALL}&step=14")
    expect(step_value(page)).to_have_text("14 of 17")
    page.get_by_role("button", name="Play").click()
    expect(page.get_by_role("button", name="Pause")).to_be_visible()
    expect(step_value(page)).to_have_text("17 of 17", timeout=20_000)
    expect(page.get_by_role("button", name="Play")).to_be_visible()  # the timer stopped, the label flipped back
    expect(page.get_by_text("Training stopped after 17 merges")).to_be_visible()
