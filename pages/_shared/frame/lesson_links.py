"""Lesson links and lesson files: hand out the exact frame on screen, and open it again.

A lesson link is the page's address plus one query parameter per input of the sidebar
(`state.controls.SETTING_INPUTS`: corpus, prefix, held-out part, vocab, train-up-to,
minimum frequency, engine, alphabet, pre-tokenizer, top-k, tie rule), the short hash of
the text trained on (``text_hash``), and
the page's own controls that change what is drawn (`state.controls.PAGE_CONTROLS`: the step, the text
window, ...). A lesson file holds the same, plus the text when it was pasted or
uploaded (a link cannot carry it). The file format and its checks are
`bpe.analysis.lesson`; the fields and their checks are `state.controls`; this module
applies them to session state and draws the sidebar's "Copy link to this frame" and "Open a
lesson file".

`setup_page` calls, in order: `lesson_start` (before the sidebar: the button),
`lesson_finish` (after it: the dialog, the file, a page switch) and `lesson_frame_ok`
(under the title: a text that differs from the lesson's stops the page instead of
showing other merges).

A link is read by `state.link.read_link_once`, like every link; what was wrong with a
link or a file goes into its one list of notes.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlencode

import streamlit as st
from streamlit.errors import StreamlitAPIException

from bpe.analysis.algorithm import PHASES
from bpe.analysis.lesson import Lesson, LessonError, lesson_json, parse_lesson
from bpe.analysis.tie_rules import tie_rule_label
from bpe.corpora.corpus import list_corpora
from bpe.errors import BpeError
from bpe.pretokenize import pretokenizer_name
from bpe.text import shown_name, shown_value
from pages._shared.data.measures import corpus_hash
from pages._shared.data.runs import corpus_texts
from pages._shared.frame.navigation import current_page, known_pages, page_address
from pages._shared.frame.sidebar import upload_limit_bytes
from pages._shared.render.html import COPY_BUTTON_CSS, escape_markdown
from pages._shared.state.controls import (
    ALGORITHM,
    FOLLOW,
    PHASE,
    PRESENTER,
    QUIZ,
    SCAN,
    SIDEBAR_HIDDEN,
    SLOW,
    STEP,
    VIEW_CONTROLS,
    WINDOW,
    Control,
    checked,
    current_values,
    page_fields,
    setting_fields,
    to_link,
)
from pages._shared.state.link import EXPECT, HASH_PARAM, add_note, set_values
from pages._shared.state.per_run import OWNERS
from pages._shared.state.settings import CORPUS, Settings
from pages._shared.state.stores import LESSON_TEXT, PASTED, UPLOADED, use_user_text

GOTO = "lesson_goto"  # the page an opened lesson file shows
FILE_ERROR = "lesson_file_error"
UPLOAD = "lesson_upload"  # the uploader's own key

# ==================== The frame on screen, as a lesson and as a link


def current_lesson(settings: Settings, listed: bool, page: str, *, projector: bool = False) -> Lesson:
    """This frame: the page, the corpus and its hash, the sidebar's settings, the page's
    controls, and the text itself when it was pasted or uploaded; ``projector``: the screen's
    view too, where it is on (presenter mode, the sidebar hidden)."""
    train, heldout = corpus_texts(settings)
    values = current_values(setting_fields())
    controls = {field.param: value for field, value in current_values(page_fields(page)).items()}
    if projector:
        controls.update({field.param: True for field, value in current_values(VIEW_CONTROLS).items() if value})
    return Lesson(
        page=page,
        corpus=settings.corpus,
        text_hash=corpus_hash(settings),
        settings={field.param: value for field, value in values.items() if field.param != "corpus"},
        controls=controls,
        text=None if listed else train + heldout,
    )


def lesson_link(lesson: Lesson) -> str:
    """The lesson as a link: the page's address and every field as a query parameter."""
    params = {"corpus": lesson.corpus, HASH_PARAM: lesson.text_hash}
    params.update({name: to_link(value) for name, value in {**lesson.settings, **lesson.controls}.items()})
    return f"{page_address(lesson.page)}?{urlencode(params)}"


def lesson_summary(lesson: Lesson) -> str:
    """What the link shows, in words (Markdown, user text escaped): "Merge by merge, step 4,
    tie rule lexicographic, algorithm shown at 'pick', on 'low lower lowest', vocab 30"."""
    words = [page_label(lesson.page)]
    words += _control_words(lesson.controls)
    words += _setting_words(lesson.settings)
    return escape_markdown(", ".join(words) + f", on {lesson.corpus!r}.")


def page_label(page: str) -> str:
    """'pages/1_Merge_by_merge.py' -> 'Merge by merge' (the home page: 'Home')."""
    stem = Path(page).stem
    return stem.split("_", 1)[1].replace("_", " ") if "_" in stem and stem[0].isdigit() else "Home"


# The sidebar's settings in words, by link parameter
SETTING_WORDS = {
    "vocab": lambda v: f"vocab {v:,}",
    "train_to": lambda v: f"trained up to vocab {v:,}",
    "min_freq": lambda v: f"minimum pair frequency {v:,}",
    "tie_rule": lambda v: f"tie rule {tie_rule_label(v)}",
    "pretok": lambda v: f"pre-tokenizer {pretokenizer_name(v)}",
    "alphabet": lambda v: f"alphabet {v}",
    "prefix": lambda v: f"the first {v:,} characters",
    "heldout": lambda v: f"{v:.0%} held out",
    "top_k": lambda v: f"{v} pairs in the chart",
    "engine": lambda v: f"the {v} engine",
    "specials": lambda v: "special tokens " + ", ".join(v) if v else "no special tokens",
}


def _setting_words(settings: dict) -> list[str]:
    """The vocab, and each sidebar setting that differs from its default, in words."""
    defaults = {field.param: field.default for field in setting_fields()}
    words = []
    for param, value in settings.items():
        if param != "vocab" and value == defaults.get(param):
            continue
        said = SETTING_WORDS.get(param)
        words.append(said(value) if said else f"{param.replace('_', ' ')} {to_link(value)}")
    return words


def _control_words(controls: dict) -> list[str]:
    """The page's controls in words (by link parameter); what is off or at its start is left unsaid."""
    words = []
    if STEP.param in controls:
        words.append(f"step {controls[STEP.param]:,}")
    if controls.get(QUIZ.param):
        words.append("the class predicting the merge")
    if controls.get(ALGORITHM.param):
        phase = PHASES[min(int(controls.get(PHASE.param, 0)), len(PHASES) - 1)]
        slow = ", merging occurrence by occurrence" if controls.get(SLOW.param) else ""
        words.append(f"algorithm shown at '{phase}'{slow}")
    if controls.get(FOLLOW.param) is False:
        words.append(f"text window from character {controls.get(WINDOW.param, 0):,}")
    if controls.get(PRESENTER.param):
        words.append("in presenter mode")
    if controls.get(SIDEBAR_HIDDEN.param):
        words.append("the sidebar hidden")
    said = {field.param for field in (STEP, QUIZ, ALGORITHM, PHASE, SLOW, SCAN, FOLLOW, WINDOW, *VIEW_CONTROLS)}
    for param, value in controls.items():
        if param in said or value in ("", [], False):
            continue
        shown = "on" if value is True else to_link(value)
        words.append(f"{param.split('_', 1)[-1].replace('_', ' ')} {shown}")
    return words


# ==================== Reading a link, opening a file


def lesson_start() -> bool:
    """Before the sidebar: "Copy link to this frame" at its top. Returns whether it was clicked."""
    return st.sidebar.button(
        "Copy link to this frame",
        key="lesson_copy",
        icon=":material/link:",
        help="A link (and a lesson file) that reopens exactly what is on screen.",
    )


def lesson_values(lesson: Lesson) -> dict[Control, object]:
    """Every value of a lesson file, checked; `LessonError` on the first that is not allowed."""
    if lesson.page not in known_pages():
        raise LessonError(f"The lesson's page {shown_value(lesson.page)} is not a page of this BPE Lab.")
    values = {}
    controls = [*page_fields(lesson.page), *VIEW_CONTROLS]  # a projector's lesson carries the view too
    for part, fields in (("settings", setting_fields()), ("controls", controls)):
        given = dict(getattr(lesson, part))
        for field in fields:
            if field.param in given:
                try:
                    values[field] = checked(field, given.pop(field.param))
                except ValueError as error:
                    raise LessonError(f"The lesson's {error}.") from None
        unknown = sorted(set(given) - {"corpus"})
        if unknown:
            raise LessonError(f"The lesson's {part} {unknown} are not known to this BPE Lab.")
    return values


def _open_file() -> None:
    """The uploader's callback: check the whole file first; on any error change nothing."""
    state = st.session_state
    upload = state.get(UPLOAD)
    if upload is None:
        return
    try:
        lesson = parse_lesson(upload.getvalue(), name=upload.name, max_bytes=upload_limit_bytes())
        values = lesson_values(lesson)
    except BpeError as error:
        state[FILE_ERROR] = str(error)
        return
    state.pop(FILE_ERROR, None)
    corpus = shown_name(lesson.corpus)  # the file's to choose: never raw on a page
    if lesson.text is not None:  # kept like any pasted text: the session's last few, the oldest let go
        corpus = lesson_text_name(corpus)
        use_user_text(corpus, lesson.text)
    elif corpus in {info.name for info in list_corpora()}:
        state[CORPUS] = corpus
    set_values(values, "lesson")
    state.pop(OWNERS, None)  # like a link on a first visit: the pages keep what the lesson set
    state[EXPECT] = {"corpus": corpus, "hash": lesson.text_hash, "shown": None}
    state[GOTO] = lesson.page
    add_note(f"Opened the lesson file {shown_name(upload.name)}.")


def lesson_text_name(name: str) -> str:
    """The name a lesson's own text is kept under: its own when it is a text of a session
    (``pasted text``, ``upload: notes.txt``), else marked, so it never shows as a corpus listed
    here ("Tiny Shakespeare") over text that is not that corpus."""
    if name == PASTED or name.startswith(UPLOADED):
        return name
    return name if name.startswith(LESSON_TEXT) else LESSON_TEXT + name


def lesson_finish(settings: Settings, listed: bool, copy_clicked: bool) -> None:
    """After the sidebar: "Open a lesson file", the link dialog when asked, and the page an
    opened file names."""
    state = st.session_state
    with st.sidebar:
        st.file_uploader(
            "Open a lesson file",
            type=["json"],
            key=UPLOAD,
            on_change=_open_file,
            help="A file saved with “Copy link to this frame”: it reopens that frame, text included.",
        )
        if state.get(FILE_ERROR):
            st.error(escape_markdown(f"{state[FILE_ERROR]} Nothing was changed."), icon="⚠️")
    goto = state.pop(GOTO, None)
    if goto is not None and goto != current_page():
        try:
            st.switch_page(goto)
        except StreamlitAPIException:  # a page this server has not registered (added after it started)
            add_note(f"The lesson is on the page {shown_value(goto)}: open it in the page list.")
    if copy_clicked:
        _link_dialog(settings, listed)


PROJECTOR = "lesson_for_projector"  # the dialog's toggle: the link and file carry the screen's view


@st.dialog("Link to this frame", width="large")
def _link_dialog(settings: Settings, listed: bool) -> None:
    projector = False
    if any(current_values(VIEW_CONTROLS).values()):  # presenter mode or the sidebar hidden is on here
        projector = st.toggle(
            "For the projector: with presenter mode and the sidebar as they are here",
            key=PROJECTOR,
            help="Off, the link is for the class: each screen keeps its own type size and sidebar.",
        )
    try:
        lesson = current_lesson(settings, listed, current_page(), projector=projector)
    except BpeError as error:
        st.error(escape_markdown(str(error)), icon="⚠️")
        return
    if listed:
        st.html(COPY_BUTTON_CSS)  # shown without hovering: a teacher looks for it, not for a hover
        st.code(lesson_link(lesson), language=None, wrap_lines=True)
        st.caption(
            "Copy it with the button at the box's top right. It opens this frame again: " + lesson_summary(lesson)
        )
    else:
        st.info(
            "This text was pasted or uploaded, so a link cannot carry it: hand out the lesson file, "
            "which holds the text too. It opens this frame again: " + lesson_summary(lesson)
        )
    name = re.sub(r"\W+", "_", Path(lesson.page).stem).strip("_").lower()
    st.download_button(
        "Download the lesson file (JSON)",
        lesson_json(lesson),
        file_name=f"lesson_{name}.json",
        mime="application/json",
        key="lesson_download",
        on_click="ignore",
    )


# ==================== The text the lesson was made on


def lesson_frame_ok(settings: Settings) -> bool:
    """Under the title: whether the text here is the lesson's. When it is not, say so and
    return False (the page then stops) until the visitor picks another text or chooses to
    see this one anyway."""
    state = st.session_state
    expect = state.get(EXPECT)
    if not expect:
        return True
    here = (settings.corpus, settings.corpus_version)
    if expect["shown"] is not None and expect["shown"] != here:
        state.pop(EXPECT)  # the visitor picked another text: the lesson's check is done
        return True
    try:
        same = settings.corpus == expect["corpus"] and corpus_hash(settings) == expect["hash"]
    except BpeError:
        return True  # the page says why the corpus cannot be read
    if same:
        state.pop(EXPECT)
        return True
    expect["shown"] = here
    lesson_text = f"{shown_value(expect['corpus'])} (text hash {shown_name(str(expect['hash']))})"
    if settings.corpus != expect["corpus"]:
        problem = (
            f"This lesson was made on {lesson_text}, which is not available here, so its merges "
            f"cannot be shown. The sidebar holds {settings.corpus!r} instead."
        )
    else:
        problem = (
            f"This lesson was made on a different text called {lesson_text}: the text here hashes to "
            f"{corpus_hash(settings)}. Its merges would not be the lesson's, so they are not shown."
        )
    st.error(escape_markdown(problem), icon="⚠️")
    st.button(f"Show {settings.corpus!r} anyway", key="lesson_show_anyway", on_click=lambda: state.pop(EXPECT, None))
    return False
