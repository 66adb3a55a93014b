"""Real browser: a lesson a teacher can trust (issue 11).

Switching the corpus in the sidebar leaves no page showing the old corpus's numbers; the
player keeps Step back usable and answers the keyboard; "Home" names the home page; tables
keep their key column on a projector's 1024 px; the context-window passage shows token
boundaries and never cuts its marks.
"""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from e2e.conftest import settle
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e
SMALL = "low lower newest widest"  # 17 merges, stops at vocab 28
TINY = "low lower lowest"  # 4 merges, stops at vocab 12


def sidebar(page):
    return page.get_by_test_id("stSidebar")


def go_to(page, label: str, heading: str | None = None):
    """Follow the sidebar's link (the same session, as a teacher clicks)."""
    sidebar(page).get_by_role("link", name=label, exact=True).click()
    expect(page.get_by_role("heading", name=heading or label, exact=True)).to_be_visible()


def pick_corpus(page, name: str):
    sidebar(page).get_by_test_id("stSelectbox").filter(has_text="Text to train on").click()
    page.get_by_role("option", name=re.compile(rf"^{re.escape(name)} \(")).click()


def button(page, key: str):
    """The button with this widget key (labels may repeat: teach mode has its own steps)."""
    return page.locator(f".st-key-{key} button").first  # during a rerun the old one may linger a moment


def metric(page, label: str):
    label_first = re.compile(rf"^{re.escape(label)}")  # the metric's text starts with its label (case counts)
    return page.get_by_test_id("stMetric").filter(has_text=label_first).get_by_test_id("stMetricValue").first


def chips(page, label: str):
    """The chosen values of the multiselect labelled ``label`` (its tags, in order)."""
    box = page.get_by_test_id("stMultiSelect").filter(has_text=label)
    return box.locator(".react-aria-ComboBox [data-tag] > span[title]")


def test_switching_corpus_leaves_every_page_on_the_new_corpus(page, app_url, screenshot):
    page.goto(f"{app_url}/Merge_by_merge?corpus={quote(SMALL)}")
    expect(metric(page, "Step")).to_have_text("1 of 17", timeout=60_000)
    for shown in (2, 3):
        settle(page)
        button(page, "merges_forward").click()
        expect(metric(page, "Step")).to_have_text(f"{shown} of 17")
    go_to(page, "Tokenize")
    settle(page)  # a text typed while the page's first run still draws can be dropped
    box = page.get_by_label("Text to tokenize")
    box.fill("newest widest")
    box.press("Control+Enter")
    expect(metric(page, "Tokens")).to_have_text("13")
    for label, heading in (("Context window", None), ("Vocabulary", None), ("Model", None)):
        go_to(page, label, heading)
    expect(chips(page, "Tokenizers")).to_have_text(["characters", "BPE 28"])

    pick_corpus(page, TINY)  # on the Model page, as a teacher might
    expect(chips(page, "Tokenizers")).to_have_text(["characters", "BPE 12"])
    expect(button(page, "model_start")).to_be_enabled()
    go_to(page, "Home", "BPE Lab")
    expect(metric(page, "Corpus size (characters)")).to_have_text("16")
    go_to(page, "Merge by merge")
    expect(metric(page, "Step")).to_have_text("1 of 4")
    go_to(page, "Tokenize")
    expect(page.get_by_label("Text to tokenize")).to_have_value(TINY)
    expect(page.get_by_text("outside this tokenizer's alphabet")).to_have_count(0)
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
    go_to(page, "Compression")
    table = page.get_by_test_id("stTable").first
    expect(table.locator("tbody tr td:first-child")).to_have_text(["9", "10", "11", "12"])
    go_to(page, "Context window")
    expect(chips(page, "BPE vocab sizes")).to_have_text(["12"])
    expect(page.get_by_test_id("stTable").first.locator("tbody tr td:first-child")).to_contain_text(
        ["characters", "BPE 12"]
    )
    expect(page.locator(".bpe-window .end").first).to_contain_text("end of text")
    expect(page.locator(".bpe-window .cut")).to_have_count(0)
    go_to(page, "Vocabulary")
    expect(page.get_by_text("4 of 4 learned tokens shown").first).to_be_visible()  # the table and the token health view
    screenshot(page, "teacher_vocabulary_after_switch")
    assert page.off_origin_requests == []


def test_step_back_while_playing_and_the_keyboard(page, app_url):
    page.goto(f"{app_url}/Merge_by_merge?corpus={quote(SMALL)}&step=1")
    expect(metric(page, "Step")).to_have_text("1 of 17", timeout=60_000)
    button(page, "merges_play").click()
    expect(metric(page, "Step")).to_have_text(re.compile(r"^([3-9]|1[0-7]) of 17$"), timeout=20_000)
    back = button(page, "merges_back")
    expect(back).to_be_enabled()  # the timer moved the step; the button was drawn at step 1
    back.click()
    expect(button(page, "merges_play")).to_contain_text("Play")  # stepping pauses
    # The keys from a step far from the end: on a busy machine the film above could reach
    # step 17 before it was stepped back, and Space at 16 played one frame and stopped
    # again before "Pause" was seen.
    shown = 2
    page.goto(f"{app_url}/Merge_by_merge?corpus={quote(SMALL)}&step={shown}")
    expect(metric(page, "Step")).to_have_text(f"{shown} of 17", timeout=60_000)
    page.get_by_role("heading", name="Merge by merge").click()  # focus the page, not a widget
    settle(page)
    page.keyboard.press("ArrowRight")
    expect(metric(page, "Step")).to_have_text(f"{shown + 1} of 17")
    settle(page)
    page.keyboard.press("ArrowLeft")
    expect(metric(page, "Step")).to_have_text(f"{shown} of 17")
    settle(page)
    page.keyboard.press("Space")
    expect(button(page, "merges_play")).to_contain_text("Pause")
    page.keyboard.press("Space")
    expect(button(page, "merges_play")).to_contain_text("Play")


def test_home_is_called_home_in_the_navigation(page, app_url):
    page.goto(app_url)
    expect(page.get_by_role("heading", name="BPE Lab")).to_be_visible()
    links = sidebar(page).get_by_role("link")
    expect(links.first.get_by_text("Home", exact=True)).to_be_visible()
    expect(sidebar(page).get_by_role("link", name="app", exact=True)).to_have_count(0)
    expect(sidebar(page).get_by_role("link", name="Merge by merge", exact=True)).to_be_visible()


@pytest.mark.parametrize(
    "path, header",
    [
        ("Compression", "embedding parameters (d = 128)"),
        ("Bytes_and_pretokenizers", "bytes per token"),
        ("Context_window", "× characters"),
    ],
)
def test_key_columns_fit_a_projector(browser, app_url, path, header):
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    page = context.new_page()
    try:
        page.goto(f"{app_url}/{path}?corpus={quote(SMALL)}")
        cell = page.get_by_test_id("stTable").first.locator("th").filter(has_text=header).first
        expect(cell).to_be_visible(timeout=60_000)
        box = cell.bounding_box()
        assert box["x"] + box["width"] <= 1024, f"{header!r} ends at {box['x'] + box['width']:.0f} px"
        assert "None" not in page.get_by_test_id("stTable").first.inner_text()
    finally:
        context.close()


def test_context_window_shows_token_boundaries_and_whole_marks(page, app_url):
    page.goto(f"{app_url}/Context_window?corpus={quote(SMALL)}")
    window = page.locator(".bpe-window").nth(1)  # the trained BPE's passage
    expect(window.locator(".win").first).to_be_visible(timeout=60_000)
    colours = window.locator(".win").evaluate_all(
        "spans => spans.slice(0, 2).map(s => getComputedStyle(s).backgroundColor.match(/\\d+/g).map(Number))"
    )
    # neighbouring tokens differ clearly, not two shades of yellow (those differed by 81 in R+G+B)
    assert sum(abs(a - b) for a, b in zip(*colours)) > 150
    mark = window.locator(".cut, .end").first
    box, outer = mark.bounding_box(), window.bounding_box()
    assert box["height"] < 40 and box["x"] >= outer["x"] and box["x"] + box["width"] <= outer["x"] + outer["width"]


def test_presenter_mode_enlarges_the_segments(page, app_url):
    page.goto(f"{app_url}/Merge_by_merge?corpus={quote(SMALL)}")
    segments = page.locator(".bpe-segments").first
    expect(segments).to_be_visible(timeout=60_000)
    # each token's colour: its span carries only the hue (--h), the page's rule the rest. The
    # rule is a style block of its own, which can be drawn a moment after the tokens on a busy
    # machine (a full run on two workers read every token still transparent): wait for it.
    expect(segments.locator(".tok").first).not_to_have_css("background-color", "rgba(0, 0, 0, 0)")
    colours = segments.locator(".tok").evaluate_all(
        "spans => spans.slice(0, 40).map(s => getComputedStyle(s).backgroundColor)"
    )
    assert all(c.startswith("rgb(") for c in colours) and len(set(colours)) > 3, colours
    before = segments.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    assert before < 18
    sidebar(page).get_by_text("Presenter mode: larger type").click()
    expect(segments).to_have_css("font-size", re.compile(r"^2\d(\.\d+)?px$"))  # 1.45rem, from about 15 px
