"""AppTest: "Download WikiText-2" in the sidebar, end to end against a loopback HTTP server.

The page calls the command line's downloader (`bpe.corpora.download`); the server on
127.0.0.1 serves a small zip laid out like wikitext-2-raw-v1.zip. Nothing leaves the machine.
"""

from __future__ import annotations

import hashlib
import io
import zipfile

import pytest
from app_helpers import SMALL_CORPUS, metric, new_app
from helpers import free_ports, loopback_server

import bpe.corpora.corpus
import pages._shared.frame.wikitext_download as wikitext_download
from bpe.corpora.wikitext import ARCHIVE_NAME, CACHE_FOLDER, RAW_MEMBERS

TRAIN = " \n = Valkyria Chronicles III = \n \n Senjō no Valkyria 3 is a tactical role @-@ playing game .\n" * 40
SPLITS = {
    "train": TRAIN,
    "val": " \n = Homarus gammarus = \n The European lobster .\n",
    "test": " \n = Robert Boulter = \n Robert Boulter is an English actor .\n",
}


def archive() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for split, text in SPLITS.items():
            zf.writestr(f"{CACHE_FOLDER}/{RAW_MEMBERS[split]}", text.encode("utf-8"))
    return buffer.getvalue()


ARCHIVE = archive()


@pytest.fixture
def loopback(monkeypatch):
    with loopback_server(monkeypatch) as server:
        server.serve(f"/{ARCHIVE_NAME}", ARCHIVE)
        yield server


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    """A project data folder of its own: the download goes to <tmp>/cache, and the corpus list reads it."""
    monkeypatch.setattr(bpe.corpora.corpus, "DATA_DIR", tmp_path)
    monkeypatch.setattr(wikitext_download, "DOWNLOAD_DIR", tmp_path / "cache")
    monkeypatch.setattr(wikitext_download, "WIKITEXT2_SHA256", hashlib.sha256(ARCHIVE).hexdigest())
    return tmp_path


def test_download_fills_the_cache_and_selects_the_train_split(loopback, data_dir, monkeypatch):
    url = loopback.url(f"/{ARCHIVE_NAME}")
    monkeypatch.setattr(wikitext_download, "WIKITEXT2_MIRRORS", (url,))
    at = new_app(settings_corpus=SMALL_CORPUS)
    assert [e.label for e in at.sidebar.expander if e.label.startswith("Download WikiText-2")] == [
        "Download WikiText-2 (about 4.5 MB)"
    ]
    assert any("Merity et al. (2016)" in c.value for c in at.sidebar.caption)
    at.sidebar.button(key="wikitext_download").click().run()
    assert not at.exception and not at.error
    assert loopback.requests == [f"/{ARCHIVE_NAME}"]
    assert (data_dir / "cache" / CACHE_FOLDER / "wikitext2_train_clean.txt").read_text(encoding="utf-8") == TRAIN
    assert at.session_state["settings_corpus"] == "WikiText-2 train"
    assert metric(at, "Corpus size (characters)") == f"{len(TRAIN):,}"
    options = at.sidebar.selectbox(key="_w_settings_corpus").options
    assert sum(o.startswith("WikiText-2 ") for o in options) == 3
    assert not any(e.label.startswith("Download WikiText-2") for e in at.sidebar.expander)  # offered once


def test_offline_download_says_so_plainly_and_keeps_the_corpus(data_dir, monkeypatch):
    port = free_ports()  # a loopback port nobody listens on: like a machine offline
    monkeypatch.setattr(wikitext_download, "WIKITEXT2_MIRRORS", (f"http://127.0.0.1:{port}/{ARCHIVE_NAME}",))
    at = new_app(settings_corpus=SMALL_CORPUS)
    at.sidebar.button(key="wikitext_download").click().run()
    assert not at.exception
    shown = at.sidebar.error[0].value
    assert shown.startswith("Could not download WikiText-2: no mirror answered") and "offline" in shown
    assert "copy wikitext-2-raw-v1.zip into the project's data/cache folder" in shown
    assert str(data_dir) not in shown  # no server path on screen
    assert at.session_state["settings_corpus"] == SMALL_CORPUS
    assert not (data_dir / "cache" / CACHE_FOLDER).exists()
