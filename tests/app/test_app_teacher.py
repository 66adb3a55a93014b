"""AppTest: the first screen a class sees (issue 11): the default corpus, "Home", presenter
mode, and the multilingual comparison page."""

from __future__ import annotations

import json

from app_helpers import new_app

from bpe.corpora.builtin import LIGHTHOUSE

LANGUAGES = "pages/9_Languages.py"


def test_the_default_corpus_is_tiny_shakespeare():
    at = new_app()
    assert at.session_state["settings_corpus"] == "Tiny Shakespeare"
    assert at.sidebar.selectbox(key="_w_settings_corpus").value == "Tiny Shakespeare"
    assert not at.exception and not at.error


def test_the_sidebar_lists_home_first():
    at = new_app()
    links = [link.proto.label for link in at.sidebar.get("page_link")]
    assert links[:2] == ["Home", "Merge by merge"] and "app" not in links


def test_presenter_mode_enlarges_segments_and_chart_type():
    at = new_app("pages/1_Merge_by_merge.py", settings_corpus="low lower newest widest")
    small = json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]["xaxis"]["tickfont"]["size"]
    at.sidebar.toggle(key="_w_presenter_large").set_value(True).run()
    assert any(".bpe-segments" in h.value and "font-size: 1.45rem" in h.value for h in at.html)
    large = json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]["xaxis"]["tickfont"]["size"]
    assert large > small >= 14


def test_languages_page_prices_the_same_paragraph_in_every_language():
    at = new_app(LANGUAGES, languages_merges=100)
    assert not at.exception and not at.error
    table = at.table[0].value
    assert list(table["language"]) == [name for name, _ in LIGHTHOUSE.values()]
    assert table.set_index("language").loc["English", "BPE × English"] == "1.00×"
    chart = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert chart["data"][0]["x"][0] == "English" and len(chart["data"][0]["x"]) == len(LIGHTHOUSE)
    at.radio(key="_w_languages_mode").set_value("separate").run()
    assert not at.exception
    assert "one tokenizer per language" in json.loads(at.get("plotly_chart")[0].proto.spec)["data"][0]["name"]
