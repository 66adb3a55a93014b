"""Two server processes sharing one download cache (issue 25): whichever asks first
downloads, the other waits for it and then finds the files, so the mirror is asked once
and no process ever reads a half-written file. Real processes, real HTTP on loopback."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import textwrap
import threading
import time
from http.server import BaseHTTPRequestHandler

import pytest
from helpers import ROOT, loopback_server
from test_download import ARCHIVE, ARCHIVE_SHA256, SPLIT_TEXTS, files_under

from bpe.corpora.wikitext import ARCHIVE_NAME, CACHE_FOLDER, clean_files
from bpe.gpt2.files import ENCODER_JSON, VOCAB_BPE

GPT2_FILES = {ENCODER_JSON: b'{"!": 0}' * 1000, VOCAB_BPE: b"#version: 0.2\n" * 1000}
BODIES = {f"/{ARCHIVE_NAME}": ARCHIVE, **{f"/gpt-2/{name}": data for name, data in GPT2_FILES.items()}}

CALLS = {
    "wikitext": "from bpe.corpora.download import download_wikitext2 as get; "
    "folder = get(sys.argv[1], mirrors=[sys.argv[2] + '/{archive}'], sha256='{sha}')",
    "gpt2": "from bpe.gpt2.files import download_gpt2_files as get; "
    "folder = get(sys.argv[1], base_url=sys.argv[2] + '/gpt-2', sha256={hashes!r})[0].parent",
}


class HeldHandler(BaseHTTPRequestHandler):
    """Sends each body only once the test lets it go (``server.release``), so a second
    process asks while the first one's transfer is still under way."""

    def do_GET(self) -> None:
        self.server.requests.append(self.path)
        body = BODIES[self.path]
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.server.release.wait(30)
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


def downloader(kind: str, cache, url: str, env: dict) -> subprocess.Popen:
    call = CALLS[kind].format(
        archive=ARCHIVE_NAME,
        sha=ARCHIVE_SHA256,
        hashes={name: hashlib.sha256(data).hexdigest() for name, data in GPT2_FILES.items()},
    )
    script = f"import sys\nprint('asking', flush=True)\n{call}\nprint(folder, flush=True)"
    process = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(script), str(cache), url],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout.readline().strip() == "asking"
    return process


@pytest.mark.parametrize("kind", ["wikitext", "gpt2"])
def test_two_processes_racing_download_once_and_both_get_the_files(tmp_path, monkeypatch, kind):
    cache = tmp_path / "cache"
    with loopback_server(monkeypatch, HeldHandler) as server:
        server.httpd.release = threading.Event()
        env = {**os.environ, "BPE_MACHINE_DIR": str(tmp_path / "machine")}  # with the server's no_proxy
        first = downloader(kind, cache, server.url(), env)
        deadline = time.monotonic() + 20
        while not server.requests and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(server.requests) == 1  # the first is downloading
        second = downloader(kind, cache, server.url(), env)
        time.sleep(0.5)  # time enough for the second to ask too, had it not waited
        asked_meanwhile = len(server.requests)
        server.httpd.release.set()
        outputs = [process.communicate(timeout=60) for process in (first, second)]
    for process, (_out, err) in zip((first, second), outputs):
        assert process.returncode == 0, err
    assert asked_meanwhile == 1
    if kind == "wikitext":
        assert server.requests == [f"/{ARCHIVE_NAME}"]
        folder = cache / CACHE_FOLDER
        assert {path.read_text(encoding="utf-8") for path in clean_files(folder).values()} == set(SPLIT_TEXTS.values())
    else:
        assert server.requests == [f"/gpt-2/{ENCODER_JSON}", f"/gpt-2/{VOCAB_BPE}"]
        folder = cache / "gpt2"
        assert {name: (folder / name).read_bytes() for name in GPT2_FILES} == GPT2_FILES
    assert outputs[0][0].strip() == outputs[1][0].strip() == str(folder)
    assert not [name for name in files_under(cache) if name.endswith((".part", ".tmp", ".lock"))]
