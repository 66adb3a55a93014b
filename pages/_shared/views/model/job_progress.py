"""The Model page's live part: the progress bar and the curves, redrawn on a timer while a
job trains. Two module-level fragments share one body: with a one-second timer while a
job runs, without one otherwise (a fragment's timer is fixed when it is defined)."""

from __future__ import annotations

import streamlit as st

from bpe.lm.job import MODEL_SHAPES
from pages._shared.frame.presenter import presented
from pages._shared.render.figures import bits_per_char_curves
from pages._shared.state.settings import Settings
from pages._shared.views.model.job_owner import belongs_here, draw_results, shown_job
from pages._shared.views.model.training_job import current_job, progress_text


def shape_label(name: str) -> str:
    c = MODEL_SHAPES[name]
    return f"{name}: {c.depth} layers, width {c.width}, context {c.block_size} tokens"


def _live(settings: Settings, ticking: bool) -> None:
    job = shown_job(settings)  # a finished job of another corpus is not shown
    if job is None:
        return
    if ticking and not job.running:
        st.rerun()  # a full rerun draws the page without a timer, and the results
    if job.running:
        fraction, text = progress_text(job)
        st.progress(fraction, text=("Stopping after this step… " if job.stop_requested else "") + text)
    records = job.snapshot().evaluated
    if not records:
        return
    left, right = st.columns(2)
    left.plotly_chart(presented(bits_per_char_curves(records, x="tokens")), key="model_curve_tokens")
    right.plotly_chart(presented(bits_per_char_curves(records, x="chars")), key="model_curve_chars")


_ticking = st.fragment(run_every=1.0)(_live)
_still = st.fragment(_live)


def draw_live(settings: Settings, running: bool) -> None:
    """Progress and curves: every second while ``running``, once otherwise."""
    (_ticking if running else _still)(settings, running)


def draw_job(settings: Settings) -> None:
    """Progress and curves (on a timer while training), then the results of a finished job,
    only on the settings that produced them."""
    job = current_job()
    running = job is not None and job.running
    draw_live(settings, running)
    if job is not None and not running and belongs_here(job, settings):
        draw_results(job, settings)
