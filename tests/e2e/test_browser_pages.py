"""Real browser: the analysis pages draw (charts, linked hover, highlighted window), offline."""

from __future__ import annotations

import pytest
from e2e.conftest import settle
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e
# The default corpus (Tiny Shakespeare) at vocab 300: one training serves all four pages.
QUERY = "?vocab=300"


def outline_style(locator) -> str:
    return locator.evaluate("element => getComputedStyle(element).outlineStyle")


def outline_on_hover(page, hovered, linked) -> str:
    """The outline ``linked`` shows while the mouse is on ``hovered``. The hover is taken again
    when it shows none within a few seconds: a browser updates ``:hover`` on the next mouse
    move, so an element the page drew anew under a still mouse is not hovered (on a machine
    running two suites the page was still drawing after its first token showed)."""
    for _ in range(4):
        page.mouse.move(0, 0)
        hovered.hover()
        try:
            expect(linked).to_have_css("outline-style", "solid", timeout=3_000)
        except AssertionError:
            continue
        return "solid"
    return outline_style(linked)


def test_tokenize_links_a_token_and_its_id_on_hover(page, app_url, screenshot):
    page.goto(f"{app_url}/Tokenize{QUERY}")
    expect(page.get_by_role("heading", name="Tokenize")).to_be_visible()
    block = page.locator(".bpe-linked").nth(1)  # the trained BPE, beside the characters
    expect(block.locator(".bpe-segments .tok").first).to_be_visible(timeout=60_000)
    settle(page)  # the page's run has ended
    token, token_id = block.locator(".bpe-segments .t0"), block.locator(".bpe-ids .t0")
    assert outline_style(token_id) == "none"
    assert outline_on_hover(page, token, token_id) == "solid"  # the CSS :has() rule survived st.html
    # and the reverse
    assert outline_on_hover(page, block.locator(".bpe-ids .t1"), block.locator(".bpe-segments .t1")) == "solid"
    expect(page.get_by_text("Merges applied while encoding this text")).to_be_visible()
    screenshot(page, "tokenize")
    assert page.off_origin_requests == []


@pytest.mark.parametrize(
    "path, heading, shot",
    [
        ("Compression", "Compression", "compression"),
        ("Context_window", "Context window", "context_window"),
    ],
    ids=["compression", "context-window"],
)
def test_chart_pages_draw_their_chart(page, app_url, screenshot, path, heading, shot):
    page.goto(f"{app_url}/{path}{QUERY}")
    expect(page.get_by_role("heading", name=heading, exact=True)).to_be_visible()
    expect(page.locator(".js-plotly-plot .scatterlayer .trace").first).to_be_visible(timeout=60_000)
    if path == "Context_window":
        expect(page.locator(".bpe-window .cut").first).to_have_text("✂ 128")
    assert screenshot(page, shot, checked=True).stat().st_size > 10_000
    assert page.off_origin_requests == []


def test_vocabulary_refuses_a_tampered_upload(page, app_url, screenshot, tmp_path):
    page.goto(f"{app_url}/Vocabulary{QUERY}")
    expect(page.get_by_role("heading", name="Vocabulary")).to_be_visible()
    expect(page.get_by_test_id("stMetricValue").first).to_be_visible(timeout=60_000)
    bad = tmp_path / "tok.json"
    bad.write_text(
        '{"type": "character_bpe", "base_tokens": ["a"], "merges": [], "vocab_size": 1, "fingerprint": "0000"}'
    )
    # The page's own uploader by its label: while the page still draws, the last file input on it
    # can be the sidebar's "Open a lesson file", and the file went there.
    uploader = page.get_by_test_id("stFileUploader").filter(has_text="Use a tokenizer file")
    uploader.locator("input[type=file]").set_input_files(str(bad))
    expect(page.get_by_text("fails its fingerprint check")).to_be_visible()
    screenshot(page, "vocabulary")
    assert page.off_origin_requests == []
