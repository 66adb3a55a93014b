"""Tokenize's span diff: 2-4 tokenizers cutting the page's text, rows aligned by character.

The tokenizers offered: this run at a few vocab sizes, its alphabet alone, the other runs
this session trained (Compare runs remembers them), GPT-2, GPT-4 and an uploaded
tokenizer. The choice is kept by label and filtered to what is offered now, so another
corpus or vocab keeps what still exists and puts this run's new sizes and GPT-4 (or GPT-2)
where rows were lost (`kept_rows`); the row of this run at the sidebar's vocab size follows
the sidebar.
"""

from __future__ import annotations

import streamlit as st

from bpe.analysis.encodable import segments_marking_unknown
from bpe.analysis.span_diff import MAX_ROWS, span_diff
from bpe.errors import BpeError
from bpe.run import TrainingRun
from pages._shared.data.measures import run_label
from pages._shared.data.runs import run_at_hand, seen_runs
from pages._shared.data.tokenizers import GPT2_LABEL, GPT4_LABEL, Compared, base_level, bpe_at, extra_tokenizers
from pages._shared.frame.presenter import presenting
from pages._shared.render.html import escape_markdown
from pages._shared.render.span_diff_html import span_diff_html
from pages._shared.state.controls import DIFF_ROWS
from pages._shared.state.settings import Settings, bind

ROWS = DIFF_ROWS.key
FOLLOWED = "tokenize_diff_followed"  # plain key: the label of this run's row at the sidebar's vocab, last drawn
MAX_DIFF_CHARACTERS = 1_500  # hover rules and rows grow with the text; a passage is what a class reads


def diff_choices(settings: Settings, run: TrainingRun) -> dict[str, Compared]:
    """Every tokenizer the span diff offers, by label: the run first."""
    shown = bpe_at(settings, run, settings.vocab_size)
    choices = {f"this run, vocab {shown.vocab_size:,}": shown}
    base, final = run.initial_vocab_size, run.final_vocab_size
    for size in sorted({base + (final - base) // 4, base + (final - base) // 2, final}):
        if size > base and size != shown.vocab_size:
            other = bpe_at(settings, run, size)
            choices.setdefault(f"this run, vocab {other.vocab_size:,}", other)
    alphabet = base_level(settings, run)
    choices[f"this run's {alphabet.label} alone"] = alphabet
    for other in seen_runs():  # those at hand only: a visit never trains a run to offer it
        if other.training_key() == settings.training_key():
            continue
        try:
            other_run = run_at_hand(other)
            if other_run is None:
                continue
            compared = bpe_at(other, other_run, other.vocab_size)
        except BpeError:
            continue
        choices[f"run: {run_label(other)}"] = compared
    for extra in extra_tokenizers():
        choices[extra.label] = extra
    return choices


THIS_RUN = "this run, vocab "  # how the rows of this run's vocab sizes are labelled


def kept_rows(chosen: list[str] | None, labels: list[str], followed: str | None = None) -> list[str]:
    """The rows to show of the tokenizers offered (``labels``, this run's at the sidebar's vocab
    size first): those chosen that are still offered. ``followed`` is what that first label
    was when the rows were last drawn: chosen, it becomes the new first label in its place,
    so the row follows the sidebar (``["this run, vocab 1,000", "GPT-4 (cl100k)"]`` with the
    sidebar moved to 500 is ``["this run, vocab 500", "GPT-4 (cl100k)"]``, though 1,000, the
    run's largest, is still offered). When that leaves fewer than two because the run changed (another
    corpus: its vocab sizes are not this run's), this run's sizes take the lost rows' places,
    beside GPT-4 (or GPT-2); a first visit shows this run, GPT-2 and GPT-4. A row the
    reader took out stays out: ``["this run, vocab 297", "GPT-4 (cl100k)"]``, after a switch to a corpus
    whose run offers 12 and 33, is ``["this run, vocab 12", "GPT-4 (cl100k)"]``."""
    if chosen is None:  # the first visit: this run and the pretrained tokenizers here
        pretrained = [label for label in labels if label in (GPT2_LABEL, GPT4_LABEL)]
        return [labels[0], *(pretrained or labels[1:2])][:MAX_ROWS]
    if followed is not None and followed != labels[0] and followed in chosen:
        chosen = list(dict.fromkeys(labels[0] if label == followed else label for label in chosen))
    kept = [label for label in chosen if label in labels][:MAX_ROWS]
    lost = [label for label in chosen if label not in labels]
    if len(kept) >= 2 or not lost:
        return kept
    sizes = [label for label in labels if label.startswith(THIS_RUN) and label not in kept]
    pretrained = [label for label in (GPT4_LABEL, GPT2_LABEL) if label in labels]
    wanted = max(1, sum(label.startswith(THIS_RUN) for label in lost))
    rows = sizes[:wanted] + kept + pretrained[:1] + labels
    return list(dict.fromkeys(rows))[: max(2, min(len(kept) + len(lost), MAX_ROWS))]


def draw_span_diff(settings: Settings, run: TrainingRun, text: str) -> None:
    ss = st.session_state
    st.subheader("Span diff")
    st.markdown(
        "The same text under several tokenizers, character under character; where they cut differently is ringed."
    )
    choices = diff_choices(settings, run)
    labels = list(choices)
    ss[ROWS] = kept_rows(ss.get(ROWS), labels, ss.get(FOLLOWED))
    ss[FOLLOWED] = labels[0]
    bind(
        st.multiselect,
        "Tokenizers to compare (2 to 4)",
        ROWS,
        options=labels,
        max_selections=MAX_ROWS,
        help="This run at other vocab sizes, other runs of this session, GPT-2, GPT-4 and an uploaded tokenizer.",
    )
    if len(ss[ROWS]) < 2:
        st.info("Choose at least two tokenizers to compare.")
        return
    shown = text[:MAX_DIFF_CHARACTERS]
    if len(text) > MAX_DIFF_CHARACTERS:
        st.caption(f"The span diff shows the first {MAX_DIFF_CHARACTERS:,} characters of the text.")
    rows, notes = {}, []
    for label in ss[ROWS]:
        segments = segments_marking_unknown(choices[label].tokenizer, shown)
        if _spelled(segments) == shown.encode("utf-8"):
            rows[label] = segments
        else:
            notes.append(f"{label} is left out: it changes the text before cutting it (a normalizer or a space added).")
    if len(rows) < 2:
        st.info(escape_markdown(" ".join(notes) or "Choose at least two tokenizers to compare."))
        return
    diff = span_diff(shown, rows)
    fewest, most, spread, stretches = st.columns(4)
    fewest.metric("Fewest tokens", f"{min(diff.counts):,}")
    most.metric("Most tokens", f"{max(diff.counts):,}")
    spread.metric("Spread", f"{diff.spread:.0%}", help="(most tokens − fewest tokens) / fewest tokens")
    stretches.metric("Cut differently", f"{len(diff.regions):,}", help="stretches of the text, ringed")
    st.html(span_diff_html(diff, scope="tokenize-diff", large=presenting()))
    st.caption(
        "Same colour: the same characters as one token. Ringed: a stretch the rows cut differently (a token "
        "whose boundaries not every row shares). Hover a token to mark its characters in every row; a red "
        "tick is a byte token inside a character."
    )
    for note in notes:
        st.caption(escape_markdown(note))


def _spelled(segments) -> bytes:
    return b"".join(s.token if isinstance(s.token, bytes) else s.token.encode("utf-8") for s in segments)
