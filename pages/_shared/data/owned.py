"""One cached computation in two scopes: shared by every session, or one session's own.

What is computed on a shipped corpus, a run file on disk or a pretrained tokenizer is
computed once per process and shared by every session: a class opening the same setting
waits for one computation (`tests/app/test_cache_once.py`). What is computed on a
session's own text (pasted, uploaded, a lesson file's, an uploaded run file or tokenizer:
`state.stores.is_own_text`) belongs to that session: it is cached with Streamlit's
``scope="session"``, which empties when the session disconnects. In the shared caches a
closed session's runs and texts stayed until newer entries pushed them out, up to each
cache's ``max_entries``, for nobody: no other session holds that text. A dropped
connection that comes back keeps its current run, which session state holds
(`runs.RUN_MEMO`), and computes the rest again.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable

import streamlit as st

# How many values of each function one session keeps of its own: a session works on one text
# at a time, and a cap sized for a whole class's settings (up to 64), held once per session,
# would let a class's memory grow with every student's text and every setting they try.
SESSION_MAX_ENTRIES = 4


class ByOwner:
    """A function cached twice, process-wide and per session; each call says which with
    ``own=`` (True: the value is computed on this session's own text). The session's cache
    keeps at most `SESSION_MAX_ENTRIES` values (fewer when the shared one keeps fewer)."""

    def __init__(self, function: Callable, cache, params: dict) -> None:
        self.shared = cache(**params)(function)
        kept = min(params.get("max_entries") or SESSION_MAX_ENTRIES, SESSION_MAX_ENTRIES)
        self.per_session = cache(scope="session", **{**params, "max_entries": kept})(function)
        self._names = tuple(inspect.signature(function).parameters)
        functools.update_wrapper(self, function)

    def __call__(self, *args, own: bool, **kwargs):
        # Every argument by name: for each positional one, Streamlit's cache reads the
        # function's signature anew to learn its name (inspect.signature, on every call), and
        # a page asks its caches some hundred times a visit. By name the key is the same:
        # each value is hashed with its name, in the function's order either way.
        named = dict(zip(self._names, args))
        named.update(kwargs)
        return (self.per_session if own else self.shared)(**named)


def cache_data_by_owner(**params) -> Callable[[Callable], ByOwner]:
    """`st.cache_data` (with ``params``) in both scopes: see `ByOwner`."""
    return lambda function: ByOwner(function, st.cache_data, params)


def cache_resource_by_owner(**params) -> Callable[[Callable], ByOwner]:
    """`st.cache_resource` (with ``params``) in both scopes: see `ByOwner`."""
    return lambda function: ByOwner(function, st.cache_resource, params)
