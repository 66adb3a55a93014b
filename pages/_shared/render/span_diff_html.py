"""A span diff as HTML: one row per tokenizer, aligned by character, differing spans ringed.

Unlike `html.segments_html` (one tokenizer, tokens padded apart), the rows here must line
up character under character, so tokens take no padding: a thin white edge marks where a
token ends, and the same characters' tokens get the same colour in every row (the colour
comes from the token's text, not from an id, which differs between tokenizers). Each
stretch of text the rows cut differently (`SpanDiff.regions`: the tokens whose boundaries
not every row shares) is ringed in every row. Rows are lettered A-D, named in a legend,
and all wrap at the same places (`bpe.analysis.span_diff.display_lines`).

Hover: each token carries one class per character it touches (``c12 c13 ...``); a CSS rule
per character (``:has(.c12:hover) .c12``) marks, in every row, each token touching a
character of the hovered one. st.html runs no scripts, so this is CSS alone.
"""

from __future__ import annotations

import hashlib
import html

from bpe.analysis.span_diff import SpanDiff, TokenSpan, display_lines
from bpe.text import VISIBLE_BIDI, VISIBLE_WHITESPACE, readable_token
from bpe.wording import counted
from pages._shared.render.html import MONOSPACE, SPECIAL_STYLE, text_html

WIDTH = 60  # characters a line: the rows and their letters fit 1024 px beside the sidebar
LARGE_WIDTH = 40  # in presenter mode, with larger type
RING = "outline:2px solid #2563eb;outline-offset:1px;border-radius:3px"
HOVER = "background:#f87171 !important;color:#111827"
EDGE = "box-shadow:inset -1px 0 0 #ffffff"
MAX_HOVER_CHARACTERS = 3_000  # one CSS rule per character
LETTERS = "ABCD"
# Bidi controls as marks too: each row must show its characters in order, one under another.
_VISIBLE = str.maketrans({**VISIBLE_WHITESPACE, "\n": "↵", **VISIBLE_BIDI})


def text_colour(token: str | bytes) -> str:
    """A light background, the same for the same token text in every row."""
    digest = hashlib.blake2s(token if isinstance(token, bytes) else token.encode("utf-8"), digest_size=2).digest()
    return f"hsl({int.from_bytes(digest, 'big') % 360},70%,84%)"


def row_letter(index: int) -> str:
    """Rows are lettered A-D beside the text (a legend names them), so long names cost no width."""
    return LETTERS[index]


def span_diff_html(diff: SpanDiff, *, scope: str, large: bool = False) -> str:
    """The rows of ``diff``, line block by line block, each row led by its letter; each
    stretch the rows cut differently is ringed in every row."""
    scope_class = "bpe-spandiff-" + "".join(ch if ch.isalnum() else "-" for ch in scope)
    width = LARGE_WIDTH if large else WIDTH
    size = "1.35rem" if large else "0.95rem"
    letter_style = "display:inline-block;width:2ch;color:#334155;font-weight:700"
    blocks = []
    drawn = [_drawn_characters(row.spans, diff.text) for row in diff.rows]
    for start, end in display_lines(diff.text, width):
        rows = []
        for index, (row, pieces) in enumerate(zip(diff.rows, drawn)):
            shown = [(span, _clip(chars, start, end)) for span, chars in pieces if _inside(span, chars, start, end)]
            cells = _ringed(shown, diff.regions, diff.text)
            rows.append(
                f'<div class="bpe-spandiff-row" style="white-space:pre"><span style="{letter_style}" '
                f'title="{html.escape(row.label.translate(_VISIBLE), quote=True)}">{row_letter(index)}</span>{cells}</div>'
            )
        blocks.append(f'<div class="bpe-spandiff-line" style="margin-bottom:0.7em">{"".join(rows)}</div>')
    rules = "".join(
        f".{scope_class}:has(.c{j}:hover) .c{j}{{{HOVER}}}" for j in range(min(len(diff.text), MAX_HOVER_CHARACTERS))
    )
    legend = " · ".join(
        f"<b>{row_letter(i)}</b> {text_html(row.label)} ({counted(row.count, 'token')})"
        for i, row in enumerate(diff.rows)
    )
    return (
        f"<style>{rules}</style>"
        f'<div class="bpe-spandiff {scope_class}" style="font-family:{MONOSPACE};font-size:{size};line-height:2;'
        f'overflow-x:auto">'
        f'<div class="bpe-spandiff-legend" style="font-family:sans-serif;font-size:0.9rem;margin-bottom:0.4em">'
        f"{legend}</div>{''.join(blocks)}</div>"
    )


def _ringed(shown: list[tuple[TokenSpan, range]], regions: tuple[tuple[int, int], ...], text: str) -> str:
    """The pieces of one row on one line, each run of pieces inside one differing region
    wrapped in one ring."""
    out, open_region = [], None
    for span, chars in shown:
        region = None if span.shared else _region_of(span, regions)
        if region != open_region:
            if open_region is not None:
                out.append("</span>")
            if region is not None:
                out.append(f'<span class="ring" style="{RING}">')
            open_region = region
        out.append(_piece_html(span, chars, text))
    if open_region is not None:
        out.append("</span>")
    return "".join(out)


def _region_of(span: TokenSpan, regions: tuple[tuple[int, int], ...]) -> tuple[int, int] | None:
    return next((r for r in regions if r[0] <= span.start < r[1]), None)


def _drawn_characters(spans: tuple[TokenSpan, ...], text: str) -> list[tuple[TokenSpan, range]]:
    """Each token with the characters it draws: those whose first byte it holds, so every
    character is drawn once per row (a byte token inside a character draws none)."""
    out = []
    for index, span in enumerate(spans):
        first = span.start
        if index and spans[index - 1].end > span.start:  # the character began in the token before
            first = span.start + 1
        out.append((span, range(first, span.end)))
    return out


def _inside(span: TokenSpan, chars: range, start: int, end: int) -> bool:
    if len(chars):
        return chars.start < end and chars.stop > start
    return start <= span.start < end  # a token drawing no character sits at the character it is inside


def _clip(chars: range, start: int, end: int) -> range:
    return range(max(chars.start, start), min(chars.stop, end)) if len(chars) else chars


def _piece_html(span: TokenSpan, chars: range, text: str) -> str:
    touched = " ".join(f"c{j}" for j in range(span.start, span.end))
    token_text = readable_token(span.token)
    where = f"characters {span.start}-{span.end - 1}"
    if span.unknown:
        tip = f"'{token_text.translate(_VISIBLE)}' is outside this tokenizer's alphabet: no token"
    else:
        tip = f"id {span.token_id}: '{token_text.translate(_VISIBLE)}' ({where})"
    style = f"background:{text_colour(span.token)};{EDGE}"
    if span.unknown:
        style = "background:#ffffff;color:#b91c1c;outline:2px dashed #b91c1c;outline-offset:-2px"
    elif span.special:
        style = f"{SPECIAL_STYLE};{EDGE}"
        tip = f"id {span.token_id}: the special token '{token_text}' ({where}), one token"
    kind = "tok" + ("" if span.shared else " differs") + (" special" if span.special else "")
    if not len(chars):  # part of a character: a mark without width, so the row stays aligned
        return (
            f'<span class="{kind} partial {touched}" title="{html.escape(tip, quote=True)}" '
            f'style="display:inline-block;width:0;box-shadow:-2px 0 0 #b91c1c">\u200b</span>'
        )
    return (
        f'<span class="{kind} {touched}" style="{style}" title="{html.escape(tip, quote=True)}">'
        f"{html.escape(text[chars.start : chars.stop].translate(_VISIBLE))}</span>"
    )
