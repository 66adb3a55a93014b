"""Compare runs' homework check: a student uploads the merges their own code learned on the
current text (CS336's merges.txt + vocab.json, a minbpe .model or a Hugging Face
tokenizer.json); the page shows, for BPE Lab's run under each tie rule and under the cs336
preset, the first merge where theirs part, and why (`bpe.analysis.homework`). The files
are read once, by the bounded readers, when they are uploaded; the parsed merges are the
session's (one upload at a time)."""

from __future__ import annotations

import hashlib

import pandas as pd
import streamlit as st

from bpe.analysis.homework import HOMEWORK_MAX_MERGES, STOPPED, TIE, UNSEEN, closest, read_homework, uploaded_name
from bpe.errors import BpeError
from bpe.storage import UPLOAD_MAX_BYTES, UPLOAD_MAX_MERGES
from bpe.text import pair_label
from bpe.wording import counted
from pages._shared.data.comparisons import homework_partings
from pages._shared.frame.sidebar import upload_limit_bytes
from pages._shared.frame.tables import grid_table
from pages._shared.render.html import escape_markdown
from pages._shared.state.settings import Settings, Trained

HOMEWORK = "compare_homework"  # plain key: (digest, StudentMerges) of the last upload read, or an error (str)
FILES = "compare_homework_files"  # the uploader's own key
KINDS = {
    TIE: "a tie broken the other way",
    "counts": "a count that differs",
    UNSEEN: "a pair never seen",
    STOPPED: "a stop",
}


def draw_homework_check(settings: Settings) -> None:
    """The uploader, then the check of what it holds against this text's runs."""
    st.subheader("Check your own BPE")
    st.markdown(
        "Trained BPE on this text with your own code? Upload what it learned: CS336's **merges.txt** (with its "
        "**vocab.json**, GPT-2's byte spelling), a minbpe **.model** or a Hugging Face **tokenizer.json**. BPE Lab "
        "trains this text under each tie rule and under the CS336 preset and shows the first merge where yours "
        "parts from each, and why. Files are read as text and bounded; a pickle is never opened."
    )
    st.file_uploader(
        "Your merges (one file, or merges.txt and vocab.json)",
        accept_multiple_files=True,
        key=FILES,
        on_change=_read_upload,
        help=f"The first {HOMEWORK_MAX_MERGES:,} merges are compared.",
    )
    read = st.session_state.get(HOMEWORK)
    if read is None:
        return
    if isinstance(read, str):
        st.error(escape_markdown(read), icon="⚠️")
        return
    digest, student = read
    st.caption(
        f"{escape_markdown(student.name)}: {student.source}, {counted(len(student.merges), 'merge')}"
        + (f" (the first {student.compared:,} compared)" if student.compared < len(student.merges) else "")
        + (f", special tokens {escape_markdown(', '.join(student.special_tokens))}" if student.special_tokens else "")
        + "."
    )
    if not isinstance(settings, Trained):
        st.info(
            "This corpus is a recorded run: pick a text in the sidebar to train it here and check your merges on it."
        )
        return
    try:
        partings = homework_partings(settings, student, digest)
    except BpeError as error:
        st.error(f"Cannot train the runs to check against: {escape_markdown(str(error))}", icon="⚠️")
        return
    _draw_partings(partings)


def _draw_partings(partings) -> None:
    """The run that agrees longest (all of it: said so), Stanford CS336's preset where it
    differs (the course students check against), then every run in a table."""
    best = closest(partings)
    if best.step is None:
        st.success(
            f"Your merges are BPE Lab's under **{escape_markdown(best.label)}**: all {best.compared:,} of them, in order."
        )
    else:
        st.markdown(
            f"**Closest: {escape_markdown(best.label)}**, the same for {counted(best.agreed, 'merge')}. "
            f"{escape_markdown(best.explanation)}"
        )
    cs336 = partings[-1]  # (the preset's run comes last: `homework_runs`)
    if cs336 is not best and cs336.step is not None:
        st.markdown(
            f"**Against Stanford CS336 (the preset)**: the same for {counted(cs336.agreed, 'merge')}. "
            f"{escape_markdown(cs336.explanation)}"
        )
    rows = [
        {
            "BPE Lab's run": parting.label,
            "why": "the same" if parting.kind is None else KINDS[parting.kind],
            "first difference": "—" if parting.step is None else f"merge {parting.step:,}",
            "yours": "" if parting.theirs is None else pair_label(parting.theirs),
            "BPE Lab's": "" if parting.ours is None else pair_label(parting.ours),
            "same merges": parting.agreed,
        }
        for parting in partings
    ]
    grid_table(pd.DataFrame(rows), counts=("same merges",), key="compare_homework_table")
    with st.expander("Why, for each run"):
        for parting in partings:
            if parting.step is not None:
                st.markdown(f"**{escape_markdown(parting.label)}**: {escape_markdown(parting.explanation)}")


def _read_upload() -> None:
    """Read the uploaded files once, on upload: the merges, or why not (one line)."""
    state = st.session_state
    uploads = state.get(FILES) or []
    if not uploads:
        state.pop(HOMEWORK, None)
        return
    files = {uploaded_name(upload.name): upload.getvalue() for upload in uploads}
    limit = min(upload_limit_bytes(), UPLOAD_MAX_BYTES)  # what a tokenizer upload may be
    try:
        student = read_homework(files, max_bytes=limit, max_merges=UPLOAD_MAX_MERGES)
    except BpeError as error:
        state[HOMEWORK] = str(error)
        return
    digest = hashlib.sha256(b"".join(name.encode() + b"\0" + raw for name, raw in sorted(files.items()))).hexdigest()
    state[HOMEWORK] = (digest[:20], student)
