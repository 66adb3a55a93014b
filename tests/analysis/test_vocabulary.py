"""The Vocabulary page's rows and downloads: learned tokens, merges CSV, JSON, torch ids."""

from __future__ import annotations

import io

import pytest

from bpe import TokenizerFileError, train_run
from bpe.analysis.exports import ids_tensor_bytes, tokenizer_json
from bpe.analysis.metrics import token_usage
from bpe.analysis.vocabulary import LearnedToken, first_merges, learned_tokens
from bpe.tokenizer import BPETokenizer

TEXT = "aaabdaaabac"
WIKI = train_run(TEXT, target_vocab_size=7, engine="reference")


def test_learned_tokens_of_the_worked_example():
    rows = learned_tokens(WIKI, 3, token_usage(WIKI, TEXT))
    assert rows == [
        LearnedToken(4, "aa", 2, 1, 4, 0),  # created 4 times... absorbed by 'aaa' at step 2
        LearnedToken(5, "aaa", 3, 2, 2, 0),
        LearnedToken(6, "aaab", 4, 3, 2, 2),
    ]
    assert [row.absorbed for row in rows] == [1.0, 1.0, 0.0]


def test_learned_tokens_ids_match_the_tokenizer():
    run = train_run("the cat in the hat sat on the mat " * 3, target_vocab_size=40)
    tok = run.tokenizer()
    rows = learned_tokens(run, len(run.steps), token_usage(run, "the cat in the hat sat on the mat " * 3))
    assert [tok.stoi[row.token] for row in rows] == [row.id for row in rows]
    assert len(rows) == tok.vocab_size - len(tok.base_tokens)


def test_first_merges_list_step_pair_token_and_count():
    assert first_merges(WIKI, 2) == [(1, ("a", "a"), "aa", 4), (2, ("aa", "a"), "aaa", 2)]


def test_tokenizer_json_reloads_with_its_fingerprint():
    tok = WIKI.tokenizer()
    again = BPETokenizer.from_json_bytes(tokenizer_json(tok).encode())
    assert again == tok and again.fingerprint() == tok.fingerprint()


def test_a_tampered_tokenizer_json_is_refused():
    tampered = tokenizer_json(WIKI.tokenizer()).replace('"aaa",\n      "b"', '"aaa",\n      "c"')
    assert tampered != tokenizer_json(WIKI.tokenizer())
    with pytest.raises(TokenizerFileError, match="fingerprint"):
        BPETokenizer.from_json_bytes(tampered.encode())


def test_ids_tensor_bytes_load_as_a_long_tensor():
    torch = pytest.importorskip("torch")
    ids = WIKI.tokenizer().encode(TEXT)
    tensor = torch.load(io.BytesIO(ids_tensor_bytes(ids)))
    assert tensor.dtype == torch.long and tensor.tolist() == ids
