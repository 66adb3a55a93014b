"""A run stopped part way is a prefix of the full run; a shared training goes on while
anyone waits for it, stops once nobody does, and only a run that ran to its end is kept
for others (`bpe.run.RunInTraining`, `pages._shared.data.live_training`)."""

from __future__ import annotations

import threading

import pytest

from bpe.corpora.corpus import load_corpus
from bpe.run import start_run, train_run
from bpe.steps import StopReason
from bpe.training import TrainingSettings
from pages._shared.data.live_training import LiveTraining, SharedTrainings

TEXT = load_corpus("Tiny Shakespeare")[:60_000]
HELDOUT = load_corpus("Tiny Shakespeare")[60_000:66_000]


def test_a_stopped_run_is_the_full_runs_first_merges():
    full = train_run(TEXT, 600, heldout_text=HELDOUT)
    training = start_run(TEXT, 600, heldout_text=HELDOUT)
    for step in training:
        if step.number == 100:
            training.stop()
            break
    stopped = training.run()
    assert stopped.stop_reason is StopReason.STOPPED
    assert "stopped before reaching the target vocabulary of 600 tokens" in stopped.stop_explanation
    assert stopped.merges == full.merges[:100]
    assert stopped.heldout_lengths == full.heldout_lengths[:101]
    assert len(stopped.step_seconds) == 100 and stopped.training_characters == full.training_characters
    assert stopped.tokenizer().encode(HELDOUT) == full.tokenizer(merges=100).encode(HELDOUT)


def test_the_run_so_far_is_consistent_while_another_thread_trains():
    training = start_run(TEXT, 1_200, heldout_text=HELDOUT)
    taken = []
    worker = threading.Thread(target=lambda: [None for _ in training])
    worker.start()
    while worker.is_alive():
        taken.append(training.run())
    worker.join()
    final = training.run()
    assert final.stop_reason is not StopReason.STOPPED
    for run in taken:  # every snapshot: whole steps, with their held-out lengths and times
        assert run.merges == final.merges[: len(run.steps)]
        assert len(run.heldout_lengths) == len(run.steps) + 1 == len(run.step_seconds) + 1
        if len(run.steps) < len(final.steps):
            assert run.stop_reason is StopReason.STOPPED
    for run in taken[:: max(1, len(taken) // 4)]:  # and each step whole: runners-up, count changes, sizes
        assert list(run.steps) == final.steps[: len(run.steps)]


def _settings(vocab: int) -> TrainingSettings:
    return TrainingSettings(target_vocab_size=vocab, minimum_pair_frequency=1)


def test_one_watcher_leaving_does_not_stop_the_training_of_another():
    shared = SharedTrainings()
    key = ("text", 4_000)
    first = shared.join(key, lambda: LiveTraining(TEXT, _settings(4_000), heldout_text=HELDOUT), "session A")
    second = shared.join(key, lambda: pytest.fail("a second training of the same key"), "session B")
    assert second is first
    first.leave("session A")  # A pressed Stop
    assert first.wait(120)
    assert first.result is not None and first.result.stop_reason is not StopReason.STOPPED
    assert shared.finished(key) is first.result  # B's full run, kept for everyone
    assert shared.training(key) is None


def test_a_training_nobody_waits_for_stops_and_is_never_kept_as_the_run():
    shared = SharedTrainings()
    key = ("text", 50_000)
    training = shared.join(key, lambda: LiveTraining(TEXT, _settings(50_000)), "session A")
    while training.progress().merges < 50:
        assert not training.wait(0.05), "trained to the end before the test could stop it"
    kept = training.run_so_far()
    training.leave("session A")
    assert training.wait(10), "the training went on with nobody waiting"
    assert training.result is None and training.error is None
    assert shared.finished(key) is None and shared.training(key) is None
    assert kept.stop_reason is StopReason.STOPPED and 50 <= len(kept.steps) < 50_000 - 65
    again = shared.join(key, lambda: LiveTraining(TEXT, _settings(300)), "session B")
    assert again is not training  # a new asker trains afresh
    assert again.wait(60) and shared.finished(key) is again.result


def test_a_watcher_that_has_gone_counts_as_left():
    shared = SharedTrainings()
    gone = threading.Event()
    training = shared.join(
        ("text", 50_000), lambda: LiveTraining(TEXT, _settings(50_000)), "closed tab", lambda: not gone.is_set()
    )
    gone.set()
    assert training.wait(10) and training.result is None


def test_a_bad_setting_is_the_trainings_one_line_error():
    training = LiveTraining(TEXT, _settings(3)).start()  # fewer than the alphabet
    assert training.wait(10)
    assert training.result is None and "smaller than the alphabet" in training.error


def test_the_pace_leaves_the_preparation_out():
    from pages._shared.data.live_training import Progress

    # 10 s preparing the text, then 1,000 merges in 2 s: 500 merges a second, not 83
    progress = Progress(merges=1_001, target_merges=5_001, seconds=12.0, preparing=False, merging_seconds=2.0)
    assert progress.merges_per_second == 500.0
    assert progress.seconds_left == 8.0 and progress.fraction == pytest.approx(0.2, abs=0.001)
    assert Progress(0, 100, 3.0, True).seconds_left is None  # no merge yet: no guess


@pytest.mark.parametrize("tie_rule", ["first_occurrence", "lexicographic", "lexicographic_greatest", "huggingface"])
@pytest.mark.parametrize(("alphabet", "pretokenizer"), [("bytes", "gpt2"), ("characters", None)])
def test_a_run_records_every_step_as_the_stream_yields_it(tie_rule, alphabet, pretokenizer):
    # A run keeps its steps as numbers (RecordedSteps): read back, each is the step the
    # engine yielded, runners-up, count changes and sizes included, under every tie rule.
    from bpe.training import train_steps

    settings = TrainingSettings(
        target_vocab_size=(256 if alphabet == "bytes" else 0) + 400,
        alphabet=alphabet,
        pretokenizer=pretokenizer,
        tie_rule=tie_rule,
        top_k=10,
        base_tokens=None if alphabet == "bytes" else tuple(sorted(set(TEXT + HELDOUT))),
    )
    run = train_run(TEXT, settings, heldout_text=HELDOUT)
    assert list(run.steps) == list(train_steps(TEXT, settings))
