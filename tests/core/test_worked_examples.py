"""The worked examples, with their exact merges and ids, in both engines."""

import pytest

from bpe import BPETokenizer, StopReason, train_steps
from bpe.steps import log_line

ENGINES = ["reference", "fast"]


@pytest.mark.parametrize("engine", ENGINES)
def test_low_lower_lowest(engine):
    stream = train_steps("low lower lowest", target_vocab_size=100, engine=engine, top_k=3)
    steps = list(stream)
    assert [(s.pair, s.token, s.frequency) for s in steps] == [
        (("l", "o"), "lo", 3),
        (("lo", "w"), "low", 3),
        ((" ", "low"), " low", 2),
        ((" low", "e"), " lowe", 2),
    ]
    assert [s.vocab_size for s in steps] == [9, 10, 11, 12]
    assert [s.sequence_length for s in steps] == [13, 10, 8, 6]
    assert stream.stop_reason is StopReason.BELOW_MINIMUM_FREQUENCY
    # before merge 1, ('l','o') and ('o','w') both occur 3 times: the earlier first occurrence wins
    assert steps[0].top_pairs == ((("l", "o"), 3), (("o", "w"), 3), ((" ", "l"), 2))
    assert log_line(steps[0]).startswith("Merge    1: ('l', 'o') → 'lo', frequency=3")
    tok = BPETokenizer.train("low lower lowest", 100, engine=engine)
    assert tok.tokens == [" ", "e", "l", "o", "r", "s", "t", "w", "lo", "low", " low", " lowe"]
    assert tok.encode("low lower lowest") == [9, 11, 4, 11, 5, 6]
    assert tok.encode_tokens("lowest") == ["low", "e", "s", "t"]


@pytest.mark.parametrize("engine", ENGINES)
def test_the_cat_in_the_hat(engine):
    tok = BPETokenizer.train("the cat in the hat", 100, engine=engine)
    assert tok.merges == [("t", "h"), ("th", "e"), ("the", " "), ("a", "t")]
    assert tok.encode_tokens("the cat in the hat") == ["the ", "c", "at", " ", "i", "n", " ", "the ", "h", "at"]
    assert tok.encode("the cat in the hat") == [10, 2, 11, 0, 5, 6, 0, 10, 4, 11]


@pytest.mark.parametrize("engine", ENGINES)
def test_wikipedia_aaabdaaabac(engine):
    steps = list(train_steps("aaabdaaabac", target_vocab_size=100, engine=engine))
    # ('a','a') counts 4: 'aaa' holds two overlapping pairs, twice
    assert [(s.pair, s.frequency, s.sequence_length) for s in steps] == [
        (("a", "a"), 4, 9),
        (("aa", "a"), 2, 7),
        (("aaa", "b"), 2, 5),
    ]
    tok = BPETokenizer.train("aaabdaaabac", 100, engine=engine)
    assert tok.encode("aaabdaaabac") == [6, 3, 6, 0, 2]  # aaab d aaab a c


@pytest.mark.parametrize("engine", ENGINES)
def test_overlapping_run_merges_left_to_right(engine):
    steps = list(train_steps("aaaaa", target_vocab_size=100, engine=engine))
    assert [(s.pair, s.frequency, s.sequence_length) for s in steps] == [(("a", "a"), 4, 3)]
    # largest change first; equal changes in pair order
    assert steps[0].count_changes == ((("a", "a"), -4), (("aa", "a"), 1), (("aa", "aa"), 1))
    tok = BPETokenizer.train("aaaaa", 100, engine=engine)
    assert tok.encode_tokens("aaaaa") == ["aa", "aa", "a"]
    assert tok.encode("aaaaa") == [1, 1, 0]


@pytest.mark.parametrize("engine", ENGINES)
def test_stop_reasons(engine):
    target = train_steps("abababab", target_vocab_size=3, engine=engine)
    assert len(list(target)) == 1 and target.stop_reason is StopReason.TARGET_REACHED
    nothing_left = train_steps("abab", target_vocab_size=100, minimum_pair_frequency=1, engine=engine)
    assert [s.token for s in nothing_left] == ["ab", "abab"]
    assert nothing_left.stop_reason is StopReason.NO_PAIRS_LEFT
    assert "no adjacent pair" in nothing_left.explain_stop()


def test_verbose_prints_the_tutorial_log(capsys):
    BPETokenizer.train("low lower lowest", 100, verbose=True)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Merge    1: ('l', 'o') → 'lo', frequency=3, sequence length=13, vocab size=9"
    assert len(out) == 5 and out[-1].startswith("Stopped after 4 merges")


# The CS336 handout's worked example (assignment 1, section 2.4): whitespace
# pre-tokenization, then merges that break ties toward the lexicographically greater
# pair ("es" and "st" tie at 9, and ('s', 't') > ('e', 's')).
HANDOUT_TEXT = "low low low low low lower lower widest widest widest newest newest newest newest newest newest"


@pytest.mark.parametrize("engine", ENGINES)
def test_the_cs336_handouts_six_merges_with_ties_to_the_greater_pair(engine):
    steps = list(
        train_steps(
            HANDOUT_TEXT,
            target_vocab_size=256 + 6,
            alphabet="bytes",
            pretokenizer="whitespace",
            tie_rule="lexicographic_greatest",
            minimum_pair_frequency=1,
            engine=engine,
        )
    )
    assert [(s.pair[0] + b" " + s.pair[1]).decode() for s in steps] == [
        "s t",
        "e st",
        "o w",
        "l ow",
        "w est",
        "n e",
    ]
    # the first tie: ('e','s') and ('s','t') both occur 9 times; the greater pair wins
    assert steps[0].frequency == 9 and steps[0].top_pairs[:2] == (((b"s", b"t"), 9), ((b"e", b"s"), 9))
