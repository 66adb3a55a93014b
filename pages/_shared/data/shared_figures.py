"""Charts built once per setting and shared by every session (`shared_figure`).

A chart is a pure function of cached results, yet building one costs more than drawing
it many times: plotly checks every property as a figure is built (Languages' bars,
Compression's curves, Context window's markers; docs/speed.md), and a class opening a
page at once would build the same figure once per student. `st.plotly_chart` only reads
a figure (it copies it to JSON), so one object serves every session, as the cached runs
and tokenizers do: its key names everything it shows, and presenter mode, which enlarges
it in place, is applied here, before it is kept. A shared figure is drawn, never changed.
"""

from __future__ import annotations

from collections.abc import Callable

from pages._shared.data.cache_scopes import cache_resource_by_owner
from pages._shared.render.figures import enlarged


# A chart of a session's own text is that session's (`data.cache_scopes`): ``own=`` at each call.
@cache_resource_by_owner(show_spinner=False, max_entries=64)  # a figure of two 1,000-point curves: about 100 kB
def shared_figure(key: tuple, large: bool, _build: Callable):
    """The plotly figure ``_build()`` (built in `render.figures`), enlarged when ``large``
    (presenter mode), once per process for each ``key``, which must name everything the
    figure shows (the data itself when it is small)."""
    figure = _build()
    if large:
        figure = enlarged(figure)
    # st.plotly_chart turns the figure into a dict on every draw, a deep copy of all its
    # data (a merge step's pair chart, for every student); a shared figure never changes,
    # so the dict made here is the one every draw sends.
    drawn = figure.to_dict()
    figure.to_dict = lambda: drawn
    return figure
