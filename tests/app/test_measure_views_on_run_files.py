"""AppTest: the measuring views on a run file (the shipped Tiny Shakespeare run, replayed without
its corpus). A run file keeps the whole training's merges and counts but only a held-out
sample of text, so each measuring view is checked against `bpe` on what the file holds, and each
must say which text it measured: the film and the span diff on the page's text, the
report card's held-out row on the sample (no training row: that text is not here), the
under-trained tokens' training uses from the recorded counts and held-out uses from the
sample."""

from __future__ import annotations

import html
import json
import re

import pytest
from app_helpers import metric, new_app
from test_measure_views import COMPRESSION, TOKENIZE, VOCABULARY, WORKED, film_after, film_headline

from bpe.analysis.metrics import token_usage
from bpe.analysis.report_card import shipped_texts
from bpe.analysis.samples import TUTORIAL_SENTENCE
from bpe.analysis.undertrained import ABSORBED, RARE, flag_counts, run_token_health, uses
from bpe.cli.main import main
from bpe.gpt2.files import find_gpt2_files
from bpe.scale.run_file import read_run_file
from bpe.scale.run_listing import RUNS_DIR, list_runs
from bpe.text import printable
from pages._shared.frame.tables import arrow_rows
from pages._shared.state.controls import RARE_BELOW
from pages._shared.views.vocabulary.undertrained_tokens import HEALTH_COLUMNS, health_rows, sorted_rows

SHIPPED = list_runs([RUNS_DIR])[0]
RECORDED = read_run_file(SHIPPED.path)
RUN, SAMPLE = RECORDED.run, RECORDED.sample
OPEN = dict(settings_corpus=SHIPPED.label, query={"vocab": "1000"})  # a link's vocab: a run opens at its full one
MERGES = 1_000 - len(RUN.base_tokens)  # the run's vocab 1,000 is a prefix of its 1,744 merges
FILMED = "the king and the queen"


def test_the_shipped_run_keeps_a_held_out_sample():
    # what the rest of this file relies on: the measuring views have a text of the run's own corpus
    assert RUN.heldout_characters > len(SAMPLE) > 1_000 and MERGES == 744


# ==================== The encode film


def test_encode_film_of_a_run_file_plays_to_encode_and_opens_its_step():
    at = new_app("app.py", **OPEN)
    at.switch_page(TOKENIZE).run()
    assert not at.exception and not at.error
    # the page starts on a sentence of the run's sample (its lines joined)
    assert at.session_state["tokenize_text"] in " ".join(SAMPLE.split())
    at.text_area(key="_w_tokenize_text").set_value(FILMED).run()
    at.button(key="tokenize_film_forward").click().run()
    headline = film_headline(at)
    merge = int(re.search(r"merge (\d+):", headline).group(1))
    step = RUN.steps[merge - 1]
    assert f"learned at training step {merge:,}, where the pair occurred {step.frequency:,} times" in headline
    at.button(key="tokenize_film_play").click().run()  # each run() is one tick of the player
    for _ in range(40):
        if not at.session_state["tokenize_film_playing"]:
            break
        at.run()
    last = at.session_state["tokenize_film_frame"]
    assert last > 1 and f"Frame {last} of {last}" in film_headline(at)
    expected = [html.escape(printable(t)) for t in RUN.tokenizer(merges=MERGES).encode_tokens(FILMED)]
    assert film_after(at) == expected  # the last frame is encode() of the run's tokenizer at vocab 1,000
    merge = int(re.search(r"merge (\d+):", film_headline(at)).group(1))
    at.button(key="tokenize_film_open_step").click().run()
    assert not at.exception
    assert at.title[0].value == "Merge by merge" and metric(at, "Step").startswith(f"{merge:,} of ")


# ==================== The span diff


def test_span_diff_of_a_run_file_beside_another_size_and_gpt2():
    at = new_app(TOKENIZE, **OPEN)
    at.text_area(key="_w_tokenize_text").set_value(FILMED).run()
    chosen = at.multiselect(key="_w_tokenize_diff_rows")
    smaller = next(o for o in chosen.options if o.startswith("this run, vocab") and o != chosen.value[0])
    size = int(smaller.rsplit(" ", 1)[1].replace(",", ""))
    rows = {chosen.value[0]: RUN.tokenizer(merges=MERGES), smaller: RUN.tokenizer(merges=size - 256)}
    if find_gpt2_files() is not None:
        from bpe.gpt2.tokenizer import load_gpt2

        rows["GPT-2"] = load_gpt2(*map(str, find_gpt2_files()))
    chosen.set_value(list(rows)).run()
    assert not at.exception and not at.error
    counts = {label: len(tokenizer.encode(FILMED)) for label, tokenizer in rows.items()}
    page = next(h.value for h in at.html if "bpe-spandiff" in h.value)
    for letter, (label, count) in zip("ABC", counts.items()):
        assert f"<b>{letter}</b> {label} ({count:,} tokens)" in page
    fewest, most = min(counts.values()), max(counts.values())
    assert metric(at, "Fewest tokens") == f"{fewest:,}" and metric(at, "Most tokens") == f"{most:,}"
    assert metric(at, "Spread") == f"{(most - fewest) / fewest:.0%}"


# ==================== The report card


def test_report_card_of_a_run_file_grades_its_held_out_sample_and_says_what_it_lacks():
    at = new_app(COMPRESSION, **OPEN)
    assert not at.exception and not at.error
    table = next(h.value for h in at.html if 'class="bpe-card"' in h.value)
    for text in shipped_texts():
        assert f">{text.name}</td>" in table
    # the sample is held-out text; the training text is not in the file, so it gets no row
    assert ">Corpus, held-out part</td>" in table and ">Corpus, training part</td>" not in table
    assert f"{len(SAMPLE):,} characters of tinyshakespeare&#x27;s held-out part" in table  # its source, on hover
    row = table.split(">Corpus, held-out part</td>")[1].split("</tr>")[0]
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", row)
    ours = len(SAMPLE) / len(RUN.tokenizer(merges=MERGES).encode(SAMPLE))
    assert cells[0] == f"{len(SAMPLE):,}" and cells[1] == f"{ours:.2f}"
    note = next(c.value for c in at.caption if "keeps no training text" in c.value)
    trained = RUN.training_characters / RUN.sequence_length(MERGES)
    assert f"{trained:.2f} characters per token" in note and f"{RUN.training_characters:,} characters" in note


# ==================== Under-trained and unreachable tokens


def expected_health():
    tokenizer = RUN.tokenizer(merges=MERGES)
    return run_token_health(
        RUN, MERGES, token_usage(RUN, None, MERGES), uses(tokenizer, SAMPLE), rare_below=RARE_BELOW.default
    )


def test_undertrained_tokens_of_a_run_file_count_the_recorded_training_and_the_sample():
    at = new_app(VOCABULARY, **OPEN)
    assert not at.exception and not at.error
    rows = expected_health()
    counts = flag_counts(rows)
    assert metric(at, "Absorbed") == f"{counts[ABSORBED]:,}" and metric(at, "Rare") == f"{counts[RARE]:,}"
    at.selectbox(key="_w_vocab_show").set_value("every learned token").run()
    table = next(d.value for d in at.dataframe if "flags" in d.value.columns)
    assert len(table) == len(rows) == MERGES
    by_id = {r.id: r for r in rows}
    for _, row in table.iterrows():
        assert (row["uses (training)"], row["uses (held-out)"]) == (
            by_id[row["id"]].train_uses,
            by_id[row["id"]].heldout_uses,
        )
    said = next(c.value for c in at.caption if "learned tokens shown" in c.value and "Uses" in c.value)
    assert "nothing is held out" not in said  # the run held text out; its file keeps a sample of it
    assert f"whole training text ({RUN.training_characters:,} characters)" in said
    assert f"held-out sample of {len(SAMPLE):,} characters" in said


@pytest.mark.skipif(find_gpt2_files() is None, reason="GPT-2's files are not here (python -m bpe gpt2 download)")
def test_other_tokenizers_on_a_run_file_are_measured_on_its_sample_only():
    at = new_app(VOCABULARY, **OPEN)
    at.selectbox(key="_w_vocab_other").set_value("GPT-2").run()
    assert not at.exception
    assert metric(at, "Unused on the run's sample")
    glitches = next(d.value for d in at.dataframe if "uses (held-out)" in d.value.columns and "flags" not in d.value)
    assert glitches["uses (training)"].isna().all()  # its training text is not in the file: not measured, not 0
    assert any("Uses (training): not measured, the run file keeps no training text." in c.value for c in at.caption)


def test_switching_to_a_run_file_shows_only_that_runs_health():
    at = new_app(VOCABULARY, settings_corpus=WORKED)
    assert metric(at, "Absorbed") == "2"
    at.session_state["settings_corpus"] = SHIPPED.label
    at.run()
    assert at.session_state["settings_vocab"] == RUN.final_vocab_size  # a run opens at its full vocab
    at.sidebar.slider(key="_w_settings_vocab").set_value(1_000).run()
    assert not at.exception and not at.error
    counts = flag_counts(expected_health())
    assert metric(at, "Absorbed") == f"{counts[ABSORBED]:,}" and metric(at, "Rare") == f"{counts[RARE]:,}"


# ==================== A run file that keeps no text


@pytest.fixture(scope="module")
def textless_run(tmp_path_factory):
    """A run file trained with nothing held out: its file keeps no sample, so no text at all."""
    folder = tmp_path_factory.mktemp("runs")
    text = folder / "tower.txt"
    text.write_text("the low tower is lower than the newest widest tower. " * 30, encoding="utf-8")
    argv = ["train", str(text), "--heldout-fraction", "0", "--vocab-size", "60", "--quiet"]
    assert main([*argv, "--run-output", str(folder / "tower.bperun")]) == 0
    listed = list_runs([folder])[0]
    assert read_run_file(listed.path).sample == ""
    return folder, listed.label


@pytest.mark.parametrize("page", [TOKENIZE, COMPRESSION, VOCABULARY, "pages/4_Context_window.py"])
def test_a_run_file_without_text_says_so_on_every_measuring_view(textless_run, page, monkeypatch):
    folder, label = textless_run
    monkeypatch.setenv("BPE_RUNS", str(folder))
    at = new_app(page, settings_corpus=label)
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    said = " ".join(c.value for c in [*at.caption, *at.info])
    if page == TOKENIZE:
        assert at.session_state["tokenize_text"] == TUTORIAL_SENTENCE  # something to cut, not an empty box
        assert [b.label for b in at.button if b.key.startswith("tokenize_preset_")] == ["Tutorial sentence"]
    elif page == COMPRESSION:
        assert "keeps no training text" in said
    elif page == VOCABULARY:
        assert "the run file keeps no held-out text" in said
    else:
        assert "keeps no text to measure" in said


def test_report_card_chart_names_read_across_in_presenter_mode():
    # sixteen text names in large type overlap at a slant on a 1024 px screen: the bars lie across
    for large in (False, True):
        at = new_app(COMPRESSION, presenter_large=large, **OPEN)
        figure = next(f for f in at.get("plotly_chart") if f.proto.id.endswith("compression_card_chart"))
        spec = json.loads(figure.proto.spec)
        if large:
            assert {bar["orientation"] for bar in spec["data"]} == {"h"}
            assert "English prose" in spec["data"][0]["y"]  # the names on the axis that reads across
        else:
            assert spec["layout"]["xaxis"]["tickangle"] == -35 and "orientation" not in spec["data"][0]


def test_the_health_table_sorts_by_a_column_ties_by_id_and_missing_values_last_either_way():
    rows = [{"id": i, "uses (held-out)": uses} for i, uses in [(5, 2), (1, None), (3, 2), (2, 7), (4, None), (0, 1)]]
    fewest = sorted_rows(rows, "uses (held-out)", ascending=True)
    assert [row["id"] for row in fewest] == [0, 3, 5, 2, 1, 4]
    most = sorted_rows(rows, "uses (held-out)", ascending=False)
    assert [row["id"] for row in most] == [2, 3, 5, 0, 1, 4]


def test_the_health_table_keeps_its_header_when_no_token_is_shown():
    at = new_app(VOCABULARY, settings_corpus=WORKED)  # characters: no token is part of a character
    at.selectbox(key="_w_vocab_show").set_value("partial characters").run()
    assert not at.exception
    table = next(d.value for d in at.dataframe if "flags" in d.value.columns)
    assert len(table) == 0 and list(table.columns) == list(HEALTH_COLUMNS)
    assert list(health_rows(expected_health())[0]) == list(HEALTH_COLUMNS)  # the rows name the same columns
    assert arrow_rows([], columns=("a", "b")).column_names == ["a", "b"]
