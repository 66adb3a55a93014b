"""Tokenize's encode film: the page's text, encoded merge by merge by a chosen tokenizer.

A player like Merge by merge's (Play/Pause on Space, Step back and forward on ← →, a jump
slider, all in a fragment so a step reruns only the film), over the frames of
`bpe.analysis.encode_film`. Each frame names the merge it applies and, for this run's
tokenizer, the training step that learned it with a button that opens Merge by merge
there. The frame, the tokenizer and the playing state belong to the text and tokenizer:
another text or tokenizer starts the film again.
"""

from __future__ import annotations

import streamlit as st
from streamlit.errors import StreamlitAPIException

from bpe.analysis.encode_film import MAX_FILM_CHARACTERS, EncodeFilm, frame_segments, rule_sentence, start_segments
from bpe.analysis.samples import corpus_samples
from bpe.errors import BpeError
from bpe.run import TrainingRun
from bpe.text import printable
from bpe.wording import counted
from pages._shared.data.measures import film_of
from pages._shared.data.runs import corpus_texts
from pages._shared.data.tokenizers import Compared, bpe_at, extra_tokenizers, session_owns
from pages._shared.frame.tables import arrow_rows, grid_table
from pages._shared.render.encode_film_html import frame_headline_html
from pages._shared.render.html import escape_markdown, segments_html
from pages._shared.state.controls import FILM_FRAME, FILM_OF, STEP
from pages._shared.state.per_run import keep_with
from pages._shared.state.settings import Settings, bind

# the frame and the tokenizer travel in links (`state.controls`); playing and its speed do not
FRAME, CHOICE = FILM_FRAME.key, FILM_OF.key
PLAYING, SPEED = "tokenize_film_playing", "tokenize_film_speed"
SPEEDS = [2.0, 1.0, 0.5, 0.25]  # seconds per frame while playing
MERGE_PAGE = "pages/1_Merge_by_merge.py"


def draw_encode_film(settings: Settings, run: TrainingRun, text: str) -> None:
    """The film's tokenizer choice (the run's, GPT-2, GPT-4, an upload), the player and one frame."""
    ss = st.session_state
    st.subheader("Encode film")
    st.markdown(
        "The same text, encoded one merge at a time: from base tokens, each frame applies the next merge "
        "that occurs in the text, in the order the tokenizer applies them."
    )
    compared: list[Compared] = [bpe_at(settings, run, settings.vocab_size), *extra_tokenizers()]
    labels = [c.label for c in compared]
    if ss.get(CHOICE) not in labels:
        ss[CHOICE] = labels[0]  # the run's tokenizer
    chosen = compared[labels.index(ss[CHOICE])]
    shown = text[:MAX_FILM_CHARACTERS]
    keep_with((chosen.key, shown), [FRAME, PLAYING])  # another text or tokenizer: the film starts again
    ss.setdefault(FRAME, 0)
    ss.setdefault(PLAYING, False)
    ss.setdefault(SPEED, 0.5)
    pick, speed = st.columns([3, 2], vertical_alignment="bottom")
    with pick:
        bind(st.selectbox, "Tokenizer to film", CHOICE, options=labels)
    with speed:
        bind(st.select_slider, "Speed", SPEED, options=SPEEDS, format_func=lambda s: f"{s:g} s per frame")
    if len(text) > MAX_FILM_CHARACTERS:
        st.caption(f"The film plays the first {MAX_FILM_CHARACTERS:,} characters of the text.")
    is_run = chosen.key[0] == "run"
    # A text typed here is this session's own, as is a film by its own tokenizer: a preset
    # sentence of a shipped corpus is filmed once for the whole class.
    presets = {sample[:MAX_FILM_CHARACTERS] for sample in corpus_samples(*corpus_texts(settings)).values()}
    own = shown not in presets or session_owns(settings, chosen)
    try:
        film = film_of(chosen.key, shown, _tokenizer=chosen.tokenizer, _steps=run.steps if is_run else None, own=own)
    except BpeError as error:
        st.info(escape_markdown(f"{chosen.label} cannot film this text: {error}"))
        return
    st.caption(escape_markdown(f"{chosen.label} applies its merges by {rule_sentence(film)}."))
    ss[FRAME] = min(int(ss[FRAME]), len(film.frames))
    _player(film, chosen.label, is_run)
    _rule_differences(film)


def _toggle(last: int) -> None:
    ss = st.session_state
    ss[PLAYING] = not ss[PLAYING]
    if ss[PLAYING] and ss[FRAME] >= last:
        ss[FRAME] = 0  # play again from the start


def _step(delta: int, last: int) -> None:
    ss = st.session_state
    ss[FRAME] = min(max(ss[FRAME] + delta, 0), last)
    ss[PLAYING] = False


def _jump(key: str) -> None:
    st.session_state[FRAME] = st.session_state[key]


def _player(film: EncodeFilm, label: str, is_run: bool) -> None:
    """Play/Pause outside the fragment (a click reruns the page, which gives the fragment its
    timer or takes it away); Step back and forward, the slider and the frame inside it."""
    ss = st.session_state
    last = len(film.frames)
    st.button(
        "Pause" if ss[PLAYING] else "Play",
        key="tokenize_film_play",
        on_click=_toggle,
        args=(last,),
        type="primary",
        shortcut="Space",
        disabled=last == 0,
    )
    playing = ss[PLAYING]  # when the fragment was defined (with or without its timer)

    @st.fragment(run_every=ss[SPEED] if ss[PLAYING] else None)
    def player() -> None:
        if playing and not ss[PLAYING]:
            st.rerun()  # a step stopped the film: a full rerun drops the timer and flips Play back
        if ss[PLAYING]:
            ss[FRAME] = min(ss[FRAME] + 1, last)
            if ss[FRAME] >= last:
                ss[PLAYING] = False
                st.rerun()
        # the labels and their key hints ("Step forward →") must fit at 1024 px
        back, forward, _ = st.columns([1.3, 1.5, 2.7], vertical_alignment="bottom")
        back.button(
            "Step back",
            key="tokenize_film_back",
            on_click=_step,
            args=(-1, last),
            shortcut="Left",
            disabled=ss[FRAME] == 0,
        )
        forward.button(
            "Step forward",
            key="tokenize_film_forward",
            on_click=_step,
            args=(1, last),
            shortcut="Right",
            disabled=ss[FRAME] >= last,
        )
        if last > 0:
            key = f"tokenize_film_jump_{ss[FRAME]}"  # keyed by the frame shown, as Merge by merge's slider
            st.slider(
                "Jump to frame", 0, last, value=ss[FRAME], key=key, on_change=_jump, args=(key,), disabled=ss[PLAYING]
            )
        _draw_frame(film, ss[FRAME], label, is_run)

    player()


def _draw_frame(film: EncodeFilm, number: int, label: str, is_run: bool) -> None:
    last = len(film.frames)
    if number == 0:
        st.html(frame_headline_html(film, 0))
        start = start_segments(film)
        st.markdown(f"**The text as base tokens** — {counted(len(start), 'token')}, before any merge")
        st.html(segments_html(start))
        if last == 0:
            st.info(f"No merge of {label} applies to this text: every token is a base token.")
        return
    frame = film.frames[number - 1]
    st.html(frame_headline_html(film, number))
    if is_run and frame.merge is not None:
        if st.button(
            f"Open Merge by merge at step {frame.merge:,}",
            key="tokenize_film_open_step",
            help="Shows how training learned this merge: the pair counts at that step, the text before and after.",
        ):
            st.session_state[STEP.key] = frame.merge  # Merge by merge reads its step from here
            st.session_state[PLAYING] = False
            try:
                st.switch_page(MERGE_PAGE)
            except StreamlitAPIException:  # a page run on its own (or not registered yet)
                st.info(f"Open **Merge by merge** in the page list: it is at step {frame.merge:,}.")
    before, after = frame_segments(film, number)
    st.markdown("**Before this frame** — the pairs it merges are outlined")
    st.html(segments_html(before))
    st.markdown(
        f"**After** — {counted(len(after), 'token')}"
        + (" (the end: exactly what encode() gives)" if number == last else "")
    )
    st.html(segments_html(after))


def _rule_differences(film: EncodeFilm) -> None:
    if not film.differences:
        st.caption(escape_markdown(f"On this text, {film.other_rule} would cut every chunk the same way."))
        return
    st.warning(
        escape_markdown(
            f"On this text {film.other_rule} would cut {counted(len(film.differences), 'chunk')} differently "
            "(a merge list and a rank order disagree where a token can be built two ways):"
        )
    )
    grid_table(
        arrow_rows(
            {
                "chunk": printable(d.text),
                "this tokenizer": " ".join(printable(t) for t in d.tokens),
                film.other_rule: " ".join(printable(t) for t in d.other_tokens),
            }
            for d in film.differences[:50]
        ),
        key="tokenize_film_differences",
    )
