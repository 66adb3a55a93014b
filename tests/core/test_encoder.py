"""The rank encoder returns exactly what replaying the merges in order returns."""

import pytest
from helpers import MAX_EXAMPLES, shared_file
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe import BPETokenizer
from bpe.encoder import (
    BUCKETS_FROM,
    SPINE_BUDGET_BASE,
    CodePointEncoder,
    MergeTriples,
    RankEncoder,
    joinable_pairs,
    replay_merges,
)


@st.composite
def merge_lists(draw):
    """Random merge lists over 'abc' whose halves always exist, duplicates allowed: with a
    set vocabulary a later merge may re-create an existing string ('a'+'bc' after 'ab'+'c')."""
    tokens = ["a", "b", "c"]
    merges = []
    for _ in range(draw(st.integers(0, 12))):
        left = draw(st.sampled_from(tokens))
        right = draw(st.sampled_from(tokens))
        merges.append((left, right))
        if left + right not in tokens:
            tokens.append(left + right)
    return merges


def merges_as_ids(tok):
    return [(tok.stoi[left], tok.stoi[right], tok.stoi[left + right]) for left, right in tok.merges]


def encode_both_ways(merges, text):
    tok = BPETokenizer(["a", "b", "c"], merges)
    ids = [tok.stoi[ch] for ch in text]
    encoder = RankEncoder(merges_as_ids(tok))
    return tok, encoder._encode_with_heap(ids), encoder.encode_many([ids])[0]


@settings(max_examples=MAX_EXAMPLES * 3, deadline=None)
@given(merges=merge_lists(), text=st.text(alphabet="abc", min_size=2, max_size=40))
def test_heap_and_buckets_equal_replay_for_any_merge_list(merges, text):
    tok, by_heap, by_buckets = encode_both_ways(merges, text)
    expected = replay_merges(text, merges)
    assert [tok.itos[i] for i in by_heap] == expected
    assert [tok.itos[i] for i in by_buckets] == expected


def test_recreated_token_is_merged_only_after_it_is_formed():
    # 'abc' is made twice: by ('ab','c') at rank 1 and by ('a','bc') at rank 3. The pair
    # ('abc','a') of rank 2 must not apply to an 'abc' formed at rank 3.
    merges = [("a", "b"), ("ab", "c"), ("abc", "a"), ("b", "c"), ("a", "bc")]
    text = "abca" + "abca"[0] + "bca"
    tok, by_heap, by_buckets = encode_both_ways(merges, text)
    expected = replay_merges(text, merges)
    assert [tok.itos[i] for i in by_heap] == expected == [tok.itos[i] for i in by_buckets]
    assert tok.vocab_size == 3 + 4  # 'abc' counted once


@pytest.mark.shared_data
def test_long_text_takes_the_bucket_path_and_equals_replay():
    text = shared_file("the-verdict.txt").read_text(encoding="utf-8")
    tok = BPETokenizer.train(text[:10_000], 300, base_tokens=sorted(set(text)))
    sample = text[10_000:16_000]
    assert len(sample) > BUCKETS_FROM
    assert tok.encode_tokens(sample) == replay_merges(sample, tok.merges)


def test_encoder_without_merges_returns_input():
    assert RankEncoder([]).encode([3, 1, 2]) == [3, 1, 2]


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(
    corpus=st.text(alphabet="ab c\n", min_size=2, max_size=80),
    text=st.text(alphabet="ab c\n", max_size=80),
    extra=st.integers(0, 30),
)
def test_tokenizer_encoding_equals_replay(corpus, text, extra):
    # BPETokenizer.encode cuts the text where no token can span and encodes the pieces
    # separately (with a cache): the result must still be the replay's.
    tok = BPETokenizer.train(corpus, 5 + extra, minimum_pair_frequency=1, base_tokens=sorted(set("ab c\n")))
    assert tok.encode_tokens(text) == replay_merges(text, tok.merges)
    assert tok.encode_tokens(text) == replay_merges(text, tok.merges)  # again, from the cache


def test_many_sequences_at_once_equal_one_by_one():
    tok = BPETokenizer.train("the cat in the hat sat on the mat " * 5, 40)
    pieces = ["the cat", "", "a", "hat on the mat", "the cat"]
    as_ids = [[tok.stoi[ch] for ch in piece] for piece in pieces]
    encoder = RankEncoder(merges_as_ids(tok))
    assert encoder.encode_many(as_ids) == [encoder.encode(ids) for ids in as_ids]


@settings(max_examples=MAX_EXAMPLES * 3, deadline=None)
@given(
    merges=merge_lists(), chunks=st.lists(st.text(alphabet="abc", max_size=30), max_size=4), replayed=st.integers(0, 13)
)
def test_code_point_encoder_equals_replay_for_any_merge_list_and_split(merges, chunks, replayed):
    # Any number of merges replayed with str.replace, the rest cut into pieces and merged
    # by rank: chunk by chunk, the result is the replay's, however the merges re-create tokens.
    tok = BPETokenizer(["a", "b", "c"], merges)
    encoder = CodePointEncoder(merges_as_ids(tok), tok.vocab_size, replayed=replayed)
    spelled = ["".join(chr(tok.stoi[ch]) for ch in chunk) for chunk in chunks]
    expected = [tok.stoi[token] for chunk in chunks for token in replay_merges(chunk, merges)]
    assert encoder.encode_chunks(spelled) == expected
    assert encoder.encode_chunks(spelled) == expected  # again, from the cache


def test_cuts_fall_between_symbols_no_later_merge_joins():
    # After 'h'+'e' and 't'+'he', only ('t','he') and what makes it can join; ' ' and 'x'
    # join nothing, so a text cuts around them.
    tok = BPETokenizer(list("the x"), [("h", "e"), ("t", "he")])
    joinable = joinable_pairs(merges_as_ids(tok), 0)
    spelled = {tuple(chr(tok.stoi[token]) for token in pair) for pair in [("h", "e"), ("t", "he"), ("t", "h")]}
    assert joinable == spelled
    assert joinable_pairs(merges_as_ids(tok), 1) == {
        (chr(tok.stoi["t"]), chr(tok.stoi["he"])),
        (chr(tok.stoi["t"]), chr(tok.stoi["h"])),
    }


def test_a_chain_of_merges_too_costly_to_cut_is_still_encoded_exactly():
    # Each merge extends the last one ('ab', 'abb', 'abbb', ... and 'b' + each): working out
    # the cuts would take quadratic time, so the encoder gives up cutting and stays exact.
    count = int(SPINE_BUDGET_BASE**0.5) + 200
    merges = [("a", "b")]
    for _ in range(count):
        merges.append(("b", merges[-1][0] + merges[-1][1]))
    tok = BPETokenizer(["a", "b"], merges)
    assert joinable_pairs(merges_as_ids(tok), 0) is None
    text = "b" * 30 + "ab" + "a"
    assert tok.encode_tokens(text) == replay_merges(text, merges)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(
    triples=st.lists(st.tuples(*[st.integers(0, 0x10FFFF)] * 3), max_size=12),
    start=st.integers(-15, 15) | st.none(),
    stop=st.integers(-15, 15) | st.none(),
)
def test_packed_merges_read_as_the_list_of_triples_they_hold(triples, start, stop):
    packed = MergeTriples(triples)
    assert len(packed) == len(triples) and list(packed) == triples
    assert [packed[i] for i in range(-len(triples), len(triples))] == triples[-len(triples) :] + triples
    assert list(packed[start:stop]) == triples[start:stop]
    with pytest.raises(IndexError):
        packed[len(triples)]
    appended = MergeTriples()
    for triple in triples:
        appended.append(*triple)
    assert list(appended) == triples
