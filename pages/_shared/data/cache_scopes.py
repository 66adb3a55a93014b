"""One cached computation in two scopes: shared by every session, or one session's own.

What is computed on a shipped corpus, a run file on disk or a pretrained tokenizer is
computed once per process and shared by every session: a class opening the same setting
waits for one computation (`tests/app/test_cache_once.py`). What is computed on a
session's own text (pasted, uploaded, a lesson file's, an uploaded run file or tokenizer:
`state.stores.is_own_text`) belongs to that session: it is cached with Streamlit's
``scope="session"``, which empties when the session disconnects; in a shared cache a
closed session's runs and texts would stay, for nobody, until newer entries pushed them
out. A dropped connection that comes back keeps its current run, which session state
holds (`runs.RUN_MEMO`), and computes the rest again.

A session works on one own text at a time, so its own caches hold the values of one text:
when its corpus becomes another own text (a new upload, paste, lesson file or run file, or
another of its kept texts picked in the sidebar), `hold_values_of` drops every value the
session cached of its own, its finished runs on its own texts included, before anything
of the new text is computed, so a class where every student brings a new text each
round does not grow by a text's values a round until each function's bound
(`SESSION_MAX_ENTRIES`) is full. Going back to an earlier own text computes its values
again; a shipped corpus in between keeps them.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable

import streamlit as st

# How many values of each function one session keeps of its own: a session works on one text
# at a time, and a cap sized for a whole class's settings (up to 64), held once per session,
# would let a class's memory grow with every student's text and every setting they try. A
# function one page asks for more values in one run says how many (``session_entries=``):
# with fewer, the values pushed out during the run are the first the next run asks for, and
# every run of that page would compute them all again.
SESSION_MAX_ENTRIES = 4
OWN_TEXT_HELD = "owned_text_held"  # (name, content version): the own text this session's own caches hold values of

# Every cache kept per session, by its function's name: each `ByOwner`'s session half and
# each cache of what is always a session's own. What `drop_own_values` empties.
SESSION_CACHES: dict[str, Callable] = {}


def _per_session(cache, function: Callable, params: dict, entries: int) -> Callable:
    """``function`` cached for each session alone (at most ``entries`` values, fewer when
    ``params`` ask for fewer), and listed in `SESSION_CACHES`."""
    kept = min(params.get("max_entries") or entries, entries)
    cached = cache(scope="session", **{**params, "max_entries": kept})(function)
    SESSION_CACHES[f"{function.__module__}.{function.__qualname__}"] = cached
    return cached


class ByOwner:
    """A function cached twice, process-wide and per session; each call says which with
    ``own=`` (True: the value is computed on this session's own text). The session's cache
    keeps at most ``entries`` values (fewer when the shared one keeps fewer), of the own text
    it works on (`hold_values_of`)."""

    def __init__(self, function: Callable, cache, params: dict, entries: int) -> None:
        self.shared = cache(**params)(function)
        self.per_session = _per_session(cache, function, params, entries)
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


def cache_data_by_owner(*, session_entries: int = SESSION_MAX_ENTRIES, **params) -> Callable[[Callable], ByOwner]:
    """`st.cache_data` (with ``params``) in both scopes, ``session_entries`` values a session
    (`SESSION_MAX_ENTRIES` unless a page asks more in one run): see `ByOwner`."""
    return lambda function: ByOwner(function, st.cache_data, params, session_entries)


def cache_resource_by_owner(*, session_entries: int = SESSION_MAX_ENTRIES, **params) -> Callable[[Callable], ByOwner]:
    """`st.cache_resource` (with ``params``) in both scopes, ``session_entries`` values a
    session (`SESSION_MAX_ENTRIES` unless a page asks more in one run): see `ByOwner`."""
    return lambda function: ByOwner(function, st.cache_resource, params, session_entries)


def cache_data_per_session(**params) -> Callable[[Callable], Callable]:
    """`st.cache_data` (with ``params``) for each session alone, for what is always a
    session's own (computed with its uploaded tokenizer): bounded and dropped as a
    `ByOwner`'s session half is."""
    return lambda function: _per_session(st.cache_data, function, params, SESSION_MAX_ENTRIES)


def cache_resource_per_session(**params) -> Callable[[Callable], Callable]:
    """`st.cache_resource` (with ``params``) for each session alone, for what is always a
    session's own (an uploaded run file, parsed): bounded and dropped as a `ByOwner`'s
    session half is."""
    return lambda function: _per_session(st.cache_resource, function, params, SESSION_MAX_ENTRIES)


def hold_values_of(text: tuple[str, str], *, own: bool) -> None:
    """Keep this session's own caches for ``text`` (a corpus's name and content version)
    when it is the session's ``own``: if they hold the values of another own text, drop them
    first (`drop_own_values`). Called where the sidebar has resolved the run's corpus, before
    anything is computed on it, so no value of the text a run works on is dropped during
    that run. A shipped corpus changes nothing: the last own text's values stay for the way
    back to it."""
    if not own:
        return
    state = st.session_state
    if state.get(OWN_TEXT_HELD, text) != text:
        drop_own_values()
    state[OWN_TEXT_HELD] = text


def drop_own_values() -> None:
    """Empty every cache this session keeps of its own (`SESSION_CACHES`): its values on its
    own texts and tokenizers, and its registry of finished runs on its own texts
    (`runs.shared_trainings`; a training under way goes on for the session waiting on it).
    Other sessions' caches and the shared ones are untouched."""
    for cached in SESSION_CACHES.values():
        cached.clear()  # a session-scoped cache clears the calling session's values only
