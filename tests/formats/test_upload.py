"""`load_upload`: the app's one door for a tokenizer file of any kind, with the server's bounds."""

from __future__ import annotations

import pytest
from format_texts import MULTILINGUAL_HELD_OUT

from bpe.analysis.exports import tokenizer_json
from bpe.errors import TokenizerFileError
from bpe.formats import PretrainedTokenizer, export_files, load_upload
from bpe.tokenizer import BPETokenizer


@pytest.mark.parametrize("fmt, name", [("hf", "tokenizer.json"), ("tiktoken", "lab.tiktoken"), ("minbpe", "lab.model")])
def test_each_format_loads_with_the_labs_ids(trained, fmt, name):
    tokenizer = trained("bytes", "gpt2")
    loaded = load_upload(export_files(tokenizer, fmt, name=name).main_bytes, name, pattern="gpt2")
    assert isinstance(loaded, PretrainedTokenizer)
    assert loaded.encode(MULTILINGUAL_HELD_OUT) == tokenizer.encode(MULTILINGUAL_HELD_OUT)


def test_a_lab_file_is_the_labs_own_tokenizer(trained):
    tokenizer = trained("characters", None)
    loaded = load_upload(tokenizer_json(tokenizer).encode(), "mine.json")
    assert isinstance(loaded, BPETokenizer) and loaded.fingerprint() == tokenizer.fingerprint()


def test_bounds_apply_to_every_kind(trained):
    tokenizer = trained("bytes", "gpt2")
    raw = export_files(tokenizer, "hf").main_bytes
    learned = tokenizer.vocab_size - 256
    with pytest.raises(TokenizerFileError, match=f"x.json is {len(raw):,} bytes; the most this server accepts is 100 "):
        load_upload(raw, "x.json", max_bytes=100)
    with pytest.raises(
        TokenizerFileError,
        match=f"x.json has {learned:,} merges; the most accepted is {learned - 1:,}",
    ):
        load_upload(raw, "x.json", max_merges=learned - 1)
    assert load_upload(raw, "x.json", max_bytes=len(raw), max_merges=learned).vocab_size == tokenizer.vocab_size


def test_a_ranks_file_needs_its_pattern(trained):
    raw = export_files(trained("bytes", "gpt2"), "tiktoken", name="lab.tiktoken").main_bytes
    with pytest.raises(TokenizerFileError, match="lab.tiktoken is a tiktoken ranks file, which holds no split pattern"):
        load_upload(raw, "lab.tiktoken")
