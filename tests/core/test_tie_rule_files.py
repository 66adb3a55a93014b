"""The tie rule in tokenizer files: stored and fingerprinted only when it is not the default,
so files of the tutorial's rule keep the tutorial's exact bytes and fingerprint."""

import json

import pytest

from bpe import BpeError, BPETokenizer, TokenizerFileError
from bpe.run import train_run
from bpe.training import TrainingSettings

BASE = [" ", "e", "l", "o", "r", "w"]
MERGES = [["l", "o"], ["lo", "w"], ["low", "e"]]
# sha256 of '{"base_tokens":[" ","e","l","o","r","w"],"merges":[["l","o"],["lo","w"],["low","e"]]}',
# computed once, outside this code: the tutorial's fingerprint of this file, pinned.
TUTORIAL_FINGERPRINT = "633d2d0b6533c90cc8ac312978d4b3b7ae1c3fa392dacff51b779304bda91e54"
# the same payload with "tie_rule":"lexicographic" appended
LEXICOGRAPHIC_FINGERPRINT = "af95a803909449f256c60c6b5fa83ca16f12434f0728a4fa466ee1110470d0b6"


def tutorial_file(path, **extra):
    payload = {"type": "character_bpe", "base_tokens": BASE, "merges": MERGES, "vocab_size": 9, **extra}
    payload.setdefault("fingerprint", TUTORIAL_FINGERPRINT)
    path.write_text(json.dumps(payload, ensure_ascii=False, indent=2), encoding="utf-8")
    return path


def test_a_tutorial_file_keeps_its_pinned_fingerprint_and_its_keys(tmp_path):
    tok = BPETokenizer.from_file(tutorial_file(tmp_path / "tutorial.json"))
    assert tok.tie_rule == "first_occurrence"
    assert tok.fingerprint() == TUTORIAL_FINGERPRINT
    tok.save(tmp_path / "again.json")
    data = json.loads((tmp_path / "again.json").read_text(encoding="utf-8"))
    assert list(data) == ["type", "base_tokens", "merges", "vocab_size", "fingerprint"]  # no tie_rule key
    assert data["fingerprint"] == TUTORIAL_FINGERPRINT
    explicit = BPETokenizer(BASE, MERGES, tie_rule="first_occurrence")
    assert explicit.fingerprint() == TUTORIAL_FINGERPRINT and explicit == tok


def test_another_rule_is_written_and_fingerprinted(tmp_path):
    tok = BPETokenizer(BASE, MERGES, tie_rule="lexicographic")
    assert tok.fingerprint() == LEXICOGRAPHIC_FINGERPRINT != TUTORIAL_FINGERPRINT
    tok.save(tmp_path / "lex.json")
    data = json.loads((tmp_path / "lex.json").read_text(encoding="utf-8"))
    assert data["tie_rule"] == "lexicographic" and data["fingerprint"] == LEXICOGRAPHIC_FINGERPRINT
    again = BPETokenizer.from_file(tmp_path / "lex.json")
    assert again.tie_rule == "lexicographic" and again == tok
    assert again != BPETokenizer(BASE, MERGES)  # same merges, another provenance
    assert "tie_rule='lexicographic'" in repr(again)


def test_an_edited_rule_fails_the_fingerprint_check(tmp_path):
    with pytest.raises(TokenizerFileError, match="fails its fingerprint check"):
        BPETokenizer.from_file(tutorial_file(tmp_path / "a.json", tie_rule="lexicographic"))
    with pytest.raises(TokenizerFileError, match="fails its fingerprint check"):  # the rule dropped from the file
        BPETokenizer.from_file(tutorial_file(tmp_path / "b.json", fingerprint=LEXICOGRAPHIC_FINGERPRINT))
    tok = BPETokenizer.from_file(
        tutorial_file(tmp_path / "c.json", tie_rule="lexicographic", fingerprint=LEXICOGRAPHIC_FINGERPRINT)
    )
    assert tok.tie_rule == "lexicographic"


@pytest.mark.parametrize("value", ["alphabetical", 3, None, ["lexicographic"]])
def test_an_unknown_rule_in_a_file_is_named(tmp_path, value):
    with pytest.raises(TokenizerFileError, match=r"c\.json: tie_rule .* is not one of first_occurrence"):
        BPETokenizer.from_file(tutorial_file(tmp_path / "c.json", tie_rule=value))


def test_an_unknown_rule_is_refused_wherever_training_starts():
    with pytest.raises(BpeError, match="unknown tie_rule 'random'"):
        BPETokenizer.train("low lower", 10, tie_rule="random")
    with pytest.raises(BpeError, match="unknown tie_rule 'random'"):
        TrainingSettings(target_vocab_size=10, tie_rule="random")
    with pytest.raises(BpeError, match="unknown tie_rule 'random'"):
        BPETokenizer(BASE, MERGES, tie_rule="random")


@pytest.mark.parametrize("rule", ["first_occurrence", "lexicographic", "huggingface"])
def test_trained_tokenizers_and_run_prefixes_remember_the_rule(rule, tmp_path):
    text = "ab ba ab ba cd dc cd dc"
    tok = BPETokenizer.train(text, 12, minimum_pair_frequency=1, tie_rule=rule)
    run = train_run(text, target_vocab_size=12, minimum_pair_frequency=1, tie_rule=rule)
    assert tok.tie_rule == run.tokenizer().tie_rule == run.tokenizer(merges=1).tie_rule == rule
    assert run.tokenizer().merges == tok.merges
    tok.save(tmp_path / "t.json")
    assert BPETokenizer.from_file(tmp_path / "t.json") == tok
