"""Span diff: rows aligned by character position, differing spans found exactly."""

from __future__ import annotations

import pytest
from helpers import MAX_EXAMPLES
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe.analysis.encodable import segments_marking_unknown
from bpe.analysis.segments import Segment
from bpe.analysis.span_diff import display_lines, span_diff
from bpe.errors import BpeError
from bpe.run import train_run


def differing_tokens(diff) -> int:
    """How many tokens, over all the rows, are not shared by every row."""
    return sum(1 for row in diff.rows for span in row.spans if not span.shared)


def test_worked_example_two_cuts_of_one_word():
    diff = span_diff("low lowest", {"A": ["low", " ", "low", "est"], "B": ["lo", "w", " ", "lowest"]})
    a, b = diff.rows
    assert [s.shared for s in a.spans] == [False, True, False, False]
    assert [s.shared for s in b.spans] == [False, False, True, False]
    assert diff.regions == ((0, 3), (4, 10))
    assert diff.counts == (4, 4) and diff.spread == 0.0
    assert differing_tokens(diff) == 6
    assert [(s.start, s.end) for s in b.spans] == [(0, 2), (2, 3), (3, 4), (4, 10)]


def test_spread_is_max_minus_min_over_min():
    diff = span_diff("abcd", {"chars": list("abcd"), "pairs": ["ab", "cd"], "one": ["abcd"]})
    assert diff.counts == (4, 2, 1) and diff.spread == 3.0


def test_byte_tokens_inside_a_character_touch_that_character():
    # 'é' is C3 A9: a byte tokenizer may cut between them; the character row cannot
    diff = span_diff("aé", {"bytes": [b"a\xc3", b"\xa9"], "chars": ["a", "é"]})
    first, second = diff.rows[0].spans
    assert (first.start, first.end, first.byte_end) == (0, 2, 2)  # touches 'a' and 'é'
    assert (second.start, second.end) == (1, 2)
    assert not any(s.shared for row in diff.rows for s in row.spans)
    assert diff.regions == ((0, 2),)


def test_unknown_characters_keep_their_place():
    run = train_run("low lower lowest", target_vocab_size=20)
    segments = segments_marking_unknown(run.tokenizer(), "lazy low")
    diff = span_diff("lazy low", {"run": segments, "chars": list("lazy low")})
    unknown = [s for s in diff.rows[0].spans if s.unknown]
    assert all(s.token_id is None for s in unknown) and not any(s.unknown for s in diff.rows[1].spans)
    assert [s.token for s in unknown] == ["a", "z", "y"]
    assert all(isinstance(s, Segment) for s in segments)


def test_rows_that_do_not_spell_the_text_are_refused_by_name():
    with pytest.raises(BpeError, match="prefixed's tokens do not spell the text at byte 0"):
        span_diff("low", {"plain": ["low"], "prefixed": [" low"]})
    with pytest.raises(BpeError, match="short's tokens stop at byte 2 of 3"):
        span_diff("low", {"short": ["lo"]})
    with pytest.raises(BpeError, match="1 to 4 tokenizers, got 5"):
        span_diff("a", {str(i): ["a"] for i in range(5)})


def test_display_lines_wrap_at_newlines_and_spaces():
    assert display_lines("one two three\nfour", 8) == [(0, 8), (8, 14), (14, 18)]
    assert display_lines("one two three", 6) == [(0, 4), (4, 8), (8, 13)]
    assert display_lines("abcdefghij", 4) == [(0, 4), (4, 8), (8, 10)]
    assert display_lines("", 4) == []
    with pytest.raises(BpeError, match="width=0"):
        display_lines("a", 0)


@st.composite
def cuts(draw):
    text = draw(st.text(alphabet="ab é\n🙂", min_size=1, max_size=30))
    rows = {}
    for label in ("x", "y", "z")[: draw(st.integers(2, 3))]:
        data = text.encode("utf-8")
        points = sorted(draw(st.sets(st.integers(1, len(data) - 1), max_size=len(data))) if len(data) > 1 else [])
        edges = [0, *points, len(data)]
        rows[label] = [data[a:b] for a, b in zip(edges, edges[1:])]
    return text, rows


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(cuts())
def test_shared_means_the_same_boundaries_in_every_row(case):
    text, rows = case
    diff = span_diff(text, rows)
    every = [{(s.byte_start, s.byte_end) for s in row.spans} for row in diff.rows]
    for row in diff.rows:
        assert row.spans[0].start == 0 and row.spans[-1].end == len(text)
        for span in row.spans:
            assert span.shared == all((span.byte_start, span.byte_end) in found for found in every)
            if not span.shared:  # every differing token lies inside a ringed region
                assert any(a <= span.start and span.end <= b for a, b in diff.regions)
    lines = display_lines(text, 7)
    assert "".join(text[a:b] for a, b in lines) == text
