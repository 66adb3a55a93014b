""" "Download WikiText-2" in the sidebar: the command line's downloader, with a progress bar.

It calls the same `bpe.corpora.download.download_wikitext2` as `python -m bpe download
wikitext-2` (same mirrors, SHA-256 check, atomic files, same cache folder), so a download
made here is the one the command line finds, and the reverse. Once the three splits are
in the cache they are listed in the corpus picker and the offer disappears.

Errors are said in plain words: offline, no mirror answers, and the page says how to add
the archive by hand; the server's own paths never reach the screen.
"""

from __future__ import annotations

import streamlit as st

from bpe.corpora.corpus import WIKITEXT_NAMES
from bpe.corpora.download import WIKITEXT2_MIRRORS, WIKITEXT2_SHA256, download_wikitext2
from bpe.corpora.wikitext import ARCHIVE_NAME, CACHE_FOLDER, has_clean_files
from bpe.errors import BpeError
from bpe.paths import CACHE_DIR
from pages._shared.state.settings import CORPUS

DOWNLOAD_DIR = CACHE_DIR  # the command line's default --cache-dir
ARCHIVE_SIZE = "about 4.5 MB"
SOURCE = (
    "Wikipedia articles collected by Merity et al. (2016), Salesforce Research; CC BY-SA 3.0. "
    "From research.metamind.io (Amazon S3), checked against its published SHA-256."
)
ERROR = "wikitext_error"  # plain key: why the last download failed
BAR_STEPS = 50  # progress updates sent to the browser


def draw_download() -> None:
    """An expander offering the download, unless WikiText-2 is already in the cache."""
    if has_clean_files(DOWNLOAD_DIR / CACHE_FOLDER):
        return
    state = st.session_state
    with st.expander(f"Download WikiText-2 ({ARCHIVE_SIZE})"):
        st.caption(SOURCE + " Its train, validation and test splits then appear in the list above.")
        if st.button("Download WikiText-2", key="wikitext_download"):
            state.pop(ERROR, None)
            if _download():
                state[CORPUS] = WIKITEXT_NAMES["train"]
                st.rerun()  # the picker lists the new splits; the train split is selected
        if state.get(ERROR):
            st.error(state[ERROR], icon="⚠️")


def _download() -> bool:
    bar = st.progress(0.0, text="Connecting…")
    shown = [-1]

    def progress(done: int, total: int | None) -> None:
        step = done * BAR_STEPS // total if total else -1
        if step != shown[0]:
            shown[0] = step
            fraction = min(done / total, 1.0) if total else 0.0
            size = f"{done / 1e6:.1f} of {total / 1e6:.1f} MB" if total else f"{done / 1e6:.1f} MB"
            bar.progress(fraction, text=f"Downloading WikiText-2: {size}")

    try:
        download_wikitext2(DOWNLOAD_DIR, mirrors=WIKITEXT2_MIRRORS, sha256=WIKITEXT2_SHA256, progress=progress)
    except BpeError as error:
        st.session_state[ERROR] = failure_message(str(error))
        return False
    finally:
        bar.empty()
    return True


def failure_message(error: str) -> str:
    """The downloader's error in plain words, without the server's paths."""
    if error.startswith("could not download"):
        reasons = [line.strip()[2:] for line in error.splitlines() if line.strip().startswith("- ")]
        said = f" ({reasons[0]})" if len(reasons) == 1 else f" (each of the {len(reasons)} mirrors failed)"
        return (
            f"Could not download WikiText-2: no mirror answered{said}. This machine may be offline. "
            f"Without a network: copy {ARCHIVE_NAME} into the project's data/cache folder and press the "
            "button again (it is checked and unpacked), or run `.venv/bin/python -m bpe download wikitext-2` "
            "on a machine that is online."
        )
    return (
        "Could not store WikiText-2 in the project's data/cache folder (not writable, full, or the archive "
        "there is damaged). Run `.venv/bin/python -m bpe download wikitext-2` in a terminal to see the details."
    )
