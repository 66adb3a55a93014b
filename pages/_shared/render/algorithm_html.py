"""The algorithm beside the film: the training loop as pseudocode, the running line lit,
and the merge scan shown occurrence by occurrence.

HTML only (drawn with ``st.html``, which runs no scripts); every token and note passes
through `html.escape`. The phases, the notes and the scan are computed in
`bpe.analysis.algorithm`.
"""

from __future__ import annotations

import html

from bpe.analysis.algorithm import PHASES, ScanEvent, line_notes, pseudocode
from bpe.analysis.segments import Segment
from bpe.analysis.tie_rules import tie_rule_label
from bpe.steps import MergeStep
from bpe.text import printable, readable_token
from bpe.wording import counted
from pages._shared.render.html import MONOSPACE, SPAN_STYLE, token_colour

LIT = "background:#fef3c7;border-left:4px solid #f59e0b"
UNLIT = "border-left:4px solid transparent"
SCAN_STYLES = {  # the scan's marks: merged already, the occurrence at hand
    "done": "outline:2px solid #dc2626;font-weight:600",
    "here": "outline:3px solid #f59e0b;outline-offset:1px",
}


def algorithm_html(
    step: MergeStep, phase: str, *, minimum: int, merged: int, tie_rule: str, stop: str | None, asking: bool = False
) -> str:
    """The loop's lines; the lines of ``phase`` lit, each line that has run annotated with
    what it did at ``step`` (naming no pair while the class is ``asking``)."""
    notes = line_notes(step, phase, minimum=minimum, merged=merged, stop=stop, asking=asking)
    rows = []
    for (text, line_phase), note in zip(pseudocode(tie_rule_label(tie_rule)), notes):
        lit = line_phase == phase
        indent = "" if line_phase is None else "padding-left:1.2rem;"
        marker = "▶ " if lit else ""
        note_html = (
            (f'<div class="note" style="color:#475569;font-size:0.8rem;padding-left:1.2rem">{html.escape(note)}</div>')
            if note
            else ""
        )
        rows.append(
            f'<div class="line{" lit" if lit else ""}" data-phase="{line_phase or "loop"}" '
            f'style="{LIT if lit else UNLIT};padding:2px 6px;margin:1px 0">'
            f'<div style="{indent}font-weight:{600 if lit else 400}">{marker}{html.escape(text)}</div>'
            f"{note_html}</div>"
        )
    steps = " → ".join(f"<b>{p}</b>" if p == phase else p for p in PHASES)
    return (
        f'<div class="bpe-algorithm" data-phase="{html.escape(phase)}" style="font-family:{MONOSPACE};'
        f'font-size:0.85rem;border:1px solid #e2e8f0;border-radius:6px;padding:6px">'
        f'<div class="phases" style="color:#64748b;font-size:0.75rem;margin-bottom:4px">phase: {steps}</div>'
        f"{''.join(rows)}</div>"
    )


def scan_html(before: list[Segment], events: list[ScanEvent], scan: int, token: str | bytes, token_id: int) -> str:
    """The text in the middle of the merge: the first ``scan`` occurrences merged, the next
    one outlined (the scan is there), the rest as before the merge. ``before`` is the text
    cut before the merge; positions in ``events`` index into it."""
    done = {event.position for event in events[:scan]}
    here = events[scan].position if scan < len(events) else None
    spans, i = [], 0
    while i < len(before):
        if i in done:
            spans.append(_span(token, token_id, "done", "merged"))
            i += 2
        elif i == here:
            pair = "".join(_span(seg.token, seg.token_id, "here", "the scan is here") for seg in before[i : i + 2])
            spans.append(f'<span class="scan-here" style="white-space:nowrap">{pair}</span>')
            i += 2
        else:
            spans.append(_span(before[i].token, before[i].token_id, None, ""))
            i += 1
    return (
        f'<div class="bpe-segments bpe-scan" style="font-family:{MONOSPACE};line-height:2;font-size:0.95rem">'
        f"{' '.join(spans)}</div>"
    )


def _span(token, token_id: int, mark: str | None, why: str) -> str:
    text = printable(token)
    tip = html.escape(f"id {token_id}: '{text}'" + (f" ({why})" if why else ""), quote=True)
    style = f"background:{token_colour(token_id)};{SPAN_STYLE}" + (f";{SCAN_STYLES[mark]}" if mark else "")
    kind = f" scan-{mark}" if mark else ""
    span = f'<span class="tok{kind}" style="{style}" title="{tip}">{html.escape(text)}</span>'
    return span + ("<br>" if readable_token(token).endswith("\n") else "")


def scan_caption(events: list[ScanEvent], scan: int, pair_text: str) -> str:
    """One sentence on where the scan is (plain text: escape it for Markdown)."""
    total = len(events)
    if total == 0:
        return f"{pair_text} does not occur in this window: nothing to merge here."
    if scan >= total:
        return f"Scan done: {counted(total, 'occurrence')} of {pair_text} merged in this window, left to right."
    event = events[scan]
    overlap = (
        (
            " The same pair starting at its second token was counted too, but that token is used "
            "now: it is not merged, and the scan goes on after this pair."
        )
        if event.skipped is not None
        else ""
    )
    return f"Occurrence {scan + 1} of {total}: {pair_text} is merged here, then the scan moves past it.{overlap}"
