"""bpe.analysis quiz, algorithm and film: predict the next merge, the loop in phases, a film's data."""

from __future__ import annotations

import pytest

from bpe.analysis.algorithm import PHASES, PSEUDOCODE, Cursor, ScanEvent, advance, line_notes, scan_merge, shown
from bpe.analysis.film import LEFT, MAX_FRAMES, PLAIN, RIGHT, film_data
from bpe.analysis.quiz import judge, parse_guess, question_order, score
from bpe.analysis.segments import segment, step_segments
from bpe.errors import BpeError
from bpe.run import train_run
from bpe.text import pair_label

TIE_RULE = "ties go to the pair whose first occurrence comes earliest"
SMALL = "low lower newest widest"


@pytest.fixture(scope="module")
def small_run():
    from bpe.corpora.corpus import load_corpus

    return train_run(load_corpus(SMALL), target_vocab_size=1000, minimum_pair_frequency=2, top_k=20)


# ==================== Predict the next merge


def test_the_winner_is_right_and_a_tied_pair_is_right_by_count(small_run):
    step = small_run.steps[0]  # e + s and s + t both occur 9 times; e + s comes first
    assert step.pair == ("e", "s") and dict(step.top_pairs)[("s", "t")] == step.frequency
    right = judge(step, ("e", "s"), tie_rule=TIE_RULE, recorded=20)
    assert right.kind == "right" and right.guess_count == 9
    assert "s + t" in right.explanation and TIE_RULE in right.explanation
    tie = judge(step, ("s", "t"), tie_rule=TIE_RULE, recorded=20)
    assert tie.kind == "tie" and tie.guess_count == 9
    assert tie.explanation.startswith("Right by count: s + t occurs 9 times, as often as e + s")
    assert TIE_RULE in tie.explanation


def test_a_less_frequent_pair_is_wrong_with_both_counts(small_run):
    step = small_run.steps[0]
    count = dict(step.top_pairs)[("l", "o")]
    wrong = judge(step, ("l", "o"), tie_rule=TIE_RULE, recorded=20)
    assert wrong.kind == "wrong" and wrong.guess_count == count
    assert f"l + o occurs {count} times; e + s occurs 9 times" in wrong.explanation


def test_a_pair_beyond_the_record_is_bounded_or_absent():
    run = train_run("abcdefghij" * 3 + "zz", target_vocab_size=40, minimum_pair_frequency=1, top_k=3)
    step = run.steps[0]
    beyond = judge(step, ("q", "q"), tie_rule=TIE_RULE, recorded=3)
    assert beyond.kind == "wrong" and beyond.guess_count is None
    assert "not among the 3 most frequent pairs (it occurs at most 3 times)" in beyond.explanation
    short = train_run("abab", target_vocab_size=10, minimum_pair_frequency=1, top_k=20).steps[0]
    absent = judge(short, ("b", "b"), tie_rule=TIE_RULE, recorded=20)  # the record lists every pair
    assert absent.guess_count == 0 and "does not occur in the text" in absent.explanation


@pytest.mark.parametrize("typed", ["e + s", " e s ", "e  s"])
def test_a_typed_pair_is_read_as_shown(small_run, typed):
    assert parse_guess(typed, small_run.steps[0]) == ("e", "s")


def test_a_typed_pair_spells_spaces_as_dots_and_bytes_as_shown():
    run = train_run("a b a b a b", target_vocab_size=300, minimum_pair_frequency=1, alphabet="bytes")
    step = run.steps[0]
    assert parse_guess("a + ·", step) == (b"a", b" ")
    assert parse_guess("x + ·", step) == (b"x", b" ")  # not recorded: built from the text
    char_step = train_run("a b a b", target_vocab_size=30, minimum_pair_frequency=1).steps[0]
    assert parse_guess("· + b", char_step) == (" ", "b")


@pytest.mark.parametrize("typed", ["", "es", "a + b + c", "a b c"])
def test_what_is_not_a_pair_is_refused_by_name(small_run, typed):
    with pytest.raises(BpeError, match="is not a pair: type two tokens"):
        parse_guess(typed, small_run.steps[0])


def test_the_question_lists_pairs_by_label_so_the_order_gives_nothing_away(small_run):
    step = small_run.steps[0]
    asked = question_order(step.top_pairs)
    assert sorted(asked) == sorted(step.top_pairs)
    labels = [pair_label(pair) for pair, _ in asked]  # as shown: '·' for a space
    assert labels == sorted(labels) and asked[0][0] != step.pair


def test_the_score_counts_ties_as_right_and_says_so():
    result = score(["right", "tie", "wrong", "right"])
    assert (result.right, result.by_count, result.wrong, result.answered) == (2, 1, 1, 4)
    assert result.line() == "Score: 3 of 4 right (1 of them by count, a tie)."
    assert score([]).line() == "Score: no merge predicted yet."


# ==================== The algorithm beside the film


def test_phases_walk_forward_through_every_merge_and_back():
    cursor, seen = Cursor(1, 0), []
    for _ in range(3 * len(PHASES) + 2):
        seen.append((cursor.step, PHASES[cursor.phase]))
        cursor = advance(cursor, 1, last=3)
    assert seen[:5] == [(1, "count"), (1, "pick"), (1, "merge"), (1, "record"), (2, "count")]
    assert seen[-1] == (3, "record") and cursor == Cursor(3, 3)  # stops at the end
    for _ in range(3 * len(PHASES) + 2):
        cursor = advance(cursor, -1, last=3)
    assert cursor == Cursor(1, 0)  # and at the start


def test_the_slow_merge_phase_takes_one_frame_per_occurrence():
    cursor = Cursor(2, PHASES.index("pick"))
    frames = []
    while PHASES[cursor.phase] != "record":
        cursor = advance(cursor, 1, last=5, scan_length=2)
        frames.append((PHASES[cursor.phase], cursor.scan))
    assert frames == [("merge", 0), ("merge", 1), ("merge", 2), ("record", 0)]
    assert advance(cursor, -1, last=5, scan_length=2) == Cursor(2, PHASES.index("merge"), 2)


def test_each_phase_shows_more_of_the_merge():
    assert shown("count") == shown("count").__class__(False, False, False, False)
    assert shown("pick").winner and not shown("pick").after
    assert shown("merge").after and not shown("merge").recorded
    assert all(vars(shown("record")).values())


def test_overlapping_occurrences_merge_once_and_the_notes_say_so():
    run = train_run("aaaaa", target_vocab_size=10, minimum_pair_frequency=1)
    step = run.steps[0]
    assert step.frequency == 4  # four overlapping (a, a) are counted...
    events = scan_merge([list("aaaaa")], ("a", "a"))
    assert events == [ScanEvent(0, 1), ScanEvent(2, 3)]  # ...two are merged: aa aa a
    notes = line_notes(step, "record", minimum=1, merged=len(events), stop=None)
    assert len(notes) == len(PSEUDOCODE)
    assert notes[4] == "2 occurrences merged into 'aa' (4 counted: overlapping ones merge once)"
    assert notes[3] == "4 ≥ 1: go on"
    early = line_notes(step, "pick", minimum=1, merged=2, stop=None)
    assert early[2].startswith("best = a + a, 4 times") and early[4] == early[5] == ""


def test_the_scan_stays_inside_chunks_and_counts_across_them():
    events = scan_merge([["a", "b"], ["a"], ["b", "a", "b"]], ("a", "b"))
    assert [e.position for e in events] == [0, 4]  # "a" | "b" across a chunk border is not a pair


def test_the_scan_merges_what_the_segments_show():
    text = "low lower lowest aaaaa"
    run = train_run(text, target_vocab_size=40, minimum_pair_frequency=1)
    for step in run.steps:
        before = run.tokenizer(merges=step.number - 1)
        left, right = before.stoi[step.pair[0]], before.stoi[step.pair[1]]
        events = scan_merge(before.encode_with_chunks(text), (left, right))
        marks = step_segments(before, text, step)[0]
        assert [i for i, s in enumerate(marks) if s.mark == "left"] == [e.position for e in events]


# ==================== A film to take away


@pytest.mark.parametrize("pretokenizer", [None, "gpt2"])
def test_film_frames_match_the_app_segments(pretokenizer):
    text = "the cat in the hat sat on the mat; aaaaa\n" * 3
    run = train_run(text, target_vocab_size=60, minimum_pair_frequency=1, pretokenizer=pretokenizer)
    passage = text[5:90]
    data = film_data(run, passage, 12, top_k=5, title="t")
    assert data["merges"] == 12 and len(data["frames"]) == 12
    for frame, step in zip(data["frames"], run.steps):
        before, _after = step_segments(run.tokenizer(merges=step.number - 1), passage, step)
        marks = {None: PLAIN, "left": LEFT, "right": RIGHT}
        assert frame["before"] == [[s.token_id, marks[s.mark]] for s in before]
        assert frame["count"] == step.frequency and len(frame["top"]) <= 5
        assert all(data["tokens"][str(i)] is not None for i, _ in frame["before"])
    after_last = [s.token_id for s in segment(run.tokenizer(merges=12), passage)]
    last = data["frames"][-1]
    rebuilt, i = [], 0
    while i < len(last["before"]):
        token, mark = last["before"][i]
        rebuilt.append(last["token_id"] if mark == LEFT else token)
        i += 2 if mark == LEFT else 1
    assert rebuilt == after_last


def test_a_film_has_at_most_the_runs_merges(small_run):
    data = film_data(small_run, SMALL, 10_000, top_k=3, title="t")
    assert data["merges"] == len(small_run.steps) < MAX_FRAMES
    assert film_data(small_run, SMALL, 0, top_k=3, title="t")["frames"] == []
