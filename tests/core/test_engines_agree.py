"""The fast engine reproduces the reference engine, merge for merge, top_pairs included."""

import pytest
from helpers import MAX_EXAMPLES, shared_file
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe import train_steps


def both(text, vocab, **options):
    ref = train_steps(text, target_vocab_size=vocab, engine="reference", **options)
    fast = train_steps(text, target_vocab_size=vocab, engine="fast", **options)
    ref_steps, fast_steps = list(ref), list(fast)
    return ref_steps, fast_steps, ref.stop_reason, fast.stop_reason


def assert_same(text, vocab, **options):
    ref_steps, fast_steps, ref_stop, fast_stop = both(text, vocab, **options)
    for r, f in zip(ref_steps, fast_steps):
        assert r == f, f"first difference at merge {r.number}"
    assert len(ref_steps) == len(fast_steps)
    assert ref_stop == fast_stop
    return ref_steps


# Small alphabets make ties, overlapping runs ('aaaa') and repeated structure likely.
texts = st.text(alphabet=st.sampled_from("ab c\n"), min_size=1, max_size=60)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(text=texts, extra=st.integers(0, 40), min_freq=st.integers(1, 3), top_k=st.integers(0, 5))
def test_engines_agree_on_generated_text(text, extra, min_freq, top_k):
    vocab = len(set(text)) + extra
    assert_same(text, vocab, minimum_pair_frequency=min_freq, top_k=top_k)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(
    text=st.text(min_size=1, max_size=40),
    extra=st.integers(0, 30),
    alphabet=st.sampled_from(["characters", "bytes"]),
    pretokenizer=st.sampled_from([None, "whitespace", "gpt2", "gpt4"]),
)
def test_engines_agree_on_any_unicode_in_every_mode(text, extra, alphabet, pretokenizer):
    base = 256 if alphabet == "bytes" else len(set(text))
    assert_same(text, base + extra, minimum_pair_frequency=1, top_k=3, alphabet=alphabet, pretokenizer=pretokenizer)


@pytest.mark.parametrize("text", ["aaaa", "abababab", "aaabdaaabac", "abcabcabc abcabc", "\n\n\n \n \n"])
def test_engines_agree_when_training_runs_out_of_pairs(text):
    steps = assert_same(text, 100, minimum_pair_frequency=1, top_k=10)
    assert steps, "expected at least one merge"


@pytest.mark.shared_data
@pytest.mark.parametrize(
    "name,chars,vocab",
    [
        ("the-verdict.txt", 20_000, 400),
        ("tinyshakespeare/input.txt", 30_000, 350),
        ("wikitext-2/valid.txt", 40_000, 350),
    ],
)
def test_engines_agree_on_real_corpora(name, chars, vocab):
    text = shared_file(name).read_text(encoding="utf-8")[:chars]
    steps = assert_same(text, vocab, top_k=10)
    assert steps[-1].vocab_size == vocab


@pytest.mark.shared_data
@pytest.mark.parametrize("pretokenizer", ["whitespace", "gpt2"])
def test_engines_agree_on_real_pretokenized_bytes(pretokenizer):
    text = shared_file("taylorswift.txt").read_text(encoding="utf-8")[:30_000]
    assert_same(text, 256 + 150, top_k=5, alphabet="bytes", pretokenizer=pretokenizer)
