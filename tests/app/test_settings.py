"""The sidebar's value (`pages._shared.state.settings`): a run `Trained` here, wrapping the
core's `TrainingSettings`, or `Replayed` from a run file; built once per script run, and
keyed by what the run depends on, never by what is only shown."""

from __future__ import annotations

import dataclasses

import pytest
from app_helpers import SMALL_CORPUS, new_app

from bpe.scale.run_listing import RUNS_DIR, list_runs
from bpe.training import MAX_VOCAB_CHARACTERS, TrainingSettings
from pages._shared.frame import sidebar
from pages._shared.state.settings import RECORDED_TOP_K, Replayed, Trained, app_training

SHIPPED = list_runs([RUNS_DIR])[0]  # the run file data/ ships

TRAINED = Trained(
    corpus="Tiny Shakespeare",
    corpus_version="v1",
    prefix_cap=500_000,
    heldout_fraction=0.1,
    training=app_training(target_vocab_size=1_000, minimum_pair_frequency=2),
    vocab_size=600,
    top_k=10,
)


def test_a_trained_run_is_the_cores_training_settings_as_the_app_trains():
    training = TRAINED.training
    assert isinstance(training, TrainingSettings)
    assert (training.top_k, training.max_vocab_characters) == (RECORDED_TOP_K, MAX_VOCAB_CHARACTERS)


def test_the_keys_name_what_the_run_depends_on_and_nothing_only_shown():
    key = TRAINED.training_key()
    assert key == ("Tiny Shakespeare", "v1", 500_000, 0.1, 1_000, 2, "fast", "characters", None, "first_occurrence", ())
    assert TRAINED.corpus_key() == key[:4]
    shown_elsewhere = dataclasses.replace(TRAINED, vocab_size=700, top_k=5)  # a prefix, the chart's width
    assert shown_elsewhere.training_key() == key
    for changed in (
        TRAINED.with_training(tie_rule="lexicographic"),
        TRAINED.with_training(target_vocab_size=2_000),
        TRAINED.with_training(minimum_pair_frequency=3),
        TRAINED.with_training(alphabet="bytes"),
        TRAINED.with_training(pretokenizer="gpt2"),
        dataclasses.replace(TRAINED, prefix_cap=100_000),
        dataclasses.replace(TRAINED, corpus_version="v2"),
    ):
        assert changed.training_key() != key


def counting(monkeypatch, name: str) -> list:
    """Every value of class ``name`` the sidebar builds from now on."""
    built, real = [], getattr(sidebar, name)
    monkeypatch.setattr(sidebar, name, lambda **fields: built.append(real(**fields)) or built[-1])
    return built


@pytest.mark.parametrize(
    "page, state, built_class",
    [
        ("app.py", {"settings_corpus": SMALL_CORPUS}, "Trained"),
        ("pages/1_Merge_by_merge.py", {"settings_corpus": SMALL_CORPUS}, "Trained"),
        ("pages/1_Merge_by_merge.py", {"settings_corpus": SHIPPED.label, "settings_vocab": 1_000}, "Replayed"),
    ],
    ids=["home", "merge-by-merge", "replayed"],
)
def test_the_sidebar_builds_the_settings_once_per_script_run(monkeypatch, page, state, built_class):
    built = {name: counting(monkeypatch, name) for name in ("Trained", "Replayed", "UnreadableRun")}
    at = new_app(page, **state)
    assert not at.exception
    assert {name: len(values) for name, values in built.items() if values} == {built_class: 1}
    at.run()
    assert {name: len(values) for name, values in built.items() if values} == {built_class: 2}  # one a run


def test_a_replayed_run_holds_the_settings_its_file_records():
    at = new_app("pages/1_Merge_by_merge.py", settings_corpus=SHIPPED.label, settings_vocab=1_000)
    assert not at.exception
    run = at.session_state["settings_run_memo"][1]
    replayed = next(s for s in at.session_state["settings_seen_runs"].values() if isinstance(s, Replayed))
    assert replayed.training.target_vocab_size == run.final_vocab_size  # the vocab it reached
    for field in ("minimum_pair_frequency", "engine", "alphabet", "pretokenizer", "tie_rule", "top_k"):
        assert getattr(replayed.training, field) == getattr(run.settings, field)
    assert replayed.corpus_key() == (SHIPPED.label, replayed.corpus_version, str(SHIPPED.path))


def test_a_run_file_that_cannot_be_read_is_said_on_the_page_not_trained(monkeypatch, tmp_path):
    name = "upload:broken (mine.bperun)"
    at = new_app(
        "pages/1_Merge_by_merge.py",
        settings_run_uploads={name: ("0123", b"not a run file")},
        settings_corpus="run upload: broken (mine.bperun)",
    )
    assert not at.exception
    errors = [e.value for e in at.error]
    assert len(errors) == 2 and errors[0] == errors[1], errors  # in the sidebar, and where the page would be
    assert "settings_run_memo" not in at.session_state and "settings_live_training" not in at.session_state
