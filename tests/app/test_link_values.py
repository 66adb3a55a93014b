"""Hostile link and lesson values: lists of any shape, deep nesting, huge parameters, numbers
far out of range, and a lesson text that takes a listed corpus's name. Each is named in one
line and ignored (or shown at the nearest allowed value, and said so); nothing crashes."""

from __future__ import annotations

import pytest
from app_helpers import SMALL_CORPUS, new_app, unescape_markdown

from bpe.analysis.lesson import Lesson, lesson_json, text_hash
from bpe.corpora.shipped import TINY_SHAKESPEARE

VOCABULARY = "pages/5_Vocabulary.py"
COMPRESSION = "pages/3_Compression.py"
CONTEXT = "pages/4_Context_window.py"


def notes(at) -> str:
    return " ".join(unescape_markdown(w.value) for w in at.warning)


@pytest.mark.parametrize(
    "page, param, raw",
    [
        (VOCABULARY, "vocab_lengths", "[1,2,3]"),
        (VOCABULARY, "vocab_lengths", "[5,2]"),
        (VOCABULARY, "vocab_lengths", "[2]"),
        (VOCABULARY, "vocab_lengths", '["a","b"]'),
        (VOCABULARY, "vocab_lengths", "[1.5,3]"),
        (COMPRESSION, "compression_sizes", "[" * 5_000 + "]" * 5_000),
        (COMPRESSION, "compression_sizes", "[" + ",".join(["300"] * 5_000) + "]"),
        (COMPRESSION, "compression_sizes", "[300,[400]]"),
        (COMPRESSION, "compression_sizes", "[0]"),
        (CONTEXT, "context_sizes", "[300,500,1000,2000]"),
        (CONTEXT, "context_sizes", "[]"),
        (CONTEXT, "context_sizes", "[300,true]"),
        (CONTEXT, "context_sizes", '{"a": 1}'),
        (CONTEXT, "context_sizes", "[1e999]"),
        (CONTEXT, "context_sizes", "[" + "9" * 5_000 + "]"),
    ],
)
def test_a_list_of_the_wrong_shape_is_named_and_ignored(page, param, raw):
    at = new_app(page, query={"corpus": SMALL_CORPUS, param: raw})
    assert not at.exception
    assert f"The link's {param}=" in notes(at) and "; ignored." in notes(at), notes(at)
    assert len(max((w.value for w in at.warning), key=len)) < 400  # one line, the value cut


def test_a_list_of_the_right_shape_is_taken():
    at = new_app(VOCABULARY, query={"corpus": SMALL_CORPUS, "vocab_lengths": "[2,3]"})
    assert not at.exception and not at.warning
    assert tuple(at.session_state["vocab_lengths"]) == (2, 3)


def test_a_huge_parameter_is_refused_before_it_is_read():
    at = new_app(query={"corpus": SMALL_CORPUS, "top_k": "1" * 100_000, "pretok": "x" * 100_000})
    assert not at.exception
    assert "top_k='1111" in notes(at) and "pretok='xxx" in notes(at)
    assert at.session_state["settings_top_k"] == 10


@pytest.mark.parametrize(
    "param, raw, key, shown",
    [
        ("prefix", "1000000000000", "settings_prefix_cap", 50_000_000),
        ("min_freq", "1000000000000000000", "settings_min_freq", 1_000_000),
        ("prefix", "5", "settings_prefix_cap", 100),
    ],
)
def test_a_number_out_of_range_is_shown_at_the_nearest_allowed_and_said(param, raw, key, shown):
    at = new_app(query={"corpus": SMALL_CORPUS, param: raw})
    assert not at.exception
    assert at.session_state[key] == shown
    assert f"The link's {param}={raw}" in notes(at) and f"showing {shown:,}" in notes(at), notes(at)


def test_a_vocab_no_corpus_can_reach_is_refused():
    at = new_app(query={"corpus": SMALL_CORPUS, "vocab": str(10**9)})
    assert not at.exception
    assert "The link's vocab=1000000000 is not a whole number from 1 to 1,000,000; ignored." in notes(at)
    assert at.session_state["settings_vocab"] == 1_000


def test_a_vocab_this_corpus_cannot_reach_is_shown_within_it_and_said():
    at = new_app(query={"corpus": TINY_SHAKESPEARE, "prefix": "20000", "vocab": "50000"})
    assert not at.exception
    said = notes(at)
    assert "The link's vocab=50,000 is outside what this corpus allows" in said and "showing 10,000" in said, said


def open_lesson(at, lesson: Lesson):
    at.sidebar.file_uploader(key="lesson_upload").set_value(
        ("lesson.json", lesson_json(lesson).encode(), "application/json")
    )
    return at.run()


@pytest.mark.parametrize(
    "settings, controls, said",
    [
        ({"prefix": 10**12}, {}, "prefix=1000000000000 is not a whole number from 100 to 50,000,000"),
        ({"min_freq": 10**18}, {}, "min_freq=1000000000000000000 is not a whole number from 1 to 1,000,000"),
        ({"vocab": 10**9}, {}, "vocab=1000000000 is not a whole number from 1 to 1,000,000"),
        ({}, {"vocab_lengths": [1, 2, 3]}, "vocab_lengths=[1, 2, 3] is not a list of 2 whole numbers"),
    ],
)
def test_a_lesson_file_with_a_value_out_of_range_is_refused_and_changes_nothing(settings, controls, said):
    lesson = Lesson(
        page=VOCABULARY, corpus=SMALL_CORPUS, text_hash=text_hash("x"), settings=settings, controls=controls
    )
    at = open_lesson(new_app(VOCABULARY, settings_corpus=SMALL_CORPUS), lesson)
    assert not at.exception
    shown = unescape_markdown(at.sidebar.error[0].value)
    assert said in shown and "Nothing was changed." in shown, shown
    assert at.session_state["settings_prefix_cap"] == 500_000 and at.session_state["settings_vocab"] == 1_000


def test_a_lesson_text_never_takes_the_name_of_a_listed_corpus():
    foreign = "pay 999 to alice, not bob. " * 40
    lesson = Lesson(
        page="app.py",
        corpus=TINY_SHAKESPEARE,
        text_hash=text_hash(foreign),
        settings={"vocab": 60},
        controls={},
        text=foreign,
    )
    at = open_lesson(new_app("app.py", settings_corpus=SMALL_CORPUS), lesson)
    assert not at.exception and not at.error
    corpus = at.session_state["settings_corpus"]
    assert corpus != TINY_SHAKESPEARE and corpus == f"lesson: {TINY_SHAKESPEARE}"
    assert at.session_state["settings_user_corpora"][corpus] == foreign
    picker = at.sidebar.selectbox(key="_w_settings_corpus")
    assert [option for option in picker.options if option.startswith(TINY_SHAKESPEARE)]  # the real one, listed apart
