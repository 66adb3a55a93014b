"""The Model page's training job: the tokenizers on offer, this session's job.

The job (`bpe.lm.job.ExperimentJob`) trains on its own thread and lives in this session's
state under `JOB`, never in a module global: each visitor has their own, and a rerun, a
timer tick or a visit to another page finds it again. The training itself is in `bpe.lm`.

A classroom shares one server: every job joins the server's one line of jobs
(`data.jobs.server_slots`), where the page says how many are ahead, and each job is tied
to its browser session (`state.sessions.session_watch`): a closed tab stops its training.
"""

from __future__ import annotations

import streamlit as st

from bpe.lm.config import Budget
from bpe.lm.job import MODEL_SHAPES, ExperimentJob, experiment_text, train_settings
from bpe.run import TrainingRun
from bpe.wording import counted
from pages._shared.data.jobs import TRAINING_NICENESS, server_slots
from pages._shared.data.runs import corpus_texts
from pages._shared.data.tokenizers import Compared, base_level, bpe_at
from pages._shared.state.controls import MODEL_TOKENIZERS, SHAPE, STEPS
from pages._shared.state.sessions import session_watch
from pages._shared.state.settings import Settings

JOB = "model_job"  # plain key: this session's ExperimentJob (running or finished)

CAVEATS = """\
- **Equal compute is equal work, not equal seconds.** Every model trains the same number of
  steps, each on the same batch of windows of the same number of tokens: the same tokens
  processed. A larger vocabulary costs a little more a token (its output layer), so the table
  gives each model's training FLOPs too. The seconds each took are said, never compared: a
  clock counts whatever else the machine does (a busy machine once gave characters 5.0 s and
  BPE 6.6 s for the same budget). The second curve shows the same runs against characters of
  text read: in the same tokens, a BPE model reads more text.
- **Bits per character, never loss per token.** A BPE token stands for several characters, so
  its loss per token is naturally higher. Each model's total held-out loss is divided by the
  characters of the **same held-out text**, which neither the tokenizer nor the models trained on.
- **Same shape, except the embedding.** The models differ only in their vocab × width embedding
  table (shared with the output layer), which grows with the vocabulary. The table counts it apart.
- **The context is counted in tokens**, so a BPE model sees more text per window. That is part
  of what BPE buys, not a flaw in the test.
- **Tiny models, short runs, one seed.** Differences of a few hundredths of a bit are noise.
"""


def tokenizer_choices(settings: Settings, run: TrainingRun) -> dict[str, Compared]:
    """Characters (the run's alphabet, no merges), and the run's BPE at the vocab shown, at
    half of it, and at the trained maximum, by label. Sizes that coincide are offered once."""
    base = base_level(settings, run)
    found = {base.label: base}
    for size in (settings.vocab_size, settings.vocab_size // 2, settings.training.target_vocab_size):
        if size > base.vocab_size:
            compared = bpe_at(settings, run, size)
            if compared.vocab_size > base.vocab_size:  # training may have stopped short
                found.setdefault(compared.label, compared)
    return found


def current_job() -> ExperimentJob | None:
    return st.session_state.get(JOB)


def start_job(settings: Settings, choices: dict[str, Compared]) -> None:
    """Button callback: start training the chosen tokenizers' models, unless a job runs."""
    state = st.session_state
    running = current_job()
    if running is not None and running.running:
        return
    train, heldout = corpus_texts(settings)
    text = experiment_text(train, heldout)
    config = MODEL_SHAPES[state[SHAPE.key]]
    chosen = [(label, choices[label].tokenizer) for label in state[MODEL_TOKENIZERS.key] if label in choices]
    state[JOB] = ExperimentJob(
        chosen,
        config,
        Budget(steps=int(state[STEPS.key])),
        text=text,
        settings=train_settings(config, text.heldout_chars),
        slots=server_slots(),
        owner_alive=session_watch(),
        niceness=TRAINING_NICENESS,
    ).start()


def stop_job() -> None:
    """Button callback: ask the running job to stop after its current step."""
    job = current_job()
    if job is not None:
        job.stop()


def progress_text(job: ExperimentJob) -> tuple[float, str]:
    """(fraction done, one line) for the progress bar while the job runs."""
    shared = job.snapshot()
    budget = job.budget.steps
    done = len(shared.summaries)
    if shared.place is not None:
        place = shared.place
        ahead = f", {place.ahead} waiting ahead of you" if place.ahead else ""
        return 0.0, (
            f"The server is busy: {counted(place.training, 'model job')} training{ahead}. Yours starts as soon "
            "as a slot is free; keep this tab open (closing it gives up the place)."
        )
    where = (
        "starting"
        if shared.device is None
        else f"on {shared.device}" + (f", {counted(shared.threads, 'CPU thread')}" if shared.device == "cpu" else "")
    )
    if done >= len(job.names):
        return 1.0, f"Sampling and summarising… ({where})"
    name = job.names[done]
    latest = shared.latest.get(name)
    if latest is None:
        if done == 0:  # every tokenizer's text is encoded (and checked) before the first model trains
            return 0.0, f"Encoding the text for every tokenizer… ({where})"
        return done / len(job.names), f"Building the model for {name}… ({where})"
    evaluated = [r.progress for r in shared.evaluated if r.tokenizer == name]
    score = f", held-out {evaluated[-1].evaluation.bits_per_char:.3f} bits/char" if evaluated else ""
    fraction = (done + min(latest.step / budget, 1.0)) / len(job.names)
    return fraction, (
        f"Model {done + 1} of {len(job.names)}: **{name}**, step {latest.step:,} of {budget:,} "
        f"({latest.seconds:.0f} s){score} ({where})"
    )
