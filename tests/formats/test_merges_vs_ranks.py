"""Merges vs ranks: the cases a format cannot hold are found, listed with example texts, and the
pure-Python readers agree with the real libraries on them."""

from __future__ import annotations

import pytest
from helpers import MAX_EXAMPLES
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe.formats import as_library_reads, demonstrations, export_and_prove, merges_vs_ranks
from bpe.formats.merges_vs_ranks import other_splits, recreations
from bpe.tokenizer import BPETokenizer

BYTES = [bytes([value]) for value in range(256)]
TWO_SPLITS = ((b"a", b"n"), (b"n", b"d"), (b"a", b"nd"))
RE_CREATION = ((b"z", b"z"), (b"z", b"zz"), (b"b", b"zzz"), (b"zz", b"z"))


def _lab(merges, pretokenizer=None) -> BPETokenizer:
    return BPETokenizer(BYTES, merges, alphabet="bytes", pretokenizer=pretokenizer)


def test_a_token_reachable_by_two_splits_encodes_differently_in_tiktoken_only():
    lab = _lab(TWO_SPLITS)
    assert [s.token for s in other_splits(lab)] == [b"and"]
    assert lab.encode_tokens("and") == [b"an", b"d"]
    assert as_library_reads(lab, "tiktoken").encode_tokens("and") == [b"and"]
    assert as_library_reads(lab, "hf").encode_tokens("and") == [b"an", b"d"]
    lesson = merges_vs_ranks(_lab(TWO_SPLITS, "gpt2"), "tiktoken", sample_text="a band and sand and")
    assert not lesson.exact and lesson.other_split_count == 1
    assert (lesson.chunks_checked, lesson.chunks_differing, lesson.occurrences_differing) == (4, 3, 4)
    assert {(e.text, e.count) for e in lesson.examples if e.source == "sample"} == {
        (" and", 2),
        (" band", 1),
        (" sand", 1),
    }
    assert lesson.examples[0].text == " and"  # the most frequent first
    assert any("'and'" in line and "lab 'an' 'd'" in line for line in lesson.lines())
    assert merges_vs_ranks(lab, "hf").exact and merges_vs_ranks(lab, "minbpe").exact


def test_a_merge_that_re_creates_a_token_is_listed_for_every_format():
    lab = _lab(RE_CREATION)
    found = recreations(lab)
    assert [(r.number, r.token, r.first_number) for r in found] == [(4, b"zzz", 2)]
    assert lab.vocab_size == 259  # the set vocabulary: 'zzz' once
    for fmt in ("hf", "tiktoken", "minbpe"):
        lesson = merges_vs_ranks(lab, fmt, sample_text="bzzz zzz")
        assert lesson.recreations and not lesson.exact
        assert lesson.examples, fmt
        assert "merge 4 'zz' + 'z' re-creates 'zzz' (made first by merge 2 'z' + 'zz')" in lesson.lines()[1]
    assert merges_vs_ranks(lab, "minbpe").left_out == (4,)


@pytest.mark.parametrize("fmt", ["hf", "tiktoken"])
@pytest.mark.parametrize("merges", [TWO_SPLITS, RE_CREATION], ids=["two-splits", "re-creation"])
def test_the_readers_agree_with_the_real_libraries(tmp_path, monkeypatch, fmt, merges):
    pytest.importorskip("tokenizers" if fmt == "hf" else "tiktoken")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "cache"))
    from bpe.formats.roundtrip import library_encoder

    lab = _lab(merges)
    path = tmp_path / ("tokenizer.json" if fmt == "hf" else "demo.tiktoken")
    report = export_and_prove(lab, fmt, path, check_text="band and bzzz zzz")
    library, _, _ = library_encoder(fmt, path)
    reader = as_library_reads(lab, fmt)
    for text in ("and", "band", "bzzz", "zzz", "bzzzz and zzzz", "anand bbzzz"):
        assert reader.encode(text) == library(text), (fmt, text)
    differs = any(reader.encode(t) != lab.encode(t) for t in ("and", "band", "bzzz"))
    assert report.proof.identical is not differs
    if differs:
        assert report.proof.line.startswith("first difference in 'held-out text' at character ")


def test_demonstrations_show_each_library():
    split_case, recreation_case = demonstrations()
    lab, hf, tiktoken, minbpe = split_case.results.values()
    assert (lab["and"], hf["and"], tiktoken["and"], minbpe["and"]) == (
        (b"an", b"d"),
        (b"an", b"d"),
        (b"and",),
        (b"an", b"d"),
    )
    lab, hf, tiktoken, minbpe = recreation_case.results.values()
    assert (lab["bzzz"], hf["bzzz"], tiktoken["bzzz"], minbpe["bzzz"]) == (
        (b"b", b"zzz"),
        (b"bzzz",),
        (b"bzzz",),
        (b"b", b"zz", b"z"),
    )
    assert recreation_case.lines()[0].startswith("A merge that re-creates a token: merges 1: 'z' + 'z'")


@pytest.mark.shared_data
def test_a_tokenizer_trained_here_is_exact_for_pair_formats(wiki_trained, wikitext):
    tokenizer = wiki_trained("bytes", "gpt2")
    assert not recreations(tokenizer)
    assert merges_vs_ranks(tokenizer, "hf").exact and merges_vs_ranks(tokenizer, "minbpe").exact
    lesson = merges_vs_ranks(tokenizer, "tiktoken", sample_text=wikitext[1])
    assert lesson.other_split_count > 0  # ' the' is ' t' + 'he' and ' ' + 'the' ...
    assert lesson.chunks_checked > 1000 and lesson.tokens_checked > 1000
    assert not lesson.examples  # ... yet no text encodes differently (training keeps merges consistent)
    assert "no text found that encodes differently" in lesson.summary()


def test_character_tokenizers_have_a_lesson_for_hf_only(trained):
    from bpe.formats import NotByteLevelError

    tokenizer = trained("characters", None)
    assert merges_vs_ranks(tokenizer, "hf").exact
    with pytest.raises(NotByteLevelError, match="tiktoken works on bytes"):
        merges_vs_ranks(tokenizer, "tiktoken")


# ==================== The pure-Python rules against the libraries, on any merge list


@st.composite
def _merge_lists(draw):
    tokens = ["a", "b", "c"]
    merges = []
    for left_index, right_index in draw(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), max_size=10)):
        left, right = tokens[left_index % len(tokens)], tokens[right_index % len(tokens)]
        if len(left + right) <= 5:
            merges.append([left, right])
            if left + right not in tokens:
                tokens.append(left + right)
    return tokens, draw(st.permutations(merges)) if draw(st.booleans()) else merges


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(
    vocab_merges=_merge_lists(),
    ignore_merges=st.booleans(),
    texts=st.lists(st.text(alphabet="abc", min_size=1, max_size=300), min_size=1, max_size=5),
)
def test_the_hugging_face_rule_equals_tokenizers_on_any_merge_list(vocab_merges, ignore_merges, texts):
    """Re-created tokens, pairs listed twice, ranks out of order: `tokenizers` and our reader agree."""
    import json

    tokenizers = pytest.importorskip("tokenizers")
    from bpe.formats import hf_from_bytes

    tokens, merges = vocab_merges
    data = {
        "model": {
            "type": "BPE",
            "vocab": {t: i for i, t in enumerate(tokens)},
            "merges": merges,
            "ignore_merges": ignore_merges,
        },
        "pre_tokenizer": None,
    }
    library = tokenizers.Tokenizer.from_str(
        json.dumps({"version": "1.0", "added_tokens": [], **data, "model": {**data["model"], "dropout": None}})
    )
    ours = hf_from_bytes(json.dumps(data).encode())
    for text in texts:
        assert ours.encode(text) == library.encode(text, add_special_tokens=False).ids, (merges, text)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(
    extra=st.lists(st.text(alphabet="abc", min_size=2, max_size=5), unique=True, max_size=12),
    texts=st.lists(st.text(alphabet="abc", min_size=1, max_size=300), min_size=1, max_size=5),
)
def test_the_tiktoken_rule_equals_tiktoken_on_any_ranks(extra, texts):
    import base64

    tiktoken = pytest.importorskip("tiktoken")
    from bpe.formats import tiktoken_from_bytes

    ranks = {bytes([value]): value for value in range(256)}
    for token in extra:
        ranks[token.encode()] = len(ranks)
    raw = b"".join(base64.b64encode(t) + b" " + str(r).encode() + b"\n" for t, r in ranks.items())
    ours = tiktoken_from_bytes(raw, pattern="none")
    library = tiktoken.Encoding("fuzz", pat_str=r"[\s\S]+", mergeable_ranks=ranks, special_tokens={})
    for text in texts:
        assert ours.encode(text) == library.encode_ordinary(text), (extra, text)
