"""Real browser: from Merge by merge's tie inspector, "what if the other rule?" opens Compare
runs, which trains the other rule's run and shows where the two part ways."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e
TIES = quote("the cat in the hat")  # step 1: four pairs tie at 2; first occurrence takes t+h, the alphabet a+t


def test_what_if_the_other_rule_opens_the_comparison(page, app_url, screenshot):
    page.goto(f"{app_url}/Merge_by_merge?corpus={TIES}")
    expect(page.get_by_role("heading", name="Merge by merge")).to_be_visible()
    expect(page.get_by_text("tie with the winner").first).to_be_visible(timeout=60_000)
    page.get_by_role("button", name="What if lexicographic? Compare →").click()
    expect(page.get_by_role("heading", name="Compare runs")).to_be_visible()
    headline = page.locator(".bpe-divergence")
    expect(headline).to_contain_text("Step 1: run A merges t + h → th; run B merges a + t → at")
    expect(page.get_by_text("A tie rule decided")).to_be_visible()
    expect(page.get_by_text("Opened from step 1 of Merge by merge")).to_be_visible()
    for label in ("Shared tokens", "Only in A", "Only in B"):
        expect(page.get_by_test_id("stMetricLabel").filter(has_text=label)).to_be_visible()
    differs = page.locator(".bpe-compare-a .tok.differs")
    expect(differs.first).to_be_visible()
    expect(differs.first).to_have_css("outline-style", "solid")  # the mark really draws
    expect(page.locator(".bpe-compare-b .tok").first).to_be_visible()
    path = screenshot(page, "compare_runs", checked=True)
    assert path.stat().st_size > 10_000
    assert page.off_origin_requests == []
