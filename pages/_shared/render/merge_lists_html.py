"""Merge lists side by side as one HTML table: a row per merge number, a column per
tokenizer, the merges that cross classes shaded.

A `st.dataframe` can only shade cells through a pandas Styler, which Streamlit translates
cell by cell on every draw: half of the Bytes page's server time on each visit, for a
table that is the same for every visitor of a setting. As HTML it is built once and sent
as it is, and presenter mode's style enlarges its type, which a dataframe's canvas keeps
small. It scrolls in a box of a dataframe's height, its header row kept in sight; headers
wrap between words only (a long token may wrap anywhere: it has no spaces to wrap at).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pages._shared.render.html import MONOSPACE, text_html

HEIGHT_PX = 420
CROSSING_BACKGROUND = "#fde2e1"
CROSSING = ' class="x"'  # a cell's class when its merge crosses classes
STYLE = f"""<style>
.bpe-merge-lists {{ max-height:{HEIGHT_PX}px; overflow:auto; border:1px solid rgba(49,51,63,0.15);
  border-radius:0.5rem; font-size:0.9rem; }}
.bpe-merge-lists table {{ border-collapse:collapse; width:100%; }}
.bpe-merge-lists th {{ position:sticky; top:0; background:#f8f9fb; font-weight:600; text-align:left; }}
.bpe-merge-lists th, .bpe-merge-lists td {{ padding:0.15rem 0.6rem; border-bottom:1px solid rgba(49,51,63,0.08); }}
.bpe-merge-lists td {{ font-family:{MONOSPACE}; overflow-wrap:anywhere; }}
.bpe-merge-lists td.n {{ font-family:inherit; color:rgba(49,51,63,0.6); text-align:right; width:4rem; }}
.bpe-merge-lists td.x {{ background:{CROSSING_BACKGROUND}; }}
</style>"""


def merge_lists_html(rows: Sequence[Mapping], labels: Sequence[str]) -> str:
    """`bpe.analysis.compare.merge_rows` rows as the table: the merge number, then each of
    ``labels``' tokens (already spelled for reading), shaded where ``<label> crosses``."""
    head = "".join(f"<th>{text_html(label)}</th>" for label in ("merge", *labels))
    body = "".join(
        f'<tr><td class="n">{row["merge"]:,}</td>'
        + "".join(f"<td{CROSSING if row[f'{label} crosses'] else ''}>{text_html(row[label])}</td>" for label in labels)
        + "</tr>"
        for row in rows
    )
    return (
        f'{STYLE}<div class="bpe-merge-lists"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'
    )
