"""Bidirectional controls in a corpus are shown as marks, never applied.

U+202E (RIGHT-TO-LEFT OVERRIDE) before "ecila ot 999 yap" makes a browser show "pay 999
to alice", and the override runs on across the spans a page puts tokens in. `printable`
(bpe/text.py) spells every Bidi_Control character as a mark (⟨RLO⟩), as it spells a space
as ·; every display path of tokens goes through it: the segment and linked-token HTML of
Merge by merge and Tokenize, the merge headline, the pair-chart labels and the film.
"""

from __future__ import annotations

import sys
import unicodedata

import pytest

from bpe.analysis.segments import segment
from bpe.run import train_run
from bpe.text import VISIBLE_BIDI, pair_label, printable
from bpe.tokenizer import BPETokenizer
from pages._shared.render.html import linked_tokens_html, merge_headline_html, segments_html

EXPLICIT = {"LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"}
# The Unicode Bidi_Control property: the explicit embeddings, overrides and isolates, and
# the three implicit marks (whose bidirectional class is simply L, R and AL).
BIDI_CONTROLS = {
    chr(code) for code in range(sys.maxunicode + 1) if unicodedata.bidirectional(chr(code)) in EXPLICIT
} | {"\u200e", "\u200f", "\u061c"}
TEXT = "\u202eecila ot 999 yap\u202c and \u2067\u05e9\u05dc\u05d5\u05dd\u2069 \u200f!\u200e \u061c1 \u202a\u202b\u202d\u2066\u2068x"


def raw_controls(shown: str) -> set[str]:
    return set(shown) & BIDI_CONTROLS


def test_every_bidi_control_has_a_visible_mark():
    assert set(VISIBLE_BIDI) == BIDI_CONTROLS
    assert len(set(VISIBLE_BIDI.values())) == len(VISIBLE_BIDI)
    for control, mark in VISIBLE_BIDI.items():
        assert printable(control) == mark and not raw_controls(mark)
        assert printable(control.encode("utf-8")) == mark  # a byte-level token holding it
    assert printable("\u202eecila ot 999 yap") == "⟨RLO⟩ecila·ot·999·yap"
    assert pair_label(("\u202e", "x")) == "⟨RLO⟩ + x"


@pytest.mark.parametrize("alphabet", ["characters", "bytes"])
def test_token_html_of_tokenize_and_merge_by_merge_shows_marks(alphabet):
    tokenizer = BPETokenizer.train(TEXT * 4, 280 if alphabet == "bytes" else 60, alphabet=alphabet)
    segments = segment(tokenizer, TEXT)
    for html in (segments_html(segments), linked_tokens_html(segments, scope="t")):
        assert not raw_controls(html)
        if alphabet == "characters":  # byte tokens may hold part of a control: <0xE2><0x80>, no control either
            assert "⟨RLO⟩" in html and "⟨PDI⟩" in html


def test_the_film_and_the_merge_headline_show_marks():
    from pages._shared.views.merges.film_file import film_file
    from tests.app.test_film import embedded, settings_for

    run = train_run(TEXT * 6, target_vocab_size=80, minimum_pair_frequency=2, top_k=10)
    assert not raw_controls("".join(merge_headline_html(step) for step in run.steps))
    document = film_file(settings_for("bidi"), run, TEXT * 2, 20)
    assert not raw_controls(document)
    data = embedded(document)
    assert any("⟨RLO⟩" in text for text in data["tokens"].values())
