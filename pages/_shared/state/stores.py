"""This session's bounded stores: its own texts, and the runs and curves it has seen.

A class shares one server, so nothing a session keeps grows without bound: each store is a
dict under one session-state key, most recent last, cut to its limit by `remember` (the
one place that does it). The sidebar says so for texts, which are the large ones.
"""

from __future__ import annotations

from collections.abc import Hashable

import streamlit as st

from pages._shared.state.settings import CORPUS, Settings, Trained

PASTED = "pasted text"  # the name of the session's pasted text
UPLOADED = "upload: "  # an uploaded file's text is named "upload: notes.txt"
LESSON_TEXT = "lesson: "  # a lesson file's own text, unless it was a pasted or uploaded one
USER_TEXTS = "settings_user_corpora"  # {name: text}: this session's uploads, pasted text, lesson texts
# A session keeps only its last few texts (each up to the upload limit): thirty visitors
# uploading a dozen files each would otherwise hold gigabytes.
MAX_USER_TEXTS = 3
DROPPED_NOTE = "settings_dropped_note"  # which of this session's texts the last one given let go
SEEN_RUNS = "settings_seen_runs"  # {training key: Settings}: runs this session trained or opened
MAX_SEEN_RUNS = 8  # settings only: the runs themselves stay in the process cache
RUN_UPLOADS = "settings_run_uploads"  # {name: (content hash, raw bytes)}: this session's uploaded run files
RUN_UPLOAD_PREFIX = "upload:"  # an uploaded run file's key: "upload:NAME (file.bperun)"
MAX_RUN_UPLOADS = 2  # a run file is up to 64 MB: a session keeps its last two
SEEN_CURVES = "analysis_curves"  # {run label: [CurvePoint]}: curves of runs seen, for overlays
MAX_SEEN_CURVES = 8


def remember(store: str, name: Hashable, value, limit: int) -> list:
    """Keep ``value`` under ``name`` in the session's ``store`` as its most recent entry (a
    value given again counts as new), at most ``limit`` entries; return the names let go."""
    kept = st.session_state.setdefault(store, {})
    kept.pop(name, None)
    kept[name] = value
    dropped = list(kept)[:-limit]
    for old in dropped:
        del kept[old]
    return dropped


def recent(store: str) -> dict:
    """The entries of ``store``, most recent first."""
    return dict(reversed(st.session_state.get(store, {}).items()))


def run_uploads() -> dict[str, tuple[str, bytes]]:
    """This session's uploaded run files by name. Only in session state: never shared."""
    return st.session_state.setdefault(RUN_UPLOADS, {})


def user_texts() -> dict[str, str]:
    """This session's pasted, uploaded and lesson texts by name. Only in session state: never shared."""
    return st.session_state.setdefault(USER_TEXTS, {})


def is_own_text(settings: Settings) -> bool:
    """Is the text ``settings`` train on this session's own (pasted, uploaded, a lesson
    file's, or an uploaded run file's) rather than a shipped corpus or a run file on disk?
    What is computed on it is cached for this session only (`data.cache_scopes`)."""
    if isinstance(settings, Trained):
        return settings.corpus in user_texts()
    return settings.run_file.startswith(RUN_UPLOAD_PREFIX)


def use_user_text(name: str, text: str) -> None:
    """Keep ``text`` as this session's text ``name`` and select it as the corpus; when that
    lets an older text go, leave a note saying which (the sidebar shows it)."""
    state = st.session_state
    dropped = remember(USER_TEXTS, name, text, MAX_USER_TEXTS)
    if dropped:
        names, verb = ", ".join(repr(old) for old in dropped), "was" if len(dropped) == 1 else "were"
        state[DROPPED_NOTE] = (
            f"This session keeps your last {MAX_USER_TEXTS} texts, so {names} {verb} let go; give it again to use it."
        )
    state[CORPUS] = name
