"""Which corpus the Model page's results belong to, and why "Train models" is not offered.

A job's curves, table, verdict and samples come from the tokenizers of one run. After
the sidebar switches corpus they would sit under a title that now means another text, so
the page shows them only while the sidebar is back on the settings that produced them,
and otherwise says plainly where they came from (`other_results_note`). The tokenizer
choice belongs to the choices on offer (`keep_choice`): a small corpus that offers only
"characters" and "BPE 12" does not leave the selection shrunk for the next corpus.
"""

from __future__ import annotations

import streamlit as st

from bpe.lm.job import ExperimentJob
from bpe.lm.report import model_summary_rows, verdict
from bpe.text import bidi_marked
from pages._shared.data.tokenizers import Compared
from pages._shared.frame.tables import show_table
from pages._shared.render.html import escape_markdown
from pages._shared.state.controls import MODEL_TOKENIZERS
from pages._shared.state.per_run import keep_with, run_identity
from pages._shared.state.settings import Settings
from pages._shared.views.model.training_job import current_job, start_job

OWNER = "model_job_owner"  # plain key: (job, run identity, corpus name) of the last job started here
EARLIER = "model_earlier_results"  # plain key: (job, run identity) of the last job that finished with results
CHOSEN = MODEL_TOKENIZERS.key  # plain key: the tokenizers chosen, by label


def keep_choice(choices: dict[str, Compared]) -> list[str]:
    """The chosen tokenizer labels: the first two on offer, again whenever the offer changes."""
    state = st.session_state
    keep_with(tuple(choices), [CHOSEN])
    state.setdefault(CHOSEN, list(choices)[:2])
    state[CHOSEN] = [label for label in state[CHOSEN] if label in choices] or list(choices)[:2]
    return state[CHOSEN]


def start_here(settings: Settings, choices: dict[str, Compared]) -> None:
    """Button callback: `training_job.start_job`, remembering which run the new job belongs to."""
    state = st.session_state
    before, owner = current_job(), state.get(OWNER)
    start_job(settings, choices)
    job = current_job()
    if job is not None and job is not before:
        if before is not None and not before.running and before.snapshot().summaries:
            # kept, so a job that fails (a text too short for the model) leaves these results shown
            identity = owner[1] if owner is not None and owner[0] is before else run_identity(settings)
            state[EARLIER] = (before, identity)
        state[OWNER] = (job, run_identity(settings), settings.corpus)


def belongs_here(job: ExperimentJob | None, settings: Settings) -> bool:
    """Whether ``job`` was started on the settings the sidebar shows now (a job started
    elsewhere, e.g. by a test, counts as here)."""
    owner = st.session_state.get(OWNER)
    if job is None or owner is None or owner[0] is not job:
        return True
    return owner[1] == run_identity(settings)


def shown_job(settings: Settings) -> ExperimentJob | None:
    """The job whose progress and results this page may show: a running one (it is what
    the machine is doing), or a finished one that belongs to the sidebar's settings."""
    job = current_job()
    if job is None or job.running or belongs_here(job, settings):
        return job
    return None


def trained_on(settings: Settings) -> str:
    """ "Trained on 'corpus'" for the results' caption."""
    owner = st.session_state.get(OWNER)
    corpus = owner[2] if owner is not None and owner[0] is current_job() else settings.corpus
    return f"Trained on {corpus!r}, with the tokenizers named in the first column."


def other_results_note(settings: Settings) -> str | None:
    """A plain note when the last results belong to another corpus or setting, else None."""
    job = current_job()
    if job is None or job.running or belongs_here(job, settings):
        return None
    corpus = st.session_state[OWNER][2]
    where = "another corpus" if corpus != settings.corpus else "other settings (minimum frequency, alphabet, ...)"
    return (
        f"The last models were trained on {corpus!r} with {', '.join(job.names)}, which is {where}. Their "
        f"results are hidden here; pick {corpus!r} again in the sidebar to see them, or train models on this one."
    )


def start_blocked_reason(choices: dict[str, Compared], chosen: list[str], running: bool) -> str | None:
    """Why "Train models" is disabled, in words, or None when it is not."""
    if running:
        return None  # the progress bar says what is happening
    if len(choices) < 2:
        return (
            "This run offers only characters: training learned no merge to compare against. "
            "Pick a larger text or a lower minimum pair frequency in the sidebar."
        )
    if len(chosen) < 2:
        return "Choose at least two tokenizers above: the page compares one model per tokenizer."
    return None


# ==================== Results, readable on a projector

# The number a class compares first, right after the name; the rest in the order a teacher
# explains it. Fits at 1024 px (st.table wraps; nothing is hidden off the right edge).
RESULT_COLUMNS = {
    "tokenizer": "tokenizer",
    "held-out bits/char": "held-out bits per character",
    "held-out bits/byte": "bits per byte",
    "vocab": "vocab",
    "embedding parameters": "embedding params",
    "other parameters": "other params",
    "steps": "steps",
    "training work": "training work",  # the FLOPs its steps took: equal steps, the head's cost apart
    "characters seen": "characters seen",
}  # the seconds (a busy machine's) and the speeds are in the verdict below the table
RESULT_DECIMALS = {"held-out bits per character": 3, "bits per byte": 3}


def result_rows(rows: list[dict]) -> list[dict]:
    """`bpe.lm.report.model_summary_rows`, with the columns a class reads, in that order."""
    return [{label: row[key] for key, label in RESULT_COLUMNS.items()} for row in rows]


def draw_results(job: ExperimentJob, settings: Settings) -> None:
    """A finished job: its error, the held-out caveat, the table, the verdict and the samples."""
    result = job.snapshot()
    if result.error:
        st.error(escape_markdown(result.error), icon="⚠️")
        earlier = st.session_state.get(EARLIER)
        if not result.summaries and earlier is not None and earlier[1] == run_identity(settings):
            st.caption("The results of the models trained before on this text are still shown below.")
            job, result = earlier[0], earlier[0].snapshot()
    if job.text.tokenizer_saw_heldout:
        st.warning(
            "The sidebar holds no text out, so the models are scored on the end of the training text, "
            "which the BPE tokenizer was trained on. Set a held-out part in the sidebar for a clean test."
        )
    if not result.summaries:
        return
    st.subheader("Results")
    st.caption(escape_markdown(trained_on(settings)))
    show_table(result_rows(model_summary_rows(result.summaries)), decimals=RESULT_DECIMALS)
    st.markdown(verdict(result.summaries, budget_steps=job.budget.steps, requested=len(job.names)))
    for summary in result.summaries:
        st.markdown(
            f"**Sample from {escape_markdown(summary.tokenizer)}** (the prompt is the start of the held-out text)"
        )
        st.code(bidi_marked(summary.sample), language=None, wrap_lines=True)  # generated from the corpus
