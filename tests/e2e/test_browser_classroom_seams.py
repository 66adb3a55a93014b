"""Real browser: the classroom seams of issue 22 that only a browser shows: presenter mode
with every teaching switch on, type a class reads from the back, the context window's cut
in view, the link dialog's copy button, and the address bar following the controls."""

from __future__ import annotations

from urllib.parse import parse_qs, quote, urlparse

import pytest
from e2e.conftest import settle
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e
SMALL = "low lower newest widest"  # 17 merges; step 1 is a tie
ERRORS = '[data-testid="stException"], [data-testid="stAlertContentError"]'


def sidebar(page):
    return page.get_by_test_id("stSidebar")


def switch(page, label: str):
    """Click the switch ``label``: the sidebar's, or one of the lesson's switches, which sit in
    the stage's popover (opened first when it is closed)."""
    target = page.get_by_text(label, exact=True).first
    if not target.is_visible():
        page.get_by_role("button", name="Lesson switches").click()
    target.click()
    settle(page)


def font_px(locator) -> float:
    return locator.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")


def open_merges(page, app_url: str):
    page.goto(f"{app_url}/Merge_by_merge?corpus={quote(SMALL)}")
    expect(page.get_by_test_id("stMetric").first).to_be_visible(timeout=60_000)
    settle(page)


def test_presenter_mode_with_every_teaching_switch_steps_without_an_error(page, app_url):
    open_merges(page, app_url)
    switch(page, "Presenter mode: larger type")
    for label in ("Predict the merge", "Show the algorithm", "Slow merge"):
        switch(page, label)
        expect(page.locator(ERRORS)).to_have_count(0)
    for _ in range(8):
        page.locator(".st-key-merges_forward button").first.click()
        settle(page)
        expect(page.locator(ERRORS)).to_have_count(0)
    expect(page.locator(".bpe-algorithm")).to_be_visible()


def test_presenter_mode_enlarges_what_the_class_reads(page, app_url):
    open_merges(page, app_url)
    switch(page, "Show the algorithm")
    for _ in range(3):  # to the record phase: the panel, its notes, the table of changes
        page.locator(".st-key-merges_forward button").first.click()
        settle(page)
    main = page.get_by_test_id("stMain")  # what the class reads; the sidebar is the teacher's
    readers = {
        "algorithm panel": main.locator(".bpe-algorithm").first,
        "algorithm note": main.locator(".bpe-algorithm .note").first,
        "caption": main.get_by_test_id("stCaptionContainer").first,
        "metric": main.get_by_test_id("stMetricValue").first,
        "metric label": main.get_by_test_id("stMetricLabel").locator("p").first,
        "paragraph": main.get_by_test_id("stMarkdownContainer").locator("p").first,
    }
    before = {name: font_px(locator) for name, locator in readers.items()}
    switch(page, "Presenter mode: larger type")
    after = {name: font_px(locator) for name, locator in readers.items()}
    smaller = [
        f"{name}: {before[name]:.0f} -> {after[name]:.0f} px" for name in readers if after[name] < before[name] * 1.2
    ]
    assert not smaller, "not enlarged: " + ", ".join(smaller)
    # the tables of the merge become static tables in large type (a canvas table keeps small type)
    assert font_px(main.get_by_test_id("stTable").locator("td").first) >= 16


def test_the_context_window_cut_is_in_view_in_every_box(page, app_url):
    page.goto(f"{app_url}/Context_window")
    expect(page.locator(".bpe-window .cut").first).to_be_attached(timeout=120_000)
    settle(page)
    hidden = page.locator(".bpe-window").evaluate_all(
        """boxes => boxes.filter(b => b.querySelector('.cut')).map(b => {
             const cut = b.querySelector('.cut').getBoundingClientRect(), box = b.getBoundingClientRect();
             return cut.bottom > box.top + b.clientHeight + 1 ? Math.round(cut.top - box.top) : null;
           }).filter(x => x !== null)"""
    )
    assert hidden == [], (
        f"cut marks {hidden} px down boxes that show {page.locator('.bpe-window').first.evaluate('b => b.clientHeight')} px"
    )


def test_the_link_dialog_copy_button_is_visible_without_hovering(page, app_url):
    open_merges(page, app_url)
    sidebar(page).get_by_role("button", name="Copy link to this frame").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    copy = dialog.locator('button[aria-label="Copy to clipboard"]')
    expect(copy).to_be_attached()
    page.mouse.move(0, 0)
    page.wait_for_timeout(300)
    expect(copy).to_be_visible()
    # the button and every box around it up to the code block: none may be see-through
    opacity = copy.evaluate(
        """b => { let o = 1; for (let e = b; e && !e.matches('[data-testid="stCode"]'); e = e.parentElement)
                   o *= parseFloat(getComputedStyle(e).opacity); return o; }"""
    )
    assert opacity > 0.5


def test_the_address_bar_follows_the_controls(page, app_url):
    open_merges(page, app_url)
    switch(page, "Show the algorithm")
    box = sidebar(page).get_by_test_id("stSelectbox").filter(has_text="Tie rule")
    box.scroll_into_view_if_needed()
    box.locator("input").first.click()
    page.get_by_role("option", name="lexicographic", exact=True).click()
    settle(page)
    params = parse_qs(urlparse(page.url).query)
    assert params.get("teach_algorithm") == ["1"], page.url
    assert "tie_rule" in params, page.url


def test_a_slider_moved_by_keys_keeps_the_focus_after_a_training(browser, page, app_url):
    """The first change after a training (or after a cached run's replay in a new session)
    must not draw the page's widgets anew: the keys a teacher presses keep moving the slider
    they started on, and do not fall to the page (where ← steps the film back)."""
    # a run no other test trains, long enough to show its progress bar (over 0.3 s)
    trained_here = f"corpus={quote('Tiny Shakespeare')}&min_freq=3&vocab=300&train_to=300"

    def speed_keys_keep_focus(pg) -> None:
        pg.goto(f"{app_url}/Merge_by_merge?{trained_here}")
        expect(pg.get_by_test_id("stMetric").first).to_be_visible(timeout=120_000)
        settle(pg)
        params = parse_qs(urlparse(pg.url).query)
        assert params["corpus"] == ["Tiny Shakespeare"] and params["min_freq"] == ["3"], pg.url
        pg.get_by_role("button", name="Lesson switches").click()  # the speed is one of the lesson's switches
        speed = pg.get_by_test_id("stSlider").filter(has_text="Speed").get_by_role("slider")
        speed.focus()
        for shown in ("1 s per step", "2 s per step"):  # from 0.5: two presses, each a rerun
            pg.keyboard.press("ArrowLeft")
            settle(pg)
            expect(speed).to_have_attribute("aria-valuetext", shown)
            assert pg.evaluate("document.activeElement.getAttribute('aria-label')") == "Speed"

    speed_keys_keep_focus(page)  # trained here
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        speed_keys_keep_focus(context.new_page())  # another session: the run comes from the cache
    finally:
        context.close()


def test_presenter_mode_enlarges_the_boxes_and_the_grids(page, app_url):
    """What is typed or picked in a box (the quiz's guess, the token to trace) and the rows of
    a grid drawn on a canvas (the vocabulary) are read by the class too: 13-14 px before."""
    page.goto(f"{app_url}/Merge_by_merge?corpus={quote(SMALL)}&teach_quiz=1&presenter=1")
    expect(page.get_by_test_id("stMetric").first).to_be_visible(timeout=60_000)
    settle(page)
    main = page.get_by_test_id("stMain")
    boxes = {
        "the quiz's pick": main.get_by_test_id("stSelectbox").locator("input").first,
        "the quiz's typed guess": main.get_by_test_id("stTextInput").locator("input").first,
    }
    small = [f"{name}: {font_px(box):.0f} px" for name, box in boxes.items() if font_px(box) < 18]
    page.goto(f"{app_url}/Tokenize?corpus={quote(SMALL)}&presenter=1")
    expect(main.get_by_text("Token to trace")).to_be_visible(timeout=60_000)
    settle(page)
    trace = main.get_by_test_id("stSelectbox").filter(has_text="Token to trace").locator("input")
    if font_px(trace.first) < 18:
        small.append(f"the token to trace: {font_px(trace.first):.0f} px")
    page.goto(f"{app_url}/Vocabulary?corpus={quote(SMALL)}&presenter=1")
    expect(main.get_by_test_id("stTable").first).to_be_visible(timeout=60_000)
    settle(page)
    if font_px(main.get_by_test_id("stTable").locator("td").first) < 16:
        small.append("the vocabulary's rows")
    assert not small, "small type in presenter mode: " + ", ".join(small)
