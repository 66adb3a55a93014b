"""The one reader of regex syntax (`bpe.regex_syntax`): the safety check and the export
to Oniguruma read a pattern as the `regex` package compiles it."""

from __future__ import annotations

import pytest
import regex
from helpers import MAX_EXAMPLES
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe.errors import PatternError
from bpe.pattern_safety import MAX_PATTERN_COST, check_safe_pattern, pattern_cost
from bpe.regex_syntax import CLASS, FLAGS, INTERVAL, LITERAL, OPEN, OTHER, class_end, pieces

SYNTAX = st.text(alphabet="ab\\[]^-:(){},?*+|$.=!<>Pp#imxr0123LZz", max_size=30)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(SYNTAX)
def test_the_pieces_of_any_text_join_back_to_it(pattern):
    assert "".join(piece.text for piece in pieces(pattern)) == pattern


def test_a_bracket_inside_a_class_is_a_literal_as_regex_reads_it():
    # regex (version 0) reads "[[]" as a class holding "[": what follows is pattern, not class
    assert regex.fullmatch(r"[[]x", "[x") and class_end(r"[[]x", 0) == 3
    assert [p.kind for p in pieces(r"[[](?:x{3000}){3000}")] == [CLASS, OPEN, LITERAL, INTERVAL, "close", INTERVAL]
    assert class_end(r"[^]a]b", 0) == 5 and class_end(r"[[:alpha:]]", 0) == 11


@pytest.mark.parametrize("hidden", [r"[[](?:x{3000}){3000}|[\s\S]", r"[a[b](?:x{3000}){3000}|[\s\S]"])
def test_a_repeat_after_a_bracket_in_a_class_is_counted(hidden):
    # read as a nested class, the class swallowed the rest and the pattern cost 1
    assert pattern_cost(hidden) > MAX_PATTERN_COST
    with pytest.raises(PatternError, match="repeats too much"):
        check_safe_pattern(hidden)


def test_flags_groups_references_and_intervals_are_told_apart():
    kinds = {p.text: (p.kind, p.flags_on, p.flags_off) for p in pieces(r"(?i-m:a)(?s)(?R)(?P=n)(?P<n>b)")}
    assert kinds["(?i-m:"] == (OPEN, "i", "m") and kinds["(?s)"] == (FLAGS, "s", "")
    assert kinds["(?R)"][0] == OTHER and kinds["(?P=n)"][0] == OTHER and kinds["(?P<n>"][0] == OPEN
    intervals = [(p.low, p.high, p.mark) for p in pieces(r"a{2}b{,3}c{4,}?d{1,5}+e{}") if p.kind == INTERVAL]
    assert intervals == [(2, 2, ""), (0, 3, ""), (4, None, "?"), (1, 5, "+")]  # "{}" is a literal


def test_a_code_point_escape_is_one_piece_with_its_digits():
    assert [p.text for p in pieces(r"\x41+\u00e9\U0001F600{2}\x4")] == [
        r"\x41",
        "+",
        r"\u00e9",
        r"\U0001F600",
        "{2}",
        r"\x4",
    ]
