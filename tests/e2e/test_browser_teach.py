"""Real browser: teach mode (issue 12). A copied lesson link and a lesson file reopen the
same numbers; the quiz hides the winner until a bar is clicked; the algorithm panel lights
the running line as the film plays; the downloaded film plays from disk, offline, with a
corpus full of HTML kept as text. WikiText-2 runs on a second server that finds it
through BPE_CORPORA."""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import quote

import pytest
from conftest import running_app, settle
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e
SMALL = "low lower newest widest"  # 17 merges
TINY = "low lower lowest"
SHOWN = ("Step", "Vocab size", "Sequence length", "Chars per token")
EVIL = "</script><script>alert(1)</script> <img src=x onerror=alert(2)> <b>bold</b> " * 4


def fresh(page, css: str):
    """Elements of the current run only: while a script runs, Streamlit keeps a stale copy of
    an element that moved (``data-stale="true"``) until the run ends."""
    return page.locator(f'[data-testid="stElementContainer"][data-stale="false"] {css}')


def metric(page, label: str):
    return fresh(page, '[data-testid="stMetric"]').filter(has_text=label).get_by_test_id("stMetricValue")


def step_forward(page):
    settle(page)
    button = page.get_by_role("button", name="Step forward")
    expect(button).to_have_count(1)  # no stale copy left from the run before
    button.click()


def numbers(page) -> list[str]:
    expect(metric(page, "Step")).to_be_visible(timeout=90_000)
    settle(page)
    return [metric(page, label).inner_text() for label in SHOWN] + [fresh(page, ".bpe-segments").first.inner_text()]


def copy_link(page) -> str:
    settle(page)
    page.get_by_role("button", name="Copy link to this frame").click()
    code = page.get_by_role("dialog").get_by_test_id("stCode")
    expect(code).to_be_visible()
    return code.inner_text().replace("\n", "")


def close_dialog(page):
    page.keyboard.press("Escape")
    expect(page.get_by_role("dialog")).to_have_count(0)


def reopen(browser, url: str):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    other = context.new_page()
    other.goto(url)
    return other


# ==================== Lesson links and files


def test_a_copied_link_opens_the_same_numbers(page, app_url, browser, screenshot):
    page.goto(f"{app_url}/Merge_by_merge?corpus={quote(SMALL)}&top_k=5")
    expect(metric(page, "Step")).to_have_text("1 of 17", timeout=60_000)
    for _ in range(3):
        step_forward(page)
    expect(metric(page, "Step")).to_have_text("4 of 17")
    teacher = numbers(page)
    url = copy_link(page)
    assert url.startswith(f"{app_url}/Merge_by_merge?") and "text_hash=" in url and "top_k=5" in url
    settle(page)
    screenshot(page, "lesson_link_dialog")
    student = reopen(browser, url)
    assert numbers(student) == teacher
    expect(student.locator(".js-plotly-plot").first).to_be_visible()
    student.context.close()
    assert page.off_origin_requests == []


def test_a_lesson_file_reopens_the_frame_with_its_pasted_text(page, app_url, browser, tmp_path):
    page.goto(f"{app_url}/Merge_by_merge?corpus={quote(TINY)}")
    expect(metric(page, "Step")).to_have_text("1 of 4", timeout=60_000)
    paste(page, "the cat sat on the mat, the cat sat on the hat. " * 3)
    expect(metric(page, "Step")).to_contain_text(" of ")
    step_forward(page)
    expect(metric(page, "Step")).to_have_text(re.compile(r"^2 of "))
    teacher = numbers(page)
    page.get_by_role("button", name="Copy link to this frame").click()
    with page.expect_download() as download:
        page.get_by_role("dialog").get_by_role("button", name="Download the lesson file (JSON)").click()
    lesson = tmp_path / "lesson.json"
    download.value.save_as(lesson)
    student = reopen(browser, app_url)
    expect(student.get_by_role("heading", name="BPE Lab")).to_be_visible(timeout=60_000)
    uploader = student.get_by_test_id("stFileUploader").filter(has_text="Open a lesson file")
    uploader.locator("input[type=file]").set_input_files(str(lesson))
    expect(student.get_by_role("heading", name="Merge by merge")).to_be_visible(timeout=60_000)
    assert numbers(student) == teacher
    student.context.close()


def paste(page, text: str):
    # A text box typed into while a script run redraws the sidebar is drawn again empty (what
    # was typed had not reached the server), so the paste waits for the run to end, and
    # Ctrl+Enter hands the text over before the button's own run starts.
    settle(page)
    sidebar = page.get_by_test_id("stSidebar")
    sidebar.get_by_text("Paste or upload a text").click()
    box = sidebar.get_by_label("Paste text")
    box.fill(text)
    box.press("Control+Enter")
    settle(page)
    sidebar.get_by_role("button", name="Use pasted text").click()
    expect(sidebar.get_by_role("combobox", name="Text to train on")).to_have_value(re.compile(r"^pasted text"))


# ==================== Predict the next merge, the algorithm beside the film


def click_bar(page, label: str | None = None, *, tallest: bool = False):
    """Click the bar of ``label`` (or the tallest) where a user would (plotly's drag layer
    lies on top). While a guess is awaited the bars go by label, not by count."""
    settle(page)
    chart = fresh(page, ".js-plotly-plot").first
    points = chart.locator(".bars .point")
    if tallest:
        expect(points.first).to_be_visible()  # the bars drawn before they are measured
        heights = [points.nth(i).bounding_box()["height"] for i in range(points.count())]
        index = heights.index(max(heights))
    else:  # wait for the question's chart to be drawn: its ticks go by label
        expect(chart.locator(".xtick text", has_text=re.compile(f"^{re.escape(label)}$"))).to_have_count(1)
        index = chart.locator(".xtick text").all_text_contents().index(label)  # SVG: no inner text
    bar = points.nth(index)
    bar.scroll_into_view_if_needed()
    box = bar.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.7)  # plotly wants a hover first
    page.wait_for_timeout(300)
    page.mouse.down()
    page.mouse.up()


def test_the_quiz_hides_the_winner_until_a_bar_is_clicked(page, app_url, screenshot):
    page.goto(f"{app_url}/Merge_by_merge?corpus={quote(SMALL)}&teach_quiz=1")
    expect(page.get_by_text("Predict merge 1:")).to_be_visible(timeout=60_000)
    expect(page.locator(".bpe-segments .tok.merged")).to_have_count(0)
    expect(page.locator(".bpe-merge")).to_have_text("Merge 1: which pair is merged next?")  # the answer held back
    settle(page)
    screenshot(page, "quiz_question")
    click_bar(page, "e + s")  # the winner (s + t occurs as often; the tie rule picks e + s)
    expect(page.get_by_text("Right: e + s occurs 9 times")).to_be_visible()
    expect(page.locator(".bpe-segments .tok.merged").first).to_be_visible()
    expect(page.get_by_text("Score: 1 of 1 right.")).to_be_visible()
    page.get_by_role("button", name="Next merge").click()
    expect(metric(page, "Step")).to_have_text("2 of 17")
    expect(page.get_by_text("Predict merge 2:")).to_be_visible()


def test_the_algorithm_panel_lights_each_phase_as_the_film_plays(page, app_url, screenshot):
    page.goto(f"{app_url}/Merge_by_merge?corpus={quote(TINY)}&teach_algorithm=1&teach_phase=0")
    panel = fresh(page, ".bpe-algorithm")
    expect(panel).to_have_attribute("data-phase", "count", timeout=60_000)
    expect(panel.locator(".line.lit")).to_contain_text("count every adjacent pair")
    step_forward(page)
    expect(panel).to_have_attribute("data-phase", "pick")
    settle(page)
    screenshot(page, "algorithm_pick")
    page.get_by_role("button", name="Play").click()
    seen = set()
    for _ in range(40):
        seen.add(panel.get_attribute("data-phase"))
        if page.get_by_role("button", name="Play").is_visible() and metric(page, "Step").inner_text() == "4 of 4":
            break
        page.wait_for_timeout(250)
    assert {"merge", "record"} <= seen
    expect(metric(page, "Step")).to_have_text("4 of 4", timeout=20_000)
    expect(panel).to_have_attribute("data-phase", "record")
    expect(page.get_by_role("button", name="Play")).to_be_visible()


# ==================== A film to take away


def download_film(page, tmp_path: Path) -> Path:
    settle(page)
    button = page.get_by_role("button", name="Download this film (HTML)")
    expect(button).to_have_count(1)
    with page.expect_download() as download:
        button.click()
    path = tmp_path / "film.html"
    download.value.save_as(path)
    return path


def play_from_disk(browser, path: Path):
    """Open the file from disk with nothing else reachable, press Play, see the step advance."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    film = context.new_page()
    requests, dialogs = [], []
    film.on("request", lambda request: requests.append(request.url))
    film.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    film.goto(path.as_uri())
    step = film.locator("#step")
    expect(step).to_contain_text("Step 1 of ")
    film.get_by_role("button", name="Play").click()
    expect(step).not_to_contain_text("Step 1 of ", timeout=5_000)
    expect(film.get_by_role("button", name="Pause")).to_be_visible()
    assert requests == [path.as_uri()] and dialogs == []
    return film


def test_the_downloaded_film_plays_from_disk(page, app_url, browser, tmp_path, screenshot):
    page.goto(f"{app_url}/Merge_by_merge?corpus={quote(SMALL)}")
    expect(metric(page, "Step")).to_have_text("1 of 17", timeout=60_000)
    film = play_from_disk(browser, download_film(page, tmp_path))
    expect(film.locator("#chart .bar-row.winner")).to_have_count(1)
    expect(film.locator("#after .merged").first).to_be_visible()
    screenshot(film, "film")
    film.context.close()


def test_a_film_of_html_keeps_it_as_text(page, app_url, browser, tmp_path):
    page.goto(f"{app_url}/Merge_by_merge?corpus={quote(TINY)}")
    expect(metric(page, "Step")).to_have_text("1 of 4", timeout=60_000)
    paste(page, EVIL)
    expect(metric(page, "Step")).to_contain_text(" of ")
    film = play_from_disk(browser, download_film(page, tmp_path))
    expect(film.locator("#before")).to_contain_text("<")  # the tags are shown as characters
    assert film.locator("#before img, #before script, #before b, h1 b").count() == 0
    film.context.close()


def test_the_default_corpus_from_a_lesson_link(page, app_url, browser, tmp_path):
    page.goto(f"{app_url}/Merge_by_merge?step=40&teach_quiz=1&teach_algorithm=1")  # Tiny Shakespeare
    expect(page.get_by_text("Predict merge 40:")).to_be_visible(timeout=120_000)
    expect(fresh(page, ".bpe-algorithm")).to_have_attribute("data-phase", "count")
    teacher = numbers(page)
    url = copy_link(page)
    close_dialog(page)
    student = reopen(browser, url)
    assert numbers(student) == teacher
    click_bar(student, tallest=True)  # the winner (no tie at this step)
    expect(student.get_by_text("Right: ")).to_be_visible()
    expect(fresh(student, ".bpe-algorithm")).to_have_attribute("data-phase", "pick")
    student.context.close()
    play_from_disk(browser, download_film(page, tmp_path)).context.close()


# ==================== WikiText-2, through BPE_CORPORA


@pytest.fixture(scope="module")
def wikitext_url(tmp_path_factory):
    from helpers import shared_file

    valid = shared_file("wikitext-2/valid.txt")
    log_path = tmp_path_factory.mktemp("streamlit-wikitext") / "server.log"
    with running_app(log_path, env={**os.environ, "BPE_CORPORA": str(valid.parent)}) as url:
        yield url


@pytest.mark.shared_data
def test_wikitext_link_quiz_and_film(browser, wikitext_url, tmp_path, screenshot):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(f"{wikitext_url}/Merge_by_merge?corpus=valid.txt&prefix=60000&vocab=400&step=40&teach_quiz=1")
    expect(page.get_by_text("Predict merge 40:")).to_be_visible(timeout=120_000)
    teacher = numbers(page)  # as the class sees it before guessing
    student = reopen(browser, copy_link(page))
    close_dialog(page)
    assert numbers(student) == teacher
    expect(student.get_by_text("Predict merge 40:")).to_be_visible()
    click_bar(student, "o + m")  # 201 times: not the winner (r + e, 220)
    # the new score itself: during the rerun the old line ("no merge predicted yet") may still be there too
    expect(student.get_by_text(re.compile(r"Score: \d+ of 1 right"))).to_be_visible()
    settle(student)
    screenshot(student, "wikitext_quiz")
    student.context.close()
    play_from_disk(browser, download_film(page, tmp_path)).context.close()
    context.close()
