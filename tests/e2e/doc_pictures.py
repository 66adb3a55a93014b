"""The documentation's pictures, taken from the real app: a script, not a test (CI never
regenerates them; a person runs it after changing a page the pictures show, and looks).

    .venv/bin/python tests/e2e/doc_pictures.py            # every picture
    .venv/bin/python tests/e2e/doc_pictures.py stage      # one, by name

Starts `streamlit run app.py` on a free loopback port (`conftest.running_app`, as the
browser tests do), opens each picture's link in Debian's chromium at 1280x800 (Playwright,
never a downloaded browser), waits until the app has finished drawing, and writes
``docs/pictures/<name>.png``: the main column (the sidebar left out) from the element that
starts with ``first`` to the one that starts with ``last``, cut at ``max_height`` pixels,
then reduced to a 256-colour palette (a third of the bytes of a full-colour PNG, and the
app's flat colours survive it). The server is given an empty shared-data folder, so the
pictures show what a fresh clone shows (no GPT-2 unless its files are in data/cache/).

When a page changes shape, change its `Picture` below: its link, the texts that start and
end it, its height.
"""

from __future__ import annotations

import io
import json
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

# pytest.ini's pythonpath (the checkout, tests/) and this folder: conftest (running_app, chromium)
# and the helpers it imports
TESTS = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(TESTS / "e2e"), str(TESTS), str(TESTS.parent)]

from conftest import CHROMIUM, CHROMIUM_ARGS, ROOT, running_app, settle  # noqa: E402

PICTURES_DIR = ROOT / "docs" / "pictures"
VIEWPORT = {"width": 1280, "height": 800}
DRAW_TIMEOUT_MS = 180_000  # the first visit trains the default run on a cold, busy machine


@dataclass(frozen=True)
class Picture:
    """One picture: the app link it shows (path and query after the server's URL), the texts
    its first and last elements start with, the most pixels it may be tall, and texts the
    page must show (else the link did not open what the picture is meant to show)."""

    name: str
    link: str
    first: str
    last: str
    max_height: int
    shows: tuple[str, ...] = ()


SPAN_DIFF_ROWS = ["this run, vocab 297", "this run, vocab 1,000", "GPT-4 (cl100k)"]
PICTURES = (
    # The stage as a class sees it on the first screen: the controls, the step and the merge,
    # the pair chart and the numbers under it, the text before the merge beside them (the
    # default corpus, Tiny Shakespeare at vocab 1,000, at a step whose tokens read as words).
    Picture("stage", "Merge_by_merge?step=40", "Merge by merge", "Vocab size", 760, shows=("40 of ",)),
    Picture("compression", "Compression", "Compression", "Vocab sizes side by side", 1_000),
    # The span diff of three tokenizers: this run at two vocab sizes (the page offers a
    # quarter of the way to the run's last size) and GPT-4, which ships with the requirements.
    Picture(
        "span-diff",
        "Tokenize?tokenize_diff_rows=" + quote(json.dumps(SPAN_DIFF_ROWS)),
        "Span diff",
        "Same colour",
        800,
        shows=tuple(f"{letter} {label} (" for letter, label in zip("ABC", SPAN_DIFF_ROWS)),
    ),
)

# Every element the page has drawn, in page order: its first words and its box.
ELEMENTS_JS = """
() => [...document.querySelectorAll('[data-testid=stMain] [data-testid=stElementContainer]')]
  .map(e => { const r = e.getBoundingClientRect();
              return [e.innerText.trim(), r.top + window.scrollY, r.bottom + window.scrollY]; })
  .filter(([text, top, bottom]) => bottom > top)
"""


def take(page, base_url: str, picture: Picture) -> bytes:
    """The picture's PNG bytes, full colour: its link opened, drawn, and the region cut out."""
    from playwright.sync_api import expect

    page.goto(f"{base_url}/{picture.link}")
    expect(page.get_by_test_id("stMetricValue").first).to_be_visible(timeout=DRAW_TIMEOUT_MS)
    settle(page, timeout_ms=DRAW_TIMEOUT_MS, after_ms=0)
    # Streamlit scrolls inside its main block: a viewport as tall as the page lays it all
    # out, so one clip can hold the region (as tests/e2e/conftest.py's screenshot does).
    height = page.evaluate("() => document.querySelector('[data-testid=stMain]').scrollHeight")
    page.set_viewport_size({"width": VIEWPORT["width"], "height": max(height, VIEWPORT["height"])})
    page.wait_for_timeout(1_000)  # charts re-layout to the new size
    shown = page.get_by_test_id("stMainBlockContainer").inner_text()
    for text in picture.shows:
        if text not in shown:
            raise SystemExit(f"{picture.name}: {picture.link} does not show {text!r}; change its Picture")
    elements = page.evaluate(ELEMENTS_JS)
    top = _edge(elements, picture.first, picture, end=False)
    bottom = _edge(elements, picture.last, picture, end=True)
    column = page.get_by_test_id("stMainBlockContainer").bounding_box()
    margin = 16
    clip = {
        "x": column["x"] + 1,  # not the sidebar's border
        "y": max(0, top - margin),
        "width": column["width"] - 1,
        "height": min(bottom - top + 2 * margin, picture.max_height),
    }
    png = page.screenshot(clip=clip, full_page=True)
    page.set_viewport_size(VIEWPORT)
    return png


def _edge(elements: list, starts_with: str, picture: Picture, *, end: bool) -> float:
    for text, top, bottom in elements:
        if text.startswith(starts_with):
            return bottom if end else top
    shown = [text.split("\n")[0][:40] for text, _, _ in elements]
    raise SystemExit(f"{picture.name}: no element starts with {starts_with!r} on {picture.link}; the page has {shown}")


def small_png(png: bytes) -> bytes:
    """``png`` as a 256-colour palette PNG, compressed as hard as Pillow can."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    out = io.BytesIO()
    image.quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(out, format="PNG", optimize=True)
    return out.getvalue()


def main(names: list[str]) -> int:
    from playwright.sync_api import sync_playwright

    unknown = sorted(set(names) - {picture.name for picture in PICTURES})
    if unknown:
        raise SystemExit(f"no picture named {unknown}; the pictures are {[p.name for p in PICTURES]}")
    chosen = [picture for picture in PICTURES if not names or picture.name in names]
    PICTURES_DIR.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        env = {**os.environ, "BPE_SHARED_DATA": str(Path(scratch) / "no-shared-data")}
        with running_app(Path(scratch) / "server.log", env=env) as url, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport=VIEWPORT)
            for picture in chosen:
                data = small_png(take(page, url, picture))
                target = PICTURES_DIR / f"{picture.name}.png"
                target.write_bytes(data)
                print(f"{target.relative_to(ROOT)}: {len(data) / 1024:,.0f} KB ({picture.link})")
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
