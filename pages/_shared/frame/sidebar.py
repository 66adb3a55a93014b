"""The sidebar every page draws: corpus, text settings, vocab and training settings.

It only arranges widgets and turns their state into a `Settings`; reading, splitting and
training happen in `bpe` (through `data.runs`).
"""

from __future__ import annotations

import streamlit as st

from bpe.analysis.tie_rules import tie_rule_label, tie_rules_help
from bpe.corpora.corpus import corpus_from_upload, corpus_version, list_corpora
from bpe.corpora.textfile import decode_text_bytes
from bpe.errors import BpeError
from bpe.pretokenize import PRETOKENIZER_CHOICES, pretokenizer_name
from bpe.steps import TIE_RULES
from pages._shared.data.runs import alphabet_size, corpus_texts
from pages._shared.frame.wikitext_download import draw_download
from pages._shared.render.html import escape_markdown
from pages._shared.state.link import read_url_once
from pages._shared.state.settings import (
    MAX_USER_CORPORA,
    MIN_CHARS_TO_SPLIT,
    RECORDED_TOP_K,
    Settings,
    bind,
    text_version,
    user_corpora,
)

VOCAB_MAX = 10_000
REFERENCE_MAX_CHARS = 50_000  # the reference engine recounts every pair per merge: fine for teaching texts only
MAX_PREFIX_CHARS = 50_000_000
MAX_MIN_FREQ = 1_000_000
UPLOAD_ERROR = "settings_upload_error"
DROPPED_NOTE = "settings_dropped_note"  # which of this session's texts the last upload let go
PASTED = "pasted text"


def upload_limit_bytes() -> int:
    """The configured upload limit (`server.maxUploadSize`, in MB) in bytes."""
    return int(st.get_option("server.maxUploadSize")) * 1024 * 1024


def draw_sidebar() -> tuple[Settings, bool]:
    """Draw the shared sidebar; return the settings and whether the corpus is listed
    (built in or on disk, so it can go into a link)."""
    listed = {info.name: info for info in list_corpora()}
    read_url_once(set(listed))
    state = st.session_state
    own = user_corpora()
    if state.settings_corpus not in listed and state.settings_corpus not in own:
        state.settings_corpus = next(iter(listed))  # e.g. a data file that was removed
    _clamp("settings_prefix_cap", 100, MAX_PREFIX_CHARS)  # a link or another page may have set anything
    _clamp("settings_min_freq", 1, MAX_MIN_FREQ)
    _clamp("settings_top_k", 1, RECORDED_TOP_K)
    with st.sidebar:
        st.header("Corpus")
        sizes = {name: info.size_bytes for name, info in listed.items()}
        sizes.update({name: len(text.encode("utf-8")) for name, text in own.items()})
        bind(
            st.selectbox,
            "Text to train on",
            "settings_corpus",
            options=list(sizes),
            format_func=lambda name: f"{name} ({_size(sizes[name])})",
        )
        _corpus_inputs()
        draw_download()  # WikiText-2, once, with a progress bar (the command line's downloader)
        bind(
            st.number_input,
            "Train on the first … characters",
            "settings_prefix_cap",
            min_value=100,
            max_value=MAX_PREFIX_CHARS,
            step=50_000,
        )
        bind(
            st.slider,
            "Held-out part",
            "settings_heldout",
            min_value=0.0,
            max_value=0.5,
            step=0.05,
            help=f"The end of the text, kept out of training for held-out measures. "
            f"Texts under {MIN_CHARS_TO_SPLIT:,} characters are never split.",
        )
        st.header("Tokens")
        bind(st.radio, "Alphabet", "settings_alphabet", options=["characters", "bytes"], horizontal=True)
        bind(
            st.selectbox,
            "Pre-tokenizer",
            "settings_pretokenizer",
            options=list(PRETOKENIZER_CHOICES),
            format_func=pretokenizer_name,
            help="Split the text into chunks (words) that merges never cross.",
        )
        settings = _settings(state.settings_engine, listed)
        minimum = _describe_corpus(settings)
        _vocab_inputs(minimum)
        st.header("Training")
        bind(st.number_input, "Minimum pair frequency", "settings_min_freq", min_value=1, max_value=MAX_MIN_FREQ)
        bind(
            st.radio,
            "Engine",
            "settings_engine",
            options=["fast", "reference"],
            horizontal=True,
            help="Both give the same merges; the reference engine is the textbook loop, slow on big text.",
        )
        bind(
            st.selectbox,
            "Tie rule",
            "settings_tie_rule",
            options=list(TIE_RULES),
            format_func=tie_rule_label,
            help="Which of equally frequent pairs wins.\n\n" + tie_rules_help(),
        )
        bind(st.slider, "Top pairs to show", "settings_top_k", min_value=1, max_value=RECORDED_TOP_K)
        engine = _guard_engine(settings)
    return _settings(engine, listed), state.settings_corpus in listed


def _clamp(key: str, low: int, high: int) -> None:
    st.session_state[key] = min(max(int(st.session_state[key]), low), high)


def _settings(engine: str, listed: dict) -> Settings:
    state = st.session_state
    own = user_corpora().get(state.settings_corpus)
    # a file edited on disk changes its stat times, and so its cache entries (a cheap check: no read)
    version = text_version(own) if own is not None else corpus_version(listed[state.settings_corpus])
    pretokenizer = None if state.settings_pretokenizer == "none" else state.settings_pretokenizer
    return Settings(
        corpus=state.settings_corpus,
        corpus_version=version,
        prefix_cap=int(state.settings_prefix_cap),
        heldout_fraction=round(float(state.settings_heldout), 2),
        vocab_size=int(state.settings_vocab),
        trained_vocab_size=max(int(state.settings_train_up_to), int(state.settings_vocab)),
        min_freq=int(state.settings_min_freq),
        engine=engine,
        alphabet=state.settings_alphabet,
        pretokenizer=pretokenizer,
        top_k=int(state.settings_top_k),
        tie_rule=state.settings_tie_rule,
    )


def _describe_corpus(settings: Settings) -> int:
    """Caption the corpus; return the alphabet size (1 when the text cannot be read)."""
    try:
        train, heldout = corpus_texts(settings)
        size = alphabet_size(settings)
    except BpeError as error:
        st.error(escape_markdown(str(error)), icon="⚠️")  # the page shows it too
        return 1
    held = f", {len(heldout):,} held out" if heldout else ", nothing held out"
    st.caption(f"Training on {len(train):,} characters{held}; {size:,} base tokens.")
    return size


def _vocab_inputs(minimum: int) -> None:
    state = st.session_state
    top = max(VOCAB_MAX, minimum + 1_000)
    state.settings_vocab = min(max(int(state.settings_vocab), minimum), top)
    # Training goes to the larger of the two: lowering the vocab is then a prefix, never a retrain.
    state.settings_train_up_to = min(max(int(state.settings_train_up_to), state.settings_vocab), top)
    bind(st.slider, "Vocab size", "settings_vocab", min_value=minimum, max_value=top)
    bind(st.number_input, "Vocab size (exact)", "settings_vocab", suffix="_exact", min_value=minimum, max_value=top)
    bind(
        st.number_input,
        "Train up to (vocab)",
        "settings_train_up_to",
        min_value=minimum,
        max_value=top,
        step=100,
        help="Train once to this size; every smaller vocab is a prefix of the same merges.",
    )
    # A vocab above the trained maximum raises it (callbacks have run: keep them consistent).
    state.settings_train_up_to = max(state.settings_train_up_to, state.settings_vocab)


def _guard_engine(settings: Settings) -> str:
    if st.session_state.settings_engine != "reference":
        return "fast"
    try:
        length = len(corpus_texts(settings)[0])
    except BpeError:
        return "fast"
    if length > REFERENCE_MAX_CHARS:
        st.warning(
            f"The reference engine recounts every pair at every merge: too slow for {length:,} "
            f"characters (limit {REFERENCE_MAX_CHARS:,}). Using the fast engine, which gives "
            "the same merges."
        )
        return "fast"
    return "reference"


# ==================== Pasted and uploaded text


def _corpus_inputs() -> None:
    with st.expander("Paste or upload a text"):
        st.text_area("Paste text", key="settings_paste_box", height=120)
        st.button("Use pasted text", key="settings_use_paste", on_click=_use_pasted)
        st.file_uploader("Upload a UTF-8 .txt file", type=["txt"], key="settings_upload", on_change=_use_upload)
    error = st.session_state.get(UPLOAD_ERROR)
    if error:
        st.error(escape_markdown(error), icon="⚠️")
    dropped = st.session_state.get(DROPPED_NOTE)
    if dropped:
        st.info(escape_markdown(dropped))


def _use_pasted() -> None:
    text = st.session_state.get("settings_paste_box", "")
    _add_user_corpus(
        PASTED, lambda: decode_text_bytes(text.encode("utf-8"), name="The pasted text", max_bytes=upload_limit_bytes())
    )


def _use_upload() -> None:
    upload = st.session_state.get("settings_upload")
    if upload is None:  # the file was removed from the uploader: keep the corpus it gave
        return

    def decode() -> str:
        return corpus_from_upload(upload.getvalue(), file_name=upload.name, max_bytes=upload_limit_bytes())[1]

    _add_user_corpus(f"upload: {upload.name}", decode)


def _add_user_corpus(name: str, decode) -> None:
    """Select the decoded text as this session's corpus; on bad input keep the previous one."""
    state = st.session_state
    try:
        text = decode()
    except BpeError as error:
        state[UPLOAD_ERROR] = f"{error} The previous corpus ({state.settings_corpus!r}) stays selected."
        return
    state.pop(UPLOAD_ERROR, None)
    own = user_corpora()
    own.pop(name, None)  # a text given again counts as the newest
    own[name] = text
    dropped = list(own)[:-MAX_USER_CORPORA]
    for old in dropped:
        del own[old]
    if dropped:
        names, verb = ", ".join(repr(old) for old in dropped), "was" if len(dropped) == 1 else "were"
        state[DROPPED_NOTE] = (
            f"This session keeps your last {MAX_USER_CORPORA} texts, so {names} {verb} let go; give it again to use it."
        )
    state.settings_corpus = name


def _size(size_bytes: int) -> str:
    if size_bytes < 10_000:
        return f"{size_bytes:,} B"
    if size_bytes < 10_000_000:
        return f"{size_bytes / 1000:,.0f} KB"
    return f"{size_bytes / 1e6:,.1f} MB"
