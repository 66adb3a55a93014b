"""How fast Merge by merge plays in a real browser, against the speed it names: a
measurement, not a test (timed assertions do not belong in tests).

    .venv/bin/python tests/e2e/measure_playback.py [seconds per step ...]

Starts the app on a free loopback port, opens Merge by merge on the default corpus in
headless chromium, picks each speed, plays for a few seconds and records in the page when
the "Step" metric changes. Prints the seconds per step reached (steps counted by the
metric's value: a late tick moves two) and the time between frames, per speed.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

# pytest.ini's pythonpath (the checkout, tests/) and this folder: conftest (running_app, chromium)
# and the helpers it imports
TESTS = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(TESTS / "e2e"), str(TESTS), str(TESTS.parent)]

from conftest import CHROMIUM, CHROMIUM_ARGS, running_app, settle  # noqa: E402

SPEEDS = [2.0, 1.0, 0.5, 0.25]  # the speed slider's options, left to right
PLAY_SECONDS = 6.0
WATCH_JS = """
() => {
  window.__steps = [];
  const value = () => {
    const metric = [...document.querySelectorAll('[data-testid="stMetric"]')]
      .find(m => m.innerText.startsWith('Step'));
    return metric ? metric.querySelector('[data-testid="stMetricValue"]').innerText : null;
  };
  let last = value();
  const observer = new MutationObserver(() => {
    const now = value();
    if (now !== last) { last = now; window.__steps.push([performance.now(), now]); }
  });
  observer.observe(document.body, {subtree: true, childList: true, characterData: true});
}
"""


def pick_speed(page, speed: float) -> None:
    """Move the Speed slider (in the lesson's switches) to ``speed``, one key at a time, and
    check it says so.

    Each key press reruns the page, and a press sent during that rerun is lost (the
    slider is drawn anew), so keys pressed in a burst left the film at the default
    0.5 s per step and made 0.25 s per step look like 0.5: wait for the rerun after
    each, and refuse to measure when the slider names another speed."""

    def thumb():
        return page.get_by_test_id("stSlider").filter(has_text="Speed").get_by_role("slider").last

    page.get_by_role("button", name="Lesson switches").click()  # the speed is one of the lesson's switches
    thumb().focus()
    thumb().press("Home")
    settle(page)
    for _ in range(SPEEDS.index(speed)):
        thumb().focus()
        thumb().press("ArrowRight")
        settle(page)
    shown = thumb().get_attribute("aria-valuetext")
    if shown != f"{speed:g} s per step":
        raise SystemExit(f"the Speed slider shows {shown!r}, not {speed:g} s per step: nothing measured")
    page.keyboard.press("Escape")  # the popover closed, Play is in reach


def measure(page, url: str, speed: float) -> list[float]:
    page.goto(f"{url}/Merge_by_merge")
    page.get_by_test_id("stMetric").first.wait_for(timeout=180_000)
    settle(page)
    pick_speed(page, speed)
    page.evaluate(WATCH_JS)
    page.locator(".st-key-merges_play button").first.click()
    page.wait_for_timeout(PLAY_SECONDS * 1000)
    page.locator(".st-key-merges_play button").first.click()
    seen = [(t / 1000, int(value.split()[0].replace(",", ""))) for t, value in page.evaluate("window.__steps")]
    return seen[1:]  # from the second change: the timer is running


def main(speeds: list[float]) -> None:
    from playwright.sync_api import sync_playwright

    unknown = [speed for speed in speeds if speed not in SPEEDS]
    if unknown:
        raise SystemExit(f"no speed {unknown} on the Speed slider; its speeds are {SPEEDS}")
    with tempfile.TemporaryDirectory() as folder, running_app(Path(folder) / "server.log") as url:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            for speed in speeds:
                seen = measure(page, url, speed)
                if len(seen) < 2:
                    print(f"{speed:g} s per step: too few steps seen")
                    continue
                (t0, s0), (t1, s1) = seen[0], seen[-1]
                gaps = [b - a for (a, _), (b, _) in zip(seen, seen[1:])]
                print(
                    f"{speed:g} s per step: {(t1 - t0) / (s1 - s0):.3f} s per step over {s1 - s0} steps; "
                    f"{len(seen) - 1} frames, median {statistics.median(gaps):.3f} s between frames"
                )
            browser.close()


if __name__ == "__main__":
    main([float(s) for s in sys.argv[1:]] or [0.5, 0.25])
