"""Vocabulary's learned tokens: the run's tokenizer at the vocab shown and its table of
learned tokens (cached), three numbers about them, the table with its filters, and the
first merges beside the longest tokens. The filters belong to the run.

The length filter is a range of token lengths in one run's vocabulary; kept as it was
for another run, it hides most of the new one ("732 of 887 shown" on a corpus whose
longest token is 16 while the filter still says 2-5). So the filters are kept with the
run and its length range (`state.per_run.keep_with`) and start over when either changes.
"""

from __future__ import annotations

from functools import reduce

import pyarrow as pa
import pyarrow.compute as pc
import streamlit as st

from bpe.analysis.vocabulary import first_merges
from bpe.run import TrainingRun
from bpe.text import pair_label, printable
from pages._shared.data.measures import learned_rows, token_table
from pages._shared.data.tokenizers import Compared, bpe_at
from pages._shared.frame.presenter import presenting
from pages._shared.frame.tables import arrow_rows, grid_table
from pages._shared.state.controls import LENGTHS, SEARCH, UNUSED
from pages._shared.state.per_run import keep_with, run_identity
from pages._shared.state.settings import Settings, bind


def draw_filters(settings: Settings, table: pa.Table) -> pa.Table:
    """Search, token length and "only unused"; return the rows they keep."""
    state = st.session_state
    lengths = table["length"]
    shortest, longest = (pc.min(lengths).as_py(), pc.max(lengths).as_py()) if len(table) else (0, 0)
    keep_with((run_identity(settings), shortest, longest), [LENGTHS.key])  # another run: the whole range again
    SEARCH.setdefault()
    state.setdefault(LENGTHS.key, (shortest, longest))
    UNUSED.setdefault()
    state[LENGTHS.key] = tuple(min(max(int(end), shortest), longest) for end in state[LENGTHS.key])
    f1, f2, f3 = st.columns([5, 5, 3], vertical_alignment="bottom")
    with f1:
        SEARCH.draw(st.text_input, "Search tokens (· for a space)")
    with f2:
        if longest > shortest:
            bind(st.slider, "Token length (characters)", LENGTHS.key, min_value=shortest, max_value=longest)
    with f3:
        UNUSED.draw(st.checkbox, "Only unused tokens")
    low, high = state[LENGTHS.key]
    keep = []
    if (low, high) != (shortest, longest):
        keep.append(pc.and_(pc.greater_equal(lengths, low), pc.less_equal(lengths, high)))
    if state[SEARCH.key]:
        keep.append(pc.match_substring(table["token"], state[SEARCH.key].replace(" ", "·")))
    if state[UNUSED.key]:
        keep.append(pc.equal(table["uses"], 0))
    if not keep:
        return table  # the shared table itself: nothing filtered, nothing copied
    return table.filter(reduce(pc.and_, keep))


def draw_token_table(shown: pa.Table, total: int) -> None:
    grid_table(
        shown,
        key="vocab_table",
        counts=("id", "step", "pair count at creation", "uses"),
        columns={
            "absorbed": st.column_config.ProgressColumn(
                "absorbed",
                help="share of its count at creation no longer used",
                format="percent",
                min_value=0.0,
                max_value=1.0,
            ),
        },
    )
    st.caption(f"{len(shown):,} of {total:,} learned tokens shown. Click a column header to sort.")


def draw_summary(rows, table: pa.Table) -> None:
    """Three numbers: learned tokens, how many the final encoding never uses, the longest."""
    a, b, c = st.columns(3)
    a.metric("Learned tokens", f"{len(rows):,}")
    b.metric("Unused in the final encoding", f"{sum(1 for r in rows if r.uses == 0):,}")
    c.metric("Longest token (characters)", f"{pc.max(table['length']).as_py() if len(table) else 0:,}")


def draw_first_and_longest(run: TrainingRun, merges: int, table: pa.Table) -> None:
    """The first 50 merges beside the 50 longest tokens (in presenter mode one above the
    other: a long token in large type takes more than half a projector's page)."""
    first, tall = (st.container(), st.container()) if presenting() else st.columns(2)
    with first:
        st.markdown("**The first 50 merges**")
        grid_table(
            arrow_rows(
                {"step": n, "pair": pair_label(p), "token": printable(t), "pair count": f}
                for n, p, t, f in first_merges(run, min(50, merges))
            ),
            key="vocab_first",
            counts=("step", "pair count"),
        )
    with tall:
        st.markdown("**The 50 longest tokens**")
        # the numbers first and the token in a column of its own width: beside the first merges,
        # at a projector's 1024 px, a long token would push them out of sight
        grid_table(
            table.sort_by([("length", "descending"), ("id", "ascending")])
            .slice(0, 50)
            .select(["length", "step", "token", "id"]),
            key="vocab_longest",
            counts=("step", "id"),
            columns={
                "length": st.column_config.NumberColumn("length", width="small"),
                "token": st.column_config.TextColumn("token", width="medium"),
            },
        )


def learned_table(settings: Settings, run: TrainingRun) -> tuple[Compared, list, pa.Table]:
    """The run's tokenizer at the vocab shown, its learned tokens (with their uses in the
    final encoding of the training text) and the page's table of them."""
    trained = bpe_at(settings, run, settings.vocab_size)
    merges = len(trained.tokenizer.merges)
    rows = learned_rows(settings, run, merges)
    return trained, rows, token_table(settings, merges, rows)
