"""Every value a link or a lesson file can carry, declared once.

A `Control` names a plain session-state key, its link parameter, its kind (bool, int,
float, str or list), its default, and what values are allowed (bounds, options, and for a
list its length, its items' kind and order). The widget draws from the declaration
(`Control.draw`: its bounds or options are the declaration's), and links and lesson files
are checked against it (`checked`), so widening a slider widens what a link may set.

Three kinds of declaration:

- the sidebar's settings (`setting_fields`): one per field of `Trained` the sidebar sets
  (`SETTING_INPUTS`), with its default from `DEFAULTS`;
- each page's own controls that change what is drawn (`PAGE_CONTROLS`; what only starts
  or times something, like Play or the film's speed, is left out);
- the screen's view (`VIEW_CONTROLS`): presenter mode and the sidebar hidden, on every page.

A control marked ``envelope`` has bounds that are only the outer limits: its widget
narrows them to what the run offers (the vocab from the alphabet up, the step up to the
last merge, the sizes a run reaches). tests/app/test_controls.py ties every other control
to its widget, bound for bound.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from bpe.analysis.special_tokens import SAMPLE
from bpe.io.jsonfile import load_json
from bpe.lm.job import DEFAULT_SHAPE, MODEL_SHAPES
from bpe.pretokenize import PRETOKENIZER_CHOICES
from bpe.steps import TIE_RULES
from bpe.training import MAX_VOCAB_SIZE
from pages._shared.state.settings import (
    ALPHABET,
    CORPUS,
    DEFAULTS,
    ENGINE,
    HELDOUT,
    MIN_FREQ,
    PREFIX_CAP,
    PRETOKENIZER,
    RECORDED_TOP_K,
    SPECIALS,
    TIE_RULE,
    TOP_K,
    TRAIN_UP_TO,
    VOCAB,
    bind,
)

MAX_TEXT_VALUE = 20_000  # characters of a text control (the Tokenize box) a link may set
MAX_LIST_PARAM = 1_000  # characters of a list parameter's JSON: checked before it is parsed
MAX_PLAIN_PARAM = 40  # characters of a number, a switch or an option in a link
MAX_LIST_ITEMS = 20
MAX_ITEM_CHARS = 200  # characters of one text in a list (a tokenizer's label)
MAX_PREFIX_CHARS = 50_000_000
MAX_MIN_FREQ = 1_000_000
# The sidebar offers vocab sizes up to max(10,000, alphabet + 1,000); no corpus the lab
# can hold has an alphabet near this (training's own bound), so a link asking more is
# refused, not clamped.
MAX_LINK_VOCAB = MAX_VOCAB_SIZE


@dataclass(frozen=True)
class Control:
    """One value a link or lesson carries (see the module doc)."""

    key: str
    param: str
    kind: type
    default: object = dataclasses.field(default=None, hash=False)  # (a list's is not hashable: the special tokens' [])
    low: float | None = None  # for a list: each item's
    high: float | None = None
    options: tuple | None = None
    item: type = int  # the kind of a list's items
    length: tuple[int, int] = (0, MAX_LIST_ITEMS)  # fewest and most items of a list
    ordered: bool = False  # a list's items in increasing order (a range: shortest, longest)
    envelope: bool = False  # the widget narrows the bounds to the run (see the module doc)
    drawn: bool = True  # it has a widget of its own (`_w_<key>`); the step and the phases do not

    def limits(self) -> dict:
        """The widget's bounds or options, as the declaration says them."""
        if self.options is not None:
            return {"options": list(self.options)}
        found = {}
        if self.low is not None:
            found["min_value"] = self.low
        if self.high is not None:
            found["max_value"] = self.high
        return found

    def draw(self, widget: Callable, label: str, **kwargs):
        """``widget`` showing this control's state, with the declared bounds or options."""
        return bind(widget, label, self.key, **self.limits(), **kwargs)

    def setdefault(self) -> None:
        st.session_state.setdefault(self.key, self.default)


def control(key: str, kind: type, default=None, *, param: str | None = None, **limits) -> Control:
    return Control(key, param or key, kind, default, **limits)


# ==================== The sidebar's settings

# The sidebar's inputs, one per field of `Trained` it sets (``training.<name>``: a field of
# the core's `TrainingSettings`), each by the state key that holds it and the link parameter
# that carries it, in the order a link spells them. (``corpus_version`` has no state: the
# text hash stands in for it; the other fields of `TrainingSettings` are the app's own,
# `state.settings.APP_TRAINING_FIELDS`.)
SETTING_INPUTS = (
    ("corpus", CORPUS, "corpus"),
    ("prefix_cap", PREFIX_CAP, "prefix"),
    ("heldout_fraction", HELDOUT, "heldout"),
    ("vocab_size", VOCAB, "vocab"),
    ("training.target_vocab_size", TRAIN_UP_TO, "train_to"),
    ("training.minimum_pair_frequency", MIN_FREQ, "min_freq"),
    ("training.engine", ENGINE, "engine"),
    ("training.alphabet", ALPHABET, "alphabet"),
    ("training.pretokenizer", PRETOKENIZER, "pretok"),
    ("top_k", TOP_K, "top_k"),
    ("training.tie_rule", TIE_RULE, "tie_rule"),
    ("training.special_tokens", SPECIALS, "specials"),
)
SETTING_LIMITS = {  # the sidebar's widgets draw exactly these (the vocab's narrowed to the alphabet)
    PREFIX_CAP: dict(low=100, high=MAX_PREFIX_CHARS),
    HELDOUT: dict(low=0.0, high=0.5),
    VOCAB: dict(low=1, high=MAX_LINK_VOCAB, envelope=True),
    TRAIN_UP_TO: dict(low=1, high=MAX_LINK_VOCAB, envelope=True),
    MIN_FREQ: dict(low=1, high=MAX_MIN_FREQ),
    TOP_K: dict(low=1, high=RECORDED_TOP_K),
    ENGINE: dict(options=("fast", "reference")),
    ALPHABET: dict(options=("characters", "bytes")),
    PRETOKENIZER: dict(options=tuple(PRETOKENIZER_CHOICES)),
    TIE_RULE: dict(options=TIE_RULES),
    SPECIALS: dict(item=str, length=(0, MAX_LIST_ITEMS)),
    CORPUS: dict(envelope=True),  # the corpora listed on this machine
}


def setting_fields() -> list[Control]:
    """One `Control` per input of the sidebar (`SETTING_INPUTS`), in a link's order."""
    return list(_SETTING_FIELDS)


def setting(key: str) -> Control:
    """The sidebar's control of ``key`` (``settings_prefix_cap``, ...)."""
    return _SETTING_BY_KEY[key]


def _setting_fields() -> tuple[Control, ...]:
    fields = []
    for _field, key, param in SETTING_INPUTS:
        default = DEFAULTS[key]
        limits = SETTING_LIMITS.get(key, dict(low=1) if type(default) is int else {})
        fields.append(Control(key, param, type(default), default, **limits))
    return tuple(fields)


# Declared once: every page run asks for these a few dozen times (the sidebar, the link, the
# lesson), and they never change while the server runs.
_SETTING_FIELDS = _setting_fields()
_SETTING_BY_KEY = {field.key: field for field in _SETTING_FIELDS}


# ==================== Each page's controls

STEP = control("merges_step", int, 1, param="step", low=1, envelope=True, drawn=False)
WINDOW = control("merges_window", int, 0, low=0, envelope=True)
FOLLOW = control("merges_follow", bool, True)
QUIZ = control("teach_quiz", bool, False)
ALGORITHM = control("teach_algorithm", bool, False)
PHASE = control("teach_phase", int, 0, low=0, high=3, drawn=False)  # index into bpe.analysis.algorithm.PHASES
SCAN = control("teach_scan", int, 0, low=0, envelope=True, drawn=False)  # occurrences merged in the slow phase
SLOW = control("teach_slow", bool, False)

TOKENIZE_TEXT = control("tokenize_text", str)  # starts as a sentence of the corpus
LINEAGE = control("tokenize_lineage", str, envelope=True)  # a token of the text
SPECIAL_TEXT = control("tokenize_special_text", str, SAMPLE)
DIFF_ROWS = control("tokenize_diff_rows", list, item=str, length=(0, 4), envelope=True)  # the span diff's rows
FILM_OF = control("tokenize_film_of", str, envelope=True)  # the tokenizer the encode film plays
FILM_FRAME = control("tokenize_film_frame", int, 0, low=0, envelope=True, drawn=False)

GAP = control("compression_gap", int, 5, low=1, high=30)
WIDTH = control("compression_d", int, 128, low=1, high=16_384)
COMPRESSION_SIZES = control("compression_sizes", list, low=1, high=MAX_LINK_VOCAB, envelope=True)
CARD_UNIT = control("compression_card_unit", str, "characters", options=("characters", "bytes"))

BLOCK = control("context_block", int, 128, options=tuple(2**k for k in range(5, 12)))
CONTEXT_SIZES = control("context_sizes", list, low=1, high=MAX_LINK_VOCAB, length=(1, 3), envelope=True)
PASSAGE = control("context_passage", int, 1_000, low=10, high=100_000)

SEARCH = control("vocab_search", str, "")
LENGTHS = control("vocab_lengths", list, low=0, length=(2, 2), ordered=True, envelope=True)
UNUSED = control("vocab_unused", bool, False)
RARE_BELOW = control("vocab_rare_below", int, 3, low=1, high=1_000_000)
HEALTH_SHOW = control("vocab_show", str, envelope=True)  # which flagged tokens the table shows
HEALTH_SORT = control("vocab_sort", str, envelope=True)
HEALTH_OTHER = control("vocab_other", str, envelope=True)  # the pretrained tokenizer checked

MODEL_TOKENIZERS = control("model_tokenizers", list, item=str, envelope=True)
SHAPE = control("model_shape", str, DEFAULT_SHAPE, options=tuple(MODEL_SHAPES))
# Equal work, not equal seconds: every model trains this many steps of the same batch of tokens
STEPS = control("model_steps", int, 200, low=10, high=5_000)

BYTES_MERGES = control("bytes_merges", int, 300, options=(50, 100, 200, 300, 500, 1000))
GPT2_SPELLING = control("bytes_gpt2_spelling", bool, False)
BYTES_VARIANT = control("bytes_variant", str, envelope=True)  # one of the byte-level tokenizers trained

LANGUAGES_MERGES = control("languages_merges", int, 200, options=(0, 50, 100, 200, 300, 500))
LANGUAGES_MODE = control("languages_mode", str, "shared", options=("shared", "separate"))
LANGUAGES_PARITY = control("languages_parity", bool, False)  # parity-aware BPE beside standard BPE

PAGE_CONTROLS: dict[str, tuple[Control, ...]] = {
    "pages/1_Merge_by_merge.py": (STEP, WINDOW, FOLLOW, QUIZ, ALGORITHM, PHASE, SCAN, SLOW),
    "pages/2_Tokenize.py": (TOKENIZE_TEXT, LINEAGE, SPECIAL_TEXT, DIFF_ROWS, FILM_OF, FILM_FRAME),
    "pages/3_Compression.py": (GAP, WIDTH, COMPRESSION_SIZES, CARD_UNIT),
    "pages/4_Context_window.py": (BLOCK, CONTEXT_SIZES, PASSAGE),
    "pages/5_Vocabulary.py": (SEARCH, LENGTHS, UNUSED, RARE_BELOW, HEALTH_SHOW, HEALTH_SORT, HEALTH_OTHER),
    "pages/6_Model.py": (MODEL_TOKENIZERS, SHAPE, STEPS),
    "pages/7_Bytes_and_pretokenizers.py": (BYTES_MERGES, GPT2_SPELLING, BYTES_VARIANT),
    # Compare runs shows two runs of this session: a link cannot carry them, so it has no controls here.
    "pages/9_Languages.py": (LANGUAGES_MERGES, LANGUAGES_MODE, LANGUAGES_PARITY),
}


# ==================== The screen's view

# How this screen shows the pages, not what they show: presenter mode's large type, and the
# sidebar hidden so the lesson takes the page's whole width (a button at the top left brings
# it back). Both are carried on every page by the address bar, so reloading the projector's
# page keeps them; a lesson link or file carries them only when the teacher asks for the
# projector's link (`frame.lesson_links`): the link handed to students leaves them out, and
# each student's screen keeps its own size and sidebar.
PRESENTER = control("presenter_large", bool, False, param="presenter")
SIDEBAR_HIDDEN = control("view_sidebar_hidden", bool, False, param="hide_sidebar")
VIEW_CONTROLS = (PRESENTER, SIDEBAR_HIDDEN)


# The Merge-by-merge step travels in every page's address (`state.link.mirror_in_url`), so a
# link read on any page takes it: back on Merge by merge the class is at that step.
ON_EVERY_PAGE = (STEP,)


def page_fields(page: str) -> tuple[Control, ...]:
    return PAGE_CONTROLS.get(page, ())


def link_fields(page: str) -> list[Control]:
    """What a link opened on ``page`` may set: the settings, the step, the screen's view, the
    page's controls."""
    fields = setting_fields() + list(ON_EVERY_PAGE) + list(VIEW_CONTROLS)
    return fields + [field for field in page_fields(page) if field not in fields]


# ==================== Values: checked one by one, in links and files alike


class OutOfRange(ValueError):
    """A number of the right kind outside its bounds: ``nearest`` is the closest allowed."""

    def __init__(self, message: str, nearest: float):
        super().__init__(message)
        self.nearest = nearest


def checked(field: Control, value):
    """``value`` if ``field`` allows it (an int where a float is asked is taken), else
    ValueError saying what is allowed; `OutOfRange` (a ValueError) for a number outside the
    bounds of a control whose widget has fixed bounds, with the nearest allowed value."""
    if field.kind is float and type(value) is int:
        value = float(value)
    if field.kind is list and isinstance(value, tuple):
        value = list(value)
    if not _allowed(field, value):
        message = f"{field.param}={_shown(value)} is not {expected(field)}"
        if field.kind in (int, float) and field.options is None and not field.envelope and value == value:
            if type(value) is field.kind:  # the right kind (not NaN): only too small or too large
                low = value if field.low is None else max(value, field.low)
                raise OutOfRange(message, low if field.high is None else min(low, field.high))
        raise ValueError(message)
    return value


def _allowed(field: Control, value) -> bool:
    if type(value) is not field.kind:
        return False
    if field.kind is str:
        return len(value) <= MAX_TEXT_VALUE and (field.options is None or value in field.options)
    if field.kind is list:
        fewest, most = field.length
        if not fewest <= len(value) <= most or any(type(item) is not field.item for item in value):
            return False
        if field.item is str:
            return all(len(item) <= MAX_ITEM_CHARS for item in value)
        if field.ordered and any(a > b for a, b in zip(value, value[1:])):
            return False
        return all(_within(field, item) for item in value)
    if field.options is not None:
        return value in field.options
    return _within(field, value)


def _within(field: Control, number) -> bool:
    return (field.low is None or number >= field.low) and (field.high is None or number <= field.high)


def _number(value: float) -> str:
    return f"{value:,}" if isinstance(value, int) else f"{value:g}"


def expected(field: Control) -> str:
    """What ``field`` allows, in words: "a whole number from 1 to 30"."""
    if field.options is not None:
        return "one of " + ", ".join(repr(option) for option in field.options)
    if field.kind is list:
        return _expected_list(field)
    words = {
        bool: "true or false (1 or 0)",
        int: "a whole number",
        float: "a number",
        str: f"a text of at most {MAX_TEXT_VALUE:,} characters",
    }[field.kind]
    return words + _range(field)


def _range(field: Control) -> str:
    if field.low is not None and field.high is not None:
        return f" from {_number(field.low)} to {_number(field.high)}"
    return f" of at least {_number(field.low)}" if field.low is not None else ""


def _expected_list(field: Control) -> str:
    fewest, most = field.length
    count = f"{most}" if fewest == most else f"{fewest} to {most}" if fewest else f"at most {most}"
    if field.item is str:
        return f"a list of {count} texts of at most {MAX_ITEM_CHARS} characters"
    order = " in increasing order" if field.ordered else ""
    return f"a list of {count} whole numbers{_range(field)}{order}"


def _shown(value) -> str:
    """A value as a note names it: its repr, cut (a link can hold anything, at any length)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def from_link(field: Control, raw: str):
    """A link parameter's text as the field's value (checked). Its length is checked before
    anything is parsed, and a list is read by `bpe.io.jsonfile.load_json` (duplicate keys,
    nesting too deep and huge numbers give one line, never a traceback)."""
    cap = {str: MAX_TEXT_VALUE, list: MAX_LIST_PARAM}.get(field.kind, MAX_PLAIN_PARAM)
    refused = ValueError(f"{field.param}={_shown(raw)} is not {expected(field)}")
    if len(raw) > cap:
        raise refused
    try:
        if field.kind is bool:
            value = {"1": True, "true": True, "0": False, "false": False}[raw.lower()]
        elif field.kind is list:
            value = load_json(raw.encode("utf-8"), name=field.param, what="a list", error=ValueError)
        else:
            value = field.kind(raw)
    except (KeyError, ValueError):
        raise refused from None
    return checked(field, value)


def to_link(value) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        return json.dumps(list(value), ensure_ascii=False, separators=(",", ":"))
    return str(value)


def current_values(fields) -> dict[Control, object]:
    """The fields' values now, leaving out what is unset or not a plain value (a byte token)."""
    state, values = st.session_state, {}
    for field in fields:
        try:
            values[field] = checked(field, state[field.key])
        except (KeyError, ValueError):
            continue
    return values
