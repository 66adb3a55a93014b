"""Real browser: the measuring views — the encode film played with the keyboard, the span diff's
hover across rows, the report card's colours and chart, the under-trained tokens — offline;
then every measuring view on the shipped run file, at 1024x768, presenter mode off and on."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from e2e.conftest import settle
from playwright.sync_api import expect

from bpe.formats.cl100k import cl100k_path
from bpe.gpt2.files import find_gpt2_files
from bpe.scale.run_listing import RUNS_DIR, list_runs

pytestmark = pytest.mark.e2e
QUERY = "?vocab=300"  # the default corpus (Tiny Shakespeare) at vocab 300, as the other page tests
HOVERED = "rgb(248, 113, 113)"  # span_diff_html.HOVER's background


def open_page(page, app_url, path: str, heading: str):
    page.goto(f"{app_url}/{path}{QUERY}")
    expect(page.get_by_role("heading", name=heading, exact=True)).to_be_visible()
    expect(page.get_by_test_id("stMetricValue").first).to_be_visible(timeout=90_000)


def test_encode_film_steps_with_the_arrow_keys_and_plays_to_the_end(page, app_url, screenshot):
    open_page(page, app_url, "Tokenize", "Tokenize")
    settle(page)  # a text typed while the page's first run still draws can be dropped
    box = page.get_by_label("Text to tokenize")
    box.fill("the king and the queen")  # a short text: a film of a few frames
    box.press("Control+Enter")
    headline = page.locator(".bpe-merge", has_text="Frame ")
    # The new text's film, not the default text's: its 22 characters are the base tokens. A click
    # made while that rerun still runs can be dropped, so the page settles first.
    expect(headline).to_contain_text("Frame 0 of")
    expect(headline).to_contain_text("22 of them")
    settle(page)
    page.locator(".st-key-tokenize_film_forward button").click()
    expect(headline).to_contain_text("Frame 1 of")
    expect(headline).to_contain_text("learned at training step")
    page.get_by_role("heading", name="Encode film").click()  # focus the page, not a widget
    settle(page)
    page.keyboard.press("ArrowRight")
    expect(headline).to_contain_text("Frame 2 of")
    settle(page)
    page.keyboard.press("ArrowLeft")
    expect(headline).to_contain_text("Frame 1 of")
    expect(page.get_by_role("button", name="Open Merge by merge at step")).to_be_visible()
    settle(page)
    page.keyboard.press("Space")
    expect(page.locator(".st-key-tokenize_film_play button")).to_contain_text("Pause")
    expect(page.get_by_text("the end: exactly what encode() gives")).to_be_visible(timeout=90_000)
    expect(page.locator(".st-key-tokenize_film_play button")).to_contain_text("Play")  # stopped at the end
    screenshot(page, "measure_encode_film")
    page.get_by_role("button", name="Open Merge by merge at step").click()
    expect(page.get_by_role("heading", name="Merge by merge", exact=True)).to_be_visible()
    assert page.off_origin_requests == []


def test_span_diff_hover_marks_the_same_characters_in_every_row(page, app_url, screenshot):
    open_page(page, app_url, "Tokenize", "Tokenize")
    diff = page.locator(".bpe-spandiff")
    expect(diff).to_be_visible()
    rows = diff.locator(".bpe-spandiff-line").first.locator(".bpe-spandiff-row")
    assert rows.count() >= 2
    first_in_a, first_in_b = rows.nth(0).locator(".c0"), rows.nth(1).locator(".c0")
    assert first_in_b.evaluate("e => getComputedStyle(e).backgroundColor") != HOVERED
    first_in_a.hover()
    expect(first_in_b).to_have_css("background-color", HOVERED)  # the CSS :has() rule survived st.html
    expect(page.get_by_test_id("stMetricLabel").filter(has_text="Spread")).to_be_visible()
    screenshot(page, "measure_span_diff")
    assert page.off_origin_requests == []


def test_report_card_colours_its_differences_and_draws_its_chart(page, app_url, screenshot):
    open_page(page, app_url, "Compression", "Compression")
    card = page.locator(".bpe-card")
    expect(card).to_be_visible(timeout=90_000)
    expect(card.locator("td", has_text="English prose")).to_be_visible()
    if cl100k_path() is not None:
        expect(card.locator("td.better, td.worse").first).to_be_visible()
    expect(page.get_by_role("button", name="Report card (CSV)")).to_be_visible()
    expect(page.locator(".js-plotly-plot .barlayer .trace").first).to_be_attached()
    page.get_by_test_id("stRadio").get_by_text("bytes per token", exact=True).click()  # the unit, not a table row
    expect(card.locator("th", has_text="bytes")).to_be_visible()
    screenshot(page, "measure_report_card")
    assert page.off_origin_requests == []


def test_vocabulary_lists_under_trained_tokens_and_checks_gpt4(page, app_url, screenshot):
    open_page(page, app_url, "Vocabulary", "Vocabulary")
    expect(page.get_by_role("heading", name="Under-trained and unreachable tokens")).to_be_visible()
    expect(page.get_by_text("SolidGoldMagikarp", exact=False).first).to_be_visible()
    expect(page.get_by_test_id("stMetricLabel").filter(has_text="Absorbed")).to_be_visible()
    if cl100k_path() is not None:
        expect(page.get_by_test_id("stMetricLabel").filter(has_text="Their partial")).to_be_visible(timeout=90_000)
    screenshot(page, "measure_undertrained")
    assert page.off_origin_requests == []


ERRORS = '[data-testid="stException"], [data-testid="stAlertContentError"]'
RUN = list_runs([RUNS_DIR])[0]


# The narrower projector width only: it is where presenter type breaks first (1280 px is
# covered page by page in test_browser_overflow.py), and each viewport costs CI half a minute.
@pytest.mark.parametrize("width, height", [(1024, 768)])
def test_every_measuring_view_on_the_shipped_run_file(browser, app_url, width, height, screenshot):
    """The run file replayed: the film played to encode(), the span diff, the report card's
    sample row, the under-trained tokens saying what they count; presenter mode off and on,
    moving between the measuring views in the sidebar (one session), never an error box."""
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    own = (app_url, app_url.replace("http", "ws", 1), "data:", "blob:")
    off_origin: list[str] = []
    page.on("request", lambda request: request.url.startswith(own) or off_origin.append(request.url))
    side = page.get_by_test_id("stSidebar")

    def shoot(pg, heading: str, name: str) -> None:
        """A tall picture from the measuring view's heading down (the page scrolls inside its main block)."""
        pg.get_by_role("heading", name=heading, exact=True).scroll_into_view_if_needed()
        screenshot(pg, name)

    try:
        page.goto(f"{app_url}/Tokenize?corpus={quote(RUN.label)}&vocab=1000")
        expect(page.get_by_role("heading", name="Tokenize", exact=True)).to_be_visible()
        expect(side.get_by_text("Replaying a recorded run")).to_be_visible(timeout=90_000)
        settle(page)
        box = page.get_by_label("Text to tokenize")
        box.fill("the king and the queen")
        box.press("Control+Enter")
        headline = page.locator(".bpe-merge", has_text="Frame ")
        expect(headline).to_contain_text("22 of them")  # the new text's film
        settle(page)
        page.locator(".st-key-tokenize_film_play button").click()
        expect(page.get_by_text("the end: exactly what encode() gives")).to_be_visible(timeout=90_000)
        expect(headline).to_contain_text("learned at training step")
        expect(page.locator(".bpe-spandiff")).to_contain_text("this run, vocab 1,000")
        for presenter in (False, True):
            mode = "presenter" if presenter else "plain"
            if presenter:
                side.get_by_text("Presenter mode: larger type").click()
                settle(page)
            else:
                expect(page.locator(ERRORS)).to_have_count(0)
                shoot(page, "Span diff", f"run_measure_tokenize_{mode}_{width}x{height}")
            side.get_by_role("link", name="Compression", exact=True).click()
            card = page.locator(".bpe-card")
            expect(card.locator("td", has_text="Corpus, held-out part")).to_be_visible(timeout=90_000)
            expect(card.locator("td", has_text="Corpus, training part")).to_have_count(0)
            expect(page.get_by_text("A run file keeps no training text")).to_be_visible()
            expect(page.locator(ERRORS)).to_have_count(0)
            shoot(page, "Report card", f"run_measure_report_card_{mode}_{width}x{height}")
            side.get_by_role("link", name="Vocabulary", exact=True).click()
            expect(page.get_by_role("heading", name="Under-trained and unreachable tokens")).to_be_visible(
                timeout=90_000
            )
            expect(page.get_by_text("from the counts the run file records")).to_be_visible(timeout=90_000)
            if find_gpt2_files() is not None or cl100k_path() is not None:  # the check on other tokenizers
                unused = page.get_by_test_id("stMetricLabel").filter(has_text="Unused on the run's sample")
                expect(unused).to_be_visible(timeout=90_000)
            # a one-word label in large type keeps its word whole: as tall as its neighbour "Rare"
            labels = page.get_by_test_id("stMetricLabel")
            tall = labels.filter(has_text="Unreachable").first.bounding_box()["height"]
            short = labels.filter(has_text=re.compile(r"^Rare$")).first.bounding_box()["height"]
            assert tall < 1.3 * short, f"'Unreachable' breaks inside the word ({mode}, {width} px)"
            expect(page.locator(ERRORS)).to_have_count(0)
            shoot(page, "Under-trained and unreachable tokens", f"run_measure_undertrained_{mode}_{width}x{height}")
            if presenter:
                side.get_by_role("link", name="Tokenize", exact=True).click()
                expect(page.locator(".bpe-spandiff")).to_be_visible(timeout=90_000)
                expect(page.locator(ERRORS)).to_have_count(0)
                shoot(page, "Span diff", f"run_measure_tokenize_{mode}_{width}x{height}")
        assert off_origin == []
    finally:
        context.close()
