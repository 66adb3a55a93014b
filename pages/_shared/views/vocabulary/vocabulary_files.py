"""Vocabulary's files to take away and to bring: the run's tokenizer, merges and encoded
training text; the three exports for other libraries (`bpe.formats`: Hugging Face,
tiktoken, minbpe), each checked by reading it back; and the upload of a tokenizer file in
any format the lab reads, checked and compared with the run it came from.

Exports are cached per tokenizer fingerprint (process-wide, bounded). Every token a file
or a text brings is drawn through `render.html.segments_html` or `escape_markdown`, so it
shows as the text it is.
"""

from __future__ import annotations

import streamlit as st

from bpe.analysis.exports import ids_tensor_bytes, tokenizer_json
from bpe.analysis.merge_log import log_csv
from bpe.errors import BpeError
from bpe.formats import (
    FORMATS,
    LIBRARY,
    detect_format,
)
from bpe.formats.tiktoken_bundle import BUNDLE_SUFFIX, tiktoken_bundle
from bpe.pretokenize import pretokenizer_name
from bpe.run import TrainingRun
from bpe.tokenizer import BPETokenizer
from bpe.wording import BPE_COMMAND
from pages._shared.data.comparisons import exported_files, upload_difference
from pages._shared.data.measures import measured_text
from pages._shared.data.runs import corpus_texts
from pages._shared.data.tokenizers import (
    UPLOAD_ERROR,
    UPLOADED,
    Compared,
    accept_upload,
    forget_upload,
)
from pages._shared.render.html import escape_markdown
from pages._shared.state.settings import Settings, bind

HF, TIKTOKEN, MINBPE = FORMATS
BUTTONS = {
    HF: "Hugging Face (tokenizer.json)",
    TIKTOKEN: "tiktoken (.tiktoken + settings, zip)",
    MINBPE: "minbpe (.model)",
}
HELP = {
    TIKTOKEN: "The .tiktoken ranks file and its split pattern and special tokens (JSON), which "
    "tiktoken.Encoding needs too. Upload the zip here as it is to get the same tokens back."
}
FILE_NAMES = {HF: "{stem}_tokenizer.json", TIKTOKEN: "{stem}.tiktoken", MINBPE: "{stem}.model"}
UPLOAD = "vocab_upload"  # the uploader's key (the tests upload through it)
PATTERN = "formats_pattern"  # plain key: the split pattern given to an uploaded .tiktoken file
ACCEPTED = "formats_accepted"  # plain key: which file (and pattern) the last upload check read
PATTERNS = {"gpt4": "GPT-4 (cl100k)", "gpt2": "GPT-2", "none": "none: the whole text is one chunk"}
COMPARED_CHARS = 20_000  # an upload is compared with the run it came from on this much text


def draw_downloads(settings: Settings, run: TrainingRun, trained: Compared) -> None:
    """The tokenizer, its merges and the encoded training text, as files; its fingerprint."""
    tokenizer = trained.tokenizer
    merges = len(tokenizer.merges)
    d1, d2, d3 = st.columns(3)
    d1.download_button(
        "Tokenizer (JSON)",
        lambda: tokenizer_json(tokenizer),  # made on click, as the other two: not on every visit
        file_name=f"bpe_{tokenizer.vocab_size}.json",
        mime="application/json",
        key="vocab_download_json",
        on_click="ignore",
    )
    d2.download_button(
        "Merges (CSV)",
        lambda: log_csv(run, merges),
        file_name=f"bpe_{tokenizer.vocab_size}_merges.csv",
        mime="text/csv",
        key="vocab_download_csv",
        on_click="ignore",
    )
    # The file is made on click, on a thread of the server that runs no script: it may call
    # nothing of Streamlit's (session state, caches), which there only log "missing
    # ScriptRunContext" on the server's console. So the text is taken now (a cached string).
    train = corpus_texts(settings)[0]
    d3.download_button(
        "Encoded training text (torch .pt)",
        lambda: ids_tensor_bytes(tokenizer.encode(train)),  # made on click
        file_name=f"train_ids_{tokenizer.vocab_size}.pt",
        mime="application/octet-stream",
        key="vocab_download_pt",
        on_click="ignore",
        help="A torch long tensor of the training text's ids.",
    )
    st.caption(f"Fingerprint {tokenizer.fingerprint()}: a loaded file must hash to the same.")


def draw_exports(trained: Compared) -> None:
    """One download per format; a format that cannot hold the tokenizer says why instead."""
    st.markdown("**For other libraries**: the same tokenizer as another library's file")
    tokenizer = trained.tokenizer
    stem = f"bpe_{tokenizer.vocab_size}"
    refused = []
    for column, fmt in zip(st.columns(len(FORMATS)), FORMATS):
        name = FILE_NAMES[fmt].format(stem=stem)
        exported = exported_files(tokenizer.fingerprint(), fmt, name, _tokenizer=tokenizer, own=trained.own)
        with column:
            if isinstance(exported, str):
                st.button(BUTTONS[fmt], key=f"formats_download_{fmt}", disabled=True)
                st.caption(escape_markdown(exported.split(":", 1)[0]))  # "tiktoken works on bytes, and ..."
                refused.append(LIBRARY[fmt])
                continue
            if fmt == TIKTOKEN:  # a ranks file holds no split pattern: the settings go with it, zipped
                data, name, mime = tiktoken_bundle(exported), exported.main_name + BUNDLE_SUFFIX, "application/zip"
            else:
                data, name = exported.main_bytes, exported.main_name
                mime = "application/json" if fmt == HF else "text/plain"
            st.download_button(
                BUTTONS[fmt],
                data,
                file_name=name,
                mime=mime,
                key=f"formats_download_{fmt}",
                on_click="ignore",
                help=HELP.get(fmt, f"Loads in {LIBRARY[fmt]}"),
            )
    if refused:
        st.caption(
            f"{' and '.join(refused)} hold bytes and merges of bytes, not Unicode characters: train with the "
            "byte alphabet (in the sidebar) to export for them. Hugging Face keeps characters."
        )
    st.caption(
        f"`{BPE_COMMAND} export --tokenizer T.json --format hf|tiktoken|minbpe --output PATH` writes the "
        "same files, then loads each with its library and says whether the ids are identical."
    )


# ==================== Merges vs ranks


def draw_upload(settings: Settings, run: TrainingRun) -> None:
    """The uploader (any format the lab reads) and, for a .tiktoken file, its split pattern;
    a warning when the upload is an export of this run that would give other tokens."""
    state = st.session_state
    state.setdefault(PATTERN, "gpt4")
    left, right = st.columns([3, 1])
    with left:
        upload = st.file_uploader(
            "Use a tokenizer file on the Tokenize, Context window and Compression pages: a BPE Lab JSON, a "
            "Hugging Face tokenizer.json, a tiktoken zip (as downloaded above) or .tiktoken ranks file, or a "
            "minbpe .model",
            type=["json", "tiktoken", "zip", "model"],
            key=UPLOAD,
        )
    with right:
        bind(
            st.selectbox,
            "Split pattern of a .tiktoken file",
            PATTERN,
            options=list(PATTERNS),
            format_func=PATTERNS.get,
            help="A ranks file alone holds no split pattern: choose the one it was made with. A tiktoken "
            "zip carries its own.",
        )
    if upload is not None:
        _accept_once(upload, state[PATTERN])
    if state.get(UPLOAD_ERROR):
        st.error(f"Refused: {escape_markdown(state[UPLOAD_ERROR])}", icon="⚠️")
    elif state.get(UPLOADED):
        name, loaded = state[UPLOADED]
        st.success(
            f"Loaded {escape_markdown(name)}: {escape_markdown(described(loaded))}. It now appears "
            "on the Tokenize, Context window and Compression pages."
        )
        difference = _difference_from_run(settings, run, loaded)
        if difference:
            st.warning(escape_markdown(difference), icon="⚠️")
        for note in getattr(loaded, "notes", ()):
            st.caption(escape_markdown(f"Note: {note}."))
        st.button("Stop using it", key="vocab_forget_upload", on_click=forget_upload)


def _accept_once(upload, pattern: str) -> None:
    """Check the uploaded file when it is new, or when the pattern of a ranks file changes."""
    raw = upload.getvalue()
    try:
        ranks_file = detect_format(raw, upload.name) == TIKTOKEN
    except BpeError:
        ranks_file = False  # accept_upload says what is wrong with it
    identity = (upload.file_id, upload.name, len(raw), pattern if ranks_file else None)
    if st.session_state.get(ACCEPTED) != identity:
        st.session_state[ACCEPTED] = identity
        accept_upload(upload.name, raw, pattern=pattern)


def described(loaded) -> str:
    """An uploaded tokenizer in words: "a tiktoken file of 300 tokens, byte-level, split
    pattern GPT-2, read as tiktoken reads it"."""
    lab = isinstance(loaded, BPETokenizer)
    kind = "a BPE Lab tokenizer" if lab else f"a {LIBRARY.get(loaded.source_format, loaded.source_format)} file"
    level = "byte-level" if loaded.alphabet == "bytes" else "character-level"
    split = f"split pattern {pretokenizer_name(loaded.pretokenizer)}" if loaded.pretokenizer else "no split pattern"
    checked = "fingerprint checked" if lab else "read as its library reads it"
    return f"{kind} of {loaded.vocab_size:,} tokens, {level}, {split}, {checked}"


def _difference_from_run(settings: Settings, run: TrainingRun, loaded) -> str | None:
    """When ``loaded`` holds this run's tokens (an export of it at some vocab size): how its
    tokens differ from the run's on the measured text, or None."""
    if loaded.vocab_size < len(run.base_tokens):  # fewer tokens than the run's alphabet: no export of it
        return None
    _what, text = measured_text(settings)
    return upload_difference(
        loaded.fingerprint(),
        settings.training_key(),
        run.merge_count(loaded.vocab_size),
        settings.corpus_key(),
        _settings=settings,
        _run=run,
        _loaded=loaded,
        _text=text[:COMPARED_CHARS],
    )
