"""The Model page (pages/6_Model.py) and what it stands on: the background job, the
text it trains on, the curves and the closing verdict.

Training runs on the job's own thread, and fragments never tick in AppTest, so the page
tests call `at.run()` until the job has ended: each run is one tick of the page's timer.
"""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest
import torch
from app_helpers import SMALL_CORPUS, new_app, plotly_specs, unescape_markdown

from bpe.lm.experiment import split_text
from bpe.lm.job import experiment_text
from bpe.lm.report import RARE_COUNT, embedding_points, model_summary_rows, verdict
from pages._shared.data.jobs import TRAINING_NICENESS
from pages._shared.render.figures import bits_per_char_curves

torch.set_num_threads(1)  # tiny models: extra threads only add contention

PAGE = "pages/6_Model.py"
# The Python reference, cut short: a quick run (vocab 300), with 3,000 characters held out.
QUICK = dict(
    settings_corpus="Python language reference",
    settings_prefix_cap=30_000,
    settings_vocab=300,
    settings_train_up_to=300,
    model_shape="tiny",
)


@pytest.fixture(autouse=True)
def one_thread(monkeypatch):
    monkeypatch.setattr("bpe.lm.job.training_threads", lambda: 1)


def run_until_done(at, timeout: float = 120.0):
    """Rerun the page (one timer tick each) until its job has ended, then once more."""
    deadline = time.monotonic() + timeout
    while at.session_state["model_job"].running:
        assert time.monotonic() < deadline, "the training job did not end in time"
        time.sleep(0.3)
        at.run()
    return at.run()


def results_table(at):
    """The results table as numbers: it is shown as text, with thousands separators."""
    if not at.table:  # say what the page shows instead, and what the job holds
        job = at.session_state["model_job"].snapshot()
        shown = [e.value for e in (*at.error, *at.warning, *at.caption, *at.markdown)]
        summaries = [s.tokenizer for s in job.summaries]
        raise AssertionError(
            f"no results table; the job: error {job.error!r}, abandoned {job.abandoned}, "
            f"summaries {summaries}, latest {job.latest}; the page: {shown}, exceptions {[e.value for e in at.exception]}"
        )
    table = at.table[0].value
    assert "None" not in table.to_string()
    for column in table.columns[1:]:
        if column != "training work":  # "6.90 GFLOPs"
            table[column] = table[column].str.replace(",", "").astype(float)
    return table


# ==================== The page


def test_before_training_it_offers_tokenizers_shapes_and_the_caveats():
    at = new_app(PAGE, **QUICK)
    assert not at.exception
    assert at.multiselect(key="_w_model_tokenizers").options == ["characters", "BPE 300", "BPE 150"]
    assert at.multiselect(key="_w_model_tokenizers").value == ["characters", "BPE 300"]
    assert at.selectbox(key="_w_model_shape").value == "tiny"
    assert at.number_input(key="_w_model_steps").value == 200  # the default budget: work, not seconds
    assert any("Bits per character, never loss per token" in m.value for m in at.markdown)
    assert not at.button(key="model_start").disabled and at.button(key="model_stop").disabled
    assert at.get("plotly_chart") == [] and not at.dataframe and not at.table


def test_training_draws_both_curves_then_the_table_verdict_and_samples():
    at = new_app(PAGE, **QUICK, model_steps=10)
    at.button(key="model_start").click().run()
    assert at.session_state["model_job"].running
    assert at.button(key="model_start").disabled and not at.button(key="model_stop").disabled
    run_until_done(at)
    assert not at.exception
    table = results_table(at)
    assert list(table.columns[:2]) == ["tokenizer", "held-out bits per character"]  # the key number first
    assert list(table["tokenizer"]) == ["characters", "BPE 300"]
    assert list(table["vocab"]) == [91, 300]
    assert (table["other params"].nunique() == 1) and table["embedding params"].is_monotonic_increasing
    assert (table["steps"] == 10).all() and (table["characters seen"] > 0).all()  # the same work for each
    bits = table["held-out bits per character"]
    assert bits.dtype.kind == "f" and ((bits > 0) & (bits < 8)).all()
    per_byte = table["bits per byte"]  # Tiny Shakespeare is ASCII, almost: a byte is about a character
    assert list(table.columns[2:3]) == ["bits per byte"] and ((per_byte > 0) & (per_byte <= bits + 1e-9)).all()
    note = [m.value for m in at.markdown if m.value.startswith("Held-out bits per character")][0]
    for name, value in zip(table["tokenizer"], bits):
        assert f"{name} **{value:.3f}**" in note
    assert "won** by" in note or "No clear winner" in note
    assert len(at.code) == 2 and all(code.value for code in at.code)  # one sample per model
    work, chars, embeddings = plotly_specs(at)
    assert [trace["name"] for trace in work["data"]] == ["characters", "BPE 300"]
    job = at.session_state["model_job"]
    summary = job.snapshot().summaries[1]
    train_part, _ = split_text(job.text.text, job.text.heldout_fraction)
    ids = job.tokenizer("BPE 300").encode(train_part)
    assert list(summary.token_counts) == [ids.count(i) for i in range(300)]
    norms = summary.model.token_embedding.weight.detach().norm(dim=1)
    assert summary.embedding_norms == pytest.approx(norms.tolist())
    counts = torch.tensor(summary.token_counts)
    low = torch.quantile(norms[counts >= RARE_COUNT], 0.25, interpolation="linear")
    marked = set(torch.nonzero((counts < RARE_COUNT) & (norms < low)).flatten().tolist())
    assert {p.id for p in embedding_points(summary) if p.under_trained} == marked
    flagged = embeddings["data"][1]
    assert sorted(row[0] for row in flagged.get("customdata", [])) == sorted(marked)
    assert flagged["name"] == f"rare and low-norm ({len(marked):,})"
    assert embeddings["layout"]["xaxis"]["type"] == "log"
    assert work["layout"]["xaxis"]["title"]["text"] == "tokens processed (the work)"
    assert chars["layout"]["xaxis"]["title"]["text"] == "characters processed"
    assert work["data"][0]["x"][-1] == work["data"][1]["x"][-1] > 0  # both end at the same work
    assert chars["data"][1]["x"][-1] == table["characters seen"][1]
    assert "Equal work: characters 10 steps" in note and "seconds are whatever this machine's other load" in note
    assert all(work.endswith("FLOPs") for work in table["training work"])
    assert not at.button(key="model_start").disabled and at.button(key="model_stop").disabled


def test_stop_ends_training_and_the_note_says_it_was_not_equal():
    at = new_app(PAGE, **QUICK, model_steps=5_000)
    at.button(key="model_start").click().run()
    at.button(key="model_stop").click().run()
    assert at.session_state["model_job"].stop_requested
    assert at.session_state["model_job"].niceness == TRAINING_NICENESS > 0  # the class's pages come first
    run_until_done(at, timeout=60)
    assert not at.exception
    table = results_table(at)
    assert list(table["tokenizer"]) == ["characters"] and table["steps"][0] < 5_000
    note = [m.value for m in at.markdown if m.value.startswith("Held-out bits per character")][0]
    assert "Training was stopped" in note and "Only 1 of the 2 models trained" in note


def test_a_text_too_short_to_train_on_shows_the_error():
    at = new_app(PAGE, settings_corpus=SMALL_CORPUS, model_shape="tiny", model_steps=10)
    at.button(key="model_start").click().run()
    run_until_done(at, timeout=60)
    assert not at.exception
    assert "fewer than block_size + 1 = 65" in unescape_markdown(at.error[0].value)
    assert "the models are scored on the end of the training text" in at.warning[0].value


def test_a_job_that_fails_leaves_the_earlier_results_on_this_text_shown():
    # 2,000 characters, 200 held out: BPE's held-out part is about 100 tokens, one window for
    # the tiny shape (64 tokens) but too few for the medium one (128)
    at = new_app(PAGE, **{**QUICK, "settings_prefix_cap": 2_000}, model_steps=10)
    at.button(key="model_start").click().run()
    run_until_done(at)
    earlier = results_table(at)
    assert len(earlier) == 2 and not at.error
    at.selectbox(key="_w_model_shape").set_value("medium").run()
    at.button(key="model_start").click().run()
    run_until_done(at)
    assert not at.exception
    assert "fewer than block_size + 1 = 129" in unescape_markdown(at.error[0].value)
    assert any("trained before on this text are still shown" in c.value for c in at.caption)
    assert results_table(at).equals(earlier)  # the whole earlier comparison, not a part of the failed one


# ==================== The text and the verdict


def test_the_experiment_text_splits_back_exactly_into_training_and_heldout():
    joined = experiment_text("abcdefgh", "ij")
    assert (joined.text, joined.heldout_fraction, joined.tokenizer_saw_heldout) == ("abcdefghij", 0.2, False)
    assert split_text(joined.text, joined.heldout_fraction) == ("abcdefgh", "ij")
    long = experiment_text("x" * 418_624, "y" * 46_502, train_chars=400_000, heldout_chars=9_999)
    assert split_text(long.text, long.heldout_fraction) == ("x" * 400_000, "y" * 9_999)


def test_without_heldout_text_the_end_of_the_training_text_is_used_and_flagged():
    joined = experiment_text("a" * 100, "")
    assert joined.tokenizer_saw_heldout and split_text(joined.text, joined.heldout_fraction)[1] == "a" * 10


def summary(name, bits, *, seconds=60.0, tokens=600_000, chars=600_000, bits_per_byte=None):
    return SimpleNamespace(
        tokenizer=name,
        bits_per_char=bits,
        bits_per_byte=bits_per_byte,
        seconds=seconds,
        tokens_seen=tokens,
        chars_seen=chars,
        tokens_per_second=tokens / seconds,
        chars_per_second=chars / seconds,
        steps=10,
        training_flops=tokens * 5_000_000,
        config=SimpleNamespace(vocab_size=100),
        parameters=SimpleNamespace(embedding=5, rest=7),
    )


def test_verdict_names_the_winner_and_the_margin():
    note = verdict(
        [summary("characters", 2.5), summary("BPE 1,000", 2.0, tokens=300_000, chars=1_200_000)],
        budget_steps=10,
        requested=2,
    )
    assert "characters **2.500**; BPE 1,000 **2.000**" in note
    assert "characters 10,000 tokens/s = 10,000 characters/s; BPE 1,000 5,000 tokens/s = 20,000 characters/s" in note
    assert "**BPE 1,000 won** by 0.500 bits per character (20% fewer bits than characters)" in note
    assert "read 2.0× as many characters" in note and "stopped" not in note
    assert "Equal work: characters 10 steps, 600,000 tokens, 3.00 TFLOPs in 60.0 s" in note
    assert "Per UTF-8 byte" not in note  # no bytes measured, nothing said


def test_verdict_and_rows_give_bits_per_byte_beside_bits_per_character():
    summaries = [summary("characters", 2.5, bits_per_byte=2.25), summary("BPE", 2.0, bits_per_byte=1.8)]
    assert (
        "Per UTF-8 byte of the same text, the scale papers report across alphabets: characters 2.250; BPE 1.800."
        in (verdict(summaries, budget_steps=10))
    )
    assert model_summary_rows(summaries)[1]["held-out bits/byte"] == 1.8


def test_verdict_calls_a_tie_and_flags_a_stopped_run():
    assert "No clear winner" in verdict([summary("a", 2.000), summary("b", 2.005)], budget_steps=10)
    short = summary("b", 1.0, seconds=12.5)
    short.steps = 4
    note = verdict([summary("a", 2.0), short], budget_steps=10, requested=3)
    assert "b trained 4 of the 10 steps" in note and "Only 2 of the 3 models" in note
    assert verdict([]) == "No model finished training, so there is nothing to compare."
    assert model_summary_rows([summary("a", 1.23456)])[0]["held-out bits/char"] == 1.235


def test_curves_have_one_line_per_tokenizer_on_either_axis():
    def record(name, step, seconds, chars, bits):
        return SimpleNamespace(
            tokenizer=name,
            progress=SimpleNamespace(
                step=step,
                seconds=seconds,
                tokens_seen=step * 1_024,
                chars_seen=chars,
                evaluation=SimpleNamespace(bits_per_char=bits),
            ),
        )

    records = [
        record("characters", 0, 0.0, 0, 6.5),
        record("characters", 25, 3.0, 25_600, 3.1),
        record("BPE 500", 0, 0.0, 0, 2.0),
        record("BPE 500", 25, 3.5, 90_000, 1.8),
    ]
    by_chars = bits_per_char_curves(records, x="chars")
    assert [t.name for t in by_chars.data] == ["characters", "BPE 500"]
    assert list(by_chars.data[1].x) == [0, 90_000] and list(by_chars.data[1].y) == [2.0, 1.8]
    assert list(bits_per_char_curves(records).data[0].x) == [0, 25_600]  # tokens: the work, not the seconds
    with pytest.raises(ValueError, match="x='seconds' must be 'tokens' or 'chars'"):
        bits_per_char_curves(records, x="seconds")
