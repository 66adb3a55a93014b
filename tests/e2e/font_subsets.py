"""The glyphs of BPE Lab's shipped texts, as small subsets of Noto fonts the app serves: a
script, not a test (run it after a shipped text gains characters; tests/e2e/test_browser_fonts.py
checks the result).

A classroom PC may have only its system's default fonts: on a Debian machine with DejaVu
and Liberation, the lighthouse paragraph's Hindi, Chinese, Japanese and Korean and the
multilingual sample's emoji showed as empty boxes. Streamlit's own fonts (Source Sans 3 and
Source Code, served by the app) cover Latin, Greek and Cyrillic; every other character of the
shipped texts (`bpe.corpora.builtin`'s texts, `data/lighthouse/`, `data/report_card/`) is
taken from the first Noto font that has it, and each font's characters are written as one
WOFF2 file to ``pages/_shared/render/fonts/`` with ``faces.css``, which declares them under Streamlit's
family names ("Source Sans", "Source Code Pro"), each for the characters Streamlit's font of
that family lacks (``unicode-range``): the browser then takes them from these files, whatever
fonts the machine has. The app puts ``faces.css`` on every page with the files inlined
(`render.html.font_faces_css`). Italic text takes the upright faces (no italic of them exists).

Build step only (fontTools is not a requirement of the app):

    python3 -m venv /tmp/fontvenv && /tmp/fontvenv/bin/pip install fonttools brotli
    apt-get download fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji   # in an empty folder
    for d in *.deb; do dpkg-deb -x "$d" noto; done
    /tmp/fontvenv/bin/python tests/e2e/font_subsets.py noto/usr/share/fonts

Chinese, Japanese and Korean characters all come from Noto Sans CJK SC (one file: a
Japanese reader sees the Chinese forms of the few Han characters whose forms differ).
"""

from __future__ import annotations

import glob
import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection, TTFont

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bpe.corpora.builtin import BUILTIN_TEXTS  # noqa: E402

OUT = ROOT / "pages" / "_shared" / "render" / "fonts"
# Noto fonts, in the order a character is looked for; (file under the fonts folder, index in
# a collection, the name of the subset written).
SOURCES = (
    ("truetype/noto/NotoSansArabic-Regular.ttf", None, "noto-arabic"),
    ("truetype/noto/NotoSansDevanagari-Regular.ttf", None, "noto-devanagari"),
    ("opentype/noto/NotoSansCJK-Regular.ttc", 2, "noto-cjk"),  # SC
    ("truetype/noto/NotoSansMath-Regular.ttf", None, "noto-math"),
    ("truetype/noto/NotoSansSymbols-Regular.ttf", None, "noto-symbols"),
    ("truetype/noto/NotoSans-Regular.ttf", None, "noto-sans"),
    ("truetype/noto/NotoColorEmoji.ttf", None, "noto-emoji"),
)
# Streamlit's fonts, by the family name its CSS gives them (its static media, in the venv).
STREAMLIT_FONTS = {"Source Sans": "SourceSansVF-Upright", "Source Code Pro": "SourceCodeVF-Upright"}


def shipped_characters() -> set[str]:
    texts = [text.text for text in BUILTIN_TEXTS]
    for folder in ("lighthouse", "report_card"):
        texts += [path.read_text(encoding="utf-8") for path in sorted((ROOT / "data" / folder).glob("*.txt"))]
    return {character for text in texts for character in text if ord(character) > 0x7F}


def streamlit_cmaps() -> dict[str, set[int]]:
    """The characters of Streamlit's fonts, by family: from the project's venv (this script
    runs in another, which has fontTools and not Streamlit)."""
    (media,) = glob.glob(
        str(ROOT / ".venv" / "lib" / "python3*" / "site-packages" / "streamlit" / "static" / "static" / "media")
    )
    media = Path(media)
    found = {}
    for family, stem in STREAMLIT_FONTS.items():
        (path,) = glob.glob(str(media / f"{stem}*.woff2"))
        found[family] = set(TTFont(path).getBestCmap())
    return found


def load(fonts: Path, name: str, index: int | None) -> TTFont:
    path = fonts / name
    return TTCollection(path).fonts[index] if index is not None else TTFont(path)


def unicode_range(points: list[int]) -> str:
    """``U+915-917, U+93F``: the points as ranges, as CSS's ``unicode-range`` takes them."""
    spans: list[list[int]] = []
    for point in sorted(points):
        if spans and point == spans[-1][1] + 1:
            spans[-1][1] = point
        else:
            spans.append([point, point])
    return ", ".join(f"U+{a:X}" if a == b else f"U+{a:X}-{b:X}" for a, b in spans)


def main(fonts_folder: str) -> int:
    fonts = Path(fonts_folder)
    covered = streamlit_cmaps()
    wanted = sorted(ord(c) for c in shipped_characters() if any(ord(c) not in cmap for cmap in covered.values()))
    chosen: dict[str, list[int]] = {}
    loaded = {}
    for point in wanted:
        for file, index, name in SOURCES:
            if name not in loaded:
                loaded[name] = load(fonts, file, index)
            font = loaded[name]
            if point in font.getBestCmap():
                chosen.setdefault(name, []).append(point)
                break
        else:
            print(f"no Noto font here has U+{point:04X} {chr(point)!r}", file=sys.stderr)
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.woff2"):
        old.unlink()
    faces = [
        "/* Written by tests/e2e/font_subsets.py: Noto subsets (SIL Open Font License 1.1, OFL.txt) for the",
        "   characters of BPE Lab's shipped texts that Streamlit's own fonts lack. */",
    ]
    for file, index, name in SOURCES:
        points = chosen.get(name)
        if not points:
            continue
        options = subset.Options()
        options.flavor = "woff2"
        options.layout_features = ["*"]  # Devanagari's conjuncts and the emoji's flags are substitutions
        options.name_IDs = ["*"]  # the fonts' copyright and licence notices stay in them
        options.notdef_outline = True
        font = load(fonts, file, index)
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=points)
        subsetter.subset(font)
        target = OUT / f"{name}.woff2"
        font.flavor = "woff2"
        font.save(target)
        print(f"{target.relative_to(ROOT)}: {len(points)} characters, {target.stat().st_size / 1024:.1f} KB")
        for family, cmap in covered.items():
            lacking = [p for p in points if p not in cmap]
            if lacking:
                faces.append(
                    f'@font-face {{ font-family: "{family}"; src: url("{name}.woff2") format("woff2"); '
                    f"font-weight: 100 900; font-style: normal; font-display: swap; "
                    f"unicode-range: {unicode_range(lacking)}; }}"
                )
    (OUT / "faces.css").write_text("\n".join(faces) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "/usr/share/fonts"))
