"""Vocabulary's junk tokens: what training made on the way to longer tokens and left in the
vocabulary (`bpe.analysis.junk`: F₁, F₂, the residue ratio, IoS), for the run, and for GPT-2,
GPT-4 or an upload on a text chosen here."""

from __future__ import annotations

import streamlit as st

from bpe.analysis.junk import RESIDUE_BELOW, JunkToken, residue_share, run_junk, text_junk
from bpe.analysis.report_card import shipped_texts
from bpe.errors import BpeError
from bpe.run import TrainingRun
from bpe.text import printable
from pages._shared.data.cache_scopes import cache_resource_by_owner
from pages._shared.data.tokenizers import Compared, session_owns
from pages._shared.frame.presenter import presenting
from pages._shared.frame.tables import arrow_rows, grid_table
from pages._shared.render.html import escape_markdown, residue_chips_html
from pages._shared.state.controls import JUNK_TEXT
from pages._shared.state.settings import Settings, bind
from pages._shared.state.stores import is_own_text

PICKY_THRESHOLD = 0.9  # the IoS at which Picky BPE removes a token (its paper's default)
JUNK_COLUMNS = ("id", "token", "step", "F₁ used", "F₂ absorbed", "residue ratio", "IoS", "residue")
WHAT = (
    "BPE keeps every token it makes, also those it made only to merge again: a token that almost only lives "
    "inside bigger ones is a **residue**. F₁ counts a token in the final tokenization of the text, F₂ the "
    "times a later merge took it as a part; the residue ratio F₁ ÷ (F₁ + F₂) (LiteToken's) is near 0 for a "
    f"residue (below {RESIDUE_BELOW:g} here). IoS (Picky BPE's) is the pair's count ÷ the token's own count "
    "at a merge that takes it: 1 when every occurrence went into the merge."
)


@cache_resource_by_owner(show_spinner=False, max_entries=16)
def _run_rows(training_key: tuple, merges: int, _run: TrainingRun) -> list[JunkToken]:
    return run_junk(_run, merges)


@cache_resource_by_owner(show_spinner="Unfolding every token of the text into its merges…", max_entries=8)
def _text_rows(tokenizer_key: tuple, text_key: tuple, _tokenizer, _text: str) -> list[JunkToken] | str:
    try:
        return text_junk(_tokenizer, _text)
    except BpeError as error:  # a character tokenizer that cannot encode the text
        return str(error)


def junk_rows(rows: list[JunkToken]) -> list[dict]:
    """One row of `JUNK_COLUMNS` per token, residues first, the most absorbed first among equals."""
    ordered = sorted(rows, key=lambda r: (r.residue_ratio is None, r.residue_ratio or 0, -r.absorbed, r.id))
    return [
        {
            "id": r.id,
            "token": printable(r.token),
            "step": r.made_at,
            "F₁ used": r.final,
            "F₂ absorbed": r.absorbed,
            "residue ratio": r.residue_ratio,
            "IoS": r.ios,
            "residue": r.residue,
        }
        for r in ordered
    ]


def draw_junk_metrics(rows: list[JunkToken], what: str) -> None:
    share = residue_share(rows)
    picky = sum(1 for r in rows if r.ios is not None and r.ios >= PICKY_THRESHOLD)
    columns = st.columns(2) + st.columns(1) if presenting() else st.columns(3)
    columns[0].metric("Residues", f"{sum(r.residue for r in rows):,}", help=f"residue ratio below {RESIDUE_BELOW:g}")
    columns[1].metric(
        "Residue share", "—" if share is None else f"{share:.1%}", help=f"of the {what} that occur in the text"
    )
    columns[2].metric(
        f"IoS ≥ {PICKY_THRESHOLD:g}",
        f"{picky:,}",
        help="tokens Picky BPE would have removed at the merge that took them",
    )


def draw_junk(settings: Settings, run: TrainingRun, merges: int) -> None:
    """The run's junk tokens: counts, the residues coloured, every learned token's flows."""
    st.markdown("**Junk tokens: made on the way, left behind**")
    st.markdown(WHAT)
    rows = _run_rows(settings.training_key(), merges, _run=run, own=is_own_text(settings))
    draw_junk_metrics(rows, "learned tokens")
    st.html(residue_chips_html(rows))
    grid_table(
        arrow_rows(junk_rows(rows), columns=JUNK_COLUMNS),
        key="vocab_junk",
        counts=("id", "step", "F₁ used", "F₂ absorbed"),
        columns={
            "residue ratio": st.column_config.ProgressColumn(
                "residue ratio", min_value=0.0, max_value=1.0, format="%.3f"
            ),
            "IoS": st.column_config.ProgressColumn("IoS", min_value=0.0, max_value=1.0, format="%.3f"),
        },
    )
    st.caption(
        "Counted from the run's record (how many times each merge merged), so a replayed run needs no text. "
        "Chips: the residues, the most absorbed first, deeper red the lower the ratio; hover for F₁, F₂ and IoS."
    )


def junk_texts(train: str, heldout: str) -> dict[str, str]:
    """The texts another tokenizer's junk is counted on: this corpus's parts, the report card's."""
    found = {"the corpus's training part": train, "the corpus's held-out part": heldout}
    found.update((text.name, text.text) for text in shipped_texts())
    return {name: text for name, text in found.items() if text}


def draw_other_junk(settings: Settings, chosen: Compared, train: str, heldout: str) -> None:
    """The same flows for ``chosen`` (GPT-2, GPT-4, an upload) on a text picked here."""
    texts = junk_texts(train, heldout)
    state = st.session_state
    if state.get(JUNK_TEXT.key) not in texts:
        state[JUNK_TEXT.key] = next(iter(texts))
    bind(st.selectbox, f"Junk tokens of {chosen.label} in", JUNK_TEXT.key, options=list(texts))
    name = state[JUNK_TEXT.key]
    found = _text_rows(
        chosen.key,
        (settings.corpus_key(), name),
        _tokenizer=chosen.tokenizer,
        _text=texts[name],
        own=session_owns(settings, chosen),
    )
    if isinstance(found, str):
        st.info(f"{chosen.label} cannot encode that text: {escape_markdown(found)}")
        return
    draw_junk_metrics(found, "merged tokens")
    st.html(residue_chips_html(found))
    st.caption(
        f"{chosen.label}'s merged tokens that occur in the text, whole or inside a token: each token of the encoding "
        "unfolded into the merges that built it. Its training text is not here, so the counts are this text's."
    )
