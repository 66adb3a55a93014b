"""The link: what a page's address carries, read once and written back.

One reader (`read_link_once`), on a session's first run, takes from the address every
value it can carry: the corpus (when it is listed here), each sidebar setting, the
screen's view and the page's own controls (all declared in `state.controls`, checked there), and the text hash a
lesson link names. A value it cannot use is named and ignored; so is a value outside what
the widget allows. Everything wrong with a link, or with a lesson file opened later, goes
into one list of notes (`add_note`), which `frame.page.setup_page` shows under the title,
once (`link_notes`). `mirror_in_url` writes the whole frame back on every run, as the
lesson link carries it, and `mirror_controls` a page's controls on a fragment's rerun.
"""

from __future__ import annotations

import streamlit as st

from bpe.corpora.corpus import list_corpora
from bpe.scale.run_listing import labelled_runs
from pages._shared.state.controls import (
    PAGE_CONTROLS,
    VIEW_CONTROLS,
    Control,
    OutOfRange,
    current_values,
    from_link,
    link_fields,
    page_fields,
    setting_fields,
    to_link,
)
from pages._shared.state.settings import CORPUS, TRAIN_UP_TO, VOCAB

HASH_PARAM = "text_hash"
LINK_READ = "link_read"  # plain key: the address is read once per session, on its first run
LINK_NOTES = "link_notes"  # plain key: what was wrong with the link or a lesson file, shown once
LINKED = "link_set"  # plain key: {key: (whose, value)} this run's link or lesson file set, for `said_if_moved`
EXPECT = "lesson_expect"  # plain key: {"corpus", "hash", "shown"}: the text a lesson was made on


def read_link_once(page: str) -> None:
    """On a session's first run, take every value the address carries for ``page``."""
    state = st.session_state
    if state.get(LINK_READ):
        return
    state[LINK_READ] = True
    params = st.query_params
    if "corpus" in params:
        name = params["corpus"]
        if name in {info.name for info in list_corpora()} | labelled_runs().keys():
            state[CORPUS] = name
        else:
            add_note(f"The link's corpus {name!r} is not available here; showing the default instead.")
    values = {}
    for field in link_fields(page):
        if field.param == "corpus" or field.param not in params:
            continue
        try:
            values[field] = from_link(field, params[field.param])
        except OutOfRange as out:  # as a widget would: the nearest value allowed, and said so
            values[field] = out.nearest
            add_note(f"The link's {out}; showing {out.nearest:,}.")
        except ValueError as error:
            add_note(f"The link's {error}; ignored.")
    set_values(values, "link")
    if VOCAB in state.get(LINKED, {}):  # training goes at least as far as the vocab shown
        state[TRAIN_UP_TO] = max(int(state.get(TRAIN_UP_TO, 0)), state[VOCAB])
    if HASH_PARAM in params and "corpus" in params:
        state[EXPECT] = {"corpus": params["corpus"], "hash": params[HASH_PARAM], "shown": None}


def set_values(values: dict[Control, object], whose: str) -> None:
    """Put checked values into session state, remembering for this run who set them (a
    "link" or a "lesson"), so a value the sidebar must move is said (`said_if_moved`)."""
    state = st.session_state
    linked = state.setdefault(LINKED, {})
    for field, value in values.items():
        state[field.key] = value
        linked[field.key] = (whose, field.param, value)


def said_if_moved(key: str, low: int, high: int) -> bool:
    """When this run's link or lesson set ``key`` outside ``low``..``high`` (what the sidebar
    allows for this corpus: a vocab below its alphabet, or above its top), say in a note
    that it is shown within them. True when a link or lesson set ``key`` in this run (it is
    then theirs to speak of, moved or not)."""
    whose, param, asked = st.session_state.get(LINKED, {}).pop(key, (None, None, None))
    if whose is not None and not low <= asked <= high:
        shown = min(max(asked, low), high)
        add_note(
            f"The {whose}'s {param}={asked:,} is outside what this corpus allows ({low:,} to {high:,}); showing {shown:,}."
        )
    return whose is not None


def add_note(note: str) -> None:
    """One line on what was wrong with the link or a lesson file (plain text)."""
    st.session_state.setdefault(LINK_NOTES, []).append(note)


def link_notes() -> list[str]:
    """What was wrong with the link or the lesson file, once; this run's record of what they
    set is done with too."""
    st.session_state.pop(LINKED, None)
    return st.session_state.pop(LINK_NOTES, [])


def mirror_in_url(page: str, *, corpus: str | None, text_hash: str | None) -> None:
    """Write the frame to the address bar, as "Copy link to this frame" writes it: every
    sidebar setting, the page's controls, and the corpus with the hash of its text (only
    for a listed corpus: an upload stays private); and the screen's view where it is on, so a
    reload keeps presenter mode and the sidebar hidden. Copying the address bar then gives
    the same frame as the projector's link. Called on every run, so the address follows each
    change."""
    wanted = {field.param: to_link(value) for field, value in current_values(setting_fields()).items()}
    wanted.pop("corpus", None)
    if corpus is not None:
        wanted["corpus"] = corpus
        if text_hash:
            wanted[HASH_PARAM] = text_hash
    wanted.update(_control_params(page))
    wanted.update(view_params())
    _write(wanted, _linked_params())


def mirror_controls(page: str) -> None:
    """Write the page's controls to the address bar (a fragment rerun: the step, the phase)."""
    controls = {field.param for field in page_fields(page)}
    _write(_control_params(page), controls)


def view_params() -> dict[str, str]:
    """The screen's view as link parameters: only what is on (``presenter=1``), so an address
    without them shows the pages at their normal size, with the sidebar."""
    return {field.param: to_link(True) for field, value in current_values(VIEW_CONTROLS).items() if value}


def _control_params(page: str) -> dict[str, str]:
    return {field.param: to_link(value) for field, value in current_values(page_fields(page)).items()}


def _linked_params() -> set[str]:
    """Every parameter the app writes: settings, corpus, text hash, the view, every page's controls."""
    owned = {field.param for field in setting_fields() + list(VIEW_CONTROLS)} | {"corpus", HASH_PARAM}
    for fields in PAGE_CONTROLS.values():
        owned |= {field.param for field in fields}
    return owned


def _write(wanted: dict[str, str], owned: set[str]) -> None:
    """Set ``wanted`` in the URL and drop the other ``owned`` parameters; only what changed
    is written, which keeps the browser's history quiet."""
    params = st.query_params
    for name in [name for name in params if name in owned and name not in wanted]:
        del params[name]
    changed = {name: value for name, value in wanted.items() if params.get(name) != value}
    if changed:
        params.update(changed)
