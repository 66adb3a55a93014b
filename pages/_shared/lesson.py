"""Lesson links and lesson files: hand out the exact frame on screen, and open it again.

A lesson link is the page's address plus one query parameter per field of `Settings`
(the sidebar: corpus, prefix, held-out part, vocab, train-up-to, minimum frequency,
engine, alphabet, pre-tokenizer, top-k, tie rule, and any field added later whose state
key is ``settings_<field>``), the short hash of the text trained on (``text_hash``), and
the page's own controls that change what is drawn (`PAGE_CONTROLS`: the step, the text
window, ...). A lesson file holds the same, plus the text when it was pasted or
uploaded (a link cannot carry it). The file format and its checks are
`bpe.analysis.lesson`; this module maps fields to session state, checks each value,
and draws the sidebar's "Copy link to this frame" and "Open a lesson file".

`setup_page` calls, in order: `lesson_start` (before the sidebar: read the link once,
draw the button), `lesson_finish` (after it: the dialog, the file, a page switch) and
`lesson_frame_ok` (under the title: the link's notes, and a text that differs from the
lesson's stops the page instead of showing other merges).

Reading the link here leaves ``corpus``, ``vocab``, ``min_freq`` and ``step`` to
`settings.read_url_once`, which has always read them (`READ_BY_SETTINGS`).
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

import streamlit as st
from streamlit.errors import StreamlitAPIException
from streamlit.runtime.scriptrunner import get_script_run_ctx

from bpe.analysis.lesson import Lesson, LessonError, lesson_json, parse_lesson, text_hash
from bpe.corpora.corpus import list_corpora
from bpe.errors import BpeError
from bpe.lm.job import MODEL_SHAPES
from bpe.pretokenize import PRETOKENIZER_CHOICES
from bpe.steps import TIE_RULES

from . import cache
from .html import escape_markdown
from .run_state import OWNERS
from .settings import DEFAULTS, RECORDED_TOP_K, STEP, Settings
from .sidebar import _add_user_corpus as add_user_corpus  # the one home of the session's bounded texts
from .sidebar import upload_limit_bytes

ROOT = Path(__file__).resolve().parents[2]
HASH_PARAM = "text_hash"
READ_BY_SETTINGS = ("corpus", "vocab", "min_freq", "step")
LINK_READ = "lesson_link_read"  # the link is read once per session, on its first run
LINK_NOTES = "lesson_notes"  # what was wrong with the link or file, shown once under the title
EXPECT = "lesson_expect"  # {"corpus", "hash", "shown"}: the text the lesson was made on
GOTO = "lesson_goto"  # the page an opened lesson file shows
FILE_ERROR = "lesson_file_error"
MAX_TEXT_VALUE = 20_000  # characters of a text control (the Tokenize box) a link may set


@dataclass(frozen=True)
class Field:
    """One value a lesson carries: its plain session-state key, its link parameter, its
    kind (bool, int, float, str or list) and what values are allowed."""

    key: str
    param: str
    kind: type
    low: float | None = None
    high: float | None = None
    options: tuple | None = None
    item: type = int  # the kind of a list's items


def control(key: str, kind: type, *, param: str | None = None, **limits) -> Field:
    return Field(key, param or key, kind, **limits)


# ==================== What a lesson carries

# Settings fields whose link parameter or state key is not simply the field's name
SETTING_PARAMS = {
    "vocab_size": "vocab",
    "trained_vocab_size": "train_to",
    "prefix_cap": "prefix",
    "heldout_fraction": "heldout",
    "pretokenizer": "pretok",
}
SETTING_KEYS = {
    "vocab_size": "settings_vocab",
    "trained_vocab_size": "settings_train_up_to",
    "heldout_fraction": "settings_heldout",
}
SETTING_LIMITS = {  # as the sidebar's widgets allow; the sidebar clamps the numbers it sees anyway
    "settings_heldout": dict(low=0.0, high=0.5),
    "settings_top_k": dict(low=1, high=RECORDED_TOP_K),
    "settings_engine": dict(options=("fast", "reference")),
    "settings_alphabet": dict(options=("characters", "bytes")),
    "settings_pretokenizer": dict(options=tuple(PRETOKENIZER_CHOICES)),
    "settings_tie_rule": dict(options=TIE_RULES),
}
# Each page's own controls that change what is drawn (what only starts or times something,
# like Play or the film's speed, is left out). Bounds mirror the pages' widgets.
PAGE_CONTROLS: dict[str, tuple[Field, ...]] = {
    "pages/1_Merge_by_merge.py": (
        control(STEP, int, param="step", low=1),
        control("merges_window", int, low=0),
        control("merges_follow", bool),
        control("teach_quiz", bool),
        control("teach_algorithm", bool),
        control("teach_phase", int, low=0, high=3),
        control("teach_scan", int, low=0),
        control("teach_slow", bool),
    ),
    "pages/2_Tokenize.py": (
        control("tokenize_text", str),
        control("tokenize_lineage", str),
        control("tokenize_special_text", str),
    ),
    "pages/3_Compression.py": (
        control("compression_gap", int, low=1, high=30),
        control("compression_d", int, low=1, high=16_384),
        control("compression_sizes", list),
    ),
    "pages/4_Context_window.py": (
        control("context_block", int, options=tuple(2**k for k in range(5, 12))),
        control("context_sizes", list),
        control("context_passage", int, low=10, high=100_000),
    ),
    "pages/5_Vocabulary.py": (
        control("vocab_search", str),
        control("vocab_lengths", list),
        control("vocab_unused", bool),
    ),
    "pages/6_Model.py": (
        control("model_tokenizers", list, item=str),
        control("model_shape", str, options=tuple(MODEL_SHAPES)),
        control("model_seconds", int, low=1, high=900),
    ),
    "pages/7_Bytes_and_pretokenizers.py": (
        control("bytes_merges", int, options=(50, 100, 200, 300, 500, 1000)),
        control("bytes_gpt2_spelling", bool),
        control("bytes_variant", str),
    ),
    # Compare runs shows two runs of this session: a link cannot carry them, so it has no controls here.
    "pages/9_Languages.py": (
        control("languages_merges", int, options=(0, 50, 100, 200, 300, 500)),
        control("languages_mode", str, options=("shared", "separate")),
    ),
}


def setting_fields() -> list[Field]:
    """One `Field` per field of `Settings` that the sidebar keeps in state, in the order of
    `Settings`: a field added to `Settings` and `DEFAULTS` travels in links by itself.
    (``corpus_version`` has no state: the text hash stands in for it.)"""
    fields = []
    for field in dataclasses.fields(Settings):
        key = SETTING_KEYS.get(field.name, f"settings_{field.name}")
        if key not in DEFAULTS:
            continue
        default = DEFAULTS[key]
        limits = SETTING_LIMITS.get(key, dict(low=1) if type(default) is int else {})
        fields.append(Field(key, SETTING_PARAMS.get(field.name, field.name), type(default), **limits))
    return fields


def page_fields(page: str) -> tuple[Field, ...]:
    return PAGE_CONTROLS.get(page, ())


# ==================== Values: checked one by one, in links and files alike


def checked(field: Field, value):
    """``value`` if ``field`` allows it (an int where a float is asked is taken), else
    ValueError saying what is allowed."""
    if field.kind is float and type(value) is int:
        value = float(value)
    if field.kind is list and isinstance(value, tuple):
        value = list(value)
    ok = type(value) is field.kind and (field.kind is not str or len(value) <= MAX_TEXT_VALUE)
    if ok and field.kind is list:
        ok = all(type(item) is field.item for item in value)
    if ok and field.options is not None:
        ok = value in field.options
    if ok and field.low is not None:
        ok = value >= field.low
    if ok and field.high is not None:
        ok = value <= field.high
    if not ok:
        raise ValueError(f"{field.param}={value!r} is not {expected(field)}")
    return value


def expected(field: Field) -> str:
    if field.options is not None:
        return "one of " + ", ".join(repr(option) for option in field.options)
    words = {
        bool: "true or false (1 or 0)",
        int: "a whole number",
        float: "a number",
        str: f"a text of at most {MAX_TEXT_VALUE:,} characters",
        list: "a list of " + ("whole numbers" if field.item is int else "texts"),
    }[field.kind]
    if field.low is not None and field.high is not None:
        return f"{words} from {field.low:g} to {field.high:g}"
    return f"{words} of at least {field.low:g}" if field.low is not None else words


def from_link(field: Field, raw: str):
    """A link parameter's text as the field's value (checked)."""
    try:
        if field.kind is bool:
            value = {"1": True, "true": True, "0": False, "false": False}[raw.lower()]
        elif field.kind is list:
            value = json.loads(raw)
        else:
            value = field.kind(raw)
    except (KeyError, ValueError):
        raise ValueError(f"{field.param}={raw!r} is not {expected(field)}") from None
    return checked(field, value)


def to_link(value) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        return json.dumps(list(value), ensure_ascii=False, separators=(",", ":"))
    return str(value)


def current_values(fields) -> dict[Field, object]:
    """The fields' values now, leaving out what is unset or not a plain value (a byte token)."""
    state, values = st.session_state, {}
    for field in fields:
        try:
            values[field] = checked(field, state[field.key])
        except (KeyError, ValueError):
            continue
    return values


# ==================== The page, its address, the text's hash


def current_page() -> str:
    """The running script relative to the repository: ``app.py``, ``pages/1_Merge_by_merge.py``."""
    ctx = get_script_run_ctx()
    if ctx is None:
        return "app.py"
    info = ctx.pages_manager.get_pages().get(ctx.pages_manager.current_page_script_hash) or {}
    path = Path(info.get("script_path") or ctx.main_script_path).resolve()
    try:
        return path.relative_to(ROOT).as_posix()
    except ValueError:
        return path.name


def known_pages() -> list[str]:
    return ["app.py"] + sorted(f"pages/{p.name}" for p in (ROOT / "pages").glob("[0-9]*_*.py"))


def page_address(page: str) -> str:
    """The page's address as the browser shows it (``st.context.url``); without a browser
    (tests), the path alone: ``/Merge_by_merge``."""
    url = st.context.url
    if url:
        return url
    return "/" + ("" if page == "app.py" else re.sub(r"^\d+_", "", Path(page).stem))


def corpus_hash(settings: Settings) -> str:
    """`text_hash` of the text trained on: the corpus cut to the prefix (training and
    held-out part together). Raises `BpeError` when the corpus cannot be read."""
    train, heldout = cache.corpus_texts(settings)
    return _hash(settings.corpus_key(), _text=train + heldout)


@st.cache_data(show_spinner=False, max_entries=16)
def _hash(key: tuple, _text: str) -> str:
    return text_hash(_text)


# ==================== The frame on screen, as a lesson and as a link


def current_lesson(settings: Settings, listed: bool, page: str) -> Lesson:
    """This frame: the page, the corpus and its hash, the sidebar's settings, the page's
    controls, and the text itself when it was pasted or uploaded."""
    train, heldout = cache.corpus_texts(settings)
    values = current_values(setting_fields())
    return Lesson(
        page=page,
        corpus=settings.corpus,
        text_hash=corpus_hash(settings),
        settings={field.param: value for field, value in values.items() if field.param != "corpus"},
        controls={field.param: value for field, value in current_values(page_fields(page)).items()},
        text=None if listed else train + heldout,
    )


def lesson_link(lesson: Lesson) -> str:
    """The lesson as a link: the page's address and every field as a query parameter."""
    params = {"corpus": lesson.corpus, HASH_PARAM: lesson.text_hash}
    params.update({name: to_link(value) for name, value in {**lesson.settings, **lesson.controls}.items()})
    return f"{page_address(lesson.page)}?{urlencode(params)}"


def lesson_summary(lesson: Lesson) -> str:
    """What the link holds, in one line of Markdown (user text escaped)."""
    parts = [f"{name}={to_link(value)}" for name, value in {**lesson.settings, **lesson.controls}.items()]
    return escape_markdown(
        f"Page {lesson.page}; corpus {lesson.corpus!r} (text hash {lesson.text_hash}); " + ", ".join(parts) + "."
    )


# ==================== Reading a link, opening a file


def lesson_start() -> bool:
    """Before the sidebar: read the link once (what `read_url_once` does not), then draw
    "Copy link to this frame" at the top of the sidebar. Returns whether it was clicked."""
    state = st.session_state
    if not state.get(LINK_READ):
        state[LINK_READ] = True
        _read_link(st.query_params)
    return st.sidebar.button(
        "Copy link to this frame",
        key="lesson_copy",
        icon=":material/link:",
        help="A link (and a lesson file) that reopens exactly what is on screen.",
    )


def _read_link(params) -> None:
    state = st.session_state
    notes = []
    for field in setting_fields() + list(page_fields(current_page())):
        if field.param in READ_BY_SETTINGS or field.param not in params:
            continue
        try:
            state[field.key] = from_link(field, params[field.param])
        except ValueError as error:
            notes.append(f"The link's {error}; ignored.")
    if HASH_PARAM in params and "corpus" in params:
        state[EXPECT] = {"corpus": params["corpus"], "hash": params[HASH_PARAM], "shown": None}
    state[LINK_NOTES] = notes


def lesson_values(lesson: Lesson) -> dict[Field, object]:
    """Every value of a lesson file, checked; `LessonError` on the first that is not allowed."""
    if lesson.page not in known_pages():
        raise LessonError(f"The lesson's page {lesson.page!r} is not a page of this BPE Lab.")
    values = {}
    for part, fields in (("settings", setting_fields()), ("controls", page_fields(lesson.page))):
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
    upload = state.get("lesson_upload")
    if upload is None:
        return
    try:
        lesson = parse_lesson(upload.getvalue(), name=upload.name, max_bytes=upload_limit_bytes())
        values = lesson_values(lesson)
    except BpeError as error:
        state[FILE_ERROR] = str(error)
        return
    state.pop(FILE_ERROR, None)
    if lesson.text is not None:  # kept like any pasted text: the session's last few, the oldest let go
        add_user_corpus(lesson.corpus, lambda: lesson.text)
    elif lesson.corpus in {info.name for info in list_corpora()}:
        state["settings_corpus"] = lesson.corpus
    for field, value in values.items():
        state[field.key] = value
    state.pop(OWNERS, None)  # like a link on a first visit: the pages keep what the lesson set
    state[EXPECT] = {"corpus": lesson.corpus, "hash": lesson.text_hash, "shown": None}
    state[GOTO] = lesson.page
    state[LINK_NOTES] = [f"Opened the lesson file {upload.name}."]


def lesson_finish(settings: Settings, listed: bool, copy_clicked: bool) -> None:
    """After the sidebar: "Open a lesson file", the link dialog when asked, and the page an
    opened file names."""
    state = st.session_state
    with st.sidebar:
        st.file_uploader(
            "Open a lesson file",
            type=["json"],
            key="lesson_upload",
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
            state.setdefault(LINK_NOTES, []).append(f"The lesson is on the page {goto!r}: open it in the page list.")
    if copy_clicked:
        _link_dialog(settings, listed)


@st.dialog("Link to this frame", width="large")
def _link_dialog(settings: Settings, listed: bool) -> None:
    try:
        lesson = current_lesson(settings, listed, current_page())
    except BpeError as error:
        st.error(escape_markdown(str(error)), icon="⚠️")
        return
    if listed:
        st.code(lesson_link(lesson), language=None, wrap_lines=True)
        st.caption(
            "Copy it with the button at the box's top right. Opening it shows this frame again: "
            + lesson_summary(lesson)
        )
    else:
        st.info(
            "This text was pasted or uploaded, so a link cannot carry it: hand out the lesson file, "
            "which holds the text too."
        )
    name = re.sub(r"\W+", "_", Path(lesson.page).stem).strip("_").lower()
    st.download_button(
        "Download the lesson file (JSON)",
        lesson_json(lesson),
        file_name=f"lesson_{name}.json",
        mime="application/json",
        key="lesson_download",
    )


# ==================== The text the lesson was made on


def lesson_frame_ok(settings: Settings) -> bool:
    """Under the title: the link's notes, then whether the text here is the lesson's. When
    it is not, say so and return False (the page then stops) until the visitor picks
    another text or chooses to see this one anyway."""
    state = st.session_state
    for note in state.pop(LINK_NOTES, []):
        st.warning(escape_markdown(note))
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
    lesson_text = f"{expect['corpus']!r} (text hash {expect['hash']})"
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
