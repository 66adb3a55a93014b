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

sys.path.insert(0, str(Path(__file__).resolve().parent))  # conftest: running_app, chromium

from conftest import CHROMIUM, CHROMIUM_ARGS, running_app  # noqa: E402

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


def settle(page) -> None:
    """Wait until the app has finished its rerun (its running indicator is gone)."""
    page.wait_for_timeout(300)
    page.get_by_test_id("stStatusWidget").wait_for(state="detached", timeout=60_000)
    page.wait_for_timeout(300)


def pick_speed(page, speed: float) -> None:
    """Move the Speed slider to ``speed``, one key at a time, and check it says so.

    Each key press reruns the page, and a press sent during that rerun is lost (the
    slider is drawn anew), so keys pressed in a burst left the film at the default
    0.5 s per step and made 0.25 s per step look like 0.5: wait for the rerun after
    each, and refuse to measure when the slider names another speed."""

    def thumb():
        return page.get_by_test_id("stSlider").filter(has_text="Speed").get_by_role("slider").last

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
