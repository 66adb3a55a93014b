"""Vocabulary's under-trained tokens: absorbed, rare, unreachable and partial tokens of the
run, sorted views of them, and the same check on GPT-2, GPT-4 and an uploaded tokenizer."""

from __future__ import annotations

import streamlit as st

from bpe.analysis.undertrained import (
    ABSORBED,
    PARTIAL,
    RARE,
    UNREACHABLE,
    TokenHealth,
    flag_counts,
    glitch_tokens,
)
from bpe.run import TrainingRun
from bpe.text import printable
from pages._shared.data.measures import MEASURE_CHARS
from pages._shared.data.runs import corpus_parts
from pages._shared.data.token_health import learned_health, pretrained_health
from pages._shared.data.tokenizers import GPT2_LABEL, Compared, extra_tokenizers, session_owns
from pages._shared.frame.presenter import presenting
from pages._shared.frame.tables import arrow_rows, grid_table
from pages._shared.render.html import escape_markdown
from pages._shared.state.controls import HEALTH_OTHER, HEALTH_SHOW, HEALTH_SORT, RARE_BELOW
from pages._shared.state.per_run import keep_with, run_identity
from pages._shared.state.settings import Replayed, Settings, bind

WHY = (
    "A model learns a token's embedding only from the places the token occurs in its training data. A token "
    "that training made but that the final encoding no longer uses (absorbed: later merges took every "
    "occurrence into longer tokens), uses rarely, or can never produce from its own text (unreachable) keeps "
    "an embedding close to its random start. GPT-2's ` SolidGoldMagikarp` is the famous case: a Reddit user "
    "name, frequent in the text the tokenizer was trained on and missing from the model's, which made GPT-3 "
    "answer nonsense when asked to repeat it (Rumbelow and Watkins, 2023)."
)
SHOW = {
    "every flagged token": None,
    "absorbed": ABSORBED,
    "rare": RARE,
    "unreachable": UNREACHABLE,
    "partial characters": PARTIAL,
    "every learned token": "all",
}
SORTS = {
    "count at creation, highest first": ("count at creation", False),
    "uses in the training text, fewest first": ("uses (training)", True),
    "uses in the held-out text, fewest first": ("uses (held-out)", True),
    "step, earliest first": ("step", True),
}


HEALTH_COLUMNS = (
    "id",
    "token",
    "flags",
    "step",
    "count at creation",
    "uses (training)",
    "uses (held-out)",
    "its own text encodes as",
)


def health_rows(rows: list[TokenHealth]) -> list[dict]:
    """One row of `HEALTH_COLUMNS` per token."""
    return [
        {
            "id": r.id,
            "token": printable(r.token),
            "flags": ", ".join(r.flags),
            "step": r.step,
            "count at creation": r.created_count,
            "uses (training)": r.train_uses,
            "uses (held-out)": r.heldout_uses,
            "its own text encodes as": "" if r.encodes_as is None else " ".join(printable(t) for t in r.encodes_as),
        }
        for r in rows
    ]


def sorted_rows(rows: list[dict], column: str, ascending: bool) -> list[dict]:
    """``rows`` by ``column`` (ties by id), rows without a value (None) last either way."""
    by_id = sorted(rows, key=lambda row: row["id"])
    if ascending:
        return sorted(by_id, key=lambda row: (row[column] is None, row[column] or 0))
    return sorted(by_id, key=lambda row: (row[column] is not None, row[column] or 0), reverse=True)


def draw_undertrained(settings: Settings, run: TrainingRun, tokenizer, merges: int) -> None:
    ss = st.session_state
    st.subheader("Under-trained and unreachable tokens")
    keep_with(run_identity(settings), [HEALTH_SHOW.key, HEALTH_SORT.key])
    RARE_BELOW.setdefault()
    if ss.get(HEALTH_SHOW.key) not in SHOW:  # a link's value that names no view: the first
        ss[HEALTH_SHOW.key] = next(iter(SHOW))
    if ss.get(HEALTH_SORT.key) not in SORTS:
        ss[HEALTH_SORT.key] = next(iter(SORTS))
    rare_below = ss[RARE_BELOW.key]
    st.markdown(escape_markdown(WHY).replace("\\`", "`"))
    train, heldout = corpus_parts(settings)  # a replayed run: no training text, its held-out sample
    rows = learned_health(settings, run, tokenizer, merges, rare_below, own=session_owns(settings))
    counts = flag_counts(rows)
    if presenting():  # large type: three numbers a row, or "Unreachable" breaks inside the word at 1024 px
        m = [*st.columns(3, vertical_alignment="bottom"), *st.columns(3, vertical_alignment="bottom")[:2]]
    else:
        m = st.columns(5, vertical_alignment="bottom")
    m[0].metric("Absorbed", f"{counts[ABSORBED]:,}", help="made by a merge, unused in the final training encoding")
    m[1].metric("Rare", f"{counts[RARE]:,}", help=f"used fewer than {rare_below} times")
    m[2].metric("Unreachable", f"{counts[UNREACHABLE]:,}", help="its own text encodes to other tokens")
    m[3].metric("Partial", f"{counts[PARTIAL]:,}", help="a byte token inside a character: no text of its own")
    with m[4]:
        RARE_BELOW.draw(st.number_input, "Rare: fewer uses than", step=1)
    left, right = st.columns(2)
    with left:
        bind(st.selectbox, "Show", HEALTH_SHOW.key, options=list(SHOW))
    with right:
        bind(st.selectbox, "Sorted by", HEALTH_SORT.key, options=list(SORTS))
    wanted = SHOW[ss[HEALTH_SHOW.key]]
    shown = [r for r in rows if (r.flags if wanted is None else wanted == "all" or wanted in r.flags)]
    column, ascending = SORTS[ss[HEALTH_SORT.key]]
    grid_table(
        arrow_rows(sorted_rows(health_rows(shown), column, ascending), columns=HEALTH_COLUMNS),
        key="vocab_health",
        counts=("id", "step", "count at creation", "uses (training)", "uses (held-out)"),
        presented=("token", "flags", "uses (training)", "uses (held-out)"),  # what fits large type at 1024 px
    )
    st.caption(f"{len(shown):,} of {len(rows):,} learned tokens shown. {uses_measured(settings, run, heldout)}")
    draw_other_tokenizers(settings, train[:MEASURE_CHARS], heldout[:MEASURE_CHARS])


def uses_measured(settings: Settings, run: TrainingRun, heldout: str) -> str:
    """Which texts the uses columns count: a replayed run's training uses come from the
    counts its file records (the whole training text), its held-out uses from the sample
    it keeps, which is all of the held-out text that is here."""
    if not isinstance(settings, Replayed):
        return "Uses: the final encoding of the training text" + (
            " and held-out text." if heldout else " (nothing is held out)."
        )
    training = (
        f"Uses (training): the final encoding of the whole training text ({run.training_characters:,} "
        "characters), from the counts the run file records"
    )
    if not heldout:
        return f"{training}; uses (held-out): not measured, the run file keeps no held-out text."
    return (
        f"{training}; uses (held-out): its held-out sample of {len(heldout):,} characters (of "
        f"{run.heldout_characters:,} held out; the rest is not in the file)."
    )


def draw_other_tokenizers(settings: Settings, train: str, heldout: str) -> None:
    """The same check on GPT-2, GPT-4 and an upload (byte-level or covering this corpus)."""
    others: list[Compared] = extra_tokenizers()
    if not others:
        return
    st.markdown("**The same check on other tokenizers** — their training data is unknown, so only reachability")
    ss = st.session_state
    labels = [c.label for c in others]
    if ss.get(HEALTH_OTHER.key) not in labels:
        ss[HEALTH_OTHER.key] = labels[0]
    bind(st.selectbox, "Tokenizer", HEALTH_OTHER.key, options=labels)
    chosen = others[labels.index(ss[HEALTH_OTHER.key])]
    health = pretrained_health(
        chosen.key,
        settings.corpus_key(),
        _tokenizer=chosen.tokenizer,
        _train=train,
        _heldout=heldout,
        _uploaded=chosen.own,
        own=session_owns(settings, chosen),
    )
    counts, unused, unreachable = health.counts, health.unused, health.unreachable
    where = "the run's sample" if isinstance(settings, Replayed) else "this corpus"  # a run file: its sample only
    a, b, c = st.columns(3)
    a.metric("Their unreachable", f"{counts[UNREACHABLE]:,}", help="tokens whose own text encodes to other tokens")
    b.metric("Their partial", f"{counts[PARTIAL]:,}", help="byte tokens inside a character")
    c.metric(f"Unused on {where}", f"{unused:,}", help=f"of {health.total:,} tokens longer than one symbol")
    if unreachable:
        grid_table(
            arrow_rows(
                {key: row[key] for key in ("id", "token", "its own text encodes as")}
                for row in health_rows(unreachable)
            )
        )
    else:
        st.caption(
            f"Every token of {chosen.label} that is whole text encodes to itself: none is unreachable "
            "(special tokens such as <|endoftext|> are not text and are left out)."
        )
    if chosen.label == GPT2_LABEL:
        _draw_glitch_tokens(settings, chosen, health, train, heldout)


def _draw_glitch_tokens(settings: Settings, gpt2: Compared, health, train: str, heldout: str) -> None:
    """GPT-2's tokens reported as glitches (SolidGoldMagikarp and friends), with their uses
    in this corpus: reachable, yet under-trained."""
    glitches = glitch_tokens(gpt2.tokenizer)
    if not glitches:
        return
    st.markdown("**Suspicious tokens reported in GPT-2** (SolidGoldMagikarp and friends: reachable, under-trained)")
    grid_table(
        arrow_rows(
            {
                "id": token_id,
                "token": printable(text),
                "uses (training)": health.uses(token_id)[0],
                "uses (held-out)": health.uses(token_id)[1],
            }
            for token_id, text in glitches
        ),
        key="vocab_glitches",
        counts=("id", "uses (training)", "uses (held-out)"),
    )
    notes = []  # None in a column is "not measured", never "used 0 times"
    if not train:
        notes.append("Uses (training): not measured, the run file keeps no training text.")
    if not heldout:
        kept = "the run file keeps no held-out text" if isinstance(settings, Replayed) else "nothing is held out"
        notes.append(f"Uses (held-out): not measured, {kept}.")
    if notes:
        st.caption(" ".join(notes))
