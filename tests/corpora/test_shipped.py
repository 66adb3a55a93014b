"""The texts that ship in data/: Tiny Shakespeare is listed by name and is the app's default."""

from __future__ import annotations

import hashlib

from bpe.corpora.corpus import find_corpus, list_corpora, load_corpus
from bpe.corpora.shipped import SHIPPED_TEXTS, TINY_SHAKESPEARE
from bpe.paths import DATA_DIR

SHAKESPEARE_SHA256 = "86c4e6aa9db7c042ec79f339dcb96d42b0075e16b8fc2e86bf0ca57e2dc565ed"


def test_tiny_shakespeare_ships_in_data_unchanged():
    path = DATA_DIR / "tinyshakespeare.txt"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == SHAKESPEARE_SHA256
    info = find_corpus(TINY_SHAKESPEARE, env={})
    assert info.path == path and info.language == "en" and info.size_bytes == 1_115_394
    assert "public domain" in info.description
    text = load_corpus(TINY_SHAKESPEARE, env={})
    assert text.startswith("First Citizen:\nBefore we proceed any further, hear me speak.")


def test_a_shipped_file_is_listed_under_its_name_other_files_under_theirs(tmp_path):
    (tmp_path / "tinyshakespeare.txt").write_text("To be, or not to be", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("my notes", encoding="utf-8")
    listed = {info.name: info for info in list_corpora(data_dir=tmp_path, env={})}
    assert TINY_SHAKESPEARE in listed and "tinyshakespeare.txt" not in listed
    assert listed["notes.txt"].description == "A text file in data/."
    assert load_corpus(TINY_SHAKESPEARE, data_dir=tmp_path, env={}) == "To be, or not to be"


def test_data_readme_credits_every_shipped_text():
    readme = (DATA_DIR / "README.md").read_text(encoding="utf-8")
    for text in SHIPPED_TEXTS.values():
        assert f"`{text.file_name}`" in readme and text.name in readme
    assert "karpathy/char-rnn" in readme and "public domain" in readme
