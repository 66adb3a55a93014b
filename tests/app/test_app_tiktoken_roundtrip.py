"""AppTest: the Vocabulary page's tiktoken download, uploaded back, gives the run's tokens
(issue 22); an upload whose tokens would differ from the run it came from says so; an
upload is confirmed in a sentence, not a Python repr."""

from __future__ import annotations

import io
import zipfile

from app_helpers import capture_downloads, new_app, unescape_markdown

from bpe import BPETokenizer
from bpe.corpora.corpus import PYTHON_REFERENCE, load_corpus

VOCABULARY = "pages/5_Vocabulary.py"
# Prose long enough that GPT-4's split pattern cuts it differently from no split at all.
RUN = dict(
    settings_corpus=PYTHON_REFERENCE,
    settings_prefix_cap=6_000,
    settings_heldout=0.0,
    settings_vocab=300,
    settings_train_up_to=300,
    settings_alphabet="bytes",
)


def upload(at, name: str, data: bytes):
    at.file_uploader(key="vocab_upload").set_value((name, data, "application/octet-stream"))
    return at.run()


def downloaded_zip(monkeypatch) -> tuple[str, bytes, object]:
    files = capture_downloads(monkeypatch)
    at = new_app(VOCABULARY, **RUN)
    assert not at.exception and not at.error
    (name,) = [name for name in files if name and name.endswith(".tiktoken.zip")]
    return name, files[name], at


def warnings(at) -> list[str]:
    return [unescape_markdown(w.value) for w in at.warning]


def test_the_tiktoken_download_is_one_zip_that_uploads_back_with_the_same_tokens(monkeypatch):
    name, data, at = downloaded_zip(monkeypatch)
    assert "tiktoken (.tiktoken + settings, zip)" in [b.proto.label for b in at.get("download_button")]
    at = upload(at, name, data)
    assert not at.exception and not at.error
    loaded = at.session_state["vocab_uploaded"][1]
    text = load_corpus(PYTHON_REFERENCE)[:6_000]
    run = BPETokenizer.train(text, target_vocab_size=300, alphabet="bytes")
    sentence = text[:400]
    assert loaded.encode(sentence) == run.encode(sentence) and loaded.pretokenizer is None
    assert not any("tokens where" in w for w in warnings(at))
    said = unescape_markdown(at.success[0].value)
    assert said.startswith(f"Loaded {name}: a tiktoken file of 300 tokens")


def test_the_ranks_file_alone_with_another_pattern_warns(monkeypatch):
    name, data, at = downloaded_zip(monkeypatch)
    ranks_name = name.removesuffix(".zip")
    ranks = zipfile.ZipFile(io.BytesIO(data)).read(ranks_name)
    at = upload(at, ranks_name, ranks)  # the pattern box still says GPT-4, the run had none
    assert not at.exception and not at.error
    said = " ".join(warnings(at))
    assert "tokens where the run it came from gives" in said
    assert "split pattern is GPT-4, the run's is none" in said
    at.selectbox(key="_w_formats_pattern").set_value("none").run()
    assert not any("tokens where" in w for w in warnings(at))


def test_an_uploaded_file_is_confirmed_in_a_sentence(monkeypatch):
    name, data, at = downloaded_zip(monkeypatch)
    said = unescape_markdown(upload(at, name, data).success[0].value)
    assert "PretrainedTokenizer(" not in said and "name=" not in said
    assert "byte-level" in said and "no split pattern" in said
