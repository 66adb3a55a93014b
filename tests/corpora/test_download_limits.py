"""The downloader's limits (issue 15, point 8), against servers on 127.0.0.1: a whole
transfer has a deadline however the server paces it, SIGTERM leaves no partial file, an
archive member is streamed to disk with a size cap, and no device is written over."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from http.server import BaseHTTPRequestHandler

import pytest
from helpers import ROOT, loopback_server
from test_download import ARCHIVE, ARCHIVE_SHA256, files_under, server, sha256, wikitext_zip  # noqa: F401

from bpe.corpora import download
from bpe.corpora.download import download_wikitext2
from bpe.corpora.wikitext import ARCHIVE_NAME, RAW_MEMBERS
from bpe.errors import BpeError, DownloadError
from bpe.io.fetch import fetch_verified


class Trickle(BaseHTTPRequestHandler):
    """Promises the whole archive, then sends one byte every 0.3 s: each read succeeds
    within any per-read timeout, so only an overall deadline ends it."""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", str(len(ARCHIVE)))
        self.end_headers()
        try:
            for byte in ARCHIVE:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(0.3)
        except OSError:
            pass  # the client hung up

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def trickle_url(monkeypatch):
    with loopback_server(monkeypatch, Trickle) as trickle:
        yield trickle.url(f"/{ARCHIVE_NAME}")


def test_a_trickling_server_is_cut_off_at_the_deadline(trickle_url, tmp_path):
    started = time.monotonic()
    with pytest.raises(DownloadError, match=r"did not finish within the deadline of 1\.5 s"):
        download_wikitext2(tmp_path, mirrors=[trickle_url], sha256=ARCHIVE_SHA256, timeout=1, deadline=1.5)
    assert time.monotonic() - started < 6
    assert files_under(tmp_path) == []


def test_sigterm_leaves_no_partial_file(trickle_url, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "no_proxy": "127.0.0.1"}
    command = [
        sys.executable,
        "-m",
        "bpe",
        "download",
        "wikitext-2",
        "--mirror",
        trickle_url,
        "--sha256",
        ARCHIVE_SHA256,
        "--cache-dir",
        str(tmp_path),
    ]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while not any(name.endswith(".part") for name in files_under(tmp_path)):
            assert time.monotonic() < deadline and process.poll() is None, "the download never started"
            time.sleep(0.05)
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=20)
    finally:
        process.kill()
    assert process.returncode == 143, err.decode()
    assert files_under(tmp_path) == []
    assert b"Traceback" not in err and b"no partial file was left" in err


def download_under_way(url: str, cache) -> subprocess.Popen:
    """``python -m bpe download wikitext-2`` from ``url`` into ``cache``, once its .part file is there."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "no_proxy": "127.0.0.1"}
    command = [sys.executable, "-m", "bpe", "download", "wikitext-2", "--mirror", url]
    command += ["--sha256", ARCHIVE_SHA256, "--cache-dir", str(cache)]
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while not any(name.endswith(f"-{process.pid}-") for name in _part_owners(cache)):
        assert time.monotonic() < deadline and process.poll() is None, "the download never started"
        time.sleep(0.05)
    return process


def _part_owners(cache) -> list[str]:
    """The .part files under ``cache``, cut after their pid (``wikitext-2-raw-v1.zip.bpe-host-123-``)."""
    return [name[: name.rindex("-") + 1] for name in files_under(cache) if name.endswith(".part")]


def test_the_next_download_removes_the_part_file_of_a_killed_one_and_only_that(trickle_url, server, tmp_path):
    """SIGKILL skips every clean-up: the .part file stays, named by its dead process, and the
    next download of the same file removes it (a download still running holds the download
    lock, so the next one waits for it instead: `remove_stale_temporaries` spares live pids)."""
    killed = download_under_way(trickle_url, tmp_path)
    killed.send_signal(signal.SIGKILL)
    killed.wait()
    left = [name for name in files_under(tmp_path) if name.endswith(".part")]
    assert len(left) == 1 and left[0].startswith(f"{ARCHIVE_NAME}.bpe-") and f"-{killed.pid}-" in left[0]
    foreign = tmp_path / f"{ARCHIVE_NAME}.mine.part"  # not a name of ours: never touched
    foreign.write_bytes(b"someone else's")
    server.serve(f"/{ARCHIVE_NAME}", ARCHIVE)
    download_wikitext2(tmp_path, mirrors=[server.url(f"/{ARCHIVE_NAME}")], sha256=ARCHIVE_SHA256)
    assert [name for name in files_under(tmp_path) if name.endswith(".part")] == [foreign.name]
    assert (tmp_path / ARCHIVE_NAME).read_bytes() == ARCHIVE


def test_an_archive_member_over_the_cap_is_refused_without_reading_it_whole(server, tmp_path, monkeypatch):
    monkeypatch.setattr(download, "MAX_MEMBER_BYTES", 1_000)
    archive = wikitext_zip(train=b"a" * 5_000)  # compresses to a few bytes: size is only known unpacked
    read_whole = []
    monkeypatch.setattr("zipfile.ZipFile.read", lambda *args, **kw: read_whole.append(args) or b"")
    with pytest.raises(
        DownloadError,
        match=r"wiki\.train\.raw in wikitext-2-raw-v1\.zip unpacks to more than "
        r"1,000 bytes",
    ):
        download_wikitext2(tmp_path, mirrors=[server.serve("/a.zip", archive)], sha256=sha256(archive))
    assert read_whole == []
    assert files_under(tmp_path) == [ARCHIVE_NAME]


def test_a_good_archive_still_unpacks_by_streaming(server, tmp_path):
    folder = download_wikitext2(tmp_path, mirrors=[server.serve("/a.zip", ARCHIVE)], sha256=ARCHIVE_SHA256)
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [*RAW_MEMBERS.values(), "wikitext2_test_clean.txt", "wikitext2_train_clean.txt", "wikitext2_val_clean.txt"]
    )


def test_a_download_never_replaces_a_device(server, tmp_path):
    target = tmp_path / ARCHIVE_NAME
    os.mkfifo(target)  # stands in for a symlink to /dev/null
    with pytest.raises(BpeError, match="not a regular file"):
        fetch_verified([server.serve("/a.zip", ARCHIVE)], target, ARCHIVE_SHA256)
    assert target.is_fifo() and server.requests == []


@pytest.mark.parametrize("limits", [{"timeout": 0}, {"deadline": -1}, {"deadline": float("inf")}])
def test_limits_must_be_positive_seconds(tmp_path, limits):
    with pytest.raises(BpeError, match="must be a number of seconds above 0"):
        fetch_verified(["http://127.0.0.1:9/a.zip"], tmp_path / "a.zip", ARCHIVE_SHA256, **limits)
