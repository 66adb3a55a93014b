"""Tokens as HTML: a colour per token, escaped spans, the context-window passage.

Token text is user text. Everything that reaches HTML passes through `html.escape` here,
so a corpus holding ``<script>`` or ``<img onerror=...>`` shows those characters as
text, and its bidirectional controls are shown as marks (`text_html`, `bpe.text`), so
U+202E cannot make "ecila ot 999 yap" read "pay 999 to alice". The core spells tokens as plain text (`bpe.text`); this module turns that text
into the HTML that pages hand to ``st.html``.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path

from bpe.analysis.segments import Segment
from bpe.text import bidi_marked, printable, readable_token
from bpe.wording import counted

MARKDOWN_SPECIALS = set("\\`*_{}[]<>#|~$:")
# The token views' type: the machine's monospace, then Streamlit's own, which the app serves
# with the characters of its shipped texts that fonts often lack (`font_faces_css`): a
# Hindi or Chinese token then shows as itself on a PC with only its default fonts.
MONOSPACE = "monospace,'Source Code Pro'"
GOLDEN_ANGLE = 137.508  # degrees: consecutive ids get hues far apart
SPAN_STYLE = "border-radius:3px;padding:0 2px"
MARK_STYLES = {
    "merged": "outline:2px solid #dc2626;outline-offset:0;font-weight:600",
    "left": "outline:2px dashed #dc2626",
    "right": "outline:2px dashed #dc2626",
    "differs": "outline:2px solid #2563eb;outline-offset:0",
    # a special token (`bpe.specials`): dark, light type, bold, in every view that draws tokens
    "special": "background:#1e293b;color:#f8fafc;font-weight:600",
    # Picky BPE (`bpe.variants.picky`): a removed token's occurrences fade out, its parts come in
    "removed": "outline:2px dotted #6b7280;text-decoration:line-through;animation:bpe-fade 1.6s ease-in forwards",
    "split": "outline:2px dashed #6b7280",
}
SPECIAL_STYLE = MARK_STYLES["special"]
# Presenter mode: larger type for everything the class reads, for a projector: the token
# views and the merge headline, the tokenizers' splits and the merge lists side by side,
# the algorithm panel and its notes, text, captions, metrics, static tables, control
# labels and what is typed or picked in a box (the quiz's guess, the token to trace).
# Charts are enlarged by `figures.enlarged`; a canvas table's type is out of CSS's reach, so
# `frame.tables` draws its rows as a static table in presenter mode.
PRESENTER_CSS = """<style>
.bpe-segments, .bpe-linked, .bpe-window { font-size: 1.45rem !important; line-height: 2.1 !important; }
.bpe-merge { font-size: 1.7rem !important; }
.bpe-removals, .bpe-rule { font-size: 1.35rem !important; }
.bpe-splits, .bpe-merge-lists { font-size: 1.2rem !important; }
.bpe-algorithm { font-size: 1.15rem !important; }
.bpe-algorithm .note, .bpe-algorithm .phases { font-size: 1rem !important; }
[data-testid="stMain"] [data-testid="stMarkdownContainer"] p,
[data-testid="stMain"] [data-testid="stMarkdownContainer"] li { font-size: 1.25rem !important; }
[data-testid="stMain"] [data-testid="stCaptionContainer"],
[data-testid="stMain"] [data-testid="stCaptionContainer"] p { font-size: 1.1rem !important; }
[data-testid="stMain"] [data-testid="stMetricValue"] { font-size: 2.75rem !important; }
[data-testid="stMain"] [data-testid="stMetricValue"] p { font-size: inherit !important; }
[data-testid="stMain"] [data-testid="stMetricDelta"] p { font-size: 1.05rem !important; }
[data-testid="stMain"] [data-testid="stMetricLabel"] p { font-size: 1.15rem !important; }
[data-testid="stMain"] [data-testid="stTable"] td,
[data-testid="stMain"] [data-testid="stTable"] th { font-size: 1.05rem !important; }
[data-testid="stMain"] [data-testid="stTable"] [data-testid="stMarkdownContainer"] p { font-size: inherit !important; }
[data-testid="stMain"] [data-testid="stWidgetLabel"] p { font-size: 1.1rem !important; }
[data-testid="stMain"] [data-testid="stAlert"] p { font-size: 1.2rem !important; }
[data-testid="stMain"] [data-testid="stSliderThumbValue"] p,
[data-testid="stMain"] [data-testid="stSliderTickBar"] p { font-size: inherit !important; }
[data-testid="stMain"] input, [data-testid="stMain"] textarea { font-size: 1.2rem !important; }
[role="listbox"] [role="option"] { font-size: 1.15rem !important; }
</style>"""
# (A slider's value and its ends keep their size: Streamlit places them a fixed distance above
# and below the track, so larger type would sit on the track and the handle.)
# On every page: labels of buttons, toggles, checkboxes, boxes and metrics wrap onto a second
# line instead of ending in "…" when their column is narrow (a projector's 1024 px), and a
# static table's headers and cells wrap between words (never inside one: "charac|ters",
# "118,3|04"), so a table must have few enough columns to fit (the overflow test measures it).
WHOLE_LABELS_CSS = """<style>
[data-testid^="stBaseButton"] p, [data-testid^="stBaseButton"] [data-testid="stMarkdownContainer"],
[data-testid="stWidgetLabel"] p, [data-testid="stWidgetLabel"] [data-testid="stMarkdownContainer"],
[data-testid="stMetricLabel"] p, [data-testid="stMetricLabel"] [data-testid="stMarkdownContainer"],
[data-testid="stMetricLabel"] > div, label p, label [data-testid="stMarkdownContainer"],
[data-testid="stMetricDelta"] p, [data-testid="stMetricDelta"] [data-testid="stMarkdownContainer"] {
  white-space: normal !important; overflow: visible !important; text-overflow: clip !important;
  overflow-wrap: anywhere;
}
[data-testid^="stBaseButton"] { height: auto !important; }
[data-testid="stTable"] th, [data-testid="stTable"] td, [data-testid="stTable"] p {
  white-space: normal !important; overflow-wrap: break-word !important; word-break: normal !important;
}
</style>"""
# The sidebar hidden for the lesson (`frame.presenter`): the sidebar and Streamlit's own
# button to open it are removed, so the page takes the whole width, and the app's "Show the
# sidebar" button is pinned where Streamlit's was, over the page's empty top left corner.
HIDDEN_SIDEBAR_CSS = """<style>
[data-testid="stSidebar"], [data-testid="stExpandSidebarButton"], [data-testid="stSidebarCollapsedControl"] {
  display: none !important;
}
.st-key-view_show_sidebar { position: fixed !important; top: 0.6rem; left: 0.75rem; z-index: 999992; width: auto !important; }
</style>"""
# On every page: the characters of the shipped texts that fonts often lack (Devanagari, Chinese,
# Japanese, Korean, Arabic, the emoji), as small Noto subsets (``fonts/`` beside this module,
# made by tests/e2e/font_subsets.py) under Streamlit's own family names: on a PC with only its
# default fonts they show as themselves, not as empty boxes. The files travel inside the CSS as
# data URLs (``url("noto-cjk.woff2")`` becomes ``url("data:font/woff2;base64,d09GMgAB…")``):
# the app serves no folder of its own, and Streamlit sends an element this size to a browser
# once and then only its hash (its ForwardMsg cache), so a rerun does not send the fonts again.
FONTS = Path(__file__).with_name("fonts")


@cache
def font_faces_css() -> str:
    """faces.css with each font file inlined, as one <style> element."""
    faces = (FONTS / "faces.css").read_text(encoding="utf-8")
    for font in sorted(FONTS.glob("*.woff2")):
        data = base64.b64encode(font.read_bytes()).decode("ascii")
        faces = faces.replace(f'url("{font.name}")', f'url("data:font/woff2;base64,{data}")')
    return f"<style>{faces}</style>"


# The link dialog's code box: its copy button always shown (Streamlit shows it on hover only).
COPY_BUTTON_CSS = """<style>
[role="dialog"] [data-testid="stCode"] > div:has([data-testid="stElementToolbarButton"]) {
  opacity: 1 !important; visibility: visible !important;
}
[role="dialog"] [data-testid="stCode"] [data-testid="stElementToolbarButton"],
[role="dialog"] [data-testid="stCode"] [data-testid="stElementToolbarButton"] * { visibility: visible !important; }
</style>"""
# Merge by merge's stage (`views.merge_by_merge.stage`): the page's margins and title take
# less of the first screen, so the controls, the step, the pair chart and the first line of
# the text fit above the fold at 1024x768 in presenter type (Streamlit's wide page keeps
# 6rem above the title and 5rem each side, and its title is 2.75rem with 2.25rem of padding).
STAGE_CSS = """<style>
[data-testid="stMainBlockContainer"] {
  padding-top: 3.25rem !important; padding-left: 2rem !important; padding-right: 2rem !important;
}
[data-testid="stMain"] h1 { font-size: 2rem !important; padding: 0 0 0.25rem !important; }
.st-key-stage_headline [data-testid="stMetricValue"] { font-size: 2rem !important; }
.st-key-stage_controls [class*="st-key-merges_jump"] { flex-basis: 5rem !important; }
.st-key-merges_play button { min-width: 7.5rem; }
</style>"""
# (Play is as wide as Pause, so the row does not reflow when the film starts.) In presenter
# mode, the controls' labels are a little larger than Streamlit's, not as large as presenter
# text: the four controls and the step slider stay one row at 1024 px.
STAGE_PRESENTER_CSS = """<style>
.st-key-stage_headline [data-testid="stMetricValue"] { font-size: 2.5rem !important; }
.st-key-stage_controls button [data-testid="stMarkdownContainer"] p { font-size: 1.05rem !important; }
</style>"""
MARK_CLASSES = {
    None: "",
    "merged": " merged",
    "left": " pair-left",
    "right": " pair-right",
    "differs": " differs",
    "special": " special",
    "removed": " removed",
    "split": " split",
}
# On every page: the shape of `segments_html`'s token spans and the outlines of their marks.
SEGMENTS_CSS = (
    "<style>\n"
    + f".bpe-segments .tok {{ {SPAN_STYLE};background:hsl(var(--h),70%,85%) }}\n"
    + "".join(f".bpe-segments .tok.{MARK_CLASSES[mark].strip()} {{ {style} }}\n" for mark, style in MARK_STYLES.items())
    + "@keyframes bpe-fade { from { opacity: 1; } to { opacity: 0.3; } }\n"
    + "</style>"
)


def text_html(text: str) -> str:
    """User text (a passage, a name) as HTML that shows it as written: escaped, and its
    bidirectional controls shown as marks, its spaces and line breaks left as they are."""
    return html.escape(bidi_marked(text))


def escape_markdown(text: str) -> str:
    """Backslash-escape what Markdown (and Streamlit's ``:red[...]``, ``$math$``, ``:emoji:``)
    would act on, for user text inside ``st.error`` and friends, and show its bidirectional
    controls as marks: it then shows as written."""
    return "".join("\\" + ch if ch in MARKDOWN_SPECIALS else ch for ch in bidi_marked(text))


# ==================== Colour


def token_hue(token_id: int) -> int:
    """The hue of `token_colour`, always the same for the same token id."""
    return round((token_id * GOLDEN_ANGLE) % 360)


def token_colour(token_id: int) -> str:
    """A light background colour, always the same for the same token id."""
    return f"hsl({token_hue(token_id)},70%,85%)"


# ==================== HTML


def segments_html(segments: Iterable[Segment], *, css_class: str = "bpe-segments") -> str:
    """Coloured token spans in a ``<div class="bpe-segments">``.

    Each span has ``class="tok"`` (plus ``merged``/``pair-left``/``pair-right`` when the
    current merge touched it) and ``title="id N: 'text'"`` for hover. The halves of a
    consumed pair sit in one ``<span class="pair">``. Spans are separated by spaces, the
    only places a line may wrap; a newline token also ends the line, as in the text.
    """
    units: list[str] = []  # what may wrap between: single tokens, or a pair kept whole
    pair_open: str | None = None
    for seg in segments:
        text = printable(seg.token)
        # in a double-quoted attribute only & < > " need escaping: ' stays one byte, not
        # the six of &#x27;, in most of a step's spans
        tip = html.escape(f"id {seg.token_id}: '{text}'", quote=False).replace('"', "&quot;")
        kind = MARK_CLASSES[seg.mark]
        # the shape, the colour's saturation and lightness and the outlines come from
        # SEGMENTS_CSS, one rule for the page; a span holds only its hue. With the colour in
        # every span a merge step sent 116 KB, 83 KB so; and Streamlit scans each body it
        # sends, every student, every step.
        span = f'<span class="tok{kind}" style="--h:{token_hue(seg.token_id)}" title="{tip}">{html.escape(text)}</span>'
        if readable_token(seg.token).endswith("\n"):
            span += "<br>"
        if seg.mark == "left":
            pair_open = '<span class="pair" style="white-space:nowrap">' + span
        elif seg.mark == "right" and pair_open is not None:
            units.append(pair_open + span + "</span>")
            pair_open = None
        else:
            units.append(span)
    if pair_open is not None:
        units.append(pair_open + "</span>")
    body = " ".join(units)  # the spaces are where lines may wrap
    return (
        f'<div class="{html.escape(css_class, quote=True)}" style="font-family:{MONOSPACE};'
        f'line-height:2;font-size:0.95rem">{body}</div>'
    )


def splits_html(headings: Sequence[str], splits: Mapping[str, Sequence[Sequence[Segment]]]) -> str:
    """Several tokenizers' tokens of the same texts as one grid: a column per text (under its
    plain-text heading), a row per tokenizer (its name, then its `segments_html` of each
    text). One element, where a Streamlit column and a block per cell made a few dozen on
    every visit of the Vocabulary page."""
    cells = ["<div></div>"] + [f"<div>{text_html(heading)}</div>" for heading in headings]
    for who, rows in splits.items():
        cells.append(f'<div style="opacity:0.7;font-size:0.875em">{text_html(who)}</div>')  # a caption's size
        cells.extend(f"<div>{segments_html(segments)}</div>" for segments in rows)
    return (
        f'<div class="bpe-splits" style="display:grid;grid-template-columns:repeat({len(headings) + 1},'
        f'minmax(0,1fr));gap:0.25rem 1rem;align-items:center;overflow-wrap:anywhere">{"".join(cells)}</div>'
    )


def merge_headline_html(step) -> str:
    """``Merge 3: t + h → th, 1,234 times`` with the token text escaped; a re-created token is said so."""
    again = "" if step.new_token else " (already in the vocabulary: no new token)"
    return (
        f'<p class="bpe-merge" style="font-size:1.15rem;margin:0">Merge {step.number:,}: '
        f"<code>{html.escape(printable(step.pair[0]))}</code> + <code>{html.escape(printable(step.pair[1]))}</code>"
        f' → <code class="bpe-new-token">{html.escape(printable(step.token))}</code>, '
        f"{step.frequency:,} times{again}</p>"
    )


def hidden_merge_html(step, *, asking: bool) -> str:
    """The headline's place while the merge is not shown yet (the quiz, or the algorithm's
    count phase): the same line, so nothing under it moves when the merge appears."""
    question = "which pair is merged next?" if asking else "counting every adjacent pair …"
    return f'<p class="bpe-merge" style="font-size:1.15rem;margin:0">Merge {step.number:,}: {question}</p>'


def two_merges_html(step: int, pair_a: tuple | None, pair_b: tuple | None) -> str:
    """``Step 7: run A merges e + s → es; run B merges s + t → st``, token text escaped;
    a run that had stopped is said so."""

    def merge(pair) -> str:
        if pair is None:
            return "had stopped"
        left, right = (html.escape(printable(part)) for part in pair)
        token = html.escape(printable(pair[0] + pair[1]))
        return f'merges <code>{left}</code> + <code>{right}</code> → <code class="bpe-new-token">{token}</code>'

    return (
        f'<p class="bpe-divergence" style="font-size:1.15rem;margin:0">Step {step:,}: '
        f"run A {merge(pair_a)}; run B {merge(pair_b)}</p>"
    )


# ==================== Analysis pages: linked tokens and ids, the context window

MAX_LINKED = 1_000  # tokens whose segment and id light up together; past that, plain hover titles
HOVER_OUTLINE = "outline:2px solid #dc2626;outline-offset:1px"
UNKNOWN_STYLE = f"background:#ffffff;color:#b91c1c;border:2px dashed #b91c1c;{SPAN_STYLE}"


def linked_tokens_html(segments: list[Segment], *, scope: str) -> str:
    """Coloured token spans, then the list of their ids; hovering either lights up both.

    Token ``i`` and id ``i`` share the class ``t{i}``; CSS ``:has()`` outlines every
    element of that class while one of them is hovered (st.html runs no scripts, so
    the link is made in CSS). ``scope`` names the block so several on a page stay apart.
    """
    scope_class = "bpe-linked-" + "".join(ch if ch.isalnum() else "-" for ch in scope)
    spans, ids = [], []
    for i, seg in enumerate(segments):
        text = printable(seg.token)
        if seg.mark == "unknown":  # outside the alphabet: no id, marked, never dropped
            tip = html.escape(f"'{text}' is not in this tokenizer's alphabet: it has no token", quote=True)
            span = f'<span class="tok unknown t{i}" style="{UNKNOWN_STYLE}" title="{tip}">{html.escape(text)}</span>'
            spans.append(span)
            ids.append(f'<span class="tid unknown t{i}" style="{UNKNOWN_STYLE}" title="{tip}">?</span>')
            continue
        special = seg.mark == "special"
        what = "the special token " if special else ""
        tip = html.escape(f"id {seg.token_id}: {what}'{text}'", quote=True)
        style = f"{SPECIAL_STYLE};{SPAN_STYLE}" if special else f"background:{token_colour(seg.token_id)};{SPAN_STYLE}"
        kind = "tok special" if special else "tok"
        span = f'<span class="{kind} t{i}" style="{style}" title="{tip}">{html.escape(text)}</span>'
        spans.append(span + ("<br>" if readable_token(seg.token).endswith("\n") else ""))
        ids.append(f'<span class="tid t{i}" style="{style}" title="{tip}">{seg.token_id}</span>')
    rules = "".join(
        f".{scope_class}:has(.t{i}:hover) .t{i}{{{HOVER_OUTLINE}}}" for i in range(min(len(segments), MAX_LINKED))
    )
    return (
        f"<style>{rules}</style>"
        f'<div class="bpe-linked {scope_class}" style="font-family:{MONOSPACE};font-size:0.95rem">'
        f'<div class="bpe-segments" style="line-height:2">{" ".join(spans)}</div>'
        f'<div class="bpe-ids" style="line-height:1.9;margin-top:0.5rem;color:#334155">'
        f"{' '.join(ids)}</div></div>"
    )


# Two clearly different backgrounds, so every token boundary shows (two yellows did not),
# and a thin white edge between tokens for projectors that wash colours out.
WINDOW_SHADES = ("#fde68a", "#bae6fd")
WINDOW_TOKEN_STYLE = "box-shadow:inset -1px 0 0 #ffffff"
WINDOW_SHOWN_CHARS = 700  # a context window longer than this is shown folded in the middle
REST_SHOWN_CHARS = 240  # text after the cut, greyed
MARKER_STYLE = (
    "display:inline-block;white-space:nowrap;color:#fff;border-radius:3px;padding:0 4px;"
    "margin:0 2px;font-weight:600"
)  # never split across lines, never cut in half


def context_window_html(
    passage: str, lengths: list[int], block_size: int, *, shown_chars: int = WINDOW_SHOWN_CHARS
) -> str:
    """``passage`` with its first ``block_size`` tokens highlighted (alternating colours show
    where tokens part), a cut mark where the window ends, and the rest greyed. When the
    passage has no more than ``block_size`` tokens, an end mark says the whole text fits.

    The box does not scroll, so the cut is always in view: a window longer than
    ``shown_chars`` characters shows its start and its end, the tokens between them folded
    into one mark that says how many there are; a few lines of the rest follow the cut.

    ``lengths`` are the characters per token of ``passage`` (see `bpe.analysis.metrics.token_lengths`);
    a token of 0 characters (the tail of a character split across byte tokens) adds nothing.
    """
    tokens, start = [], 0
    for length in lengths[:block_size]:
        if length:
            tokens.append(passage[start : start + length])
            start += length
    head = tail = len(tokens)
    if start > shown_chars:  # fold the middle: about half the shown characters at each end
        head = _tokens_within(tokens, shown_chars // 2)
        tail = len(tokens) - _tokens_within(tokens[::-1], shown_chars // 2)
    pieces = []
    for i, token in enumerate(tokens):
        if i == head and head < tail:
            folded = tokens[head:tail]
            pieces.append(
                f'<span class="folded" style="{MARKER_STYLE};background:#64748b">… {len(folded):,} more '
                f"tokens ({sum(map(len, folded)):,} characters) …</span>"
            )
        if head <= i < tail:
            continue
        pieces.append(
            f'<span class="win" style="background:{WINDOW_SHADES[i % 2]};{WINDOW_TOKEN_STYLE}">'
            f"{text_html(token)}</span>"
        )
    if len(lengths) <= block_size:
        marker = (
            f'<span class="end" title="the whole text is {len(lengths):,} tokens: it fits in the window" '
            f'style="{MARKER_STYLE};background:#475569">■ end of text: {len(lengths):,} of {block_size:,} '
            f"tokens used</span>"
        )
    else:
        marker = (
            f'<span class="cut" title="the window of {block_size:,} tokens ends here" '
            f'style="{MARKER_STYLE};background:#dc2626">✂ {block_size:,}</span>'
        )
    after = passage[start:]
    after = after if len(after) <= REST_SHOWN_CHARS else after[:REST_SHOWN_CHARS] + "…"
    rest = f'<span class="rest" style="color:#94a3b8">{text_html(after)}</span>'
    return (
        f'<div class="bpe-window" style="font-family:{MONOSPACE};font-size:0.95rem;white-space:pre-wrap;'
        f'line-height:1.8;padding:2px">{"".join(pieces)}{marker}{rest}</div>'
    )


def _tokens_within(tokens: list[str], chars: int) -> int:
    """How many of the first ``tokens`` fit in ``chars`` characters (at least one)."""
    total = count = 0
    for token in tokens:
        total += len(token)
        if total > chars and count:
            break
        count += 1
    return count


# ==================== Junk tokens

RESIDUE_CHIP = "border-radius:3px;padding:0 3px;margin:0 2px;white-space:pre"


def residue_chips_html(rows, limit: int = 60) -> str:
    """The residues among ``rows`` (`bpe.analysis.junk.JunkToken`), the most absorbed first, as
    coloured chips: deep red at a residue ratio of 0 (never used, only absorbed), fading
    towards amber as the ratio nears the residue threshold. A hover says F₁, F₂ and IoS."""
    residues = sorted((r for r in rows if r.residue), key=lambda r: (-r.absorbed, r.id))[:limit]
    chips = []
    for row in residues:
        ratio = row.residue_ratio
        lightness = 45 + round(400 * ratio)  # 45 % at 0, 85 % at the threshold (0.1)
        ios = "—" if row.ios is None else f"{row.ios:.2f}"
        tip = f"id {row.id}: used {row.final:,}, absorbed {row.absorbed:,}, residue ratio {ratio:.3f}, IoS {ios}"
        colour = "#ffffff" if lightness < 65 else "#111827"
        chips.append(
            f'<span class="residue" style="{RESIDUE_CHIP};background:hsl(8,80%,{lightness}%);color:{colour}" '
            f'title="{html.escape(tip, quote=True)}">{text_html(printable(row.token))}</span>'
        )
    return f'<div class="bpe-residues" style="font-family:monospace;line-height:2.1">{" ".join(chips)}</div>'


# ==================== Training rules beyond the textbook (bpe.variants)

RULE_BADGE = "display:inline-block;border-radius:999px;padding:0 0.6rem;margin-right:0.4rem;font-weight:600"


def rule_badge_html(badge: str, sentence: str, *, strong: bool = False) -> str:
    """A badge and a sentence: what a training rule does at this step (``strong``: the transition)."""
    colours = "background:#7c3aed;color:#ffffff" if strong else "background:#ede9fe;color:#4c1d95"
    return (
        f'<p class="bpe-rule" style="margin:0.2rem 0"><span class="bpe-rule-badge" style="{RULE_BADGE};{colours}">'
        f"{html.escape(badge)}</span>{html.escape(sentence)}</p>"
    )


def removals_html(removals, threshold: float) -> str:
    """Picky BPE's removals at a step (`bpe.variants.picky.Removal`): each token fading out, struck
    through, with its IoS against the threshold and the parts its occurrences split into."""
    lines = []
    for removal in removals:
        parts = " + ".join(f"<code>{text_html(printable(p))}</code>" for p in removal.parts)
        left = (
            f"its {counted(removal.count, 'remaining occurrence')} split"
            if removal.count
            else "no occurrence is left to split"
        )
        lines.append(
            f'<li><span class="bpe-removed" style="{RESIDUE_CHIP};background:#e5e7eb;text-decoration:line-through;'
            f'animation:bpe-fade 1.6s ease-in forwards">{text_html(printable(removal.token))}</span> removed: IoS '
            f"{removal.pair_count:,} ÷ {removal.own_count:,} = {removal.ios:.2f} ≥ {threshold:g}; {left} back into {parts}</li>"
        )
    return (
        f'<div class="bpe-removals"><b>Removed from the vocabulary at this step</b>'
        f'<ul style="margin:0.2rem 0">{"".join(lines)}</ul></div>'
    )
