"""Context window: the block size and the vocab sizes compared, how much text a block of
T tokens covers per tokenizer (chart and table), the highlighted passage, and what
attention costs.

The offered sizes are sizes the run really reaches (`reached_vocab_size`), so the chip
a teacher picks reads the same as the row it adds ("BPE 12", never a chip "995" beside a
row "BPE 12" on a corpus where training stopped at 12). The choice belongs to the run:
a new corpus offers its own sizes and starts from its own default
(`state.per_run.keep_with`), so a size missing from one small corpus is back on the next.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from bpe.analysis.metrics import Coverage, relative_attention_cost
from bpe.analysis.vocab_sizes import reached_vocab_size
from bpe.errors import BpeError
from bpe.run import TrainingRun
from pages._shared.data.measures import measured_coverage, measured_text, passage_tokens, passage_window
from pages._shared.data.tokenizers import Compared, base_level, bpe_at, extra_tokenizers, session_owns
from pages._shared.frame.presenter import presented_once
from pages._shared.frame.tables import show_table
from pages._shared.render.figures import coverage_figure
from pages._shared.render.html import escape_markdown
from pages._shared.state.controls import BLOCK, CONTEXT_SIZES, PASSAGE
from pages._shared.state.per_run import keep_with, run_identity
from pages._shared.state.settings import Settings, bind

LADDER = [300, 500, 1_000, 2_000, 5_000, 10_000]
DEFAULT_COMPARED = 500  # the tutorial's vocab, beside the one the sidebar shows
SIZES = CONTEXT_SIZES.key  # plain key: the BPE vocab sizes compared
MAX_COMPARED = CONTEXT_SIZES.length[1]


def size_choices(settings: Settings, run: TrainingRun) -> list[int]:
    """The vocab sizes on offer: the ladder, the sidebar's vocab and the run's final vocab,
    each as the size the run really reaches, once."""
    wanted = [size for size in LADDER if size > run.initial_vocab_size] + [settings.vocab_size, run.final_vocab_size]
    return sorted({reached_vocab_size(run, size) for size in wanted})


def chosen_sizes(settings: Settings, run: TrainingRun, choices: list[int]) -> list[int]:
    """The sizes compared (session state, reset when the run or its choices change)."""
    state = st.session_state
    keep_with((run_identity(settings), tuple(choices)), [SIZES])
    shown = reached_vocab_size(run, settings.vocab_size)
    state.setdefault(SIZES, sorted({reached_vocab_size(run, DEFAULT_COMPARED), shown}))
    state[SIZES] = [size for size in state[SIZES] if size in choices][:MAX_COMPARED] or [shown]
    return state[SIZES]


# ==================== The page's blocks


def draw_controls(settings: Settings, run: TrainingRun) -> int:
    """The block size and the vocab sizes compared; returns the block size."""
    state = st.session_state
    choices = size_choices(settings, run)  # sizes the run reaches: a chip reads like its row
    chosen_sizes(settings, run, choices)
    BLOCK.setdefault()
    PASSAGE.setdefault()
    left, right = st.columns(2)
    with left:
        BLOCK.draw(st.select_slider, "Block size T (tokens)")
    with right:
        bind(
            st.multiselect,
            "BPE vocab sizes to compare (up to three)",
            SIZES,
            options=choices,
            max_selections=MAX_COMPARED,
            format_func=lambda s: f"{s:,}",
        )
    return state[BLOCK.key]


@dataclass(frozen=True)
class Measured:
    """What the page measured: on which text, with which tokenizers, their coverage."""

    what: str
    text: str
    compared: list[Compared]
    coverages: dict[str, Coverage]
    own: bool  # measured on this session's own text or tokenizer: its chart is kept for it alone


def measure(settings: Settings, run: TrainingRun, block: int) -> Measured:
    """Coverage of ``block`` tokens for characters, the chosen BPE sizes and the pretrained
    tokenizers; one that cannot encode the text is left out with a warning."""
    what, text = measured_text(settings)
    compared, coverages = [], {}
    candidates = [base_level(settings, run)] + [bpe_at(settings, run, s) for s in sorted(st.session_state[SIZES])]
    for c in candidates + extra_tokenizers():
        try:
            coverages[c.label] = measured_coverage(settings, c, block)
            compared.append(c)
        except BpeError as error:  # an uploaded tokenizer whose alphabet lacks characters of this text
            st.warning(f"{escape_markdown(c.label)} is left out: {escape_markdown(str(error))}", icon="⚠️")
    return Measured(what, text, compared, coverages, own=session_owns(settings, *compared))


def nothing_to_measure(found: Measured) -> bool:
    """Say so when there is no text to measure (a run file trained with nothing held out
    keeps no sample) and return True; the page then stops instead of dividing by zero."""
    if found.text:
        return False
    st.info(
        "This run file keeps no text to measure: it keeps only a held-out sample, and this run held "
        "nothing out. Its compression over the whole training text is on the Compression page."
    )
    return True


def draw_coverage(found: Measured, block: int) -> None:
    """The chart and the table of characters per window."""
    compared, coverages = found.compared, found.coverages
    rows = tuple((c.label, c.vocab_size, coverages[c.label]) for c in compared)  # a few numbers: the key
    st.plotly_chart(
        presented_once(
            ("coverage", rows, block, found.what), lambda: coverage_figure(rows, block, found.what), own=found.own
        ),
        key="context_chart",
    )
    show_table(
        [
            {
                "tokenizer": c.label,
                "vocab size": c.vocab_size,
                "mean characters": coverages[c.label].mean,
                f"× {compared[0].label}": coverages[c.label].mean / coverages[compared[0].label].mean,
                # one column for the spread (as the chart's bars show it): seven do not fit 1024 px
                "10th to 90th percentile": f"{coverages[c.label].p10:,.1f} to {coverages[c.label].p90:,.1f}",
                "windows": coverages[c.label].windows,
            }
            for c in compared
        ],
        decimals={"mean characters": 1},
    )
    st.caption(
        f"Measured on {len(found.text):,} characters of {found.what}, cut into non-overlapping windows of "
        f"{block:,} tokens (a text shorter than one window counts as one window)."
    )


def draw_passages(settings: Settings, found: Measured, block: int) -> None:
    """The same passage per tokenizer, its first ``block`` tokens highlighted."""
    for c in found.compared:
        passage = passage_window(settings, c, block)
        st.markdown(
            f"**{escape_markdown(c.label)}**: {passage.window_characters:,} characters in "
            f"{passage.window_tokens:,} tokens"
        )
        st.html(passage.html)


def draw_attention_cost(settings: Settings, found: Measured) -> None:
    """Tokens for a passage of the visitor's length, and attention's cost relative to the first."""
    state = st.session_state
    compared = found.compared
    PASSAGE.draw(st.number_input, "Passage length (characters)", step=500)
    fixed = found.text[: state[PASSAGE.key]]
    needed = {c.label: passage_tokens(settings, c, len(fixed)) for c in compared}
    base_tokens = needed[compared[0].label]
    show_table(
        [
            {
                "tokenizer": c.label,
                "tokens for the passage": needed[c.label],
                "attention cost vs "
                + compared[0].label: f"{relative_attention_cost(needed[c.label], base_tokens):.1%}",
            }
            for c in compared
        ]
    )
    best = min(compared, key=lambda c: needed[c.label])
    st.info(
        escape_markdown(
            "Attention compares every token with every other, so its cost grows with the square of the tokens. "
            f"These {len(fixed):,} characters take {base_tokens:,} tokens as {compared[0].label} and "
            f"{needed[best.label]:,} with {best.label}: attention over them costs "
            f"{relative_attention_cost(needed[best.label], base_tokens):.1%} as much "
            f"({needed[best.label]:,}² vs {base_tokens:,}²)."
        )
    )
