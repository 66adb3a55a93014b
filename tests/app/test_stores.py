"""The session's bounded stores: one helper keeps each to its last few entries."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _script():
    import streamlit as st

    from pages._shared.state.stores import recent, remember

    dropped = [remember("test_store", name, name * 10, 3) for name in ["a", "b", "c", "d", "b", "e"]]
    st.session_state["dropped"] = dropped
    st.session_state["recent"] = list(recent("test_store"))


def test_a_store_keeps_its_last_entries_and_says_which_it_let_go():
    at = AppTest.from_function(_script).run()
    assert not at.exception
    assert at.session_state["dropped"] == [[], [], [], ["a"], [], ["c"]]  # "b" given again counts as new
    assert at.session_state["recent"] == ["e", "b", "d"]  # most recent first
