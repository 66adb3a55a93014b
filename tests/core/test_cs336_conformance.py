"""Stanford CS336 (assignment 1, `train_bpe`) in the project's own tests: corpus.en to vocab
500 with <|endoftext|> under the cs336 preset gives the course's reference merges, in
order, and its vocabulary (ids and tokens as sets, as the course's test compares them).

The fixtures are in the shared data (`bpe.paths.shared_data_dir`, ../shared/data/cs336);
where it is absent these tests skip and say so. The speed figure is the benchmark's
(``python -m bpe.benchmarks cs336``), not a timed test.
"""

import json

import pytest

from bpe import BPETokenizer
from bpe.alphabet import from_gpt2_spelling
from bpe.paths import shared_data_dir
from bpe.run import train_run
from bpe.training import CS336, preset_fields

FOLDER = shared_data_dir() / "cs336"


def fixture(name: str):
    path = FOLDER / name
    if not path.is_file():
        pytest.skip(f"CS336's fixture {name} is not in {FOLDER} (the shared data; set BPE_SHARED_DATA to its folder)")
    return path


@pytest.fixture(scope="module")
def reference():
    merges = [
        tuple(from_gpt2_spelling(part) for part in line.split(" "))
        for line in fixture("train-bpe-reference-merges.txt").read_text(encoding="utf-8").splitlines()
    ]
    vocab = json.loads(fixture("train-bpe-reference-vocab.json").read_text(encoding="utf-8"))
    return merges, {token_id: from_gpt2_spelling(token) for token, token_id in vocab.items()}


@pytest.fixture(scope="module")
def trained():
    text = fixture("corpus.en").read_text(encoding="utf-8")
    return train_run(text, **preset_fields(CS336), target_vocab_size=500, top_k=0)


@pytest.mark.shared_data
def test_corpus_en_to_500_gives_the_reference_merges_in_order(reference, trained):
    merges, _ = reference
    assert len(merges) == 243
    assert trained.merges == merges


@pytest.mark.shared_data
def test_corpus_en_to_500_gives_the_reference_vocabulary(reference, trained):
    _, vocab = reference
    tokenizer = trained.tokenizer()
    assert tokenizer.vocab_size == 500 and tokenizer.special_tokens == {"<|endoftext|>": 0}
    ours = dict(enumerate(tokenizer.tokens))
    assert set(ours) == set(vocab)  # ids 0..499
    assert set(ours.values()) == set(vocab.values())  # the same 500 tokens, <|endoftext|> among them


@pytest.mark.shared_data
def test_the_other_tie_rules_part_from_the_reference_where_the_issue_says(reference):
    """The rule is what decides: the smaller pair of the same tie parts at merge index 31
    (the 32nd merge), the first occurrence at index 64: ties the reference breaks toward the
    greater pair (the issue counts merges from 0, as the list's index)."""
    merges, _ = reference
    text = fixture("corpus.en").read_text(encoding="utf-8")
    parted = {}
    for rule in ("lexicographic", "first_occurrence"):
        ours = BPETokenizer.train(text, 500, **{**preset_fields(CS336), "tie_rule": rule}).merges
        parted[rule] = next(i for i, (a, b) in enumerate(zip(ours, merges)) if a != b)
        if rule == "lexicographic":
            assert (ours[31], merges[31]) == ((b" ", b"d"), (b" a", b"nd"))
    assert parted == {"lexicographic": 31, "first_occurrence": 64}
