"""Real browser: a Hugging Face tokenizer.json uploaded on the Vocabulary page gets its own
column on Tokenize, beside the trained tokenizer (and GPT-4, when its package is here)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from bpe import BPETokenizer
from bpe.formats import CL100K_NAME, export_files
from bpe.formats.cl100k import cl100k_path

pytestmark = pytest.mark.e2e
QUERY = "?vocab=300"


def test_an_uploaded_tokenizer_json_gets_a_column_on_tokenize(page, app_url, screenshot, tmp_path):
    other = BPETokenizer.train(
        "the lighthouse keeper climbs the stairs every evening. " * 30,
        target_vocab_size=300,
        alphabet="bytes",
        pretokenizer="gpt2",
    )
    path = tmp_path / "tokenizer.json"
    path.write_bytes(export_files(other, "hf").main_bytes)
    page.goto(f"{app_url}/Vocabulary{QUERY}")
    expect(page.get_by_role("heading", name="Vocabulary")).to_be_visible()
    expect(page.get_by_test_id("stMetricValue").first).to_be_visible(timeout=60_000)
    expect(page.get_by_role("button", name="Hugging Face (tokenizer.json)")).to_be_visible()
    # The page's own uploader by its label: while the page still draws, the last file input on it
    # can be the sidebar's "Open a lesson file", and the file went there.
    uploader = page.get_by_test_id("stFileUploader").filter(has_text="Use a tokenizer file")
    uploader.locator("input[type=file]").set_input_files(str(path))
    expect(page.get_by_text("Loaded tokenizer.json")).to_be_visible()
    page.get_by_role("link", name="Tokenize").first.click()  # in the app, so the session (and upload) stays
    expect(page.get_by_role("heading", name="Tokenize")).to_be_visible()
    expect(page.get_by_text("uploaded: tokenizer.json")).to_be_visible(timeout=60_000)
    if cl100k_path() is not None:
        # the column's title (a bold line): the span diff's picker names GPT-4 too, once drawn
        expect(page.get_by_role("strong").filter(has_text=CL100K_NAME).first).to_be_visible()
    block = page.locator(".bpe-linked-tokenize-uploaded--tokenizer-json")
    expect(block.locator(".bpe-segments .tok").first).to_be_visible()
    screenshot(page, "tokenize_uploaded")
    assert page.off_origin_requests == []
