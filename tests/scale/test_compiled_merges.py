"""The merge phase in compiled code gives the fast engine's steps, runners-up included, merge for merge."""

import dataclasses
import sys

import pytest
from helpers import CHUNK_FLOORS, MAX_EXAMPLES, ROOT, WEIGHTED_CHUNKS, assert_same_steps, shared_file
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe.errors import BpeError
from bpe.fast import fast_steps
from bpe.scale import compiled_merges
from bpe.scale.compiled_merges import (
    COMPILED_FROM_CHARACTERS,
    check_compiled_settings,
    compiled_by_default,
    compiled_steps,
)
from bpe.specials import initial_tokens
from bpe.steps import StopReason
from bpe.training import TrainingSettings, prepare_base_tokens, prepare_words

pytest.importorskip("numba", reason="compiled merges need numba (requirements.txt installs it)")


def both(words, base, **options):
    """The fast engine's and the compiled loop's steps and stop reasons over ``words``."""
    options.setdefault("top_k", 0)
    fast, made = fast_steps(words, base, **options), compiled_steps(words, base, **options)
    fast_list, made_list = [], []
    fast_stop = yield_all(fast, fast_list)
    made_stop = yield_all(made, made_list)
    return fast_list, made_list, fast_stop, made_stop


def yield_all(steps, into):
    while True:
        try:
            into.append(next(steps))
        except StopIteration as stop:
            return stop.value


def assert_same(text, vocab, alphabet="characters", pretokenizer=None, special_tokens=(), **options):
    """Train ``text`` both ways, as `bpe.training.train_steps` lays it out; equal steps and stop."""
    base = prepare_base_tokens(text, None, alphabet, special_tokens)
    words = prepare_words(text, alphabet, pretokenizer, special_tokens)
    initial = initial_tokens(special_tokens, base, alphabet)
    fast, made, fast_stop, made_stop = both(words, initial, target_vocab_size=vocab, **options)
    assert_same_steps(fast, made)
    assert made_stop == fast_stop
    return made


# Small alphabets make ties and overlapping runs ('aaaa').
texts = st.text(alphabet=st.sampled_from("ab c\n"), min_size=1, max_size=60)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(
    text=texts,
    extra=st.integers(0, 40),
    min_freq=st.integers(1, 3),
    budget=st.none() | st.integers(1, 200),
    top_k=st.integers(0, 12),
)
def test_compiled_agrees_with_fast_on_generated_text(text, extra, min_freq, budget, top_k):
    # Runners-up too: near the end, fewer pairs than asked for reach the minimum, and the
    # rarer ones follow them, ranked by count and first position.
    assert_same(text, len(set(text)) + extra, minimum_pair_frequency=min_freq, max_vocab_characters=budget, top_k=top_k)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(
    text=st.text(min_size=1, max_size=40),
    extra=st.integers(0, 30),
    alphabet=st.sampled_from(["characters", "bytes"]),
    pretokenizer=st.sampled_from([None, "whitespace", "gpt2", "gpt4"]),
    specials=st.sampled_from([(), ("<|endoftext|>",), ("<|endoftext|>", "ab")]),
    top_k=st.sampled_from([0, 3]),
)
def test_compiled_agrees_on_any_unicode_in_every_mode(text, extra, alphabet, pretokenizer, specials, top_k):
    text = "<|endoftext|>".join([text, text[::-1], "ab"]) if specials else text
    base = 256 if alphabet == "bytes" else len(set(text))
    assert_same(
        text,
        base + len(specials) + extra,
        alphabet=alphabet,
        pretokenizer=pretokenizer,
        special_tokens=specials,
        minimum_pair_frequency=1,
        top_k=top_k,
    )


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(
    words=WEIGHTED_CHUNKS,
    extra=st.integers(1, 30),
    floor=CHUNK_FLOORS,
    top_k=st.sampled_from([0, 5]),
)
def test_compiled_agrees_on_chunks_of_any_frequency_with_the_heap_swept_always(words, extra, floor, top_k):
    # Counts past 2**32, and a heap swept of stale entries at every chance (no slack).
    base = sorted({symbol for chunk, _ in words for symbol in chunk})
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(compiled_merges, "SWEEP_SLACK", 0)
        fast, made, fast_stop, made_stop = both(
            words, base, target_vocab_size=len(base) + extra, minimum_pair_frequency=floor, top_k=top_k
        )
    assert made == fast and made_stop == fast_stop


@pytest.mark.parametrize("text", ["aaaa", "abababab", "aaabdaaabac", "abcabcabc abcabc", "\n\n\n \n \n"])
def test_compiled_agrees_when_training_runs_out_of_pairs(text):
    assert assert_same(text, 100, minimum_pair_frequency=1)
    assert assert_same(text, 100, minimum_pair_frequency=2, top_k=4)


@pytest.mark.shared_data
@pytest.mark.parametrize(
    "name,chars,vocab,alphabet,pretokenizer",
    [
        ("tinyshakespeare/input.txt", 300_000, 256 + 2_000, "bytes", "gpt2"),
        ("wikitext-2/valid.txt", 200_000, 1_500, "characters", "whitespace"),
        ("the-verdict.txt", 20_000, 1_500, "characters", None),
    ],
)
def test_compiled_agrees_on_real_corpora(name, chars, vocab, alphabet, pretokenizer):
    text = shared_file(name).read_text(encoding="utf-8")[:chars]
    steps = assert_same(text, vocab, alphabet=alphabet, pretokenizer=pretokenizer, minimum_pair_frequency=2, top_k=10)
    assert all(len(step.top_pairs) == 10 for step in steps)


def test_compiled_agrees_on_the_shipped_text_with_the_heap_swept_always():
    text = (ROOT / "data" / "tinyshakespeare.txt").read_text(encoding="utf-8")[:50_000]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(compiled_merges, "SWEEP_SLACK", 0)
        steps = assert_same(
            text, 256 + 600, alphabet="bytes", pretokenizer="whitespace", minimum_pair_frequency=1, top_k=10
        )
    assert len(steps) == 600


# ---------- what it cannot do, said before any work


@pytest.mark.parametrize(
    "options,expected",
    [
        (
            {"top_k": 0, "tie_rule": "lexicographic"},
            r"^compiled merges break ties by first occurrence only: tie_rule 'lexicographic'",
        ),
        (
            {"top_k": 0, "engine": "reference"},
            r"^compiled merges are the fast engine's: engine 'reference' trains in Python$",
        ),
    ],
)
def test_settings_it_cannot_train_under_are_refused_in_one_line(options, expected):
    with pytest.raises(BpeError, match=expected):
        check_compiled_settings(TrainingSettings(target_vocab_size=300, **options))


def test_without_numba_it_says_how_to_install_it(monkeypatch):
    compiled_merges._kernel.cache_clear()
    monkeypatch.setitem(sys.modules, "numba", None)  # an import of numba fails, as when it is not installed
    try:
        with pytest.raises(
            BpeError, match=r"^compiled merges need numba: pip install numba==\S+ \(or train without them\)$"
        ):
            list(compiled_steps([("abab", 1)], ["a", "b"], target_vocab_size=5, minimum_pair_frequency=1))
    finally:
        compiled_merges._kernel.cache_clear()
    assert StopReason.TARGET_REACHED in compiled_merges._STOPS


# ---------- when the merge phase runs it unasked


def test_a_corpus_from_the_threshold_up_trains_compiled_where_it_can(monkeypatch):
    settings = TrainingSettings(target_vocab_size=300)
    assert compiled_by_default(settings, COMPILED_FROM_CHARACTERS)
    assert not compiled_by_default(settings, COMPILED_FROM_CHARACTERS - 1)
    for other in ({"tie_rule": "huggingface"}, {"engine": "reference"}):  # settings it cannot train under
        assert not compiled_by_default(dataclasses.replace(settings, **other), COMPILED_FROM_CHARACTERS)
    monkeypatch.setitem(sys.modules, "numba", None)  # as when numba is not installed
    assert not compiled_by_default(settings, COMPILED_FROM_CHARACTERS)
