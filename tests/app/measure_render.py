"""How long the pages take to answer once the run is cached: a measurement, not a test.

    .venv/bin/python tests/app/measure_render.py

First the home page with the default settings (tinyshakespeare, vocab 1,000) in a warm
server process: modules imported, caches emptied, so its time includes training; then
the same page again for a new session once the run is cached. Then it reruns each page with AppTest (the whole script: sidebar, cached run, drawing) on the
Python language reference (500,000-character cap, 10% held out) and prints the median
and worst of several reruns. The merge page is measured on "Step forward" at vocab 1,000;
the analysis pages at vocab 2,000. Timed assertions do not belong in tests: the machine's
speed drifts, so the figures are printed for people to read.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # app_helpers
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # bpe, pages

from app_helpers import new_app  # noqa: E402

CORPUS = "Python language reference"
REPEATS = 7


def timed_reruns(at, before_each=lambda at: None) -> list[float]:
    seconds = []
    for _ in range(REPEATS):
        before_each(at)
        started = time.perf_counter()
        at.run()
        seconds.append(time.perf_counter() - started)
    return seconds


def report(name: str, seconds: list[float]) -> None:
    print(f"{name:<40} median {statistics.median(seconds) * 1000:6.0f} ms   worst {max(seconds) * 1000:6.0f} ms")


def first_page_seconds() -> tuple[float, float]:
    """The home page with default settings: (training included, run already cached)."""
    import streamlit as st

    new_app("app.py", settings_corpus="aaabdaaabac", settings_vocab=10)  # warm: imports done
    st.cache_data.clear()
    st.cache_resource.clear()
    started = time.perf_counter()
    new_app("app.py")
    trained = time.perf_counter() - started
    started = time.perf_counter()
    new_app("app.py")
    return trained, time.perf_counter() - started


def main() -> None:
    trained, cached = first_page_seconds()
    print(
        f"home page, default corpus, warm process: {trained:.2f} s with training, {cached:.2f} s "
        "for a new session once the run is cached"
    )
    at = new_app("pages/1_Merge_by_merge.py")
    report(
        "Merge by merge: step (default corpus)", timed_reruns(at, lambda at: at.button(key="merges_forward").click())
    )
    started = time.perf_counter()
    at = new_app("pages/1_Merge_by_merge.py", settings_corpus=CORPUS, settings_vocab=1000)
    print(f"first run, training included: {time.perf_counter() - started:.2f} s")
    report("Merge by merge: step", timed_reruns(at, lambda at: at.button(key="merges_forward").click()))
    for page in ("2_Tokenize", "3_Compression", "4_Context_window", "5_Vocabulary"):
        at = new_app(f"pages/{page}.py", settings_corpus=CORPUS, settings_vocab=2000, settings_train_up_to=2000)
        report(page.split("_", 1)[1].replace("_", " ") + " (vocab 2,000)", timed_reruns(at))


if __name__ == "__main__":
    main()
