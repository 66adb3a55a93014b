"""Real browser: every character of the shipped texts shows as itself, not as an empty box,
whatever fonts the machine has (issue 42): the app serves Noto subsets of what Streamlit's
own fonts lack (``pages/_shared/render/fonts/``, made by tests/e2e/font_subsets.py),
inlined in the page's CSS.

Chromium says which font drew each character (the DevTools protocol's
``CSS.getPlatformFontsForNode``). Every character of the shipped texts is put in Tokenize's
box; each is one token of the characters column, so each token's span is asked on its own:
a character that no font of this machine has (fontconfig says so) must be drawn by one of the
app's fonts. On a machine with only Debian's default fonts (DejaVu, Liberation) that is the
Hindi, Chinese, Japanese and Korean characters and the emoji.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from urllib.parse import quote

import pytest
from e2e.conftest import settle
from playwright.sync_api import expect

from bpe.corpora.builtin import BUILTIN_TEXTS
from pages._shared.render.html import font_faces_css

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]
FONTS = ROOT / "pages" / "_shared" / "render" / "fonts"


def shipped_characters() -> str:
    texts = [text.text for text in BUILTIN_TEXTS]
    for folder in ("lighthouse", "report_card"):
        texts += [path.read_text(encoding="utf-8") for path in sorted((ROOT / "data" / folder).glob("*.txt"))]
    return "".join(sorted({c for text in texts for c in text if ord(c) > 0x7F and not c.isspace()}))


def machine_has(character: str) -> bool:
    """Whether a font installed on this machine has ``character`` (fontconfig's word)."""
    found = subprocess.run(["fc-list", f":charset={ord(character):x}", "family"], capture_output=True, text=True)
    return bool(found.stdout.strip())


def test_every_font_file_is_inlined_in_the_pages_css_with_its_licence():
    faces = (FONTS / "faces.css").read_text(encoding="utf-8")
    files = sorted({line.split('url("')[1].split('"')[0] for line in faces.splitlines() if "url(" in line})
    assert files and all((FONTS / name).read_bytes()[:4] == b"wOF2" for name in files)
    css = font_faces_css()
    woff2 = "data:font/woff2;base64,d09GM"  # a WOFF2 file starts "wOF2": "d09GM" in base64
    assert 'url("noto-' not in css and css.count(woff2) == faces.count("url(")
    assert "SIL OPEN FONT LICENSE Version 1.1" in (FONTS / "OFL.txt").read_text(encoding="utf-8")


@pytest.mark.skipif(shutil.which("fc-list") is None, reason="fontconfig's fc-list says which fonts the machine has")
def test_every_shipped_character_is_drawn_by_a_font_that_has_it(page, app_url):
    characters = shipped_characters()
    missing_here = {c for c in characters if not machine_has(c)}
    page.goto(f"{app_url}/Tokenize?tokenize_text={quote(characters)}")
    column = page.locator(".bpe-linked").first
    expect(column).to_be_visible(timeout=120_000)
    settle(page)
    page.evaluate("document.fonts.ready")
    page.wait_for_timeout(500)
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
    characters_column = cdp.send("DOM.querySelector", {"nodeId": root, "selector": ".bpe-linked"})["nodeId"]
    spans = cdp.send("DOM.querySelectorAll", {"nodeId": characters_column, "selector": ".bpe-segments .tok"})["nodeIds"]
    boxes, drawn = [], 0
    for node in spans:
        text = cdp.send("DOM.describeNode", {"nodeId": node, "depth": 1})["node"]["children"][0]["nodeValue"]
        if text not in missing_here:
            continue
        fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
        drawn += 1
        if not any(font["isCustomFont"] and font["glyphCount"] for font in fonts):
            boxes.append(f"U+{ord(text):04X} {text}: {[font['familyName'] for font in fonts]}")
    assert drawn == len(missing_here), f"{drawn} of {len(missing_here)} characters found on the page"
    assert not boxes, f"{len(boxes)} characters drawn by fonts that lack them (empty boxes):\n" + "\n".join(boxes[:20])
