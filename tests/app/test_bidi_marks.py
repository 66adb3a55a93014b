"""Bidirectional controls in a corpus are shown as marks, never applied.

U+202E (RIGHT-TO-LEFT OVERRIDE) before "ecila ot 999 yap" makes a browser show "pay 999
to alice", and the override runs on across the spans a page puts tokens in. `printable`
(bpe/text.py) spells every Bidi_Control character as a mark (⟨RLO⟩), as it spells a space
as ·; every display path of tokens goes through it: the segment and linked-token HTML of
Merge by merge and Tokenize, the merge headline, the pair-chart labels and the film.
Passages shown as text (the context window, the span diff, a model's sample) mark only the
controls (`bidi_marked`), and every name someone else chose (an uploaded file's, a
lesson's, a run file's) is marked at the door (`shown_name`), so no page shows it raw.
"""

from __future__ import annotations

import sys
import unicodedata

import pytest

from bpe.analysis.metrics import token_lengths
from bpe.analysis.segments import segment
from bpe.run import train_run
from bpe.text import VISIBLE_BIDI, pair_label, printable, shown_name
from bpe.tokenizer import BPETokenizer
from pages._shared.render.figures import plotly_text
from pages._shared.render.html import (
    context_window_html,
    escape_markdown,
    linked_tokens_html,
    merge_headline_html,
    segments_html,
)

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
    from pages._shared.views.merge_by_merge.film_download import film_file
    from tests.app.test_film import embedded, settings_for

    run = train_run(TEXT * 6, target_vocab_size=80, minimum_pair_frequency=2, top_k=10)
    assert not raw_controls("".join(merge_headline_html(step) for step in run.steps))
    document = film_file(settings_for("bidi"), run, TEXT * 2, 20)
    assert not raw_controls(document)
    data = embedded(document)
    assert any("⟨RLO⟩" in text for text in data["tokens"].values())


# ==================== Every renderer of user text, and names from strangers


def test_the_context_window_passage_shows_marks_and_keeps_its_layout():
    passage = TEXT + "\nsecond line " + TEXT
    tokenizer = BPETokenizer.train(passage * 4, 60)
    lengths = token_lengths(tokenizer.encode_tokens(passage))
    for block in (5, len(lengths) + 1):  # the window cut inside the text, and the whole text fitting
        shown = context_window_html(passage, lengths, block)
        assert not raw_controls(shown)
        assert "⟨RLO⟩" in shown and "\n" in shown and "↵" not in shown and "·" not in shown  # layout stays


def test_the_span_diff_the_report_card_and_the_film_page_show_marks():
    from bpe.analysis.report_card import CardText, report_card
    from bpe.analysis.span_diff import span_diff
    from pages._shared.render.film_html import film_html
    from pages._shared.render.report_card_html import report_card_figure, report_card_html
    from pages._shared.render.span_diff_html import span_diff_html

    named = "upload: \u202etxt.exe"  # a label or name carrying a control, as a renderer may be given one
    diff = span_diff(TEXT, {named: list(TEXT), "whole": [TEXT]})
    assert not raw_controls(span_diff_html(diff, scope="s"))
    rows = report_card({named: BPETokenizer.train(TEXT * 4, 60)}, [CardText(named, "corpus", TEXT, named)])
    assert not raw_controls(report_card_html(rows, named, [named]))
    assert not raw_controls(report_card_figure(rows).to_json())
    film = film_html({"title": named, "frames": [], "tokens": {}}, about=named)
    assert not raw_controls(film.split('<script type="application/json"')[0])  # what the page shows
    assert not raw_controls(plotly_text(named)) and not raw_controls(escape_markdown(named))


def test_a_name_from_a_stranger_is_shown_marked_and_escaped():
    for control, mark in VISIBLE_BIDI.items():
        assert shown_name(f"a{control}b") == f"a{mark}b"
    assert shown_name("Tiny\u200bShakespeare") == "Tiny\\u200bShakespeare"  # cannot pass for the listed corpus
    assert shown_name("two\nlines\t.txt") == "two\\nlines\\t.txt"
    assert shown_name("notes café 日本.txt") == "notes café 日本.txt"  # names that print are left alone
    assert shown_name(shown_name("x\u202e\n")) == shown_name("x\u202e\n")
    # found by probing: a lesson may name its text with a megabyte, and the sidebar showed it all
    assert shown_name("x" * 1_000_000) == "x" * 199 + "…" and len(shown_name("\n" * 300)) == 200


HOSTILE_NAME = "report\u202etxt.exe\u200b.txt"  # shows as "reportexe.txt.txt" in a browser, reversed


def _shown_strings(at) -> str:
    """Everything the page shows as text: options, captions, messages, headers, HTML blocks."""
    shown = [str(box.options) for box in at.selectbox]
    for kind in ("caption", "markdown", "error", "warning", "info", "success", "subheader", "header"):
        shown += [element.value for element in getattr(at, kind)]
    shown += [str(getattr(element, "proto", element)) for element in at.get("html")]
    return "\n".join(shown)


def test_an_uploaded_text_and_tokenizer_keep_marked_names_on_every_page_they_reach():
    from app_helpers import SMALL_CORPUS, new_app
    from test_app_hostile import upload_text, upload_tokenizer

    at = new_app("app.py", settings_corpus=SMALL_CORPUS)  # from the home page, so AppTest knows every page
    at = upload_text(at.switch_page("pages/5_Vocabulary.py").run(), HOSTILE_NAME, TEXT.encode())
    assert not at.exception
    assert at.session_state["settings_corpus"] == "upload: report⟨RLO⟩txt.exe\\u200b.txt"
    from bpe.storage import to_json_text

    tokenizer = to_json_text(BPETokenizer.train("low lower lowest", 20).data()).encode()
    at = upload_tokenizer(at, HOSTILE_NAME.replace(".txt", ".json"), tokenizer)
    assert not at.exception and not at.error
    assert not raw_controls(_shown_strings(at)) and "report⟨RLO⟩txt.exe" in _shown_strings(at)
    for page in ("pages/4_Context_window.py", "pages/2_Tokenize.py", "pages/3_Compression.py"):
        at.switch_page(page).run()
        assert not at.exception
        assert not raw_controls(_shown_strings(at)), page


def test_a_lesson_file_names_its_text_and_itself_marked():
    from app_helpers import SMALL_CORPUS, new_app

    from bpe.analysis.lesson import Lesson, lesson_json, text_hash

    text = "low lower lowest " * 20
    lesson = Lesson("pages/1_Merge_by_merge.py", "Tiny\u202eShakespeare", text_hash(text), {}, {}, text)
    at = new_app("pages/1_Merge_by_merge.py", settings_corpus=SMALL_CORPUS)
    at.file_uploader(key="lesson_upload").set_value(
        (HOSTILE_NAME.replace(".txt", ".json"), lesson_json(lesson).encode(), "application/json")
    )
    at.run()
    assert not at.exception
    assert at.session_state["settings_corpus"] == "lesson: Tiny⟨RLO⟩Shakespeare"
    assert not raw_controls(_shown_strings(at))  # the note on the file names it marked too
