"""Model: does BPE help a language model? One tiny GPT per tokenizer, trained at equal compute."""
import pandas as pd
import streamlit as st

from pages._shared.html import escape_markdown
from pages._shared.figures import bits_per_char_curves
from bpe.lm.job import DEFAULT_SHAPE, HELDOUT_CHARS, MODEL_SHAPES, TRAIN_CHARS
from bpe.lm.report import model_summary_rows, verdict
from pages._shared import bind, setup_page
from pages._shared.model import CAVEATS, current_job, progress_text, start_job, stop_job, tokenizer_choices

settings, run = setup_page(
    "Model",
    "Does BPE help the model, or only shorten the text? Train the same tiny GPT on each tokenizer's "
    "ids for the same time, then compare how well each predicts held-out text, in **bits per character**.",
)
if run is None: st.stop()
choices = tokenizer_choices(settings, run)
ss = st.session_state
ss.setdefault("model_tokenizers", list(choices)[:2])
ss.model_tokenizers = [label for label in ss.model_tokenizers if label in choices] or list(choices)[:2]
ss.setdefault("model_shape", DEFAULT_SHAPE)
ss.setdefault("model_seconds", 60)
job = current_job()
running = job is not None and job.running


def shape_label(name: str) -> str:
    c = MODEL_SHAPES[name]
    return f"{name}: {c.depth} layers, width {c.width}, context {c.block_size} tokens"


c1, c2, c3 = st.columns([3, 3, 1])
with c1:
    bind(st.multiselect, "Tokenizers (one model each)", "model_tokenizers", options=list(choices), disabled=running,
         help="Characters is the run's alphabet with no merges; BPE sizes are prefixes of the sidebar's run.")
with c2:
    bind(st.selectbox, "Model shape (the same for every tokenizer)", "model_shape", options=list(MODEL_SHAPES),
         format_func=shape_label, disabled=running)
with c3:
    bind(st.number_input, "Seconds per model", "model_seconds", min_value=1, max_value=900, step=10, disabled=running)
st.caption(f"Text: the first {TRAIN_CHARS:,} characters of the sidebar's training text; scored on the first "
           f"{HELDOUT_CHARS:,} characters of its held-out part. Runs on a GPU when there is one, else on the CPU.")
b1, b2, _ = st.columns([1, 1, 4])
b1.button("Train models", key="model_start", type="primary", on_click=start_job, args=(settings, choices),
          disabled=running or len(ss.model_tokenizers) < 2)
b2.button("Stop", key="model_stop", on_click=stop_job, disabled=not running or job.stop_requested)
with st.expander("Is this a fair comparison?", expanded=job is None):
    st.markdown(CAVEATS)


@st.fragment(run_every=1.0 if running else None)
def live(ticking: bool) -> None:
    job = current_job()
    if job is None:
        return
    if ticking and not job.running:
        st.rerun()  # a full rerun redefines this fragment without a timer and draws the results
    if job.running:
        fraction, text = progress_text(job)
        st.progress(fraction, text=("Stopping after this step… " if job.stop_requested else "") + text)
    records = job.snapshot().evaluated
    if not records:
        return
    left, right = st.columns(2)
    left.plotly_chart(bits_per_char_curves(records, x="seconds"), key="model_curve_seconds")
    right.plotly_chart(bits_per_char_curves(records, x="chars"), key="model_curve_chars")


live(running)
if job is not None and not running:
    result = job.snapshot()
    if result.error:
        st.error(escape_markdown(result.error), icon="⚠️")
    if job.text.tokenizer_saw_heldout:
        st.warning("The sidebar holds no text out, so the models are scored on the end of the training text, "
                   "which the BPE tokenizer was trained on. Set a held-out part in the sidebar for a clean test.")
    if result.summaries:
        st.subheader("Results")
        table = pd.DataFrame(model_summary_rows(result.summaries))
        st.dataframe(table, hide_index=True, column_config={
            column: st.column_config.NumberColumn(format="localized") for column in table.columns[1:-1]})
        st.markdown(verdict(result.summaries, budget_seconds=job.budget.seconds, requested=len(job.names)))
        for summary in result.summaries:
            st.markdown(f"**Sample from {summary.tokenizer}** (the prompt is the start of the held-out text)")
            st.code(summary.sample, language=None, wrap_lines=True)
