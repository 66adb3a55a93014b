"""The sidebar every page draws: corpus, text settings, vocab and training settings.

It only arranges widgets and turns their state into a `Settings`; reading, splitting and
training happen in `bpe` (through `data.runs`).
"""

from __future__ import annotations

import hashlib
from dataclasses import replace

import streamlit as st

from bpe.analysis.tie_rules import tie_rule_label, tie_rules_help
from bpe.corpora.corpus import corpus_from_upload, corpus_version, list_corpora
from bpe.corpora.textfile import decode_text_bytes
from bpe.errors import BpeError, CorpusError
from bpe.pretokenize import pretokenizer_name
from bpe.scale.run_file import MAX_RUN_FILE_BYTES, RunFile, parse_run_file
from bpe.scale.run_listing import RunListing, labelled_runs
from bpe.specials import ENDOFTEXT, check_special_tokens
from bpe.text import shown_name
from bpe.training import MAX_VOCAB_SIZE, PRESET_LABELS, PRESETS, describe_preset, preset_fields
from bpe.variants.rule_runs import VariantRun
from bpe.variants.rules import NAMES, PICKY, SUPERBPE, WHAT_CHANGES, Variant
from bpe.wording import BPE_COMMAND, counted
from pages._shared.data.cache_scopes import hold_values_of
from pages._shared.data.runs import base_size, cut_texts, open_run_file
from pages._shared.frame.wikitext_download import draw_download
from pages._shared.render.html import escape_markdown
from pages._shared.state.controls import setting
from pages._shared.state.link import LINKED, said_if_moved
from pages._shared.state.settings import (
    ALPHABET,
    CORPUS,
    ENGINE,
    HELDOUT,
    MIN_CHARS_TO_SPLIT,
    MIN_FREQ,
    NO_PRESET,
    PREFIX_CAP,
    PRESET,
    PRETOKENIZER,
    SPECIALS,
    THRESHOLD,
    TIE_RULE,
    TOP_K,
    TRAIN_UP_TO,
    TRANSITION,
    VARIANT,
    VOCAB,
    Replayed,
    Settings,
    Trained,
    UnreadableRun,
    app_training,
    bind,
    text_version,
)
from pages._shared.state.stores import (
    DROPPED_NOTE,
    MAX_RUN_UPLOADS,
    PASTED,
    RUN_UPLOAD_PREFIX,
    RUN_UPLOADS,
    UPLOADED,
    remember,
    run_uploads,
    use_user_text,
    user_texts,
)

VOCAB_MAX = 10_000  # the vocab slider's reach for live training on a short text ...
LIVE_VOCAB_MAX = 50_000  # ... and on a text long enough for it (a tenth of its characters)
REFERENCE_MAX_CHARS = 50_000  # the reference engine recounts every pair per merge: fine for teaching texts only
UPLOAD_ERROR = "settings_upload_error"
PASTE_BOX = "settings_paste_box"  # the text area's own key
UPLOAD = "settings_upload"  # the uploader's own key
RUN_UPLOAD = "settings_run_upload"  # the run-file uploader's own key
OPENED_RUN = "settings_opened_run"  # plain key: the run file (name, version) last opened at its full vocab


def upload_limit_bytes() -> int:
    """The configured upload limit (`server.maxUploadSize`, in MB) in bytes."""
    return int(st.get_option("server.maxUploadSize")) * 1024 * 1024


def draw_sidebar() -> tuple[Settings, bool]:
    """Draw the shared sidebar; return the settings, built once from what it shows, and
    whether the corpus is listed (built in or on disk, so it can go into a link)."""
    listed = {info.name: info for info in list_corpora()}
    runs = labelled_runs()
    state = st.session_state
    own = user_texts()
    uploaded_runs = {_upload_label(name): name for name in run_uploads()}
    if state[CORPUS] not in listed.keys() | own.keys() | runs.keys() | uploaded_runs.keys():
        state[CORPUS] = next(iter(listed))  # e.g. a data file that was removed
    for key in (PREFIX_CAP, MIN_FREQ, TOP_K):
        _clamp(key)  # another page (or an old session) may have set anything; links are checked already
    with st.sidebar:
        st.header("Corpus")
        sizes = {name: info.size_bytes for name, info in listed.items()}
        sizes.update({name: len(text.encode("utf-8")) for name, text in own.items()})
        sizes.update({label: _file_size(listing) for label, listing in runs.items()})
        sizes.update({label: len(run_uploads()[name][1]) for label, name in uploaded_runs.items()})
        bind(
            st.selectbox,
            "Text to train on",
            CORPUS,
            options=list(sizes),
            format_func=lambda name: f"{shown_name(name)} ({_size(sizes[name])})",
        )
        _corpus_inputs()
        run_file = _chosen_run(runs, uploaded_runs)
        if run_file is not None:
            return _replay_sidebar(*run_file), state[CORPUS] in runs
        return _training_sidebar(listed), state[CORPUS] in listed


def _training_sidebar(listed: dict) -> Trained:
    """The sidebar of a run trained here: the text, its tokens, the vocab it can reach and
    the training settings; the settings, built once they are all drawn."""
    state = st.session_state
    draw_download()  # WikiText-2, once, with a progress bar (the command line's downloader)
    setting(PREFIX_CAP).draw(st.number_input, "Train on the first … characters", step=50_000)
    setting(HELDOUT).draw(
        st.slider,
        "Held-out part",
        step=0.05,
        help=f"The end of the text, kept out of training for held-out measures. "
        f"Texts under {MIN_CHARS_TO_SPLIT:,} characters are never split.",
    )
    _preset_choice()
    st.header("Tokens")
    setting(ALPHABET).draw(st.radio, "Alphabet", horizontal=True)
    setting(PRETOKENIZER).draw(
        st.selectbox,
        "Pre-tokenizer",
        format_func=pretokenizer_name,
        help="Split the text into chunks (words) that merges never cross.",
    )
    specials = _special_tokens_input()
    corpus_key = _corpus_key(listed)
    # before anything is computed on the text: a new own text replaces the last's values
    hold_values_of(corpus_key[:2], own=corpus_key[0] in user_texts())
    minimum = _describe_corpus(corpus_key, specials)
    _vocab_inputs(minimum, _live_top(corpus_key, minimum))
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
    variant = _rule_inputs()
    setting(TOP_K).draw(st.slider, "Top pairs to show")
    corpus, version, prefix_cap, heldout_fraction = corpus_key
    return Trained(
        corpus=corpus,
        corpus_version=version,
        prefix_cap=prefix_cap,
        heldout_fraction=heldout_fraction,
        training=app_training(
            target_vocab_size=max(int(state[TRAIN_UP_TO]), int(state[VOCAB])),
            minimum_pair_frequency=int(state[MIN_FREQ]),
            engine=_guard_engine(corpus_key),
            alphabet=state[ALPHABET],
            pretokenizer=None if state[PRETOKENIZER] == "none" else state[PRETOKENIZER],
            tie_rule=state[TIE_RULE],
            special_tokens=specials,
        ),
        vocab_size=int(state[VOCAB]),
        top_k=int(state[TOP_K]),
        variant=variant,
    )


def _rule_inputs() -> Variant:
    """The training rule, and its one setting when it has one (`bpe.variants.rules`)."""
    state = st.session_state
    setting(VARIANT).draw(
        st.selectbox,
        "Training rule",
        format_func=NAMES.get,
        help="\n\n".join(f"**{NAMES[name]}**: {what}" for name, what in WHAT_CHANGES.items()),
    )
    name = state[VARIANT]
    if name == SUPERBPE:
        setting(TRANSITION).draw(
            st.number_input,
            "Chunks join after … merges",
            step=50,
            help="SuperBPE's transition: the merges learned inside pre-tokenizer chunks before the chunks join "
            "across whitespace (it needs a pre-tokenizer).",
        )
        return Variant(name, transition=int(state[TRANSITION]))
    if name == PICKY:
        setting(THRESHOLD).draw(
            st.slider,
            "IoS threshold",
            step=0.05,
            help="Picky BPE removes a token when this share of its occurrences went into one merge.",
        )
        return Variant(name, threshold=float(state[THRESHOLD]))
    return Variant(name)


def _clamp(key: str) -> None:
    field = setting(key)
    st.session_state[key] = min(max(int(st.session_state[key]), field.low), field.high)


def _corpus_key(listed: dict) -> tuple:
    """The text the sidebar trains on, as `Trained.corpus_key` spells it: the corpus, its
    content's version, the prefix cap and the held-out part."""
    state = st.session_state
    own = user_texts().get(state[CORPUS])
    # a file edited on disk changes its stat times, and so its cache entries (a cheap check: no read)
    version = text_version(own) if own is not None else corpus_version(listed[state[CORPUS]])
    return (state[CORPUS], version, int(state[PREFIX_CAP]), round(float(state[HELDOUT]), 2))


def _describe_corpus(corpus_key: tuple, specials: tuple[str, ...]) -> int:
    """Caption the corpus; return the smallest vocab: the alphabet and the special tokens
    (1 when the text cannot be read)."""
    try:
        train, heldout = cut_texts(corpus_key)
        size = base_size(st.session_state[ALPHABET], corpus_key, specials)
    except BpeError as error:
        st.error(escape_markdown(str(error)), icon="⚠️")  # the page shows it too
        return 1
    held = f", {len(heldout):,} held out" if heldout else ", nothing held out"
    special = f" and {counted(len(specials), 'special token')}" if specials else ""
    st.caption(f"Training on {len(train):,} characters{held}; {size:,} base tokens{special}.")
    return size + len(specials)


# Special tokens offered in the sidebar's list (any other may be typed in)
COMMON_SPECIALS = (ENDOFTEXT, "<|pad|>", "<s>", "</s>")


def _special_tokens_input() -> tuple[str, ...]:
    """The special tokens box: pick or type strings the text is cut at (each one token of its
    own); those that cannot be one are named and left out. Returns the special tokens used."""
    state = st.session_state
    chosen = list(state[SPECIALS])
    bind(
        st.multiselect,
        "Special tokens",
        SPECIALS,
        options=list(dict.fromkeys([*COMMON_SPECIALS, *chosen])),
        accept_new_options=True,
        placeholder="none: type or pick, e.g. <|endoftext|>",
        help="Each is cut out of the text before pre-tokenization (the longest first where two overlap), so no "
        "merge learns from or crosses one; each is one token of its own, numbered first and counted in the vocab "
        "size, as in Hugging Face, tiktoken and Stanford CS336.",
    )
    kept = []
    for special in state[SPECIALS]:
        try:
            kept = list(check_special_tokens([*kept, special]))
        except BpeError as error:
            st.warning(f"Special token left out: {escape_markdown(str(error))}.")
    return tuple(kept)


PRESET_RECOGNISED = "sidebar_preset_recognised"  # the settings were matched to a preset once this session
# Each preset field's sidebar key (`bpe.training.PRESETS`)
PRESET_KEYS = {
    "alphabet": ALPHABET,
    "pretokenizer": PRETOKENIZER,
    "tie_rule": TIE_RULE,
    "minimum_pair_frequency": MIN_FREQ,
    "special_tokens": SPECIALS,
}


def _preset_choice() -> None:
    """The preset choice: picking one sets its settings in the sidebar at once, and a caption
    says what it set, and what was changed since (a setting changed by hand wins)."""
    state = st.session_state
    state[PRESET] = state[PRESET] if state[PRESET] in PRESETS else NO_PRESET
    if not state.get(PRESET_RECOGNISED):  # once a session: a link or lesson file opened on a preset's settings
        state[PRESET_RECOGNISED] = True
        if state[PRESET] == NO_PRESET:
            state[PRESET] = next((name for name in PRESETS if not _changed_from_preset(name)), NO_PRESET)
    bind(
        st.selectbox,
        "Preset",
        PRESET,
        options=[NO_PRESET, *PRESETS],
        format_func=lambda name: "none" if name == NO_PRESET else f"{name}: {PRESET_LABELS[name]}",
        then=_apply_preset,
        help="A course's settings at once; change any of them afterwards and yours wins.",
    )
    if state[PRESET] != NO_PRESET:
        said = describe_preset(state[PRESET], _changed_from_preset(state[PRESET]))
        st.caption(escape_markdown(said[0].upper() + said[1:] + "."))


def _changed_from_preset(name: str) -> dict:
    """The preset's fields whose sidebar setting differs from it, with the setting's value."""
    state, fields, changed = st.session_state, preset_fields(name), {}
    for field, key in PRESET_KEYS.items():
        value = state[key]
        wanted = list(fields[field]) if field == "special_tokens" else fields[field]
        if value != wanted:
            changed[field] = tuple(value) if field == "special_tokens" else value
    return changed


def _apply_preset() -> None:
    state = st.session_state
    if state[PRESET] == NO_PRESET:
        return
    for field, value in preset_fields(state[PRESET]).items():
        state[PRESET_KEYS[field]] = list(value) if field == "special_tokens" else value


def _live_top(corpus_key: tuple, minimum: int) -> int:
    """How far the vocab slider reaches for live training: `VOCAB_MAX`, and up to
    `LIVE_VOCAB_MAX` where the text is long enough (a merge per ten characters)."""
    try:
        characters = len(cut_texts(corpus_key)[0])
    except BpeError:
        characters = 0
    return max(VOCAB_MAX, minimum + 1_000, min(LIVE_VOCAB_MAX, minimum + characters // 10))


def _vocab_inputs(minimum: int, top: int, *, trained: int | None = None) -> None:
    """The vocab slider and number box, and "train up to" (fixed at ``trained`` for a
    replayed run: it was trained once, to there)."""
    state = st.session_state
    typed = {key: int(state[key]) for key in (VOCAB, TRAIN_UP_TO)}
    state[VOCAB] = min(max(typed[VOCAB], minimum), top)
    # Training goes to the larger of the two: lowering the vocab is then a prefix, never a retrain.
    state[TRAIN_UP_TO] = min(max(typed[TRAIN_UP_TO], state[VOCAB]), top)
    for key, label in ((VOCAB, "Vocab size"), (TRAIN_UP_TO, "Train up to")):
        if said_if_moved(key, minimum, top):  # a link's or lesson's vocab this corpus cannot reach is said
            continue
        typed_box = key == VOCAB or trained is None  # a replayed run's "train up to" is where it was trained to
        if typed_box and not minimum <= typed[key] <= top:
            st.warning(_outside(label, typed[key], minimum, top, state[key]))
    bind(st.slider, "Vocab size", VOCAB, min_value=minimum, max_value=top)
    # The number boxes take any size, so one outside this corpus's range reaches the server
    # and is answered in words above (the browser would only outline the box in red).
    bind(
        st.number_input,
        "Vocab size (exact)",
        VOCAB,
        suffix="_exact",
        min_value=1,
        max_value=MAX_VOCAB_SIZE,
        help=f"From {minimum:,} (the alphabet: every base token) to {top:,}.",
    )
    if trained is not None:
        state[TRAIN_UP_TO] = trained
        st.caption(f"Trained once to {trained:,} tokens; every smaller vocab is a prefix of its merges.")
        return
    bind(
        st.number_input,
        "Train up to (vocab)",
        TRAIN_UP_TO,
        min_value=1,
        max_value=MAX_VOCAB_SIZE,
        step=100,
        help="Train once to this size; every smaller vocab is a prefix of the same merges.",
    )
    # A vocab above the trained maximum raises it (callbacks have run: keep them consistent).
    state[TRAIN_UP_TO] = max(state[TRAIN_UP_TO], state[VOCAB])


def _outside(label: str, typed: int, minimum: int, top: int, shown: int) -> str:
    """Why a size typed into a box is not the one shown."""
    if typed < minimum:
        why = f"smaller than this corpus's alphabet ({minimum:,} base tokens: a vocab holds every one of them)"
    else:
        why = f"above the largest vocab here ({top:,})"
    return f"{label} {typed:,} is {why}; using {shown:,}."


def _guard_engine(corpus_key: tuple) -> str:
    """The engine to train with: the one chosen, but fast where the reference engine would
    take too long (said in words)."""
    if st.session_state[ENGINE] != "reference":
        return "fast"
    try:
        length = len(cut_texts(corpus_key)[0])
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


# ==================== Replaying a run file


def _file_size(listing: RunListing) -> int:
    try:
        return listing.path.stat().st_size
    except OSError:
        return 0


def _upload_label(name: str) -> str:
    return f"run upload: {name[len(RUN_UPLOAD_PREFIX) :]}"


def _chosen_run(runs: dict[str, RunListing], uploaded: dict[str, str]) -> tuple[str, str] | None:
    """(run file key, version) when the picked corpus is a run file; else None."""
    corpus = st.session_state[CORPUS]
    if corpus in runs:
        path = runs[corpus].path
        try:
            stat = path.stat()
        except OSError:
            return str(path), "missing"  # opening it says so
        return str(path), f"{stat.st_size}-{stat.st_mtime_ns}-{stat.st_ino}"
    if corpus in uploaded:
        name = uploaded[corpus]
        return name, run_uploads()[name][0]
    return None


def _replay_sidebar(run_file: str, version: str) -> Replayed | UnreadableRun:
    """The sidebar of a replayed run: what it was trained with, read from its file (no
    widget can change what would need retraining), and the vocab it reaches."""
    state = st.session_state
    # before the file is parsed: an uploaded run replaces the last own text's values
    hold_values_of((state[CORPUS], version), own=run_file.startswith(RUN_UPLOAD_PREFIX))
    try:
        opened = open_run_file(run_file, version)
    except BpeError as error:
        st.error(escape_markdown(str(error)), icon="⚠️")
        return UnreadableRun(corpus=state[CORPUS], corpus_version=version, run_file=run_file, error=str(error))
    run = opened.run
    _describe_run(opened)
    st.header("Tokens")
    final = run.final_vocab_size
    _open_at_full_vocab((state[CORPUS], version), final)
    _vocab_inputs(run.initial_vocab_size, max(final, run.initial_vocab_size + 1), trained=final)
    st.header("Training")
    recorded_top_k = max(1, run.settings.top_k)
    state[TOP_K] = min(max(int(state[TOP_K]), 1), recorded_top_k)
    if recorded_top_k > 1:
        bind(st.slider, "Top pairs to show", TOP_K, min_value=1, max_value=recorded_top_k)
    else:  # `train --top-k 0` or `1`: a slider from 1 to 1 is no slider (Streamlit refuses it)
        st.caption(f"Top pairs to show: 1 (the run recorded {run.settings.top_k} competing pairs a step)")
    return Replayed(
        corpus=state[CORPUS],
        corpus_version=version,
        run_file=run_file,
        training=replace(run.settings, target_vocab_size=final),  # the vocab it reached
        vocab_size=int(state[VOCAB]),
        top_k=int(state[TOP_K]),
        variant=run.variant if isinstance(run, VariantRun) else Variant(),
    )


def _open_at_full_vocab(run_key: tuple, final: int) -> None:
    """A run file opens at the vocab it was trained to (a 49,744-merge run at 50,000, not at the
    1,000 the last corpus showed), unless this run's link or lesson set the vocab; a smaller
    vocab chosen after opening it stays while the run stays."""
    state = st.session_state
    if state.get(OPENED_RUN) == run_key:
        return
    state[OPENED_RUN] = run_key
    if VOCAB not in state.get(LINKED, {}):
        state[VOCAB] = final


def _describe_run(opened: RunFile) -> None:
    run, source = opened.run, opened.source
    held = f"; held-out curve over {run.heldout_characters:,} characters" if run.heldout_characters else ""
    st.caption(
        f"Replaying a recorded run: {run.training_characters:,} characters of {escape_markdown(shown_name(source.name))}, "
        f"{run.alphabet}, pre-tokenizer {pretokenizer_name(run.pretokenizer)}, ties "
        f"{tie_rule_label(run.settings.tie_rule)}, minimum pair frequency {run.settings.minimum_pair_frequency:,}"
        f"{_specials_said(run.special_tokens)}"
        f"{', ' + escape_markdown(run.variant.label()) if isinstance(run, VariantRun) else ''}; "
        f"{len(run.steps):,} merges ({escape_markdown(run.stop_explanation)}){held}. Nothing is retrained; "
        f"the pages show its steps on a {len(opened.sample):,}-character sample."
    )


def _specials_said(specials: tuple[str, ...]) -> str:
    return f", special tokens {escape_markdown(', '.join(specials))}" if specials else ""


def _use_run_upload() -> None:
    upload = st.session_state.get(RUN_UPLOAD)
    if upload is None:
        return
    state = st.session_state
    raw = upload.getvalue()
    limit = min(upload_limit_bytes(), MAX_RUN_FILE_BYTES)
    try:
        # its tokens may hold as many bytes as an upload may (the cost model: bpe.io.budget)
        opened = parse_run_file(raw, name=upload.name, max_bytes=limit, max_token_bytes=upload_limit_bytes())
    except BpeError as error:
        state[UPLOAD_ERROR] = f"{error} The previous corpus ({state[CORPUS]!r}) stays selected."
        return
    state.pop(UPLOAD_ERROR, None)
    name = f"{RUN_UPLOAD_PREFIX}{shown_name(opened.source.name)} ({shown_name(upload.name)})"
    remember(RUN_UPLOADS, name, (hashlib.sha256(raw).hexdigest()[:20], raw), MAX_RUN_UPLOADS)
    state[CORPUS] = _upload_label(name)


# ==================== Pasted and uploaded text


def _corpus_inputs() -> None:
    with st.expander("Paste or upload a text"):
        st.text_area("Paste text", key=PASTE_BOX, height=120)
        st.button("Use pasted text", key="settings_use_paste", on_click=_use_pasted)
        st.file_uploader(
            "Upload a UTF-8 text file",
            key=UPLOAD,
            on_change=_use_upload,
            help="Any file name is text: a .txt, CS336's corpus.en, WikiText-103's wiki.train.raw.",
        )
        st.file_uploader(
            "Upload a run file (.bperun)",
            type=["bperun"],
            key=RUN_UPLOAD,
            on_change=_use_run_upload,
            help=f"A training recorded by {BPE_COMMAND} train: replayed here without retraining.",
        )
    error = st.session_state.get(UPLOAD_ERROR)
    if error:
        st.error(escape_markdown(error), icon="⚠️")
    dropped = st.session_state.get(DROPPED_NOTE)
    if dropped:
        st.info(escape_markdown(dropped))


def _use_pasted() -> None:
    text = st.session_state.get(PASTE_BOX, "")
    _add_user_corpus(PASTED, lambda: pasted_text(text, upload_limit_bytes()))


def pasted_text(text: str, limit_bytes: int) -> str:
    """The paste box's text as a corpus, refused in words about pasting (not about files)."""
    raw = text.encode("utf-8")
    if not raw:  # as an empty file is refused; spaces alone are a text
        raise CorpusError("The paste box is empty: paste some text into it first.")
    if len(raw) > limit_bytes:
        raise CorpusError(
            f"The pasted text is {len(raw):,} bytes, over the limit of {limit_bytes:,} bytes "
            f"({limit_bytes / 2**20:g} MB, as for an upload). Paste a shorter part of it."
        )
    return decode_text_bytes(raw, name="The pasted text", max_bytes=None)


def _use_upload() -> None:
    upload = st.session_state.get(UPLOAD)
    if upload is None:  # the file was removed from the uploader: keep the corpus it gave
        return

    def decode() -> str:
        return corpus_from_upload(upload.getvalue(), file_name=upload.name, max_bytes=upload_limit_bytes())[1]

    _add_user_corpus(UPLOADED + shown_name(upload.name), decode)  # a stranger's name: never raw on a page


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
