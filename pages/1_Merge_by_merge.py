"""Merge by merge: play BPE training like a film, one merge per step, without retraining."""
import pandas as pd
import streamlit as st

from pages._shared.html import merge_headline_html, segments_html
from pages._shared.figures import TIE_RULE, pair_frequency_figure, tied_with_winner
from bpe.analysis.merge_log import count_change_rows, log_csv, log_rows_around, why_stopped
from bpe.analysis.metrics import compression
from bpe.analysis.segments import merged_count, step_segments, window, window_around
from pages._shared import bind, corpus_texts, mirror_step, prefix_tokenizer, setup_page

WINDOW_CHARS = 600
SPEEDS = [2.0, 1.0, 0.5, 0.25]  # seconds per step while playing

settings, run = setup_page(
    "Merge by merge",
    "Each step counts every adjacent pair, merges the most frequent one into a new token, "
    "and re-segments the text. Play it, or step through it.",
)
if run is None: st.stop()
train_text, _ = corpus_texts(settings)
last = run.merge_count(settings.vocab_size)
if last == 0:
    st.info(why_stopped(run, 0))
    st.stop()
ss = st.session_state
for key, default in dict(merges_step=1, merges_playing=False, merges_speed=0.5, merges_window=0,
                         merges_follow=True).items():
    ss.setdefault(key, default)  # plain keys: they survive a visit to another page
ss.merges_step = min(max(int(ss.merges_step), 1), last)


def go(delta: int) -> None:
    ss.merges_step = min(max(ss.merges_step + delta, 1), last)
    ss.merges_playing = False


def jump(key: str) -> None:
    ss.merges_step = ss[key]


def play_or_pause() -> None:
    ss.merges_playing = not ss.merges_playing
    if ss.merges_playing and ss.merges_step >= last:
        ss.merges_step = 1  # play again from the start


c1, c2, c3, c4 = st.columns([1, 1, 1, 3], vertical_alignment="bottom")
c1.button("Step back", key="merges_back", on_click=go, args=(-1,), disabled=ss.merges_step <= 1)
c2.button("Pause" if ss.merges_playing else "Play", key="merges_play", on_click=play_or_pause, type="primary")
c3.button("Step forward", key="merges_forward", on_click=go, args=(1,), disabled=ss.merges_step >= last)
with c4:
    bind(st.select_slider, "Speed", "merges_speed", options=SPEEDS, format_func=lambda s: f"{s:g} s per step")
if len(train_text) > WINDOW_CHARS:
    ss.merges_window = min(ss.merges_window, len(train_text) - WINDOW_CHARS)  # the corpus may have shrunk
    w1, w2 = st.columns([1, 3], vertical_alignment="bottom")
    with w1:
        bind(st.toggle, "Follow the merge", "merges_follow", help="Move the window to where the merge happens.")
    with w2:
        bind(st.slider, "Text window: first character", "merges_window", min_value=0,
             max_value=len(train_text) - WINDOW_CHARS, step=50, disabled=ss.merges_follow)


def draw_step(step) -> None:
    k = step.number
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Step", f"{k:,} of {last:,}")
    m2.metric("Vocab size", f"{step.vocab_size:,}")
    shorter = step.sequence_length - run.sequence_length(k - 1)
    m3.metric("Sequence length", f"{step.sequence_length:,}", delta=f"{shorter:,}", delta_color="inverse")
    m4.metric("Compression so far", f"{compression(run.training_characters, step.sequence_length):.3f}",
              help="characters per token in the training text")
    st.html(merge_headline_html(step))
    chart, changes = st.columns([3, 2])
    chart.plotly_chart(pair_frequency_figure(step, settings.top_k), key="merges_pairs")
    ties = len(tied_with_winner(step))
    chart.caption((f"⚠️ {ties} pair(s) tie with the winner. " if ties else "") + f"Tie rule: {TIE_RULE}.")
    changes.markdown("**What the merge changed** (pair counts)")
    changes.dataframe(pd.DataFrame(count_change_rows(step)), hide_index=True)
    start = window_around(train_text, step.token, WINDOW_CHARS) if ss.merges_follow else ss.merges_window
    text = window(train_text, start, WINDOW_CHARS)
    before, after = step_segments(prefix_tokenizer(settings, run, k - 1), text, step)
    st.markdown("**Before the merge** — the pairs it merges are outlined")
    st.html(segments_html(before))
    st.markdown(f"**After the merge** — {merged_count(after):,} new tokens in this window, outlined")
    st.html(segments_html(after))
    st.markdown("**Merge log**")
    st.dataframe(pd.DataFrame(log_rows_around(run.steps[:last], k)), hide_index=True, height="content")
    if k == last:
        st.info(why_stopped(run, last))


@st.fragment(run_every=ss.merges_speed if ss.merges_playing else None)
def player() -> None:
    if ss.merges_playing:  # one step per tick; the timer only exists while playing
        ss.merges_step = min(ss.merges_step + 1, last)
        if ss.merges_step >= last:
            ss.merges_playing = False
            st.rerun()  # a full rerun redefines the fragment without a timer and flips the button
    if last > 1:  # keyed by the step shown: a late tick carrying an older position then
        key = f"merges_jump_{ss.merges_step}"  # names a widget that is gone, and cannot move the step back
        st.slider("Jump to step", 1, last, value=ss.merges_step, key=key, on_change=jump, args=(key,),
                  disabled=ss.merges_playing)
    mirror_step(ss.merges_step)
    draw_step(run.steps[ss.merges_step - 1])


player()
st.download_button("Download the merge log (CSV)", log_csv(run.steps[:last]), file_name="merge_log.csv",
                   mime="text/csv", key="merges_csv")
