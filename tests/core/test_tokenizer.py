"""BPETokenizer: round trips, prefixes, and bad input named clearly."""

import pytest
from helpers import MAX_EXAMPLES
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe import BpeError, BPETokenizer, TrainingSettings, UnknownSymbolsError, train_run, train_steps
from bpe.scale.run_file import MAX_PAIRS_PER_STEP
from bpe.training import MAX_TOP_K, MAX_VOCAB_SIZE, check_vocab_size


def merges_for_vocab_size(base_tokens, merges, vocab_size: int) -> int:
    """How many leading merges keep the vocabulary at or under ``vocab_size`` tokens, spelled
    out merge by merge: the oracle for `TrainingRun.merge_count`'s bisection."""
    check_vocab_size(base_tokens, vocab_size)
    known = set(base_tokens)
    size = len(known)
    for count, (left, right) in enumerate(merges):
        token = left + right
        if token not in known:
            if size + 1 > vocab_size:
                return count
            known.add(token)
            size += 1
    return len(merges)


CORPUS = "the quick brown fox jumps over the lazy dog; the dog naps.\nThe end.\r\n"


@pytest.fixture(scope="module")
def tok():
    return BPETokenizer.train(CORPUS * 3, 80)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(st.text(alphabet=sorted(set(CORPUS)), max_size=200))
def test_round_trip_for_any_text_the_alphabet_covers(tok, text):
    assert tok.decode(tok.encode(text)) == text


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(st.text(max_size=100), st.sampled_from([None, "gpt2", "gpt4", "whitespace"]))
def test_byte_alphabet_round_trips_any_unicode(text, pretokenizer):
    tok = BPETokenizer.train("héllo wörld 😀 日本語 e\u0301 \r\n" * 4, 300, alphabet="bytes", pretokenizer=pretokenizer)
    assert tok.decode(tok.encode(text)) == text
    assert tok.decode_bytes(tok.encode(text)) == text.encode("utf-8")


def test_empty_text_encodes_to_nothing(tok):
    assert tok.encode("") == [] and tok.decode([]) == ""


def test_unknown_characters_are_listed_from_every_chunk_of_the_text():
    """Split by a pre-tokenizer, the text is checked whole: 'ΑΒΓ' and 'αβγ' are two chunks,
    and the message names the six characters, not the first chunk's three."""
    split = BPETokenizer.train("hello world " * 50, 40, pretokenizer="gpt2")
    with pytest.raises(UnknownSymbolsError, match=r"6 characters outside the tokenizer's alphabet: 'Α', 'Β', 'Γ', 'α'"):
        split.encode("hello ΑΒΓ αβγ")


def test_unknown_characters_are_listed_sorted(tok):
    with pytest.raises(UnknownSymbolsError, match=r"2 characters outside the tokenizer's alphabet: 'Z', 'é'") as info:
        tok.encode("the éZé")
    assert info.value.symbols == ["Z", "é"]


def test_unknown_id_is_named(tok):
    with pytest.raises(BpeError, match=r"unknown token id 999: ids run from 0 to 79"):
        tok.decode([1, 999])


def test_prefix_equals_a_shorter_training_run():
    big = BPETokenizer.train(CORPUS * 3, 90)
    small = BPETokenizer.train(CORPUS * 3, 60)
    assert big.with_merges(merges_for_vocab_size(big.base_tokens, big.merges, 60)) == small
    assert big.with_merges(merges_for_vocab_size(big.base_tokens, big.merges, 60)).encode(CORPUS) == small.encode(
        CORPUS
    )


@pytest.mark.parametrize(
    "text,vocab,message",
    [
        ("", 10, "the training text is empty"),
        ("abc", 2, r"target_vocab_size=2 is smaller than the alphabet \(3 base tokens\): choose at least 3"),
        ("abc", 0, r"target_vocab_size=0 must be a positive whole number"),
        ("abc", 5.5, r"target_vocab_size=5.5 must be a positive whole number"),
    ],
)
def test_bad_training_settings(text, vocab, message):
    with pytest.raises(BpeError, match=message):
        BPETokenizer.train(text, vocab)


def test_bad_engine_min_freq_and_alphabet():
    with pytest.raises(BpeError, match="unknown engine 'turbo'"):
        train_steps("abc", target_vocab_size=5, engine="turbo")
    with pytest.raises(BpeError, match="minimum_pair_frequency=0"):
        train_steps("abc", target_vocab_size=5, minimum_pair_frequency=0)
    with pytest.raises(BpeError, match="unknown alphabet 'words'"):
        train_steps("abc", target_vocab_size=5, alphabet="words")


@pytest.mark.parametrize("size", [2**31, 10**20])
def test_a_vocab_size_past_the_bound_is_one_line_not_an_overflow(size):
    # the fast engine keeps ids in C ints: 2**31 used to overflow them (OverflowError)
    message = rf"target_vocab_size={size} is more than the 1,000,000 tokens a vocabulary may hold"
    with pytest.raises(BpeError, match=message):
        BPETokenizer.train("low lower lowest " * 20, size)
    with pytest.raises(BpeError, match=message):
        list(train_steps("low lower lowest " * 20, target_vocab_size=size))
    assert TrainingSettings(target_vocab_size=MAX_VOCAB_SIZE).target_vocab_size == MAX_VOCAB_SIZE


def test_a_vocab_size_of_thousands_of_digits_is_named_by_its_size():
    with pytest.raises(BpeError, match=r"^target_vocab_size=<a number of about 5,000 digits> is more than"):
        TrainingSettings(target_vocab_size=10**5000)


def test_top_k_is_bounded_by_what_a_run_file_holds():
    assert TrainingSettings(target_vocab_size=300, top_k=MAX_TOP_K).top_k == MAX_TOP_K == MAX_PAIRS_PER_STEP
    with pytest.raises(BpeError, match=r"^top_k=101 must be a whole number from 0 to 100$"):
        train_run("low lower lowest " * 20, target_vocab_size=200, top_k=101)
    with pytest.raises(BpeError, match=r"^top_k=1000000000 must be"):
        TrainingSettings(target_vocab_size=300, top_k=10**9)


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("engine", ["fast"], r"^unknown engine \['fast'\] \(list\): choose one of reference, fast$"),
        ("engine", {"fast": 1}, r"^unknown engine \{'fast': 1\} \(dict\)"),
        ("pretokenizer", ["gpt2"], r"^pretokenizer=\['gpt2'\] is a list: give None, 'none', 'whitespace', 'gpt2'"),
        ("pretokenizer", b"gpt2", r"^pretokenizer=b'gpt2' is a bytes"),
    ],
)
def test_a_setting_of_the_wrong_type_says_what_was_given(field, value, message):
    with pytest.raises(BpeError, match=message):
        BPETokenizer.train("low lower lowest newer wider " * 20, 50, **{field: value})


@pytest.mark.parametrize(
    "ids, message",
    [
        (None, r"got None \(a NoneType\)"),
        (5, r"got 5 \(a int\)"),
        ("12", r"got the str '12'"),
        (b"\x01", r"got the bytes b'\\x01'"),
        ([1.0], r"^token id 1.0 \(a float, at position 0\) is not a whole number"),
        ([0, 1, True], r"^token id True \(a bool, at position 2\) is not a whole number"),
        ([[1]], r"token id \[1\] \(a list"),
        ([10**5000], r"^unknown token id <a number of about 5,000 digits>: ids run from 0 to"),
    ],
)
@pytest.mark.parametrize("alphabet", ["characters", "bytes"])
def test_decode_refuses_what_is_not_a_list_of_ids(ids, message, alphabet):
    tok = BPETokenizer.train(
        "low lower lowest newer wider " * 20, 40 if alphabet == "characters" else 260, alphabet=alphabet
    )
    with pytest.raises(BpeError, match=message):
        tok.decode(ids)
    with pytest.raises(BpeError, match=message):
        tok.decode_bytes(ids)


def test_decode_takes_ints_from_any_iterable_and_int_like_values():
    tok = BPETokenizer.train("low lower lowest newer wider " * 20, 40)
    ids = tok.encode("lower")
    assert tok.decode(iter(ids)) == tok.decode(tuple(ids)) == "lower"
    assert tok.decode([IntLike(i) for i in ids]) == "lower"  # has __index__, as numpy's integers do


class IntLike:
    def __init__(self, value: int) -> None:
        self.value = value

    def __index__(self) -> int:
        return self.value


def test_base_tokens_must_cover_the_training_text():
    with pytest.raises(UnknownSymbolsError, match=r"the training text has 2 characters.*'c', 'd'"):
        BPETokenizer.train("abcd", 10, base_tokens=["a", "b"])


def test_given_base_tokens_set_the_ids():
    tok = BPETokenizer.train("abab", 4, base_tokens=["b", "a", "z"])
    assert tok.tokens == ["b", "a", "z", "ab"]


@pytest.mark.parametrize(
    "merges,message",
    [
        ([("a", "x")], r"merge 1 \('a', 'x'\) uses 'x', which is neither a base token"),
        ([("a",)], r"merge 1 is \('a',\): each merge must be a pair"),
        (["ab"], r"merge 1 is 'ab': each merge must be a pair"),
        ([("a", "")], r"both halves must be non-empty"),
    ],
)
def test_constructor_names_bad_merges(merges, message):
    with pytest.raises(BpeError, match=message):
        BPETokenizer(["a", "b"], merges)


def test_constructor_rejects_bad_base_tokens():
    with pytest.raises(BpeError, match=r"lists \['a'\] more than once"):
        BPETokenizer(["a", "b", "a"], [])
    with pytest.raises(BpeError, match="is not one of the single characters"):
        BPETokenizer(["ab"], [])


def test_custom_pretokenizer_that_skips_text_is_refused():
    with pytest.raises(BpeError, match="does not cover the whole text"):
        BPETokenizer.train("ab cd", 10, pretokenizer=r"\w+")
    with pytest.raises(BpeError, match="does not compile"):
        BPETokenizer.train("ab cd", 10, pretokenizer=r"(")


def test_pretokenized_merges_never_cross_chunks():
    tok = BPETokenizer.train("aa aa aa aa", 20, minimum_pair_frequency=1, pretokenizer="gpt2")
    assert all(not (" " in t and t.strip() and not t.startswith(" ")) for t in tok.tokens)
    assert "a a" not in tok.tokens and tok.encode_tokens("aa aa") == ["aa", " aa"]


def test_the_trained_tokenizer_and_gpt2_satisfy_the_tokenizer_protocol():
    from bpe import GPT2Tokenizer, Tokenizer
    from bpe.gpt2.files import GPT2Vocabulary

    trained = BPETokenizer.train("low lower lowest", 12, 1)
    gpt2_like = GPT2Tokenizer(GPT2Vocabulary([bytes([b]) for b in range(256)] + [b"lo"], [(b"l", b"o")], {}))
    for tokenizer in (trained, gpt2_like, trained.with_merges(1), gpt2_like.with_merges(0)):
        assert isinstance(tokenizer, Tokenizer)
        assert tokenizer.decode(tokenizer.encode("low")) == "low"
    assert not isinstance("not a tokenizer", Tokenizer)


# ==================== Settings given as the tutorial gives them


def test_the_target_vocab_size_may_come_first_as_in_the_tutorial():
    text = "low lower lowest " * 5
    by_keyword = [step.pair for step in train_steps(text, target_vocab_size=12)]
    assert [step.pair for step in train_steps(text, 12)] == by_keyword
    assert [step.pair for step in train_steps(text, 12, engine="reference")] == by_keyword
    assert train_run(text, 12).merges == train_run(text, TrainingSettings(target_vocab_size=12)).merges


@pytest.mark.parametrize(
    "settings, fields, message",
    [
        (12, {"target_vocab_size": 20}, "given twice: 12 and target_vocab_size=20"),
        ("300", {}, "got str '300'; write for example target_vocab_size=300"),
        (3.5, {}, "got float 3.5"),
        (
            TrainingSettings(target_vocab_size=9),
            {"top_k": 0},
            r"not both \(got the settings and top_k=0\); write dataclasses.replace\(settings, top_k=0\)",
        ),
    ],
)
def test_settings_given_wrongly_say_what_was_given_and_what_to_write(settings, fields, message):
    with pytest.raises(BpeError, match=message):
        train_steps("low lower lowest", settings, **fields)


def test_a_runs_prefix_tokenizers_share_its_token_strings():
    # A run's tokens may be long (up to the bound on their characters): a tokenizer per
    # prefix that spelled each out again would multiply what the run holds.
    from bpe.run import train_run

    run = train_run("abcdefghij" * 3, target_vocab_size=40, minimum_pair_frequency=1)
    for merges in (len(run.steps) - 1, len(run.steps)):
        tokenizer = run.tokenizer(merges=merges)
        learned = tokenizer.tokens[len(run.base_tokens) :]
        assert all(any(token is step.token for step in run.steps) for token in learned)
        assert tokenizer == BPETokenizer(run.base_tokens, run.merges[:merges])  # the same tokenizer as ever


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(text=st.text(alphabet="abc ", min_size=2, max_size=120), top=st.integers(4, 60))
def test_a_runs_merge_count_is_the_tokenizers_for_every_vocab_size(text, top):
    """`TrainingRun.merge_count` reads the vocab size after each merge; it agrees with
    `merges_for_vocab_size`, which spells the merges out, also where a merge makes a token
    that exists already ('a'+'bc' after 'ab'+'c') and the vocabulary does not grow."""
    from bpe.scale.chunk_counts import count_text
    from bpe.scale.merge_phase import train_run_from_counts

    listed = train_run(text, target_vocab_size=top, minimum_pair_frequency=1)
    recorded = train_run_from_counts(
        count_text(text, alphabet="characters", pretokenizer=None), target_vocab_size=top, minimum_pair_frequency=1
    )
    for run in (listed, recorded):
        for vocab_size in range(len(run.base_tokens), top + 3):
            assert run.merge_count(vocab_size) == merges_for_vocab_size(run.base_tokens, run.merges, vocab_size)
        with pytest.raises(BpeError, match="smaller than the alphabet"):
            run.merge_count(len(run.base_tokens) - 1)


def test_a_trained_tokenizer_keeps_the_engines_pairs_and_tokens_not_copies():
    # (what a tokenizer of 50,000 merges holds beside the training's own strings: 6 MB)
    tok = BPETokenizer.train("low lower lowest " * 20, 40, pretokenizer="whitespace")
    halves = [half for pair in tok.merges for half in pair if len(half) > 1]  # made by an earlier merge
    assert halves and all(half is tok.tokens[tok.stoi[half]] for half in halves)
    pair = ("l", "o")
    assert BPETokenizer(list("lowerst "), [pair]).merges[0] is pair
