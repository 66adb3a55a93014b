"""Real browser: every file the Vocabulary page offers downloads, as a student clicks it, and
loads again where it is meant to go: the lab's tokenizer JSON, the merge log, the encoded
training text as torch ids, and the three exports, read by Hugging Face's own library and
by the lab's readers of each format, all giving the page's tokenizer's ids; and the server's
console stays quiet while it makes them."""

from __future__ import annotations

import csv
import zipfile
from urllib.parse import quote

import pytest
from e2e.conftest import settle
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e
SMALL = "low lower newest widest"  # 17 merges, at byte level too
FILES = [
    "Tokenizer (JSON)",
    "Merges (CSV)",
    "Encoded training text (torch .pt)",
    "Hugging Face (tokenizer.json)",
    "tiktoken (.tiktoken + settings, zip)",
    "minbpe (.model)",
]


def download(page, button: str, folder):
    with page.expect_download() as arrived:
        page.get_by_role("button", name=button, exact=True).click()
    path = folder / arrived.value.suggested_filename
    arrived.value.save_as(path)
    return path


def test_every_vocabulary_file_downloads_and_loads_where_it_goes(page, app_url, app_log, tmp_path):
    import torch
    from tokenizers import Tokenizer as HuggingFaceTokenizer

    from bpe.corpora.corpus import load_corpus
    from bpe.formats import load_any
    from bpe.tokenizer import BPETokenizer

    text = load_corpus(SMALL)

    page.goto(f"{app_url}/Vocabulary?corpus={quote(SMALL)}&alphabet=bytes")
    expect(page.get_by_role("heading", name="Vocabulary", exact=True)).to_be_visible()
    expect(page.get_by_role("button", name=FILES[-1], exact=True)).to_be_enabled()
    settle(page)
    files = {button: download(page, button, tmp_path) for button in FILES}

    lab = BPETokenizer.from_file(files["Tokenizer (JSON)"])  # its fingerprint checked on reading
    assert len(lab.merges) == 17 and lab.decode(lab.encode(text)) == text
    ids = lab.encode(text)

    with files["Merges (CSV)"].open(encoding="utf-8", newline="") as log:
        rows = list(csv.reader(log))
    assert len(rows) == 1 + len(lab.merges)  # a header, then one row per merge

    tensor = torch.load(files["Encoded training text (torch .pt)"], weights_only=True)
    assert tensor.dtype == torch.long and tensor.dim() == 1
    training_text = lab.decode(tensor.tolist())
    assert training_text and text.startswith(training_text)  # the part before the held-out text

    library = HuggingFaceTokenizer.from_file(str(files["Hugging Face (tokenizer.json)"]))
    assert library.encode(text).ids == ids
    assert load_any(files["Hugging Face (tokenizer.json)"]).encode(text) == ids
    assert load_any(files["minbpe (.model)"]).encode(text) == ids
    with zipfile.ZipFile(files["tiktoken (.tiktoken + settings, zip)"]) as bundle:
        names = bundle.namelist()
        bundle.extractall(tmp_path / "tiktoken")
    ranks = next(name for name in names if name.endswith(".tiktoken"))
    assert load_any(tmp_path / "tiktoken" / ranks).encode(text) == ids  # its settings file beside it
    assert page.off_origin_requests == []
    # the files made on click ran on a server thread without a script: nothing of Streamlit's there
    assert "missing ScriptRunContext" not in app_log.read_text()
