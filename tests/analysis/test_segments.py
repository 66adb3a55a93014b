"""bpe.analysis.segments: a window of text before and after one merge, and what the merge touched."""

import pytest

from bpe.analysis.segments import Segment, merged_count, segment, step_segments, window, window_around
from bpe.errors import BpeError
from bpe.run import train_run


def tokens(segments):
    return [s.token for s in segments]


def test_wikipedia_example_first_merge_marks_both_halves_and_the_new_token():
    run = train_run("aaabdaaabac", target_vocab_size=20, minimum_pair_frequency=1)
    before, after = step_segments(run.tokenizer(merges=0), "aaabdaaabac", run.steps[0])
    assert tokens(before) == list("aaabdaaabac")
    assert [s.mark for s in before[:4]] == ["left", "right", None, None]  # "aa" + "a": no overlap
    assert tokens(after) == ["aa", "a", "b", "d", "aa", "a", "b", "a", "c"]
    assert [s.token_id for s in after if s.mark == "merged"] == [run.steps[0].token_id] * 2
    assert merged_count(after) == 2


def test_overlapping_pairs_merge_left_to_right():
    run = train_run("aaaaa", target_vocab_size=10, minimum_pair_frequency=1)
    _, after = step_segments(run.tokenizer(merges=0), "aaaaa", run.steps[0])
    assert tokens(after) == ["aa", "aa", "a"]
    assert [s.mark for s in after] == ["merged", "merged", None]


@pytest.mark.parametrize("alphabet", ["characters", "bytes"])
@pytest.mark.parametrize("pretokenizer", [None, "whitespace", "gpt2"])
def test_after_equals_the_next_prefix_tokenizer(alphabet, pretokenizer):
    text = "the cat in the hat sat on the mat; the hat is flat. Ça coûte 5 €\n" * 3
    run = train_run(
        text,
        target_vocab_size=290 if alphabet == "bytes" else 60,
        minimum_pair_frequency=1,
        alphabet=alphabet,
        pretokenizer=pretokenizer,
    )
    piece = text[7:150]
    for step in run.steps[:25]:
        before, after = step_segments(run.tokenizer(merges=step.number - 1), piece, step)
        assert tokens(before) == tokens(segment(run.tokenizer(merges=step.number - 1), piece))
        assert [(s.token, s.token_id) for s in after] == [
            (s.token, s.token_id) for s in segment(run.tokenizer(merges=step.number), piece)
        ]


def test_run_tokenizer_after_merges_ids_agree_across_prefixes():
    run = train_run("low lower lowest", target_vocab_size=30, minimum_pair_frequency=1)
    small, large = run.tokenizer(merges=1), run.tokenizer(merges=len(run.steps))
    assert all(large.stoi[token] == i for i, token in small.itos.items())


def test_run_tokenizer_after_merges_refuses_a_count_past_the_run():
    run = train_run("low lower lowest", target_vocab_size=30, minimum_pair_frequency=1)
    with pytest.raises(BpeError, match=f"merges=99 is out of range: there are {len(run.steps)} merges"):
        run.tokenizer(merges=99)


@pytest.mark.parametrize("start, expected", [(0, "abc"), (4, "efg"), (99, "hij"), (-5, "abc")])
def test_window_is_clamped_inside_the_text(start, expected):
    assert window("abcdefghij", start, 3) == expected


def test_window_of_a_short_text_is_the_whole_text():
    assert window("ab", 5, 10) == "ab"


def test_segment_is_unmarked():
    run = train_run("low lower lowest", target_vocab_size=30, minimum_pair_frequency=1)
    assert all(s.mark is None for s in segment(run.tokenizer(), "low"))
    assert segment(run.tokenizer(), "") == []
    assert Segment("a", 1).mark is None


@pytest.mark.parametrize("token", ["needle", b"needle"], ids=["str", "bytes"])
def test_window_around_shows_the_first_occurrence(token):
    text = "é" * 50 + "\nshort line with needle\n" + "x" * 500 + " needle"
    start = window_around(text, token, 40)
    assert start == 51 and "needle" in window(text, start, 40)  # from the start of its line
    long_line = "y" * 300 + "needle"
    assert window_around(long_line, token, 60) == 280 and "needle" in window(long_line, 280, 60)
    assert window_around("nothing here", token, 10) == 0
