"""A span diff as HTML: one row per tokenizer, aligned by character, differing spans ringed.

Unlike `html.segments_html` (one tokenizer, tokens padded apart), the rows here must line
up character under character, so tokens take no padding: a thin white edge marks where a
token ends, and the same characters' tokens get the same colour in every row (the colour
comes from the token's text, not from an id, which differs between tokenizers). A token
whose boundaries not every row shares is ringed. All rows wrap at the same places
(`bpe.analysis.span_diff.display_lines`).

Hover: each token carries one class per character it touches (``c12 c13 ...``); a CSS rule
per character (``:has(.c12:hover) .c12``) marks, in every row, each token touching a
character of the hovered one. st.html runs no scripts, so this is CSS alone.
"""

from __future__ import annotations

import hashlib
import html

from bpe.analysis.span_diff import SpanDiff, TokenSpan, display_lines
from bpe.text import VISIBLE_WHITESPACE, readable_token

WIDTH = 64  # characters a line: fits 1024 px beside the row labels
LARGE_WIDTH = 40  # in presenter mode, with larger type
RING = "outline:2px solid #2563eb;outline-offset:-2px"
HOVER = "background:#f87171 !important;color:#111827"
EDGE = "box-shadow:inset -1px 0 0 #ffffff"
MAX_HOVER_CHARACTERS = 3_000  # one CSS rule per character
_VISIBLE = str.maketrans({**VISIBLE_WHITESPACE, "\n": "↵"})


def text_colour(token: str | bytes) -> str:
    """A light background, the same for the same token text in every row."""
    digest = hashlib.blake2s(token if isinstance(token, bytes) else token.encode("utf-8"), digest_size=2).digest()
    return f"hsl({int.from_bytes(digest, 'big') % 360},70%,84%)"


def span_diff_html(diff: SpanDiff, *, scope: str, large: bool = False) -> str:
    """The rows of ``diff`` line block by line block, with counts beside each row's label."""
    scope_class = "bpe-spandiff-" + "".join(ch if ch.isalnum() else "-" for ch in scope)
    width = LARGE_WIDTH if large else WIDTH
    size = "1.35rem" if large else "0.95rem"
    label_width = max((len(row.label) for row in diff.rows), default=4)
    label_style = (
        f"display:inline-block;width:{min(label_width, 16) + 1}ch;color:#334155;font-weight:600;overflow:hidden"
    )
    blocks = []
    drawn = [_drawn_characters(row.spans, diff.text) for row in diff.rows]
    for start, end in display_lines(diff.text, width):
        rows = []
        for row, pieces in zip(diff.rows, drawn):
            cells = "".join(
                _piece_html(span, _clip(chars, start, end), diff.text)
                for span, chars in pieces
                if _inside(span, chars, start, end)
            )
            label = html.escape(row.label[:16])
            rows.append(
                f'<div class="bpe-spandiff-row" style="white-space:pre"><span style="{label_style}" '
                f'title="{html.escape(row.label, quote=True)}">{label}</span>{cells}</div>'
            )
        blocks.append(f'<div class="bpe-spandiff-line" style="margin-bottom:0.6em">{"".join(rows)}</div>')
    rules = "".join(
        f".{scope_class}:has(.c{j}:hover) .c{j}{{{HOVER}}}" for j in range(min(len(diff.text), MAX_HOVER_CHARACTERS))
    )
    return (
        f"<style>{rules}</style>"
        f'<div class="bpe-spandiff {scope_class}" style="font-family:monospace;font-size:{size};line-height:1.9">'
        f"{''.join(blocks)}</div>"
    )


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
        tip = f"'{token_text}' is outside this tokenizer's alphabet: no token"
    else:
        tip = f"id {span.token_id}: '{token_text.translate(_VISIBLE)}' ({where})"
    style = f"background:{text_colour(span.token)};{EDGE}"
    if not span.shared:
        style += ";" + RING
    if span.unknown:
        style = "background:#ffffff;color:#b91c1c;outline:2px dashed #b91c1c;outline-offset:-2px"
    kind = "tok" + ("" if span.shared else " differs")
    if not len(chars):  # part of a character: a mark without width, so the row stays aligned
        return (
            f'<span class="{kind} partial {touched}" title="{html.escape(tip, quote=True)}" '
            f'style="display:inline-block;width:0;box-shadow:-2px 0 0 #b91c1c">\u200b</span>'
        )
    return (
        f'<span class="{kind} {touched}" style="{style}" title="{html.escape(tip, quote=True)}">'
        f"{html.escape(text[chars.start : chars.stop].translate(_VISIBLE))}</span>"
    )
