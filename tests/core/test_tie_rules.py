"""Tie rules: both engines agree under each, top_pairs follow it, and "huggingface" learns
exactly the merges of Hugging Face `tokenizers`' BpeTrainer."""

import json

import pytest
from helpers import MAX_EXAMPLES, shared_file
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe.alphabet import BYTES, CHARACTERS, default_base_tokens, from_gpt2_spelling
from bpe.errors import BpeError
from bpe.fast import fast_steps
from bpe.pretokenize import WHITESPACE_PATTERN
from bpe.reference import reference_steps
from bpe.steps import (
    DEFAULT_TIE_RULE,
    FIRST_OCCURRENCE,
    HUGGINGFACE,
    LEXICOGRAPHIC,
    LEXICOGRAPHIC_GREATEST,
    TIE_RULES,
    descending_key,
    huggingface_order,
)
from bpe.training import prepare_words

ENGINES = {"reference": reference_steps, "fast": fast_steps}


def run(
    text,
    extra,
    *,
    engine="fast",
    alphabet=CHARACTERS,
    pretokenizer=None,
    minimum_pair_frequency=1,
    top_k=0,
    tie_rule=DEFAULT_TIE_RULE,
):
    """The steps and the stop reason of one engine, called directly (no settings layer)."""
    base = default_base_tokens(text, alphabet)
    steps = ENGINES[engine](
        prepare_words(text, alphabet, pretokenizer),
        base,
        target_vocab_size=len(base) + extra,
        minimum_pair_frequency=minimum_pair_frequency,
        top_k=top_k,
        tie_rule=tie_rule,
    )
    records = []
    while True:
        try:
            records.append(next(steps))
        except StopIteration as stop:
            return records, stop.value


def merges(text, extra, **options):
    return [step.pair for step in run(text, extra, **options)[0]]


# ==================== both engines, every rule

texts = st.text(alphabet=st.sampled_from("ab c\n"), min_size=1, max_size=60)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(
    text=texts,
    extra=st.integers(0, 40),
    min_freq=st.integers(1, 3),
    top_k=st.integers(0, 5),
    tie_rule=st.sampled_from(TIE_RULES),
)
def test_engines_agree_under_every_tie_rule(text, extra, min_freq, top_k, tie_rule):
    options = dict(minimum_pair_frequency=min_freq, top_k=top_k, tie_rule=tie_rule)
    assert run(text, extra, engine="fast", **options) == run(text, extra, engine="reference", **options)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(
    text=st.text(min_size=1, max_size=40),
    extra=st.integers(0, 30),
    alphabet=st.sampled_from([CHARACTERS, BYTES]),
    pretokenizer=st.sampled_from([None, "whitespace", "gpt2"]),
    tie_rule=st.sampled_from(TIE_RULES),
)
def test_engines_agree_under_every_tie_rule_in_every_mode(text, extra, alphabet, pretokenizer, tie_rule):
    options = dict(alphabet=alphabet, pretokenizer=pretokenizer, top_k=3, tie_rule=tie_rule)
    assert run(text, extra, engine="fast", **options) == run(text, extra, engine="reference", **options)


@pytest.mark.shared_data
@pytest.mark.parametrize("tie_rule", TIE_RULES)
def test_engines_agree_on_a_tie_heavy_real_text(tie_rule):
    text = shared_file("the-verdict.txt").read_text(encoding="utf-8")[:4_000]
    options = dict(minimum_pair_frequency=1, top_k=10, tie_rule=tie_rule)
    assert run(text, 600, engine="fast", **options) == run(text, 600, engine="reference", **options)


# ==================== what each rule means


@pytest.mark.parametrize("tie_rule", [LEXICOGRAPHIC, HUGGINGFACE])
def test_top_pairs_are_ordered_by_the_tie_rule(tie_rule):
    text = "dcba abcd dcba xyz zyx"
    steps, _ = run(text, 20, top_k=50, tie_rule=tie_rule)
    vocab = default_base_tokens(text, CHARACTERS) + [step.token for step in steps if step.new_token]
    ids = {token: i for i, token in enumerate(huggingface_order(default_base_tokens(text, CHARACTERS)))}
    ids.update((token, len(ids) + i) for i, token in enumerate(vocab[len(ids) :]))
    key = (lambda pair: pair) if tie_rule == LEXICOGRAPHIC else (lambda pair: (ids[pair[0]], ids[pair[1]]))
    for step in steps:
        assert list(step.top_pairs) == sorted(step.top_pairs, key=lambda item: (-item[1], key(item[0])))
        assert step.top_pairs[0] == (step.pair, step.frequency)


def test_first_occurrence_is_the_default_and_the_tutorials_order():
    text = "dcba abcd"
    assert (
        merges(text, 5)
        == merges(text, 5, tie_rule=FIRST_OCCURRENCE)
        == [("d", "c"), ("dc", "b"), ("dcb", "a"), ("dcba", " "), ("dcba ", "a")]
    )


def test_lexicographic_takes_the_smallest_pair_of_strings():
    assert merges("dcba abcd", 3, tie_rule=LEXICOGRAPHIC) == [(" ", "a"), (" a", "b"), (" ab", "c")]


def test_byte_tokens_compare_as_bytes_lexicographically():
    steps, _ = run("ba ab", 2, alphabet=BYTES, tie_rule=LEXICOGRAPHIC)
    assert [step.pair for step in steps] == [(b" ", b"a"), (b" a", b"b")]


def test_huggingface_numbers_the_base_alphabet_by_character_code():
    # base tokens given out of order: ties still go by Hugging Face's ids (' ' 0, 'a' 1, 'b' 2,
    # then ' a' 3), not by the order given (which would make ('b', 'a') first)
    words = prepare_words("ba ab", CHARACTERS, None)
    for engine in ENGINES.values():
        steps = engine(
            words, ["b", "a", " "], target_vocab_size=5, minimum_pair_frequency=1, top_k=0, tie_rule=HUGGINGFACE
        )
        assert [step.pair for step in steps] == [(" ", "a"), ("a", " a")]
    assert huggingface_order([b"a", b" ", b"\x00"]) == [b"a", b"\x00", b" "]  # GPT-2 spellings 'a' < 'Ā' < 'Ġ'


@pytest.mark.parametrize("engine", ENGINES)
def test_an_unknown_tie_rule_is_named(engine):
    with pytest.raises(BpeError, match="'alphabetical'"):
        run("abab", 2, engine=engine, tie_rule="alphabetical")


# ==================== "huggingface" is Hugging Face's BpeTrainer
#
# What has to line up (tokenizers 0.23.3, models/bpe/trainer.rs):
# - ids: special tokens (none here), then the alphabet sorted by character code (with
#   ByteLevel, by the code of each byte's GPT-2 spelling), then each new token in the
#   order it is made; a merge that re-makes an existing token keeps its id;
# - ties: `Merge` orders by count, then by ascending (left id, right id);
# - it stops when the best count is below min_frequency, or when the vocabulary (alphabet
#   included) reaches vocab_size: as here;
# - it counts pairs inside each pre-tokenized word, weighted by the word's count: our
#   chunks. Our "whitespace" (a space stays with the word after it) is neither its
#   Whitespace (\w+|[^\w\s]+) nor WhitespaceSplit (both drop the spaces), so its Split
#   runs our pattern; the byte alphabet is its ByteLevel without its regex.
# - one difference that cannot show here: its Word::merge reports only the neighbours'
#   count changes, so a merged pair keeps its old count in pair_counts, and a pair whose
#   count grows gets a queue entry holding only the new words. Both would matter only
#   after a merge re-made an existing token, which exact counts never led to in our runs
#   (two tokens become neighbours only when one of them is made, and every occurrence
#   of a pair is merged at once).


def hf_merges(text, extra, *, alphabet=CHARACTERS, pretokenizer=None, minimum_pair_frequency=1):
    """Merges of `tokenizers`' BpeTrainer, as our pairs. Byte alphabet: its ByteLevel
    pre-tokenizer without its regex; "whitespace": its Split with our pattern.
    (limit_alphabet stays unset: its binding refuses None, and unset means no limit.)"""
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import Regex, models, pre_tokenizers, trainers

    steps = []
    if pretokenizer == "whitespace":
        steps.append(pre_tokenizers.Split(Regex(WHITESPACE_PATTERN), behavior="isolated"))
    else:
        assert pretokenizer is None, pretokenizer
    if alphabet == BYTES:
        steps.append(pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False))
        initial = pre_tokenizers.ByteLevel.alphabet()
    else:
        initial = sorted(set(text))
    tokenizer = tokenizers.Tokenizer(models.BPE())
    if steps:
        tokenizer.pre_tokenizer = pre_tokenizers.Sequence(steps)
    trainer = trainers.BpeTrainer(
        vocab_size=len(initial) + extra,
        min_frequency=minimum_pair_frequency,
        show_progress=False,
        initial_alphabet=initial,
        special_tokens=[],
    )
    tokenizer.train_from_iterator([text], trainer=trainer)
    learned = [tuple(pair) for pair in json.loads(tokenizer.to_str())["model"]["merges"]]
    if alphabet == BYTES:
        return [(from_gpt2_spelling(a), from_gpt2_spelling(b)) for a, b in learned]
    return learned


def assert_like_hugging_face(text, extra, **options):
    ours = merges(text, extra, tie_rule=HUGGINGFACE, **options)
    theirs = hf_merges(text, extra, **options)
    assert ours == theirs
    return ours


@pytest.mark.parametrize("minimum_pair_frequency", [1, 2])
@pytest.mark.parametrize("pretokenizer", [None, "whitespace"])
@pytest.mark.parametrize("text", ["abcd abcd dcba", "low lower lowest", "aaabdaaabac", "the cat in the hat"])
def test_huggingface_rule_learns_hugging_faces_merges(text, pretokenizer, minimum_pair_frequency):
    assert assert_like_hugging_face(text, 100, pretokenizer=pretokenizer, minimum_pair_frequency=minimum_pair_frequency)


def test_hugging_faces_ties_differ_from_first_occurrence():
    """What the rule is for: the default rule learns another order on the same text."""
    text = "abcd abcd dcba"
    assert merges(text, 20, tie_rule=FIRST_OCCURRENCE) != assert_like_hugging_face(text, 20)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(
    text=st.text(alphabet=st.sampled_from("abc \n"), min_size=2, max_size=80),
    extra=st.integers(1, 80),
    pretokenizer=st.sampled_from([None, "whitespace"]),
    min_freq=st.integers(1, 2),
)
def test_huggingface_rule_on_random_small_alphabets(text, extra, pretokenizer, min_freq):
    assert_like_hugging_face(text, extra, pretokenizer=pretokenizer, minimum_pair_frequency=min_freq)


@settings(max_examples=MAX_EXAMPLES // 2, deadline=None)
@given(
    text=st.text(alphabet=st.sampled_from("aé c\n€"), min_size=2, max_size=60),
    extra=st.integers(1, 60),
    pretokenizer=st.sampled_from([None, "whitespace"]),
)
def test_huggingface_rule_on_bytes_is_its_byte_level_trainer(text, extra, pretokenizer):
    assert_like_hugging_face(text, extra, alphabet=BYTES, pretokenizer=pretokenizer)


@pytest.mark.shared_data
@pytest.mark.parametrize("pretokenizer", [None, "whitespace"])
@pytest.mark.parametrize("minimum_pair_frequency", [1, 2])
def test_huggingface_rule_on_the_verdict(pretokenizer, minimum_pair_frequency):
    text = shared_file("the-verdict.txt").read_text(encoding="utf-8")
    if pretokenizer is None:
        text = text[:6_000]  # whole text as one sequence, min frequency 1: every merge is a tie
    ours = assert_like_hugging_face(
        text, 1_000, pretokenizer=pretokenizer, minimum_pair_frequency=minimum_pair_frequency
    )
    assert len(ours) > 300


def test_lexicographic_greatest_takes_the_greatest_pair_of_strings():
    assert merges("dcba abcd", 3, tie_rule=LEXICOGRAPHIC_GREATEST) == [("d", "c"), ("dc", "b"), ("dcb", "a")]


@pytest.mark.parametrize("engine", ["reference", "fast"])
def test_lexicographic_greatest_compares_characters_by_their_utf8_bytes(engine):
    # 'é' (0xC3 0xA9) is above every ASCII letter: (é, a), (a, ' '), (' ', z), (z, a) all occur once
    steps, _ = run("éa za", 1, engine=engine, tie_rule=LEXICOGRAPHIC_GREATEST, top_k=50)
    assert steps[0].pair == ("é", "a")
    assert [pair for pair, _ in steps[0].top_pairs] == [("é", "a"), ("z", "a"), ("a", " "), (" ", "z")]
    # a token sorts above its own prefix, as its bytes do: ('ab', 'c') > ('a', 'bc')
    assert sorted([("a", "bc"), ("ab", "c")], key=lambda p: (descending_key(p[0]), descending_key(p[1]))) == [
        ("ab", "c"),
        ("a", "bc"),
    ]


def test_descending_keys_order_tokens_from_the_greatest():
    tokens = ["s", "st", "es", "é", "z", "", "a", "ab"]
    assert sorted(tokens, key=descending_key) == sorted(tokens, key=lambda t: t.encode(), reverse=True)
    byte_tokens = [bytes([value]) for value in (0, 1, 255, 128)] + [b"\x00\x00", b"\xff\x00"]
    assert sorted(byte_tokens, key=descending_key) == sorted(byte_tokens, reverse=True)
