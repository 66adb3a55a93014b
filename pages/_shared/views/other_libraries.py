"""Streamlit glue for the Vocabulary page's files for other libraries (`bpe.formats`): the
three exports (Hugging Face, tiktoken, minbpe), the "merges vs ranks" lesson, and the
upload of a tokenizer file in any format the lab reads.

Exports and findings are cached per tokenizer fingerprint (process-wide, bounded). Every
token a file or a text brings is drawn through `html.segments_html` or `escape_markdown`,
so it shows as the text it is.
"""

from __future__ import annotations

import streamlit as st

from bpe.analysis.segments import Segment
from bpe.errors import BpeError
from bpe.formats import (
    FORMATS,
    LIBRARY,
    MergesVsRanks,
    detect_format,
)
from bpe.formats.tiktoken_bundle import BUNDLE_SUFFIX, tiktoken_bundle
from bpe.pretokenize import pretokenizer_name
from bpe.run import TrainingRun
from bpe.text import printable
from bpe.tokenizer import BPETokenizer
from pages._shared.data.comparisons import exported_files, format_findings, shared_demonstrations, upload_difference
from pages._shared.data.measures import measured_text
from pages._shared.data.tokenizers import (
    UPLOAD_ERROR,
    UPLOADED,
    Compared,
    accept_upload,
    forget_upload,
    session_owns,
)
from pages._shared.render.html import escape_markdown, splits_html
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
HOLDS = {
    HF: "its merges as pairs, in order",
    TIKTOKEN: "one rank per token, no pairs",
    MINBPE: "its merges, each making a new id",
}
UPLOAD = "vocab_upload"  # the uploader's key (the tests upload through it)
PATTERN = "formats_pattern"  # plain key: the split pattern given to an uploaded .tiktoken file
ACCEPTED = "formats_accepted"  # plain key: which file (and pattern) the last upload check read
PATTERNS = {"gpt4": "GPT-4 (cl100k)", "gpt2": "GPT-2", "none": "none: the whole text is one chunk"}
EXAMPLES_SHOWN = 3
COMPARED_CHARS = 20_000  # an upload is compared with the run it came from on this much text


# ==================== Exports


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
        "`python -m bpe export --tokenizer T.json --format hf|tiktoken|minbpe --output PATH` writes the "
        "same files, then loads each with its library and says whether the ids are identical."
    )


# ==================== Merges vs ranks


def draw_merges_vs_ranks(settings: Settings, tokenizer: BPETokenizer) -> None:
    """The lesson: what each format holds, what that changes for this tokenizer (checked on
    every token's text and the held-out text), and two small tokenizers where it shows."""
    st.subheader("Merges vs ranks")
    st.markdown(
        "BPE Lab keeps an ordered list of **merges** and replays them in the order they were learned. "
        "Hugging Face keeps the pairs too, but merges whichever listed pair is lowest whenever it forms; "
        "minbpe gives every merge a new id; tiktoken keeps only **ranks**: it joins any two neighbours "
        "whose concatenation is a token. Most tokenizers encode the same in all four, but not every one."
    )
    what, sample = measured_text(settings)
    own = session_owns(settings)  # the run's tokenizer, on its text
    found = format_findings(
        tokenizer.fingerprint(), settings.corpus_key(), _tokenizer=tokenizer, _sample=sample, own=own
    )
    for fmt in FORMATS:
        lesson = found[fmt]
        st.markdown(
            f"**{LIBRARY[fmt]}** ({HOLDS[fmt]}): "
            + escape_markdown(lesson if isinstance(lesson, str) else _summary(lesson, what))
        )
        if not isinstance(lesson, MergesVsRanks):
            continue
        shown = lesson.examples[:EXAMPLES_SHOWN]
        for line in lesson.lines(limit=EXAMPLES_SHOWN, show=_shown)[1:]:  # re-created tokens, other splits
            if line.strip() not in {example.line(_shown) for example in shown}:
                st.caption(escape_markdown(line.strip()))
        for example in shown:
            _draw_splits(
                [example.text],
                {
                    "BPE Lab": [list(zip(example.ours_tokens, example.ours))],
                    LIBRARY[fmt]: [list(zip(example.theirs_tokens, example.theirs))],
                },
            )
    st.markdown("**Where they part: two tokenizers of a few merges** (byte alphabet, no pre-tokenizer)")
    for demo in shared_demonstrations():
        ids = demo.token_ids()
        merges = ", ".join(f"{n}: {_shown(a)} + {_shown(b)}" for n, (a, b) in enumerate(demo.merges, 1))
        with st.container(border=True):
            st.markdown(f"**{escape_markdown(demo.title)}**. Merges {escape_markdown(merges)}")
            _draw_splits(
                demo.texts,
                {
                    who: [[(t, ids[t]) for t in found_tokens[text]] for text in demo.texts]
                    for who, found_tokens in demo.results.items()
                },
            )
            for line in demo.explanation:
                st.caption(escape_markdown(line))


def _summary(lesson: MergesVsRanks, what: str) -> str:
    if lesson.exact:
        return "exact: no merge re-creates a token, so it gives the lab's ids on every text."
    return lesson.summary().split(": ", 1)[1].replace("of the sample", f"of the {what}")


def _draw_splits(texts, splits: dict) -> None:
    """A row per library (its name, then its tokens of each text, coloured by id), a column
    per text, in one element."""
    st.html(
        splits_html(
            [f"Text {_shown(text)}" for text in texts],
            {
                who: [[Segment(token, token_id) for token, token_id in tokens] for tokens in cuts]
                for who, cuts in splits.items()
            },
        )
    )


def _shown(token, limit: int = 60) -> str:
    """A token or text in quotes, its whitespace visible (a space is ·), cut after ``limit``
    characters: how the other pages spell tokens."""
    text = printable(token)
    return "'" + (text if len(text) <= limit else text[:limit] + "…") + "'"


# ==================== Upload


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
