"""Vocabulary's "Merges vs ranks": what each file format of another library holds (Hugging
Face's pairs, minbpe's merge ids, tiktoken's ranks alone), what that changes for this
run's tokenizer (checked on every token's text and the held-out text, cached per
fingerprint: `data.comparisons.format_findings`), and two small tokenizers where the
formats part. Every token is drawn through `render.html.splits_html` or `escape_markdown`,
so it shows as the text it is.
"""

from __future__ import annotations

import streamlit as st

from bpe.analysis.segments import Segment
from bpe.formats import (
    FORMATS,
    LIBRARY,
    MergesVsRanks,
)
from bpe.text import printable
from bpe.tokenizer import BPETokenizer
from pages._shared.data.comparisons import format_findings, shared_demonstrations
from pages._shared.data.measures import measured_text
from pages._shared.data.tokenizers import session_owns
from pages._shared.render.html import escape_markdown, splits_html
from pages._shared.state.settings import Settings

HF, TIKTOKEN, MINBPE = FORMATS
HOLDS = {
    HF: "its merges as pairs, in order",
    TIKTOKEN: "one rank per token, no pairs",
    MINBPE: "its merges, each making a new id",
}


EXAMPLES_SHOWN = 3


def draw_merges_vs_ranks(settings: Settings, tokenizer: BPETokenizer) -> None:
    """The lesson: what each format holds, what that changes for this tokenizer (checked on
    every token's text and the held-out text), and two small tokenizers where it shows."""
    st.subheader("Merges vs ranks")
    st.markdown(
        "BPE Lab keeps an ordered list of **merges** and replays them in the order they were learned. "
        "Hugging Face keeps the pairs too, but merges whichever listed pair is lowest whenever it forms; "
        "minbpe gives every merge a new id; tiktoken keeps only **ranks**: it joins any two neighbours "
        "whose concatenation is a token. Most tokenizers encode the same in all four, but not every one."
    )
    what, sample = measured_text(settings)
    own = session_owns(settings)  # the run's tokenizer, on its text
    found = format_findings(
        tokenizer.fingerprint(), settings.corpus_key(), _tokenizer=tokenizer, _sample=sample, own=own
    )
    for fmt in FORMATS:
        lesson = found[fmt]
        st.markdown(
            f"**{LIBRARY[fmt]}** ({HOLDS[fmt]}): "
            + escape_markdown(lesson if isinstance(lesson, str) else _summary(lesson, what))
        )
        if not isinstance(lesson, MergesVsRanks):
            continue
        shown = lesson.examples[:EXAMPLES_SHOWN]
        for line in lesson.lines(limit=EXAMPLES_SHOWN, show=_shown)[1:]:  # re-created tokens, other splits
            if line.strip() not in {example.line(_shown) for example in shown}:
                st.caption(escape_markdown(line.strip()))
        for example in shown:
            _draw_splits(
                [example.text],
                {
                    "BPE Lab": [list(zip(example.ours_tokens, example.ours))],
                    LIBRARY[fmt]: [list(zip(example.theirs_tokens, example.theirs))],
                },
            )
    st.markdown("**Where they part: two tokenizers of a few merges** (byte alphabet, no pre-tokenizer)")
    for demo in shared_demonstrations():
        ids = demo.token_ids()
        merges = ", ".join(f"{n}: {_shown(a)} + {_shown(b)}" for n, (a, b) in enumerate(demo.merges, 1))
        with st.container(border=True):
            st.markdown(f"**{escape_markdown(demo.title)}**. Merges {escape_markdown(merges)}")
            _draw_splits(
                demo.texts,
                {
                    who: [[(t, ids[t]) for t in found_tokens[text]] for text in demo.texts]
                    for who, found_tokens in demo.results.items()
                },
            )
            for line in demo.explanation:
                st.caption(escape_markdown(line))


def _summary(lesson: MergesVsRanks, what: str) -> str:
    if lesson.exact:
        return "exact: no merge re-creates a token, so it gives the lab's ids on every text."
    return lesson.summary().split(": ", 1)[1].replace("of the sample", f"of the {what}")


def _draw_splits(texts, splits: dict) -> None:
    """A row per library (its name, then its tokens of each text, coloured by id), a column
    per text, in one element."""
    st.html(
        splits_html(
            [f"Text {_shown(text)}" for text in texts],
            {
                who: [[Segment(token, token_id) for token, token_id in tokens] for tokens in cuts]
                for who, cuts in splits.items()
            },
        )
    )


def _shown(token, limit: int = 60) -> str:
    """A token or text in quotes, its whitespace visible (a space is ·), cut after ``limit``
    characters: how the other pages spell tokens."""
    text = printable(token)
    return "'" + (text if len(text) <= limit else text[:limit] + "…") + "'"
