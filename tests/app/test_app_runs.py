"""AppTest: run files in the corpus picker, replayed without retraining on every page:
the film plays to the last merge, the vocab slider reaches it, Compression draws the
held-out curve to the end, Vocabulary counts uses from the recorded base counts, Compare
runs compares two run files, and a bad run (a variant it cannot be, a damaged upload) is
one line."""

from __future__ import annotations

import pytest
from app_helpers import metric, new_app, plotly_specs
from helpers import counted_runs

from bpe.cli.main import main
from bpe.paths import DATA_DIR
from bpe.scale.run_file import read_run_file
from bpe.scale.run_listing import RUNS_DIR, list_runs

PAGES = [
    "app.py",
    "pages/1_Merge_by_merge.py",
    "pages/2_Tokenize.py",
    "pages/3_Compression.py",
    "pages/4_Context_window.py",
    "pages/5_Vocabulary.py",
    "pages/8_Compare_runs.py",
]
SHIPPED = list_runs([RUNS_DIR])[0]


@pytest.fixture(scope="module")
def other_runs(tmp_path_factory):
    """A folder for BPE_RUNS with a second run of the same text: ties by lexicographic order."""
    folder = tmp_path_factory.mktemp("runs")
    argv = ["train", str(DATA_DIR / "tinyshakespeare.txt"), "--alphabet", "bytes", "--pretokenizer", "gpt2"]
    argv += ["--heldout-fraction", "0.1", "--vocab-size", "2000", "--tie-rule", "lexicographic"]
    argv += ["--name", "shakespeare-lexicographic", "--run-output", str(folder / "lexicographic.bperun"), "--quiet"]
    assert main(argv) == 0
    return folder


def test_the_picker_lists_the_shipped_run():
    at = new_app("app.py")
    picker = at.selectbox(key="_w_settings_corpus")
    assert SHIPPED.label in picker.options[-1] or any(SHIPPED.label in option for option in picker.options)
    assert SHIPPED.label == "run: tinyshakespeare — tinyshakespeare.txt, 918,799 characters, 1,744 merges"


@pytest.mark.parametrize("page", PAGES)
def test_opening_a_run_never_trains(page, monkeypatch):
    import pages._shared.data.runs as runs

    def no_training(*args, **kwargs):
        raise AssertionError("a replayed run was trained again")

    monkeypatch.setattr(runs, "LiveTraining", no_training)
    at = new_app(page, settings_corpus=SHIPPED.label)
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]


def test_merge_by_merge_plays_the_run_to_its_last_merge():
    at = new_app("pages/1_Merge_by_merge.py", settings_corpus=SHIPPED.label, settings_vocab=2000)
    assert at.slider(key="_w_settings_vocab").max == 2000  # the run's final vocab, not the live limit
    step = next(s for s in at.slider if s.label == "Jump to step")
    assert step.max == 1744
    step.set_value(1744).run()
    assert not at.exception
    assert any("Play" in b.label for b in at.button)
    assert any("Replaying a recorded run" in c.value for c in at.sidebar.caption)


def test_compression_draws_the_held_out_curve_to_the_last_merge():
    at = new_app("pages/3_Compression.py", settings_corpus=SHIPPED.label, settings_vocab=2000)
    traces = {trace.get("name"): trace for spec in plotly_specs(at) for trace in spec["data"]}
    heldout = traces["held-out text"]
    run = read_run_file(SHIPPED.path).run
    assert heldout["x"][-1] == 2000 and len(heldout["x"]) == len(run.steps) + 1
    assert heldout["y"][-1] == pytest.approx(run.heldout_characters / run.heldout_lengths[-1])


def test_vocabulary_counts_uses_from_the_recorded_counts():
    at = new_app("pages/5_Vocabulary.py", settings_corpus=SHIPPED.label, query={"vocab": "1000"})
    table = next(d.value for d in at.dataframe if "uses" in d.value.columns)
    assert len(table) == 1000 - 256 and table["uses"].sum() > 0


def test_compare_runs_compares_two_run_files(other_runs, monkeypatch):
    monkeypatch.setenv("BPE_RUNS", str(other_runs))
    other = list_runs([other_runs])[0].label
    at = new_app("app.py", settings_corpus=SHIPPED.label)
    at.session_state["settings_corpus"] = other
    at.run()
    at.switch_page("pages/8_Compare_runs.py").run()
    assert not at.exception
    assert "Where they part ways" in [s.value for s in at.subheader]
    assert any("A tie rule decided" in m.value for m in at.markdown)


def test_a_variant_of_a_run_file_is_refused_in_one_line():
    at = new_app("pages/8_Compare_runs.py", settings_corpus=SHIPPED.label)
    at.selectbox(key="compare_variant_rule").set_value("huggingface")
    next(b for b in at.button if b.label == "Train and compare as run B").click().run()
    assert not at.exception
    errors = [e.value for e in at.error]
    assert any("recorded once, from a corpus that is not here" in e and "tie rule" in e for e in errors), errors


def test_an_uploaded_run_is_replayed_and_a_damaged_one_named(monkeypatch):
    raw = SHIPPED.path.read_bytes()
    name = "upload:shakespeare (mine.bperun)"
    at = new_app(
        "pages/1_Merge_by_merge.py",
        settings_run_uploads={name: ("feedbeef", raw)},
        settings_corpus="run upload: shakespeare (mine.bperun)",
        settings_vocab=2000,
    )
    assert not at.exception and not at.error
    assert next(s for s in at.slider if s.label == "Jump to step").max == 1744
    damaged = raw[: len(raw) // 2]
    at = new_app(
        "pages/1_Merge_by_merge.py",
        settings_run_uploads={name: ("deadbeef", damaged)},
        settings_corpus="run upload: shakespeare (mine.bperun)",
    )
    assert not at.exception
    assert any("(mine.bperun) is cut short" in e.value for e in at.error), [e.value for e in at.error]


@pytest.fixture(scope="module")
def counted(tmp_path_factory):
    """Issue 21's flow, from the command line: count a corpus, train two runs of other
    settings from the counts into a BPE_RUNS folder (a small corpus: the flow, not the size)."""
    folder = tmp_path_factory.mktemp("counted")
    first, second = counted_runs(folder, DATA_DIR / "tinyshakespeare.txt")
    return folder, read_run_file(first), read_run_file(second)


def test_a_corpus_counted_and_trained_by_the_cli_plays_slides_to_its_last_merge_and_compares(counted, monkeypatch):
    folder, first, second = counted
    monkeypatch.setenv("BPE_RUNS", str(folder))
    labels = {listing.path.name: listing.label for listing in list_runs([folder])}
    merges, final = len(first.run.steps), first.run.final_vocab_size
    at = new_app("app.py", settings_corpus=labels["counted-first.bperun"], settings_vocab=1000)
    at.switch_page("pages/1_Merge_by_merge.py").run()
    assert not at.exception, at.exception
    assert any("Replaying a recorded run" in c.value for c in at.sidebar.caption)
    at.button(key="merges_play").click().run()  # the film plays
    assert at.button(key="merges_play").label == "Pause" and not at.exception
    at.button(key="merges_play").click().run()
    vocab = at.sidebar.slider(key="_w_settings_vocab")
    assert vocab.max == final  # the slider reaches the run's last merge ...
    vocab.set_value(final).run()
    step = next(s for s in at.slider if s.label == "Jump to step")
    assert step.max == merges == 1744
    step.set_value(merges).run()  # ... and the film shows it
    assert metric(at, "Step") == f"{merges:,} of {merges:,}" and not at.exception
    at.session_state["settings_corpus"] = labels["counted-lexicographic.bperun"]
    at.run()
    at.switch_page("pages/8_Compare_runs.py").run()
    assert not at.exception, at.exception
    assert "Where they part ways" in [s.value for s in at.subheader]
    assert any("A tie rule decided" in m.value for m in at.markdown)


@pytest.fixture(scope="module")
def few_runners_up(tmp_path_factory):
    """Runs recorded by `train --top-k 0` and `--top-k 1`, in a BPE_RUNS folder."""
    folder = tmp_path_factory.mktemp("top_k")
    text = folder / "little.txt"
    text.write_text((DATA_DIR / "tinyshakespeare.txt").read_text(encoding="utf-8")[:60_000], encoding="utf-8")
    for top_k in (0, 1):
        argv = ["train", str(text), "--alphabet", "bytes", "--pretokenizer", "gpt2", "--vocab-size", "400"]
        argv += ["--top-k", str(top_k), "--name", f"top-{top_k}", "--run-output", str(folder / f"top{top_k}.bperun")]
        assert main([*argv, "--quiet"]) == 0
    return folder


@pytest.mark.parametrize("top_k", [0, 1])
@pytest.mark.parametrize("page", PAGES)
def test_a_run_recording_one_runner_up_or_none_opens_on_every_page(few_runners_up, monkeypatch, top_k, page):
    """Failure 3: a run file of the project's own `train --top-k 0` or `--top-k 1` crashed
    every page (StreamlitInvalidMinMaxError: "Top pairs to show" from 1 to 1)."""
    monkeypatch.setenv("BPE_RUNS", str(few_runners_up))
    label = next(entry.label for entry in list_runs([few_runners_up]) if entry.path.name == f"top{top_k}.bperun")
    at = new_app(page, settings_corpus=label)
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert any("Top pairs to show: 1" in caption.value for caption in at.sidebar.caption)


# ==================== A run speaks of its whole corpus (issue 42)


def test_a_run_opens_at_its_full_vocab_unless_its_link_says_otherwise():
    final = read_run_file(SHIPPED.path).run.final_vocab_size
    at = new_app("app.py", settings_vocab=1000)  # the last corpus was shown at 1,000
    at.session_state["settings_corpus"] = SHIPPED.label
    at.run()
    assert at.session_state["settings_vocab"] == final and metric(at, "Merges learned") == "1,744"
    at.sidebar.slider(key="_w_settings_vocab").set_value(1000).run()  # chosen after opening it: it stays
    at.switch_page("pages/3_Compression.py").run()
    at.switch_page("app.py").run()
    assert metric(at, "Merges used (of 1,744)") == "744"
    linked = new_app("app.py", query={"corpus": SHIPPED.label, "vocab": "1000"})
    assert linked.session_state["settings_vocab"] == 1000 and metric(linked, "Merges used (of 1,744)") == "744"


@pytest.fixture
def python_like_run(tmp_path, monkeypatch):
    """A run whose sample is ASCII and whose corpus is not, as a Python-sources run's is: the
    first 4,000 characters of its files are English, 34,378 further characters are not."""
    from bpe.run import train_run
    from bpe.scale.corpus_profile import CorpusProfile
    from bpe.scale.run_file import RunSource, run_file_bytes

    sample = "def lower(text):\n    return text.lower()  # the docstring\n" * 70
    run = train_run(sample, target_vocab_size=300, alphabet="bytes", pretokenizer="gpt2", heldout_text=sample)
    profile = CorpusProfile(64_000_000, 64_000_000 + 2 * 34_378, 34_378, (0x1F600, 0x4E2D, 0xE9))
    source = RunSource(name="python-sources", characters=64_000_000, profile=profile)
    (tmp_path / "python.bperun").write_bytes(run_file_bytes(run, source=source, sample=sample[:4000]))
    monkeypatch.setenv("BPE_RUNS", str(tmp_path))
    return list_runs([tmp_path])[0].label


def test_bytes_and_pretokenizers_says_it_measures_the_runs_sample_and_what_the_corpus_holds(python_like_run):
    at = new_app("pages/7_Bytes_and_pretokenizers.py", settings_corpus=python_like_run)
    assert not at.exception and not at.error
    said = " ".join(element.value for element in at.info)
    assert "trained and measured on the run's held-out sample, 4,000 characters" in said
    assert "34,378 of them (0.05%) take more than one byte" in said and "U+1F600 😀" in said
    assert "The run's held-out sample, 4,000 characters has no character beyond ASCII" in said
    assert "This training text" not in said
    assert any("Compression is measured on the run's held-out sample, 4,000 characters" in c.value for c in at.caption)


def test_a_run_files_film_says_its_passage_is_the_held_out_sample():
    from dataclasses import replace

    from pages._shared.state.settings import Replayed
    from pages._shared.views.merge_by_merge.film_download import film_file

    opened = read_run_file(SHIPPED.path)
    settings = Replayed(
        corpus=SHIPPED.label,
        corpus_version="v",
        run_file=str(SHIPPED.path),
        training=replace(opened.run.settings, target_vocab_size=opened.run.final_vocab_size),
        vocab_size=opened.run.final_vocab_size,
        top_k=10,
    )
    page = film_file(settings, opened.run, opened.sample[:600], 5)
    assert "characters of the run&#x27;s held-out sample" in page or "characters of the run's held-out sample" in page
    assert "of the training text" not in page
