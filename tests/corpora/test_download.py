"""The WikiText-2 downloader, over real HTTP to a server on 127.0.0.1 (never the internet).

The server serves a small zip with the real archive's layout; each test says what the
mirrors do (answer, fail with 404/500, cut the transfer, refuse the connection) and
checks what is left in the cache folder afterwards.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import zipfile

import pytest
from helpers import free_ports, loopback_server

from bpe.cli.download import add_download_command, run_download
from bpe.corpora import download
from bpe.corpora.corpus import WIKITEXT_NAMES, list_corpora, load_corpus
from bpe.corpora.download import download_wikitext2
from bpe.corpora.wikitext import ARCHIVE_NAME, CACHE_FOLDER, CLEAN_FILES, RAW_MEMBERS
from bpe.errors import BpeError, DownloadError

SPLIT_TEXTS = {
    "train": " \n = Valkyria Chronicles III = \n \n Senjō no Valkyria 3 is a tactical role @-@ playing game .\n",
    "val": " \n = Homarus gammarus = \n \n The European lobster ( 60 cm ) .\n",
    "test": " \n = Robert Boulter = \n \n Robert Boulter is an English film , television and theatre actor .\n",
}


def make_zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def wikitext_zip(**replace: bytes) -> bytes:
    """A zip laid out like wikitext-2-raw-v1.zip; `replace` swaps one split's bytes."""
    members = {f"{CACHE_FOLDER}/{RAW_MEMBERS[s]}": t.encode("utf-8") for s, t in SPLIT_TEXTS.items()}
    for split, data in replace.items():
        members[f"{CACHE_FOLDER}/{RAW_MEMBERS[split]}"] = data
    return make_zip(members)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


ARCHIVE = wikitext_zip()
ARCHIVE_SHA256 = sha256(ARCHIVE)


# ==================== The loopback server (tests/helpers.py)


@pytest.fixture
def server(monkeypatch):
    with loopback_server(monkeypatch) as loopback:
        yield loopback


def refused_url() -> str:
    """A loopback URL nobody listens on: connecting is refused at once."""
    return f"http://127.0.0.1:{free_ports()}/{ARCHIVE_NAME}"


def files_under(folder) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


# ==================== Success and the cache


def test_download_unpacks_raw_and_clean_files(server, tmp_path):
    url = server.serve("/wikitext-2-raw-v1.zip", ARCHIVE)
    folder = download_wikitext2(tmp_path, mirrors=[url], sha256=ARCHIVE_SHA256)
    assert folder == tmp_path / CACHE_FOLDER
    assert files_under(tmp_path) == sorted(
        [ARCHIVE_NAME]
        + [f"{CACHE_FOLDER}/{name}" for name in RAW_MEMBERS.values()]
        + [f"{CACHE_FOLDER}/{name}" for name in CLEAN_FILES.values()]
    )
    for split, text in SPLIT_TEXTS.items():
        assert (folder / CLEAN_FILES[split]).read_bytes() == text.encode("utf-8")  # clean == raw, exactly
        assert (folder / RAW_MEMBERS[split]).read_bytes() == text.encode("utf-8")
    assert (tmp_path / ARCHIVE_NAME).read_bytes() == ARCHIVE
    assert server.requests == ["/wikitext-2-raw-v1.zip"]


def test_second_call_uses_the_cache_and_makes_no_request(server, tmp_path):
    url = server.serve("/a.zip", ARCHIVE)
    download_wikitext2(tmp_path, mirrors=[url], sha256=ARCHIVE_SHA256)
    seen = len(server.requests)
    assert download_wikitext2(tmp_path, mirrors=[url], sha256=ARCHIVE_SHA256) == tmp_path / CACHE_FOLDER
    assert download_wikitext2(tmp_path, mirrors=[refused_url()]) == tmp_path / CACHE_FOLDER
    assert len(server.requests) == seen


def test_progress_reports_bytes_and_total(server, tmp_path):
    calls = []
    download_wikitext2(
        tmp_path,
        mirrors=[server.serve("/a.zip", ARCHIVE)],
        sha256=ARCHIVE_SHA256,
        progress=lambda done, total: calls.append((done, total)),
    )
    assert calls[0] == (0, len(ARCHIVE)) and calls[-1] == (len(ARCHIVE), len(ARCHIVE))
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)


def test_downloaded_splits_appear_in_the_corpus_registry(server, tmp_path):
    download_wikitext2(tmp_path / "cache", mirrors=[server.serve("/a.zip", ARCHIVE)], sha256=ARCHIVE_SHA256)
    listed = [i.name for i in list_corpora(data_dir=tmp_path, env={}) if i.source == "wikitext-2-cache"]
    assert listed == list(WIKITEXT_NAMES.values())
    assert load_corpus("WikiText-2 train", data_dir=tmp_path, env={}) == SPLIT_TEXTS["train"]


def test_archive_put_in_the_cache_by_hand_is_used_offline(server, tmp_path):
    (tmp_path / ARCHIVE_NAME).write_bytes(ARCHIVE)
    folder = download_wikitext2(tmp_path, mirrors=[refused_url()], sha256=ARCHIVE_SHA256)
    assert (folder / CLEAN_FILES["val"]).read_text(encoding="utf-8") == SPLIT_TEXTS["val"]


# ==================== Mirrors that fail


@pytest.mark.parametrize("status", [404, 500])
def test_failing_first_mirror_falls_through_to_the_next(server, tmp_path, status):
    bad = server.serve("/broken.zip", b"server trouble", status=status)
    good = server.serve("/good.zip", ARCHIVE)
    download_wikitext2(tmp_path, mirrors=[bad, good], sha256=ARCHIVE_SHA256)
    assert server.requests == ["/broken.zip", "/good.zip"]
    assert (tmp_path / ARCHIVE_NAME).read_bytes() == ARCHIVE


def test_wrong_checksum_leaves_no_file(server, tmp_path):
    url = server.serve("/a.zip", ARCHIVE)
    wrong = "0" * 64
    with pytest.raises(DownloadError, match=f"sha256 mismatch: expected {wrong}, got {ARCHIVE_SHA256}"):
        download_wikitext2(tmp_path, mirrors=[url], sha256=wrong)
    assert files_under(tmp_path) == []


def test_cut_transfer_leaves_no_partial_file(server, tmp_path):
    url = server.serve("/a.zip", ARCHIVE[:100], declared_length=len(ARCHIVE))
    with pytest.raises(DownloadError, match=f"the transfer broke off after 100 of {len(ARCHIVE):,} bytes"):
        download_wikitext2(tmp_path, mirrors=[url], sha256=ARCHIVE_SHA256)
    assert files_under(tmp_path) == []


def test_all_mirrors_failing_says_what_to_download_and_where(server, tmp_path):
    missing, refused = server.serve("/gone.zip", b"", status=404), refused_url()
    with pytest.raises(DownloadError) as caught:
        download_wikitext2(tmp_path, mirrors=[missing, refused], sha256=ARCHIVE_SHA256)
    message = str(caught.value)
    assert f"{missing}: HTTP 404" in message
    assert f"{refused}: cannot connect" in message
    assert f"download {ARCHIVE_NAME} (sha256 {ARCHIVE_SHA256})" in message
    assert f"put it at {tmp_path / ARCHIVE_NAME}" in message
    assert files_under(tmp_path) == []


def test_oversized_body_is_refused(server, tmp_path, monkeypatch):
    monkeypatch.setattr(download, "MAX_ARCHIVE_BYTES", 100)
    with pytest.raises(DownloadError, match="the body is over 100 bytes"):
        download_wikitext2(tmp_path, mirrors=[server.serve("/a.zip", ARCHIVE)], sha256=ARCHIVE_SHA256)
    assert files_under(tmp_path) == []


def test_interrupt_mid_transfer_leaves_no_partial_file(server, tmp_path):
    def interrupt(done, total):
        if done > 0:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        download_wikitext2(
            tmp_path, mirrors=[server.serve("/a.zip", ARCHIVE)], sha256=ARCHIVE_SHA256, progress=interrupt
        )
    assert files_under(tmp_path) == []


# ==================== Archives that are not what they should be


def test_cached_archive_with_wrong_hash_is_kept_and_named(tmp_path):
    (tmp_path / ARCHIVE_NAME).write_bytes(b"something else")
    with pytest.raises(DownloadError, match=f"its sha256 is {sha256(b'something else')}, not {ARCHIVE_SHA256}"):
        download_wikitext2(tmp_path, mirrors=[refused_url()], sha256=ARCHIVE_SHA256)
    assert files_under(tmp_path) == [ARCHIVE_NAME]


def test_archive_without_a_split_is_refused(server, tmp_path):
    archive = make_zip({f"{CACHE_FOLDER}/wiki.train.raw": b"only train\n"})
    with pytest.raises(DownloadError, match=f"has no {CACHE_FOLDER}/wiki.valid.raw"):
        download_wikitext2(tmp_path, mirrors=[server.serve("/a.zip", archive)], sha256=sha256(archive))
    assert not any(name.endswith("_clean.txt") for name in files_under(tmp_path))


def test_archive_that_is_not_a_zip_is_refused(server, tmp_path):
    body = b"<html>mirror moved</html>"
    with pytest.raises(DownloadError, match="is not a readable zip file"):
        download_wikitext2(tmp_path, mirrors=[server.serve("/a.zip", body)], sha256=sha256(body))


def test_split_that_is_not_utf8_names_the_member_and_offset(server, tmp_path):
    archive = wikitext_zip(test=b"caf\xe9\n")
    message = r"wiki\.test\.raw in wikitext-2-raw-v1\.zip is not valid UTF-8: byte 0xE9 at byte offset 3"
    with pytest.raises(DownloadError, match=message):
        download_wikitext2(tmp_path, mirrors=[server.serve("/a.zip", archive)], sha256=sha256(archive))
    assert not any(name.endswith("_clean.txt") for name in files_under(tmp_path))


@pytest.mark.parametrize(
    "options, message",
    [
        ({"sha256": "xyz"}, r"sha256='xyz' is not a SHA-256 digest"),
        ({"mirrors": ["ftp://example.invalid/a.zip"]}, r"mirror 'ftp://example.invalid/a.zip' is not an http"),
        ({"mirrors": []}, "no mirrors given"),
    ],
    ids=["bad-sha256", "bad-scheme", "no-mirrors"],
)
def test_bad_arguments_are_refused_before_any_request(tmp_path, options, message):
    with pytest.raises(BpeError, match=message):
        download_wikitext2(tmp_path, **options)


# ==================== Command line


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bpe")
    add_download_command(parser.add_subparsers(dest="command", required=True))
    return parser.parse_args(argv)


def test_cli_downloads_and_prints_the_folder(server, tmp_path, capsys):
    args = parse(
        [
            "download",
            "wikitext-2",
            "--mirror",
            server.serve("/a.zip", ARCHIVE),
            "--sha256",
            ARCHIVE_SHA256.upper(),
            "--cache-dir",
            str(tmp_path),
        ]
    )
    assert args.func is run_download
    assert run_download(args) == 0
    out, err = capsys.readouterr()
    assert out == f"{tmp_path / CACHE_FOLDER}\n"
    assert "downloading:" in err and "(100%)" in err and CLEAN_FILES["train"] in err


def test_cli_failure_is_one_message_without_traceback(server, tmp_path, capsys):
    args = parse(
        ["download", "wikitext-2", "--mirror", server.serve("/gone.zip", b"", status=404), "--cache-dir", str(tmp_path)]
    )
    assert run_download(args) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("error: could not download wikitext-2-raw-v1.zip from any mirror:")
    assert "HTTP 404" in err and "Traceback" not in err


def test_download_then_build_reproduces_the_tutorial_pipeline(server, tmp_path, capsys):
    """`python -m bpe download wikitext-2 && python -m bpe build --processed-dir ...`, end to
    end, against the loopback server instead of the public mirrors."""
    torch = pytest.importorskip("torch")
    from bpe import BPETokenizer
    from bpe.cli.main import main

    assert (
        main(
            [
                "download",
                "wikitext-2",
                "--mirror",
                server.serve("/w.zip", ARCHIVE),
                "--sha256",
                ARCHIVE_SHA256,
                "--cache-dir",
                str(tmp_path / "cache"),
            ]
        )
        == 0
    )
    folder = capsys.readouterr().out.strip()
    assert (
        main(
            [
                "build",
                "--processed-dir",
                folder,
                "--tokenizer-output",
                str(tmp_path / "tok.json"),
                "--encoded-output-dir",
                str(tmp_path / "enc"),
                "--target-vocab-size",
                "60",
                "--quiet",
            ]
        )
        == 0
    )
    tok = BPETokenizer.from_file(tmp_path / "tok.json")
    val = (tmp_path / "cache" / CACHE_FOLDER / CLEAN_FILES["val"]).read_text(encoding="utf-8")
    ids = torch.load(tmp_path / "enc" / "val_ids.pt", weights_only=True)
    assert tok.decode(ids.tolist()) == val
    assert f"fingerprint {tok.fingerprint()}" in capsys.readouterr().out
