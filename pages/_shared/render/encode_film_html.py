"""The encode film's headline as HTML: which frame, which merge, where training learned it."""

from __future__ import annotations

import html

from bpe.analysis.encode_film import LOOKUP, REPLAY, EncodeFilm
from bpe.text import printable
from bpe.wording import counted


def frame_headline_html(film: EncodeFilm, number: int) -> str:
    """``Frame 3 of 12 · merge 57: l + o → lo, 2 places · learned at step 57 (1,234 times)``, escaped."""
    last = len(film.frames)
    if number == 0:
        return (
            f'<p class="bpe-merge" style="font-size:1.15rem;margin:0">Frame 0 of {last:,}: the base tokens, '
            f"{sum(map(len, film.start)):,} of them in {counted(len(film.start), 'chunk')}</p>"
        )
    frame = film.frames[number - 1]
    if frame.kind == LOOKUP:
        one = frame.occurrences == 1
        body = (
            f"whole-chunk lookup: {counted(frame.occurrences, 'chunk')} "
            f"{'is a token itself' if one else 'are tokens themselves'}, though merging by rank "
            f"does not build {'it' if one else 'them'}"
        )
    else:
        left, right = (html.escape(printable(part)) for part in frame.pair)
        body = (
            f"merge {frame.merge:,}: <code>{left}</code> + <code>{right}</code> → "
            f'<code class="bpe-new-token">{html.escape(printable(frame.token))}</code>, '
            f"{counted(frame.occurrences, 'place')} in this text"
        )
        if film.rule == REPLAY and frame.count is not None:
            body += f" · learned at training step {frame.merge:,}, where the pair occurred {frame.count:,} times"
    return f'<p class="bpe-merge" style="font-size:1.15rem;margin:0">Frame {number:,} of {last:,} · {body}</p>'
