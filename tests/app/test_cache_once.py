"""What the heavy pages rely on when a class opens them at once (issue 25): Streamlit's
caches compute a value once per key even when many sessions ask for it at the same
moment; the others wait for it (Streamlit 1.67 holds a lock per key, since its
"Cache only once" change). Were that to change with a Streamlit upgrade, every student
opening Bytes at once would train the four tokenizers again: this test says so first.
Below: what the pages share once it is computed, so that a student's first visit of a
page costs the server little more than drawing it."""

from __future__ import annotations

import importlib
import threading
import time
import uuid

import plotly.graph_objects as go
import pytest
import streamlit as st
from app_helpers import metric, new_app, plotly_specs

from pages._shared.data.shared_figures import shared_figure
from pages._shared.render.figures import BASE_FONT, readable


@pytest.mark.parametrize("decorator", [st.cache_data, st.cache_resource])
def test_concurrent_first_callers_compute_once_and_all_get_the_value(decorator):
    calls = []

    @decorator(show_spinner=False)
    def heavy(key: str) -> list[str]:
        calls.append(key)
        time.sleep(0.5)  # long enough for every caller to arrive while it runs
        return [key, "computed"]

    results = []
    start = threading.Barrier(8)

    def session() -> None:
        start.wait()
        results.append(heavy("the class's setting"))

    threads = [threading.Thread(target=session) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert calls == ["the class's setting"]
    assert results == [["the class's setting", "computed"]] * 8
    heavy("another setting")  # another key is computed apart, once
    assert calls == ["the class's setting", "another setting"]
    heavy.clear()


# ==================== What a class shares once it is computed (issue 25: cheaper first visits)
#
# Every student of a class opens the same pages on the same setting: what a page draws
# from cached results alone (charts, the token checks) is made once per server process and
# shared, and another setting, or presenter mode, gets its own.

LANGUAGES, COMPRESSION, VOCABULARY, BYTES = (
    "pages/9_Languages.py",
    "pages/3_Compression.py",
    "pages/5_Vocabulary.py",
    "pages/7_Bytes_and_pretokenizers.py",
)
# 6,000 characters of the Python reference (5,400 trained, 600 held out): quick to train.
PROSE = dict(
    settings_corpus="Python language reference", settings_prefix_cap=6_000, settings_vocab=300, settings_train_up_to=300
)


def counted(monkeypatch, target: str) -> list:
    """Calls of the function ``target`` ("module.name") from now on; it still does its work."""
    module, name = target.rsplit(".", 1)
    original, calls = getattr(importlib.import_module(module), name), []

    def spy(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(target, spy)
    return calls


def test_a_shared_figure_is_built_once_per_key_and_presenter_mode():
    builds = []

    def build():
        builds.append(1)
        return readable(go.Figure(go.Bar(x=[1, 2], y=[3, 4])))

    key = ("a test chart", uuid.uuid4().hex)
    plain = shared_figure(key, False, _build=build, own=False)
    assert shared_figure(key, False, _build=build, own=False) is plain and len(builds) == 1
    large = shared_figure(key, True, _build=build, own=False)
    assert len(builds) == 2 and large is not plain
    assert large.layout.font.size > plain.layout.font.size == BASE_FONT  # enlarging one left the other as it was
    assert shared_figure(key + ("another setting",), False, _build=build, own=False) is not plain and len(builds) == 3


def test_a_class_opening_languages_builds_its_chart_once(monkeypatch):
    shared_figure.shared.clear()
    builds = counted(monkeypatch, "pages._shared.views.languages.language_costs.language_cost_figure")
    first = new_app(LANGUAGES)
    second = new_app(LANGUAGES)
    assert not first.exception and not second.exception
    assert len(builds) == 1 and plotly_specs(second) == plotly_specs(first)
    large = new_app(LANGUAGES, presenter_large=True)  # presenter mode: its own, enlarged chart
    assert len(builds) == 2
    assert plotly_specs(large)[0]["layout"]["font"]["size"] > plotly_specs(first)[0]["layout"]["font"]["size"]
    assert plotly_specs(new_app(LANGUAGES)) == plotly_specs(first)
    fewer = new_app(LANGUAGES, languages_merges=50)  # another setting: its own chart, its own numbers
    assert len(builds) == 3 and plotly_specs(fewer)[0]["data"] != plotly_specs(first)[0]["data"]


def test_compression_shares_one_curve_per_setting_and_each_setting_draws_its_own(monkeypatch):
    shared_figure.shared.clear()
    builds = counted(monkeypatch, "pages._shared.views.compression.compression_curve.compression_curve_figure")
    first = new_app(COMPRESSION, **PROSE)
    second = new_app(COMPRESSION, **PROSE)
    assert not first.exception and not second.exception
    assert len(builds) == 1 and plotly_specs(second)[0] == plotly_specs(first)[0]
    smaller = new_app(COMPRESSION, **{**PROSE, "settings_vocab": 200})  # the same run, another size shown
    assert len(builds) == 2
    shown = [spec["layout"]["annotations"][0]["text"] for spec in (plotly_specs(first)[0], plotly_specs(smaller)[0])]
    assert shown == ["vocab 300", "vocab 200"]


def test_vocabulary_checks_a_runs_tokens_once_per_threshold(monkeypatch):
    from pages._shared.data.token_health import _learned_health

    _learned_health.shared.clear()
    checks = counted(monkeypatch, "pages._shared.data.token_health.run_token_health")
    first = new_app(VOCABULARY, **PROSE)
    second = new_app(VOCABULARY, **PROSE)
    assert not first.exception and not second.exception and len(checks) == 1
    assert metric(second, "Rare") == metric(first, "Rare") and metric(second, "Absorbed") == metric(first, "Absorbed")
    stricter = new_app(VOCABULARY, **PROSE, vocab_rare_below=1_000)  # every used token is rare now
    assert len(checks) == 2
    assert int(metric(stricter, "Rare").replace(",", "")) > int(metric(first, "Rare").replace(",", ""))


def test_bytes_finds_the_multibyte_characters_once_per_corpus(monkeypatch):
    from pages._shared.data.comparisons import multibyte_table

    multibyte_table.shared.clear()
    scans = counted(monkeypatch, "pages._shared.data.comparisons.multibyte_rows")
    first = new_app(BYTES, **PROSE)
    second = new_app(BYTES, **PROSE)
    assert not first.exception and not second.exception and len(scans) == 1
    assert [frame.value.to_dict() for frame in second.dataframe] == [frame.value.to_dict() for frame in first.dataframe]


def test_vocabulary_checks_a_pretrained_tokenizer_once_and_counts_each_corpus(monkeypatch):
    """A class's own texts (the lesson's second round) each need GPT-2's counts, not its
    50,000 reachability encodes again."""
    from pages._shared.data.token_health import pretrained_health, pretrained_reach
    from pages._shared.data.tokenizers import extra_tokenizers

    if not extra_tokenizers():
        pytest.skip("no pretrained tokenizer here (GPT-2's files, GPT-4's package)")
    pretrained_reach.shared.clear()
    pretrained_health.shared.clear()
    checks = counted(monkeypatch, "pages._shared.data.token_health.tokenizer_token_health")
    first = new_app(VOCABULARY, **PROSE)
    other = new_app(VOCABULARY, **{**PROSE, "settings_prefix_cap": 5_000})  # another corpus (a shorter prefix)
    assert not first.exception and not other.exception and len(checks) == 1
    unused = [metric(at, "Unused on this corpus") for at in (first, other)]
    assert unused[0] != unused[1]  # each corpus its own counts


def test_what_a_corpus_keeps_of_a_pretrained_tokenizers_check_is_small():
    """Each student's own text keeps GPT-2's health for that text: the counts and the few
    rows the page lists, not a copy of all 50,000 rows with this text's uses (about 10 MB
    a student, which grew a class's memory with every student)."""
    import pickle

    from pages._shared.data.token_health import pretrained_health
    from pages._shared.data.tokenizers import GPT2_LABEL, extra_tokenizers

    gpt2 = next((c for c in extra_tokenizers() if c.label == GPT2_LABEL), None)
    if gpt2 is None:
        pytest.skip("GPT-2's files are not here")
    notes = "the a of merge token pair count vocabulary text byte learns frequent most new " * 40
    health = pretrained_health(
        gpt2.key, ("notes", "v1"), _tokenizer=gpt2.tokenizer, _train=notes, _heldout="", _uploaded=False, own=False
    )
    assert health.total > 40_000 and health.unused > 40_000
    assert health.uses(gpt2.tokenizer.encode(" merge")[0])[0] >= 40 and health.uses(0) == (0, None)
    assert len(pickle.dumps(health)) < 200_000
