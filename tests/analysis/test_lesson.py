"""bpe.analysis.lesson: a frame written to a lesson file, checked whole when read back."""

from __future__ import annotations

import json

import pytest

from bpe.analysis.lesson import MAX_LESSON_VALUES, Lesson, LessonError, lesson_json, parse_lesson, text_hash

LIMIT = 1_000_000


def lesson(**changes) -> Lesson:
    fields = dict(
        page="pages/1_Merge_by_merge.py",
        corpus="low lower lowest",
        text_hash=text_hash("low lower lowest"),
        settings={"vocab": 30, "heldout": 0.1, "pretokenizer": "none", "engine": "fast"},
        controls={"step": 4, "merges_follow": True, "context_sizes": [500, 1000]},
    )
    fields.update(changes)
    return Lesson(**fields)


def test_a_lesson_reads_back_exactly():
    original = lesson()
    assert parse_lesson(lesson_json(original).encode(), max_bytes=LIMIT) == original


def test_embedded_text_travels_and_is_checked_against_its_hash():
    text = "my own <b>pasted</b> text ✓\n"
    original = lesson(corpus="pasted text", text_hash=text_hash(text), text=text)
    assert parse_lesson(lesson_json(original).encode(), max_bytes=LIMIT).text == text
    body = json.loads(lesson_json(lesson(corpus="pasted text", text_hash="000000000000", text=text)))
    with pytest.raises(LessonError, match="holds a corpus text that does not match its hash '000000000000'"):
        parse_lesson(json.dumps(body).encode(), max_bytes=LIMIT)


def tamper(edit) -> bytes:
    body = json.loads(lesson_json(lesson()))
    edit(body)
    return json.dumps(body).encode()


@pytest.mark.parametrize(
    "data, message",
    [
        (
            b"{not json",
            "The lesson file is not valid JSON: Expecting property name enclosed in double quotes at line 1",
        ),
        (b"\xff\xfe", "The lesson file is not valid UTF-8: byte 0xFF at byte offset 0 (line 1, byte 1 of that line)"),
        (b"[1, 2]", "The lesson file is not a BPE Lab lesson file"),
        (b'{"format": "character_bpe"}', "The lesson file is not a BPE Lab lesson file"),
        (
            tamper(lambda b: b["controls"].update(step=40)),
            "does not match its checksum: it was changed after it was saved",
        ),
        (tamper(lambda b: b.update(version=2)), "is lesson format version 2; this BPE Lab reads version 1"),
        (tamper(lambda b: b.update(extra=1)), "has unknown fields ['extra']"),
        (lesson_json(lesson())[:-30].encode(), "The lesson file is not valid JSON"),
        (b"[" * 5_000, "The lesson file is JSON nested too deeply to be a lesson file"),
        (
            b'{"format": ' + b"9" * 5_000 + b"}",
            "The lesson file holds a number 5,000 digits long; the numbers in a lesson file have at most 4,300",
        ),
    ],
    ids=[
        "not-json",
        "not-utf8",
        "a-list",
        "a-tokenizer",
        "edited",
        "version",
        "unknown-field",
        "cut-short",
        "deep",
        "huge-integer",
    ],
)
def test_bad_or_tampered_files_are_refused_in_one_line(data, message):
    with pytest.raises(LessonError) as error:
        parse_lesson(data, max_bytes=LIMIT)
    assert message in str(error.value) and "\n" not in str(error.value)


def test_a_value_that_is_not_plain_is_refused_even_with_a_fresh_checksum():
    from bpe.analysis import lesson as module

    body = json.loads(lesson_json(lesson()))
    body.pop("checksum")
    body["controls"]["step"] = {"nested": 1}
    body["checksum"] = module._checksum(body)  # a careful forger: the checksum fits
    with pytest.raises(LessonError, match="controls.step=.*is not a number, text, true/false or a list"):
        parse_lesson(json.dumps(body).encode(), max_bytes=LIMIT)


def test_an_oversized_file_is_refused_before_it_is_parsed():
    with pytest.raises(LessonError, match="is 2,000 bytes, over the limit of 1,000 bytes"):
        parse_lesson(b" " * 2000, max_bytes=1000)


def test_a_file_of_many_json_values_is_refused_before_it_is_parsed():
    # 10 MB of "{}," (as much as an upload may be) parsed into 3.5 million dicts (280 MB)
    # before the file was found not to be a lesson; counted first, it costs its own bytes.
    flood = b'{"format": "bpe-lab-lesson", "x": [' + b"{}," * (MAX_LESSON_VALUES // 2 + 1) + b"{}]}"
    with pytest.raises(LessonError, match=r"holds about [\d,]+ JSON values; a lesson file holds at most 10,000"):
        parse_lesson(flood, max_bytes=LIMIT)


def test_the_commas_of_an_embedded_text_are_not_counted_as_values():
    text = 'one, two: [three] {four} "five" \\ ' * (MAX_LESSON_VALUES // 4)  # 15,000 punctuation marks, no value
    original = lesson(corpus="pasted text", text_hash=text_hash(text), text=text)
    assert parse_lesson(lesson_json(original).encode(), max_bytes=LIMIT).text == text


@pytest.mark.parametrize(
    "edit",
    [lambda body: body.update(version="v" * 200_000), lambda body: body["controls"].update(step=[0.5] * 5_000)],
    ids=["version", "a control's list"],
)
def test_a_huge_value_from_a_lesson_file_is_cut_in_its_message(edit):
    # Found by probing: a version of 200,000 characters came back whole in the error box;
    # a message shows a stranger's value cut, as the pages show their names.
    from bpe.analysis.lesson import _checksum

    body = json.loads(lesson_json(lesson()))
    body.pop("checksum")
    edit(body)
    body["checksum"] = _checksum(body)
    with pytest.raises(LessonError) as raised:
        parse_lesson(json.dumps(body).encode(), max_bytes=LIMIT)
    message = str(raised.value)
    assert len(message) < 400 and "..." in message
