"""AppTest: pages/7_Bytes_and_pretokenizers.py, the same corpus trained four ways (and GPT-2)."""

from __future__ import annotations

import html
import re

import pytest
import streamlit as st
from app_helpers import new_app
from helpers import shared_file

from bpe.gpt2 import files as gpt2_files

PAGE = "pages/7_Bytes_and_pretokenizers.py"
LABELS = ["characters, no split", "bytes, no split", "bytes, GPT-2 split", "bytes, GPT-4 split"]


def merge_lists(at) -> tuple[dict[str, list[str]], dict[str, list[bool]]]:
    """The merge lists side by side (one HTML table): each column's tokens, and which are
    shaded as crossing classes, by the column's heading."""
    (table,) = [block.value for block in at.html if 'class="bpe-merge-lists"' in block.value]
    heads = [html.unescape(head) for head in re.findall(r"<th>(.*?)</th>", table)][1:]  # after "merge"
    rows = [re.findall(r"<td( class=\"x\")?>(.*?)</td>", row) for row in re.findall(r"<tr><td.*?</tr>", table)]
    tokens = {head: [html.unescape(row[i][1]) for row in rows] for i, head in enumerate(heads)}
    shaded = {head: [bool(row[i][0]) for row in rows] for i, head in enumerate(heads)}
    return tokens, shaded


@pytest.fixture(autouse=True)
def fresh_caches():
    st.cache_data.clear()
    st.cache_resource.clear()  # GPT-2 is loaded once per process: each test decides if it is there
    yield
    st.cache_resource.clear()


@pytest.fixture
def no_gpt2(tmp_path, monkeypatch):
    monkeypatch.setattr(gpt2_files, "CACHE_DIR", tmp_path / "cache")
    monkeypatch.setenv("BPE_SHARED_DATA", str(tmp_path / "shared"))


def test_four_tokenizers_side_by_side_without_gpt2(no_gpt2):
    at = new_app(PAGE, settings_corpus="multilingual sample", bytes_merges=50)
    assert not at.exception and not at.error
    summary, trained = at.table[0].value, at.table[1].value
    assert list(summary["tokenizer"]) == list(trained["tokenizer"]) == LABELS
    assert list(summary.columns[1:3]) == ["characters per token", "bytes per token"]  # the key numbers first
    assert summary["first divergent merge"][0] == "—"  # the first column differs from nothing: a dash, not None
    assert list(trained["base vocab"])[1:] == ["256", "256", "256"]
    assert len(summary.columns) == len(trained.columns) == 6  # six columns each fit 1024 px in large type
    merges, shaded = merge_lists(at)
    assert list(merges) == LABELS and len(merges[LABELS[0]]) == max(map(int, trained["merges"])) <= 50
    assert any(cell.startswith("▶ ") for cell in merges["bytes, GPT-2 split"])  # its first divergence is marked
    # shaded where the summary counts merges crossing classes: many without a split, none with GPT-2's
    crossing = dict(zip(summary["tokenizer"], summary["merges crossing classes"]))
    assert [f"{sum(shaded[label]):,}" for label in LABELS] == [crossing[label] for label in LABELS]
    assert sum(shaded["characters, no split"]) > 0 and sum(shaded["bytes, GPT-2 split"]) == 0
    assert "python -m bpe gpt2 download" in at.info[0].value
    assert "bytes_parity_run" not in [button.key for button in at.button]  # no GPT-2, no tiktoken check
    partial, characters = at.dataframe[-2].value, at.dataframe[-1].value
    assert "<0xE0><0xA4>" in set(partial["token"])  # a dataframe shows cells as they are: no Markdown escapes
    assert {"€", "ü", "🙂", "你"} <= set(characters["character"])
    assert "None" not in characters.to_string()
    assert list(characters.columns) == [
        "character",
        "name",
        "UTF-8 bytes",
        "occurrences",
        "first held whole at merge",
        "own token at merge",
    ]


def test_switching_the_byte_tokenizer_and_spelling(no_gpt2):
    at = new_app(PAGE, settings_corpus="multilingual sample", bytes_merges=50)
    at.radio(key="_w_bytes_variant").set_value("bytes, GPT-4 split").run()
    assert not at.exception and at.session_state["bytes_variant"] == "bytes, GPT-4 split"
    assert not any("Ġ" in cell for cell in merge_lists(at)[0]["bytes, GPT-2 split"])
    at.toggle(key="_w_bytes_gpt2_spelling").set_value(True).run()
    assert any("Ġ" in cell for cell in merge_lists(at)[0]["bytes, GPT-2 split"])


def test_ascii_corpus_says_every_character_is_one_byte(no_gpt2):
    at = new_app(PAGE, settings_corpus="low lower newest widest", bytes_merges=50)
    assert not at.exception
    assert "no character beyond ASCII" in at.info[-1].value


@pytest.mark.shared_data
def test_gpt2_column_when_its_files_are_present(tmp_path, monkeypatch):
    shared_file("gpt2/encoder.json")
    monkeypatch.setattr(gpt2_files, "CACHE_DIR", tmp_path / "cache")  # found in the shared data
    at = new_app(PAGE, settings_corpus="low lower newest widest", bytes_merges=50)
    assert not at.exception
    summary = at.table[0].value
    assert list(summary["tokenizer"]) == LABELS + ["GPT-2 (OpenAI)"]
    assert "GPT-2's full vocabulary (50,257 tokens" in at.caption[1].value
    assert merge_lists(at)[0]["GPT-2 (OpenAI)"][0] == "▶ ·t"


@pytest.mark.shared_data
def test_gpt2_ids_equal_tiktoken_on_wikitext_in_the_app(tmp_path, monkeypatch):
    shared_file("wikitext-2/test.txt")
    pytest.importorskip("tiktoken", reason="tiktoken is not installed")
    monkeypatch.setattr(gpt2_files, "CACHE_DIR", tmp_path / "cache")
    at = new_app(PAGE, settings_corpus="low lower newest widest", bytes_merges=50)
    assert at.radio(key="_w_bytes_parity_source").value == "WikiText-2 test.txt"
    at.button(key="bytes_parity_run").click().run()
    assert not at.exception and not at.error
    assert at.success[0].value.startswith("Identical ids: 295,877 tokens. Ours (pure Python): ")
