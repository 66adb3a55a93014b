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
from bpe.pretokenize import pretokenizer_name
from pages._shared.data.runs import alphabet_size, corpus_texts
from pages._shared.frame.wikitext_download import draw_download
from pages._shared.render.html import escape_markdown
from pages._shared.state.controls import setting
from pages._shared.state.link import said_if_moved
from pages._shared.state.settings import (
    ALPHABET,
    CORPUS,
    ENGINE,
    HELDOUT,
    MIN_CHARS_TO_SPLIT,
    MIN_FREQ,
    PREFIX_CAP,
    PRETOKENIZER,
    TIE_RULE,
    TOP_K,
    TRAIN_UP_TO,
    VOCAB,
    Settings,
    bind,
    text_version,
)
from pages._shared.state.stores import DROPPED_NOTE, PASTED, UPLOADED, use_user_text, user_texts

VOCAB_MAX = 10_000
REFERENCE_MAX_CHARS = 50_000  # the reference engine recounts every pair per merge: fine for teaching texts only
UPLOAD_ERROR = "settings_upload_error"
PASTE_BOX = "settings_paste_box"  # the text area's own key
UPLOAD = "settings_upload"  # the uploader's own key


def upload_limit_bytes() -> int:
    """The configured upload limit (`server.maxUploadSize`, in MB) in bytes."""
    return int(st.get_option("server.maxUploadSize")) * 1024 * 1024


def draw_sidebar() -> tuple[Settings, bool]:
    """Draw the shared sidebar; return the settings and whether the corpus is listed
    (built in or on disk, so it can go into a link)."""
    listed = {info.name: info for info in list_corpora()}
    state = st.session_state
    own = user_texts()
    if state[CORPUS] not in listed and state[CORPUS] not in own:
        state[CORPUS] = next(iter(listed))  # e.g. a data file that was removed
    for key in (PREFIX_CAP, MIN_FREQ, TOP_K):
        _clamp(key)  # another page (or an old session) may have set anything; links are checked already
    with st.sidebar:
        st.header("Corpus")
        sizes = {name: info.size_bytes for name, info in listed.items()}
        sizes.update({name: len(text.encode("utf-8")) for name, text in own.items()})
        bind(
            st.selectbox,
            "Text to train on",
            CORPUS,
            options=list(sizes),
            format_func=lambda name: f"{name} ({_size(sizes[name])})",
        )
        _corpus_inputs()
        draw_download()  # WikiText-2, once, with a progress bar (the command line's downloader)
        setting(PREFIX_CAP).draw(st.number_input, "Train on the first … characters", step=50_000)
        setting(HELDOUT).draw(
            st.slider,
            "Held-out part",
            step=0.05,
            help=f"The end of the text, kept out of training for held-out measures. "
            f"Texts under {MIN_CHARS_TO_SPLIT:,} characters are never split.",
        )
        st.header("Tokens")
        setting(ALPHABET).draw(st.radio, "Alphabet", horizontal=True)
        setting(PRETOKENIZER).draw(
            st.selectbox,
            "Pre-tokenizer",
            format_func=pretokenizer_name,
            help="Split the text into chunks (words) that merges never cross.",
        )
        settings = _settings(state[ENGINE], listed)
        minimum = _describe_corpus(settings)
        _vocab_inputs(minimum)
        st.header("Training")
        setting(MIN_FREQ).draw(st.number_input, "Minimum pair frequency")
        setting(ENGINE).draw(
            st.radio,
            "Engine",
            horizontal=True,
            help="Both give the same merges; the reference engine is the textbook loop, slow on big text.",
        )
        setting(TIE_RULE).draw(
            st.selectbox,
            "Tie rule",
            format_func=tie_rule_label,
            help="Which of equally frequent pairs wins.\n\n" + tie_rules_help(),
        )
        setting(TOP_K).draw(st.slider, "Top pairs to show")
        engine = _guard_engine(settings)
    return _settings(engine, listed), state[CORPUS] in listed


def _clamp(key: str) -> None:
    field = setting(key)
    st.session_state[key] = min(max(int(st.session_state[key]), field.low), field.high)


def _settings(engine: str, listed: dict) -> Settings:
    state = st.session_state
    own = user_texts().get(state[CORPUS])
    # a file edited on disk changes its stat times, and so its cache entries (a cheap check: no read)
    version = text_version(own) if own is not None else corpus_version(listed[state[CORPUS]])
    pretokenizer = None if state[PRETOKENIZER] == "none" else state[PRETOKENIZER]
    return Settings(
        corpus=state[CORPUS],
        corpus_version=version,
        prefix_cap=int(state[PREFIX_CAP]),
        heldout_fraction=round(float(state[HELDOUT]), 2),
        vocab_size=int(state[VOCAB]),
        trained_vocab_size=max(int(state[TRAIN_UP_TO]), int(state[VOCAB])),
        min_freq=int(state[MIN_FREQ]),
        engine=engine,
        alphabet=state[ALPHABET],
        pretokenizer=pretokenizer,
        top_k=int(state[TOP_K]),
        tie_rule=state[TIE_RULE],
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
    state[VOCAB] = min(max(int(state[VOCAB]), minimum), top)
    # Training goes to the larger of the two: lowering the vocab is then a prefix, never a retrain.
    state[TRAIN_UP_TO] = min(max(int(state[TRAIN_UP_TO]), state[VOCAB]), top)
    for key in (VOCAB, TRAIN_UP_TO):
        said_if_moved(key, minimum, top)  # a link's or lesson's vocab this corpus cannot reach is said
    bind(st.slider, "Vocab size", VOCAB, min_value=minimum, max_value=top)
    bind(st.number_input, "Vocab size (exact)", VOCAB, suffix="_exact", min_value=minimum, max_value=top)
    bind(
        st.number_input,
        "Train up to (vocab)",
        TRAIN_UP_TO,
        min_value=minimum,
        max_value=top,
        step=100,
        help="Train once to this size; every smaller vocab is a prefix of the same merges.",
    )
    # A vocab above the trained maximum raises it (callbacks have run: keep them consistent).
    state[TRAIN_UP_TO] = max(state[TRAIN_UP_TO], state[VOCAB])


def _guard_engine(settings: Settings) -> str:
    if st.session_state[ENGINE] != "reference":
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
        st.text_area("Paste text", key=PASTE_BOX, height=120)
        st.button("Use pasted text", key="settings_use_paste", on_click=_use_pasted)
        st.file_uploader("Upload a UTF-8 .txt file", type=["txt"], key=UPLOAD, on_change=_use_upload)
    error = st.session_state.get(UPLOAD_ERROR)
    if error:
        st.error(escape_markdown(error), icon="⚠️")
    dropped = st.session_state.get(DROPPED_NOTE)
    if dropped:
        st.info(escape_markdown(dropped))


def _use_pasted() -> None:
    text = st.session_state.get(PASTE_BOX, "")
    _add_user_corpus(
        PASTED, lambda: decode_text_bytes(text.encode("utf-8"), name="The pasted text", max_bytes=upload_limit_bytes())
    )


def _use_upload() -> None:
    upload = st.session_state.get(UPLOAD)
    if upload is None:  # the file was removed from the uploader: keep the corpus it gave
        return

    def decode() -> str:
        return corpus_from_upload(upload.getvalue(), file_name=upload.name, max_bytes=upload_limit_bytes())[1]

    _add_user_corpus(UPLOADED + upload.name, decode)


def _add_user_corpus(name: str, decode) -> None:
    """Select the decoded text as this session's corpus; on bad input keep the previous one."""
    state = st.session_state
    try:
        text = decode()
    except BpeError as error:
        state[UPLOAD_ERROR] = f"{error} The previous corpus ({state[CORPUS]!r}) stays selected."
        return
    state.pop(UPLOAD_ERROR, None)
    use_user_text(name, text)


def _size(size_bytes: int) -> str:
    if size_bytes < 10_000:
        return f"{size_bytes:,} B"
    if size_bytes < 10_000_000:
        return f"{size_bytes / 1000:,.0f} KB"
    return f"{size_bytes / 1e6:,.1f} MB"
