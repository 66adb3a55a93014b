"""WikiText-2: how its text looks, and where our copy of it lives on disk.

WikiText-2 (Merity et al., 2016) comes in two releases. The *word-level* one replaces
rare words with `<unk>`; the *raw* one keeps them. Both are tokenized the same way
otherwise: spaces around punctuation, hyphens written ` @-@ `, and article headings as
lines like ` = Title = ` or ` = = Section = = `. Either is fine to train BPE on as is;
the app only points out the markers so nobody mistakes `@-@` for a bug in BPE.

The downloader (`bpe.corpora.download`) fills the cache folder described here and the corpus
registry (`bpe.corpora.corpus`) lists it; this module is the one place both read the layout from.
"""

from __future__ import annotations

import re
from pathlib import Path

from bpe.corpora.textfile import decode_text_bytes

ARCHIVE_NAME = "wikitext-2-raw-v1.zip"
CACHE_FOLDER = "wikitext-2-raw"  # under the cache dir; the zip's own top-level folder too
SPLITS = ("train", "val", "test")
RAW_MEMBERS = {  # split -> member of the zip (and file name in the cache folder)
    "train": "wiki.train.raw",
    "val": "wiki.valid.raw",
    "test": "wiki.test.raw",
}
CLEAN_FILES = {split: f"wikitext2_{split}_clean.txt" for split in SPLITS}

_HEADING = re.compile(r"^ (?:= )+[^=\n].*?(?: =)+ ?$", re.MULTILINE)


def is_wikitext_word_level(text: str) -> bool:
    """Whether `text` looks like a WikiText release: heading lines plus `@-@` or `<unk>`.

    True for both the word-level and the raw release (they share the tokenization).

    >>> is_wikitext_word_level(" = Lobster = \\n A well @-@ known <unk> .\\n")
    True
    >>> is_wikitext_word_level("= Not a heading =\\nwell-known")
    False
    """
    has_marker = " @-@ " in text or "<unk>" in text
    return has_marker and _HEADING.search(text) is not None


def clean_files(folder: Path) -> dict[str, Path]:
    """The three clean split files in a cache folder, by split name."""
    return {split: folder / name for split, name in CLEAN_FILES.items()}


def has_clean_files(folder: Path) -> bool:
    """Whether a cache folder is complete (they are written last, each atomically)."""
    return all(path.is_file() for path in clean_files(folder).values())


def clean_text(raw: bytes, *, name: str) -> str:
    """The "clean" text of a raw split: exactly the raw text, checked to be UTF-8.

    "Clean" here changes nothing a learner could see: no lowercasing, no removal of
    headings, blank lines, `@-@` or spaces before punctuation. It only guarantees the
    file decodes as UTF-8 with no NUL bytes (and drops a byte-order mark, which the
    published files do not have). For the published archive, each clean file is
    byte-for-byte identical to its `wiki.*.raw` split.
    """
    return decode_text_bytes(raw, name=name, max_bytes=None)
