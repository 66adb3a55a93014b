"""The documentation's links and pictures lead somewhere: every relative link names a file of
the checkout (and, after ``#``, a heading of that page), every picture exists and is small."""

from __future__ import annotations

import re
import struct

from doc_pages import DOCS, ROOT, anchors, pages

LINK = re.compile(r"(!?)\[[^\]]*\]\(([^)\s]+)\)")
MOST_PICTURE_BYTES = 200_000
MOST_PICTURE_WIDTH = 1280


def links() -> list[tuple[str, bool, str, str]]:
    """(page:line, is a picture, the target file, its anchor) of every relative link."""
    found = []
    for page in pages():
        text = re.sub(
            r"^ *```.*?^ *```", lambda m: "\n" * m[0].count("\n"), page.read_text(encoding="utf-8"), flags=re.S | re.M
        )
        for number, line in enumerate(text.splitlines(), start=1):
            for picture, target in LINK.findall(line):
                if re.match(r"[a-z]+:", target):
                    continue  # http:, https:, mailto:
                path, _, anchor = target.partition("#")
                resolved = (page.parent / path).resolve() if path else page
                found.append((f"{page.relative_to(ROOT)}:{number}", bool(picture), resolved, anchor))
    return found


def test_every_relative_link_leads_to_a_file_and_heading():
    broken = []
    for where, _, path, anchor in links():
        if not path.exists():
            broken.append(f"{where}: {path.relative_to(ROOT)} does not exist")
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            broken.append(f"{where}: {path.relative_to(ROOT)} has no heading #{anchor}")
    assert broken == []


def test_every_docs_page_is_linked_from_the_readme():
    linked = {path for where, _, path, _ in links() if where.startswith("README.md")}
    assert set(DOCS.glob("*.md")) <= linked


def test_the_pictures_are_small_pngs():
    pictures = {path for _, picture, path, _ in links() if picture}
    assert pictures, "the README and docs show the app's pictures"
    assert pictures == set((DOCS / "pictures").glob("*.png")), "docs/pictures/ holds the shown pictures, no others"
    for path in pictures:
        data = path.read_bytes()
        width = struct.unpack(">I", data[16:20])[0]  # the PNG header's width
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and width <= MOST_PICTURE_WIDTH and len(data) <= MOST_PICTURE_BYTES, (
            path
        )
