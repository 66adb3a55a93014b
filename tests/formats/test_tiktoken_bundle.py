"""The app's tiktoken download, uploaded back, gives the same tokens (issue 22): the ranks
and their settings travel in one zip, the upload reads the split pattern from it, and an
upload whose tokens would differ from the run it came from says so."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from format_helpers import refused
from format_texts import MULTILINGUAL_HELD_OUT

from bpe.errors import TokenizerFileError
from bpe.formats import detect_format, export_files, load_upload
from bpe.formats.provenance import came_from, encoding_difference
from bpe.formats.tiktoken_bundle import BUNDLE_SUFFIX, tiktoken_bundle

SENTENCE = "The lighthouse keeper climbed the stairs, lit the lamp, and watched the ships pass by."


def bundle_of(tokenizer) -> tuple[str, bytes]:
    exported = export_files(tokenizer, "tiktoken", name="bpe_600.tiktoken")
    return "bpe_600.tiktoken" + BUNDLE_SUFFIX, tiktoken_bundle(exported)


def zipped(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


@pytest.mark.parametrize("pretokenizer", [None, "gpt2", "whitespace"])
def test_the_download_uploaded_back_gives_the_same_tokens(trained, pretokenizer):
    tokenizer = trained("bytes", pretokenizer)
    name, raw = bundle_of(tokenizer)
    assert detect_format(raw, name) == "tiktoken"
    uploaded = load_upload(raw, name)  # no pattern asked: the zip carries it
    assert uploaded.pretokenizer == tokenizer.pretokenizer
    for text in (SENTENCE, MULTILINGUAL_HELD_OUT):
        assert len(uploaded.encode(text)) == len(tokenizer.encode(text))
    assert came_from(uploaded, tokenizer)
    assert encoding_difference(uploaded, tokenizer, SENTENCE + MULTILINGUAL_HELD_OUT) is None


def test_the_bare_ranks_file_with_another_pattern_is_flagged(trained):
    tokenizer = trained("bytes", None)
    ranks = export_files(tokenizer, "tiktoken", name="bpe_600.tiktoken").main_bytes
    uploaded = load_upload(ranks, "bpe_600.tiktoken", pattern="gpt4")  # the old default guess
    assert came_from(uploaded, tokenizer)
    said = encoding_difference(uploaded, tokenizer, SENTENCE)
    assert said is not None
    ours, theirs = len(tokenizer.encode(SENTENCE)), len(uploaded.encode(SENTENCE))
    assert ours != theirs and f"{theirs:,} tokens" in said and f"{ours:,}" in said
    assert "GPT-4" in said and "none" in said  # names both split rules


def test_another_tokenizer_is_not_taken_for_the_source(trained):
    small = trained("bytes", None)
    other = trained("bytes", "gpt2")
    name, raw = bundle_of(other)
    assert not came_from(load_upload(raw, name), small)


@pytest.mark.parametrize(
    "files, match",
    [
        ({"a.txt": b"hello"}, "no .tiktoken ranks file"),
        ({"a.tiktoken": b"", "b.tiktoken": b""}, "2 .tiktoken ranks files"),
        ({"a.tiktoken": b"AA== 0\n"}, "no settings"),
        ({f"f{i}.json": b"{}" for i in range(20)}, "20 files"),
    ],
    ids=["no ranks", "two ranks", "no settings", "many files"],
)
def test_a_bad_bundle_is_a_one_line_error(files, match):
    refused(load_upload, zipped(files), "x.tiktoken.zip", match=match, error=TokenizerFileError)


def test_a_bundle_whose_settings_belong_to_other_ranks_is_refused(trained):
    tokenizer = trained("bytes", None)
    exported = export_files(tokenizer, "tiktoken", name="lab.tiktoken")
    settings = json.loads(exported.files["lab.tiktoken.json"])
    settings["mergeable_ranks_sha256"] = "0" * 64
    raw = zipped({"lab.tiktoken": exported.main_bytes, "lab.tiktoken.json": json.dumps(settings).encode()})
    refused(load_upload, raw, "lab.tiktoken.zip", match="another ranks file", error=TokenizerFileError)


def test_a_zip_bomb_is_refused_before_it_is_inflated():
    bomb = zipped({"a.tiktoken": b"A" * 80_000_000, "a.tiktoken.json": b"{}"})
    assert len(bomb) < 1_000_000
    refused(load_upload, bomb, "a.tiktoken.zip", match="bytes unpacked", error=TokenizerFileError)


def test_a_cut_zip_is_a_one_line_error(trained):
    name, raw = bundle_of(trained("bytes", None))
    refused(load_upload, raw[: len(raw) // 2], name, match="not a readable zip", error=TokenizerFileError)
