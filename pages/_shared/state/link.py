"""The link: what a page's address carries, read once and written back.

Two readers share this module today: `read_url_once` (corpus, vocab, min_freq and the
Merge-by-merge step, which links have always carried) and the lesson link's fields
(`setting_fields`, `page_fields`: one parameter per field of `Settings` and per page
control, each with its kind and allowed values, checked by `checked` in links and lesson
files alike). `mirror_in_url` and `mirror_step` write the shareable part back.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass

import streamlit as st

from bpe.lm.job import MODEL_SHAPES
from bpe.pretokenize import PRETOKENIZER_CHOICES
from bpe.steps import TIE_RULES
from pages._shared.state.settings import DEFAULTS, RECORDED_TOP_K, Settings

STEP = "merges_step"  # the Merge-by-merge page's step, mirrored in the URL as `step`
URL_READ = "settings_url_read"  # the URL is read once per session, on its first run
URL_NOTES = "settings_url_notes"  # what was wrong with the link, shown on that first page
HASH_PARAM = "text_hash"
READ_BY_SETTINGS = ("corpus", "vocab", "min_freq", "step")  # read by `read_url_once`, not the lesson reader
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


# ==================== URL


def read_url_once(listed_names: set[str]) -> None:
    """On a session's first run, take corpus, vocab, min_freq and step from the link.

    A value that cannot be used is skipped with a note (shown once by `url_notes`).
    """
    state = st.session_state
    if state.get(URL_READ):
        return
    state[URL_READ] = True
    params = st.query_params
    notes = []
    if "corpus" in params:
        name = params["corpus"]
        if name in listed_names:
            state["settings_corpus"] = name
        else:
            notes.append(f"The link's corpus {name!r} is not available here; showing the default instead.")
    for param, key, minimum in (
        ("vocab", "settings_vocab", 1),
        ("min_freq", "settings_min_freq", 1),
        ("step", STEP, 0),
    ):
        if param not in params:
            continue
        raw = params[param]
        try:
            value = int(raw)
        except ValueError:
            value = None
        if value is None or value < minimum:
            notes.append(f"The link's {param}={raw!r} is not a whole number of at least {minimum}; ignored.")
            continue
        state[key] = value
        if key == "settings_vocab":
            state["settings_train_up_to"] = max(state.get("settings_train_up_to", 0), value)
    state[URL_NOTES] = notes


def url_notes() -> list[str]:
    """What was wrong with the link, once."""
    return st.session_state.pop(URL_NOTES, [])


def mirror_in_url(settings: Settings, listed: bool) -> None:
    """Write corpus (when listed: uploads are private), vocab, min_freq and step to the URL."""
    wanted = {"vocab": str(settings.vocab_size), "min_freq": str(settings.min_freq)}
    if listed:
        wanted["corpus"] = settings.corpus
    step = st.session_state.get(STEP)
    if step is not None:
        wanted["step"] = str(step)
    params = st.query_params
    for name in ("corpus", "step"):
        if name not in wanted and name in params:
            del params[name]
    changed = {name: value for name, value in wanted.items() if params.get(name) != value}
    if changed:  # writing only what changed keeps the browser history quiet
        params.update(changed)


def mirror_step(step: int) -> None:
    """Record the Merge-by-merge step in session state and in the URL (`step`)."""
    st.session_state[STEP] = step
    if st.query_params.get("step") != str(step):
        st.query_params["step"] = str(step)
