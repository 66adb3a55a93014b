"""What the heavy pages rely on when a class opens them at once (issue 25): Streamlit's
caches compute a value once per key even when many sessions ask for it at the same
moment; the others wait for it (Streamlit 1.67 holds a lock per key, since its
"Cache only once" change). Were that to change with a Streamlit upgrade, every student
opening Bytes at once would train the four tokenizers again: this test says so first."""

from __future__ import annotations

import threading
import time

import pytest
import streamlit as st


@pytest.mark.parametrize("decorator", [st.cache_data, st.cache_resource])
def test_concurrent_first_callers_compute_once_and_all_get_the_value(decorator):
    calls = []

    @decorator(show_spinner=False)
    def heavy(key: str) -> list[str]:
        calls.append(key)
        time.sleep(0.5)  # long enough for every caller to arrive while it runs
        return [key, "computed"]

    results = []
    start = threading.Barrier(8)

    def session() -> None:
        start.wait()
        results.append(heavy("the class's setting"))

    threads = [threading.Thread(target=session) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert calls == ["the class's setting"]
    assert results == [["the class's setting", "computed"]] * 8
    heavy("another setting")  # another key is computed apart, once
    assert calls == ["the class's setting", "another setting"]
    heavy.clear()
