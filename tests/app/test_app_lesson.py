"""AppTest: lesson links and lesson files reopen the exact frame, and say so when they cannot."""

from __future__ import annotations

import json
from urllib.parse import parse_qsl, urlsplit

import pytest
from app_helpers import SMALL_CORPUS, capture_downloads, metric, new_app, plotly_specs, unescape_markdown

from bpe.analysis.lesson import Lesson, lesson_json, text_hash
from pages._shared.state.controls import setting_fields
from pages._shared.state.link import HASH_PARAM

PAGE = "pages/1_Merge_by_merge.py"
SMALL = dict(settings_corpus=SMALL_CORPUS)
SHOWN = ("Step", "Vocab size", "Sequence length", "Chars per token")


def copy_link(at) -> str:
    at.sidebar.button(key="lesson_copy").click().run()
    assert not at.exception
    links = [code.value for code in at.code if f"{HASH_PARAM}=" in code.value]
    assert len(links) == 1, [code.value for code in at.code]
    return links[0]


def query(url: str) -> dict:
    return dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))


def frame(at):
    """The numbers and drawings a class sees."""
    return (
        [metric(at, label) for label in SHOWN],
        plotly_specs(at)[0]["data"][0]["y"],
        [element.value for element in at.html if '<div class="bpe-segments' in element.value],
    )


@pytest.fixture
def captured_downloads(monkeypatch):
    """Every file a download button offers in this test, by file name."""
    return capture_downloads(monkeypatch)


# ==================== Links


def test_a_link_carries_every_setting_the_text_hash_the_page_and_its_controls():
    at = new_app(
        PAGE,
        **SMALL,
        settings_tie_rule="lexicographic",
        settings_top_k=7,
        settings_heldout=0.2,
        settings_pretokenizer="whitespace",
        merges_follow=False,
    )
    at.button(key="merges_forward").click().run()
    url = copy_link(at)
    params = query(url)
    assert urlsplit(url).path.endswith("/Merge_by_merge")
    for field in setting_fields():  # iterated, not listed: a field added to Settings travels too
        assert field.param in params, field.param
    assert params["tie_rule"] == "lexicographic" and params["top_k"] == "7" and params["pretok"] == "whitespace"
    assert params["step"] == "2" and params["merges_follow"] == "0" and params["merges_window"] == "0"
    assert params["corpus"] == SMALL_CORPUS and len(params[HASH_PARAM]) == 12
    assert "teach_quiz" in params and "teach_phase" in params


def test_opening_a_link_shows_the_same_numbers():
    teacher = new_app(PAGE, **SMALL, settings_min_freq=3, settings_alphabet="bytes", settings_vocab=270)
    for _ in range(4):
        teacher.button(key="merges_forward").click().run()
    url = copy_link(teacher)
    student = new_app(PAGE, query=query(url))
    assert not student.exception and not student.error and not student.warning
    assert frame(student) == frame(teacher)
    assert metric(student, "Step") == "5 of " + metric(teacher, "Step").split(" of ")[1]
    assert student.session_state["settings_alphabet"] == "bytes"
    assert student.session_state["settings_min_freq"] == 3


def test_a_link_reopens_another_pages_controls():
    page = "pages/4_Context_window.py"
    teacher = new_app(page, **SMALL, context_block=256, context_passage=500)
    params = query(copy_link(teacher))
    assert params["context_block"] == "256" and params["context_passage"] == "500"
    student = new_app(page, query=params)
    assert student.session_state["context_block"] == 256 and student.session_state["context_passage"] == 500
    assert not student.exception


def test_a_different_text_of_the_same_name_says_so_instead_of_showing_other_merges():
    params = query(copy_link(new_app(PAGE, **SMALL)))
    params[HASH_PARAM] = "0123456789ab"  # the file here differs from the teacher's
    at = new_app(PAGE, query=params)
    assert not at.exception and not at.metric and not at.get("plotly_chart")
    shown = unescape_markdown(at.error[0].value)
    assert f"made on a different text called '{SMALL_CORPUS}' (text hash 0123456789ab)" in shown
    assert "Its merges would not be the lesson's, so they are not shown." in shown
    at.button(key="lesson_show_anyway").click().run()
    assert metric(at, "Step") == "1 of 17" and not at.error


def test_a_corpus_that_is_not_here_says_so():
    params = query(copy_link(new_app(PAGE, **SMALL)))
    params["corpus"] = "lecture-notes.txt"
    at = new_app(PAGE, query=params)
    assert not at.exception and not at.metric
    assert "'lecture-notes.txt' (text hash" in at.error[0].value and "not available here" in at.error[0].value


@pytest.mark.parametrize(
    "param, raw, said",
    [
        ("alphabet", "emoji", "alphabet='emoji' is not one of 'characters', 'bytes'"),
        ("heldout", "0.9", "heldout=0.9 is not a number from 0 to 0.5"),
        ("top_k", "many", "top_k='many' is not a whole number from 1 to 20"),
        ("merges_follow", "perhaps", "merges_follow='perhaps' is not true or false"),
        ("tie_rule", "coin toss", "tie_rule='coin toss' is not one of 'first_occurrence'"),
    ],
)
def test_a_bad_value_in_a_link_is_named_and_ignored(param, raw, said):
    at = new_app(PAGE, query={"corpus": SMALL_CORPUS, param: raw})
    assert not at.exception
    assert any(said in unescape_markdown(w.value) for w in at.warning), [w.value for w in at.warning]
    assert metric(at, "Step") == "1 of 17"


# ==================== Lesson files


def upload_lesson(at, data: bytes, name: str = "lesson.json"):
    at.sidebar.file_uploader(key="lesson_upload").set_value((name, data, "application/json"))
    return at.run()


def test_a_pasted_text_travels_in_the_lesson_file(captured_downloads):
    text = "the cat sat on the mat, the cat sat on the hat. " * 3
    teacher = new_app(
        PAGE, settings_user_corpora={"pasted text": text}, settings_corpus="pasted text", settings_min_freq=2
    )
    teacher.button(key="merges_forward").click().run()
    teacher.sidebar.button(key="lesson_copy").click().run()
    assert not teacher.code  # no link: it cannot carry the text
    assert "a link cannot carry it" in teacher.info[0].value
    data = captured_downloads["lesson_1_merge_by_merge.json"]
    saved = json.loads(data)
    assert saved["corpus"]["text"] == text and saved["controls"]["step"] == 2
    student = new_app("app.py")
    upload_lesson(student, data)
    assert not student.exception
    student.switch_page(PAGE).run()
    assert student.session_state["settings_corpus"] == "pasted text"
    assert frame(student) == frame(teacher)


def test_opening_a_lesson_file_switches_to_its_page(captured_downloads):
    teacher = new_app(PAGE, **SMALL, merges_step=6)
    teacher.sidebar.button(key="lesson_copy").click().run()
    data = captured_downloads["lesson_1_merge_by_merge.json"]
    student = new_app("app.py", **SMALL)
    student.switch_page("pages/3_Compression.py").run()
    upload_lesson(student, data)
    assert not student.exception
    assert metric(student, "Step") == "6 of 17"  # now on Merge by merge


@pytest.mark.parametrize(
    "edit, said",
    [
        (lambda body: body["controls"].update(step=40), "does not match its checksum"),
        (lambda body: body.update(page="pages/9_Nowhere.py"), "does not match its checksum"),
    ],
    ids=["edited-step", "edited-page"],
)
def test_a_tampered_lesson_file_is_refused_and_changes_nothing(captured_downloads, edit, said):
    teacher = new_app(PAGE, **SMALL, merges_step=6)
    teacher.sidebar.button(key="lesson_copy").click().run()
    body = json.loads(captured_downloads["lesson_1_merge_by_merge.json"])
    edit(body)
    student = new_app(PAGE, **SMALL, settings_vocab=30, merges_step=2)
    upload_lesson(student, json.dumps(body).encode())
    assert said in student.sidebar.error[0].value and "Nothing was changed." in student.sidebar.error[0].value
    assert metric(student, "Step") == "2 of " + metric(student, "Step").split(" of ")[1]
    assert student.session_state["settings_vocab"] == 30


def test_a_well_formed_lesson_with_an_impossible_value_changes_nothing():
    lesson = Lesson(
        page=PAGE, corpus=SMALL_CORPUS, text_hash=text_hash("x"), settings={"alphabet": "emoji"}, controls={"step": 3}
    )
    student = new_app(PAGE, **SMALL)
    upload_lesson(student, lesson_json(lesson).encode())
    assert "alphabet='emoji' is not one of" in unescape_markdown(student.sidebar.error[0].value)
    assert student.session_state["settings_alphabet"] == "characters" and metric(student, "Step") == "1 of 17"


def test_a_file_that_is_not_a_lesson_is_refused():
    student = upload_lesson(new_app(PAGE, **SMALL), b'{"type": "character_bpe", "merges": []}', "tok.json")
    assert "tok.json is not a BPE Lab lesson file" in unescape_markdown(student.sidebar.error[0].value)


@pytest.mark.shared_data
def test_a_wikitext_link_reopens_the_same_frame(monkeypatch):
    from helpers import shared_file

    valid = shared_file("wikitext-2/valid.txt")
    monkeypatch.setenv("BPE_CORPORA", str(valid.parent))
    teacher = new_app(
        PAGE,
        query={"corpus": "valid.txt"},
        settings_prefix_cap=60_000,
        settings_vocab=400,
        merges_step=37,
        merges_follow=False,
        merges_window=1_200,
    )
    url = copy_link(teacher)
    assert query(url)["corpus"] == "valid.txt" and query(url)["merges_window"] == "1200"
    student = new_app(PAGE, query=query(url))
    assert not student.exception and not student.error
    assert frame(student) == frame(teacher) and metric(student, "Step").startswith("37 of ")


# ==================== What a lesson carries stays in step with the app


def test_every_settings_field_travels_except_the_version_the_hash_replaces():
    import dataclasses

    from bpe.training import TrainingSettings
    from pages._shared.state.controls import SETTING_INPUTS
    from pages._shared.state.settings import APP_TRAINING_FIELDS, DEFAULTS, Trained

    travelling = {field.key for field in setting_fields()}
    # all but corpus_version (a replayed run's file follows from the corpus a link names), and
    # of the core's training settings all but those the app sets itself
    fields = {field.name for field in dataclasses.fields(Trained)} - {"corpus_version", "training"}
    fields |= {f"training.{field.name}" for field in dataclasses.fields(TrainingSettings)}
    fields -= {f"training.{name}" for name in APP_TRAINING_FIELDS}
    assert {field for field, _key, _param in SETTING_INPUTS} == fields
    assert len(travelling) == len(fields)
    assert travelling <= set(DEFAULTS)


def test_a_link_on_the_default_corpus_reopens_the_frame_with_the_quiz_waiting():
    teacher = new_app(PAGE, query={"step": "40", "teach_quiz": "1"})  # Tiny Shakespeare, vocab 1,000
    params = query(copy_link(teacher))
    assert params["step"] == "40" and params["teach_quiz"] == "1" and params["corpus"] == "Tiny Shakespeare"
    student = new_app(PAGE, query=params)
    assert frame(student) == frame(teacher) and "Predict merge 40" in " ".join(m.value for m in student.markdown)


@pytest.mark.parametrize(
    "page",
    [
        "app.py",
        "pages/2_Tokenize.py",
        "pages/3_Compression.py",
        "pages/5_Vocabulary.py",
        "pages/7_Bytes_and_pretokenizers.py",
        "pages/9_Languages.py",
    ],
)
def test_every_page_copies_a_link_that_reopens_its_controls(page):
    from pages._shared.state.controls import page_fields

    teacher = new_app(page, **SMALL)
    params = query(copy_link(teacher))
    for field in page_fields(page):
        if field.key in teacher.session_state:
            assert field.param in params, field.param
    student = new_app(page, query=params)
    assert not student.exception and not student.error and not student.warning
    for field in page_fields(page):
        if field.key in teacher.session_state:
            assert student.session_state[field.key] == teacher.session_state[field.key] or (
                list(student.session_state[field.key]) == list(teacher.session_state[field.key])
            ), field.key


# ==================== The screen's view: presenter mode and the sidebar hidden

PROJECTOR = dict(presenter_large=True, view_sidebar_hidden=True)


def test_the_address_bar_keeps_the_view_and_a_link_for_the_class_leaves_it_out():
    at = new_app(PAGE, **SMALL, **PROJECTOR)
    assert at.query_params["presenter"] == "1" and at.query_params["hide_sidebar"] == "1"  # a reload keeps them
    params = query(copy_link(at))
    assert "presenter" not in params and "hide_sidebar" not in params  # each student's screen keeps its own
    at.sidebar.toggle(key="_w_presenter_large").set_value(False).run()
    assert "presenter" not in at.query_params and at.query_params["hide_sidebar"] == "1"


def test_the_projectors_link_and_file_carry_the_view(captured_downloads):
    teacher = new_app(PAGE, **SMALL, **PROJECTOR, lesson_for_projector=True, merges_step=3)
    url = copy_link(teacher)
    params = query(url)
    assert params["presenter"] == "1" and params["hide_sidebar"] == "1"
    assert "in presenter mode, the sidebar hidden" in " ".join(c.value for c in teacher.caption)
    screen = new_app(PAGE, query=params)
    assert not screen.exception and not screen.warning
    assert screen.session_state["presenter_large"] and screen.session_state["view_sidebar_hidden"]
    assert screen.button(key="view_show_sidebar")  # the way back
    saved = json.loads(captured_downloads["lesson_1_merge_by_merge.json"])
    assert saved["controls"]["presenter"] is True and saved["controls"]["hide_sidebar"] is True
    opened = new_app("app.py", **SMALL)
    upload_lesson(opened, captured_downloads["lesson_1_merge_by_merge.json"])
    assert not opened.exception and opened.session_state["presenter_large"]
    assert opened.session_state["view_sidebar_hidden"] and metric(opened, "Step") == "3 of 17"


def test_show_the_sidebar_brings_it_back():
    at = new_app(PAGE, **SMALL, view_sidebar_hidden=True)
    at.button(key="view_show_sidebar").click().run()
    assert not at.session_state["view_sidebar_hidden"] and "hide_sidebar" not in at.query_params
    assert not [button for button in at.button if button.key == "view_show_sidebar"]
