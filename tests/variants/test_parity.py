"""Parity-aware BPE against loops written out here: the standard rule must be the reference
engine on the languages' chunks laid end to end; the parity rule a plain recount-everything
loop that serves the worst-compressed language."""

from __future__ import annotations

from collections import Counter
from functools import cmp_to_key

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe.alphabet import BYTES, CHARACTERS, default_base_tokens
from bpe.corpora.builtin import LIGHTHOUSE
from bpe.errors import BpeError
from bpe.pairs import count_pairs, merge_pair
from bpe.reference import most_frequent, reference_steps
from bpe.steps import FIRST_OCCURRENCE, HUGGINGFACE, LEXICOGRAPHIC, LEXICOGRAPHIC_GREATEST, TIE_RULES, huggingface_order
from bpe.training import prepare_words
from bpe.variants.parity import PARITY, STANDARD, train_multilingual


def parity_loop(texts: dict, merges: int, *, alphabet: str, pretokenizer, minimum: int, tie_rule: str):
    """The rule as the paper states it, recounting every language's whole text every step."""
    base = default_base_tokens("".join(texts.values()), alphabet)
    hf_ids = {token: i for i, token in enumerate(huggingface_order(base))}
    as_bytes = lambda pair: tuple(t if isinstance(t, bytes) else t.encode() for t in pair)  # noqa: E731
    tie_key = {
        LEXICOGRAPHIC: lambda pair: pair,
        LEXICOGRAPHIC_GREATEST: cmp_to_key(lambda a, b: (as_bytes(a) < as_bytes(b)) - (as_bytes(a) > as_bytes(b))),
        HUGGINGFACE: lambda pair: (hf_ids[pair[0]], hf_ids[pair[1]]),
    }.get(tie_rule)
    words = {
        name: [(list(s), n) for s, n in prepare_words(text, alphabet, pretokenizer)] for name, text in texts.items()
    }
    chosen = []
    while len(chosen) < merges:
        lengths = {name: sum(len(s) * n for s, n in ws) for name, ws in words.items()}
        order = sorted(texts, key=lambda name: -lengths[name])  # stable: the first of equals first
        pick = None
        for name in order:
            counts: Counter = count_pairs(words[name])
            if counts:
                pair, count = most_frequent(counts, 1, tie_key)[0]
                if count >= minimum:
                    pick = (name, pair, count)
                    break
        if pick is None:
            break
        name, pair, count = pick
        token = pair[0] + pair[1]
        hf_ids.setdefault(token, len(hf_ids))
        words = {n: [(merge_pair(s, pair, token), f) for s, f in ws] for n, ws in words.items()}
        chosen.append((name, pair, count, tuple(sum(len(s) * f for s, f in ws) for ws in words.values())))
    return chosen


languages = st.dictionaries(
    st.sampled_from(["en", "de", "el", "zh"]),
    st.text(alphabet="ab cβ\n", min_size=1, max_size=40),
    min_size=1,
    max_size=4,
)


@settings(max_examples=150, deadline=None)
@given(
    texts=languages,
    merges=st.integers(0, 25),
    alphabet=st.sampled_from([CHARACTERS, BYTES]),
    pretokenizer=st.sampled_from([None, "whitespace"]),
    minimum=st.integers(1, 3),
    tie_rule=st.sampled_from(TIE_RULES),
)
def test_parity_rule_equals_the_plain_loop(texts, merges, alphabet, pretokenizer, minimum, tie_rule):
    run = train_multilingual(
        texts,
        merges=merges,
        rule=PARITY,
        alphabet=alphabet,
        pretokenizer=pretokenizer,
        minimum_pair_frequency=minimum,
        tie_rule=tie_rule,
    )
    expected = parity_loop(
        texts, merges, alphabet=alphabet, pretokenizer=pretokenizer, minimum=minimum, tie_rule=tie_rule
    )
    assert [(s.language, s.pair, s.frequency, s.tokens_after) for s in run.steps] == expected


@settings(max_examples=150, deadline=None)
@given(
    texts=languages,
    merges=st.integers(0, 25),
    alphabet=st.sampled_from([CHARACTERS, BYTES]),
    pretokenizer=st.sampled_from([None, "whitespace"]),
    minimum=st.integers(1, 3),
    tie_rule=st.sampled_from(TIE_RULES),
)
def test_standard_rule_is_the_reference_engine_over_all_the_texts(
    texts, merges, alphabet, pretokenizer, minimum, tie_rule
):
    run = train_multilingual(
        texts,
        merges=merges,
        rule=STANDARD,
        alphabet=alphabet,
        pretokenizer=pretokenizer,
        minimum_pair_frequency=minimum,
        tie_rule=tie_rule,
    )
    words = [word for text in texts.values() for word in prepare_words(text, alphabet, pretokenizer)]
    base = default_base_tokens("".join(texts.values()), alphabet)
    steps = list(
        reference_steps(
            words,
            base,
            target_vocab_size=10**6,
            minimum_pair_frequency=minimum,
            top_k=1,
            tie_rule=tie_rule,
        )
    )[:merges]
    assert [(s.pair, s.total_frequency) for s in run.steps] == [(s.pair, s.frequency) for s in steps]
    if run.steps:  # the total token count is the reference's sequence length
        assert sum(run.steps[-1].tokens_after) == steps[len(run.steps) - 1].sequence_length


@settings(max_examples=60, deadline=None)
@given(texts=languages, merges=st.integers(0, 30), rule=st.sampled_from([PARITY, STANDARD]))
def test_the_shared_tokenizer_round_trips_and_counts_what_training_counted(texts, merges, rule):
    run = train_multilingual(texts, merges=merges, rule=rule, alphabet=BYTES)
    tokenizer = run.tokenizer()
    for index, (name, text) in enumerate(texts.items()):
        ids = tokenizer.encode(text)
        assert tokenizer.decode(ids) == text
        assert len(ids) == run.tokens_after(len(run.steps))[index], name


def lighthouse() -> dict[str, str]:
    return {language: text for language, text in LIGHTHOUSE.values()}


def test_on_the_lighthouse_paragraphs_parity_evens_out_the_languages_and_keeps_the_total():
    texts = lighthouse()
    standard = train_multilingual(texts, merges=300, rule=STANDARD)
    parity = train_multilingual(texts, merges=300, rule=PARITY)
    spread = {run.rule: max(run.tokens_after(300)) / min(run.tokens_after(300)) for run in (standard, parity)}
    totals = {run.rule: sum(run.tokens_after(300)) for run in (standard, parity)}
    assert spread[PARITY] < spread[STANDARD] - 0.3  # 1.9x the cheapest language falls to about 1.3x
    assert abs(totals[PARITY] - totals[STANDARD]) / totals[STANDARD] < 0.05  # the total barely moves
    served = Counter(step.language for step in parity.steps)
    assert len(served) > len(texts) // 2  # the merges go round the languages, not to one script


def test_worked_example_serves_whichever_language_is_longest_now():
    # el (6 tokens) is served first and falls to 3; then en (4) is the longest
    run = train_multilingual({"en": "aaaa", "el": "ββββββ"}, merges=3, alphabet=CHARACTERS)
    assert [(s.language, s.pair) for s in run.steps] == [("el", ("β", "β")), ("en", ("a", "a")), ("el", ("ββ", "ββ"))]
    assert [run.tokens_after(n) for n in range(4)] == [(4, 6), (4, 3), (2, 3), (2, 2)]


@pytest.mark.parametrize(
    ("texts", "fields", "message"),
    [
        ({}, {}, "at least one language"),
        ({"en": "abc", "de": ""}, {}, "'de' is empty"),
        ({"en": "abc"}, {"merges": -1}, "merges=-1"),
        ({"en": "abc"}, {"merges": 10**12}, "merges=1,000,000,000,000"),
        ({"en": "abc"}, {"rule": "fair"}, "rule='fair'"),
        ({"en": "abc"}, {"minimum_pair_frequency": 0}, "minimum_pair_frequency=0"),
        ({"en": "abc"}, {"tie_rule": "random"}, "random"),
    ],
)
def test_bad_settings_are_one_line_errors(texts, fields, message):
    with pytest.raises(BpeError, match=message):
        train_multilingual(texts, **{"merges": 3, **fields})


def test_first_occurrence_is_the_default_tie_rule():
    assert train_multilingual({"en": "ab"}, merges=0).tie_rule == FIRST_OCCURRENCE
