"""The Tokenize page's blocks: the text box and its presets, a column per tokenizer with
the characters it cannot encode marked (see `bpe.analysis.encodable`), GPT-2's
``<|endoftext|>`` as text and as its special token, and the merge lineage.

Tokenize shows a column per tokenizer; with GPT-2, GPT-4 and an upload beside the
characters and the run that is five, too narrow at 1024 px for the numbers in them. So
`tokenizer_columns` keeps one row for up to `PER_ROW` (two in presenter mode's larger
type), and otherwise puts the run's tokenizers in one row and the pretrained ones (GPT-2
beside GPT-4) in the next.

The text belongs to the corpus it was typed for: on another corpus it starts again from a
sentence of that corpus (`state.per_run.keep_with`), so "low lower lowest" never opens on an
English sentence full of characters it has never seen.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from bpe.analysis.encodable import applied_merges_in_known, segments_marking_unknown, unknown_characters
from bpe.analysis.lineage import lineage_lines, lineage_of
from bpe.analysis.metrics import compression
from bpe.analysis.samples import corpus_samples
from bpe.analysis.segments import Segment, special_ids
from bpe.analysis.special_tokens import ENDOFTEXT, special_token_comparison
from bpe.errors import BpeError
from bpe.run import TrainingRun
from bpe.text import pair_label, printable
from bpe.tokenizer import BPETokenizer
from bpe.wording import counted
from pages._shared.data.runs import corpus_parts
from pages._shared.data.tokenizers import Compared, base_level, bpe_at, cached_gpt2, extra_tokenizers
from pages._shared.frame.presenter import presenting
from pages._shared.frame.tables import arrow_rows, grid_table
from pages._shared.render.html import escape_markdown, linked_tokens_html
from pages._shared.state import controls
from pages._shared.state.per_run import corpus_identity, keep_with
from pages._shared.state.settings import Settings, bind

# The plain keys (declared in `state.controls`): the text, the token traced, the special-token text
TEXT, LINEAGE, SPECIAL_TEXT = controls.TOKENIZE_TEXT.key, controls.LINEAGE.key, controls.SPECIAL_TEXT.key
# Tokenizer columns a row: each keeps room for "Characters per token" and its value at 1024 px
# (in presenter mode's larger type only two do; three cut "Characters" in two).
PER_ROW, PER_ROW_LARGE = 3, 2


def text_box(settings: Settings) -> str:
    """Draw the text area and one button per preset (sentences of the current corpus);
    return the text. The text and the traced token reset when the corpus changes."""
    state = st.session_state
    keep_with(corpus_identity(settings), [TEXT, LINEAGE])
    samples = corpus_samples(*corpus_parts(settings))  # a run file's sample is held-out text
    state.setdefault(TEXT, next(iter(samples.values())))
    # The box takes what a link may set (`controls.MAX_TEXT_VALUE`): a megabyte typed or
    # sent cost one rerun 39 s and 3 GB of the server a class shares. The browser stops
    # typing there, Streamlit cuts what a client sends past it, and a longer text already
    # held is cut here, saying so.
    held = len(state[TEXT])
    if held > controls.MAX_TEXT_VALUE:
        state[TEXT] = state[TEXT][: controls.MAX_TEXT_VALUE]
    bind(st.text_area, "Text to tokenize", TEXT, height=100, max_chars=controls.MAX_TEXT_VALUE)
    if held > controls.MAX_TEXT_VALUE:
        st.caption(
            f"The box holds {controls.MAX_TEXT_VALUE:,} characters, as a link does: the first "
            f"{controls.MAX_TEXT_VALUE:,} of the {held:,} given are tokenized."
        )
    for column, (label, sample) in zip(st.columns(len(samples)), samples.items()):
        column.button(label, key=f"tokenize_preset_{label}", on_click=_use, args=(sample,), help=sample)
    return state[TEXT]


def _use(sample: str) -> None:
    st.session_state[TEXT] = sample


@dataclass(frozen=True)
class Encoded:
    """A text as one tokenizer cuts it: segments (each unknown character one, marked), the
    ids of the others, and the characters it could not encode."""

    segments: list[Segment]
    ids: list[int]
    unknown: list[str]


def encode_marked(tokenizer, text: str) -> Encoded:
    segments = segments_marking_unknown(tokenizer, text)
    ids = [s.token_id for s in segments if s.token_id is not None]
    return Encoded(segments, ids, unknown_characters(tokenizer, text))


def unknown_note(encoded: Encoded) -> str | None:
    """One line naming the characters outside the alphabet (Markdown-safe), or None."""
    if not encoded.unknown:
        return None
    shown = ", ".join(repr(printable(ch)) for ch in encoded.unknown[:8])
    more = f" and {len(encoded.unknown) - 8:,} more" if len(encoded.unknown) > 8 else ""
    return (
        f"{counted(len(encoded.unknown), 'character')} outside this tokenizer's alphabet, marked with a dashed "
        f"border and id ?: {shown}{more}. They never occurred in its training text."
    )


def tokenizer_columns(trained: int, pretrained: int) -> list:
    """A column for each of ``trained`` + ``pretrained`` tokenizers: one row when they are
    `PER_ROW` or fewer (`PER_ROW_LARGE` in presenter mode); else the trained ones in a row,
    then the pretrained ones, at most that many a row (every row as wide as the widest, so
    columns line up)."""
    count, per_row = trained + pretrained, PER_ROW_LARGE if presenting() else PER_ROW
    # a wide gutter: tokens fill their column to its edge, and in large type two columns of
    # them ran together into one at 1024 px
    gap = "medium" if presenting() else "small"
    if count <= per_row:
        return list(st.columns(max(count, 1), gap=gap))[:count]
    width = min(per_row, max(trained, pretrained))
    columns = list(st.columns(width, gap=gap))[:trained]
    while len(columns) < count:
        columns += st.columns(width, gap=gap)
    return columns[:count]


def draw_special_tokens() -> None:
    gpt2 = cached_gpt2()
    if gpt2 is None:
        return
    st.subheader(f"Special tokens: GPT-2's `{ENDOFTEXT}`")
    controls.SPECIAL_TEXT.setdefault()
    bind(st.text_input, f"A text with `{ENDOFTEXT}`", SPECIAL_TEXT)
    try:
        found = special_token_comparison(gpt2, st.session_state[SPECIAL_TEXT])
    except BpeError as error:
        st.error(escape_markdown(str(error)), icon="⚠️")
        return
    left, right = st.columns(2)
    left.markdown(f"**As plain text** (`allowed_special` empty) · {counted(len(found.as_text), 'token')}")
    left.html(linked_tokens_html(list(found.as_text), scope="special-as-text"))
    right.markdown(
        f"**As the special token** (`allowed_special={{'{ENDOFTEXT}'}}`) · {counted(len(found.as_special), 'token')}"
    )
    right.html(linked_tokens_html(list(found.as_special), scope="special-as-special"))
    st.markdown(escape_markdown(found.explanation))


def draw_tokenizers(settings: Settings, run: TrainingRun, text: str) -> tuple[Compared, list[int]]:
    """A column per tokenizer (characters, the run's BPE, then GPT-2, GPT-4 and an upload when
    they are here): its tokens and ids linked on hover, unknown characters marked. Returns
    the run's BPE and its ids of ``text``."""
    trained = bpe_at(settings, run, settings.vocab_size)
    compared = [base_level(settings, run), trained] + extra_tokenizers()
    encoded = {}
    for column, c in zip(tokenizer_columns(2, len(compared) - 2), compared):  # GPT-2 and GPT-4 in a row of their own
        with column:
            st.markdown(f"**{escape_markdown(c.label)}** (vocab {c.vocab_size:,})")
            marked = encoded[c.label] = encode_marked(c.tokenizer, text)  # unknown characters shown, not refused
            a, b = st.columns(2)
            # The tokens drawn, as the span diff counts them: an unknown character is one (id ?)
            unknown = len(marked.segments) - len(marked.ids)
            a.metric(
                "Tokens",
                f"{len(marked.segments):,}",
                help=f"{counted(unknown, 'character')} outside the alphabet among them, each one token (id ?)"
                if unknown
                else None,
            )
            b.metric("Characters per token", f"{compression(len(text), len(marked.segments)):.2f}")
            st.html(linked_tokens_html(marked.segments, scope=f"tokenize-{c.label}"))
            if marked.unknown:
                st.caption(escape_markdown(unknown_note(marked)))
    return trained, encoded[trained.label].ids


def draw_lineage(run: TrainingRun, tokenizer: BPETokenizer, ids: list[int], text: str) -> None:
    """Trace a learned token of the text back to its base tokens, and list the merges that
    encoding the text applied."""
    state = st.session_state
    unlearned = set(tokenizer.base_tokens) | {tokenizer.itos[i] for i in special_ids(tokenizer)}
    learned = sorted({tokenizer.itos[i] for i in ids} - unlearned, key=lambda t: (-len(t), t))
    if not learned:
        st.info("Every token of this text is a base token: no merge applies to it at this vocab size.")
        return
    if state.get(LINEAGE) not in learned:
        state[LINEAGE] = learned[0]
    left, right = st.columns([2, 3])
    with left:
        bind(st.selectbox, "Token to trace", LINEAGE, options=learned, format_func=lambda t: repr(printable(t)))
        st.caption(
            "Each node: the training step that first created the token, and how often its pair "
            "occurred at that step. Base tokens are the leaves."
        )
        st.code("\n".join(lineage_lines(lineage_of(run, state[LINEAGE], len(tokenizer.merges)))), language=None)
    with right:
        fired = applied_merges_in_known(tokenizer, text)
        st.markdown(
            f"**Merges applied while encoding this text**: {len(fired):,} of the {len(tokenizer.merges):,} "
            "learned, in the order training learned them"
        )
        grid_table(
            arrow_rows(
                {
                    "step": m.step,
                    "pair": pair_label(m.pair),
                    "token": printable(m.token),
                    "times here": m.times,
                    "pair count in training": run.steps[m.step - 1].frequency,
                }
                for m in fired
            ),
            key="tokenize_applied",
            counts=("step", "times here", "pair count in training"),
        )
