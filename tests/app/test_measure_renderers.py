"""The measuring views' HTML and figures: span diff rows, the report card table and chart (no streamlit)."""

from __future__ import annotations

import re

from bpe.analysis.report_card import CardRow, CardText, Measure
from bpe.analysis.span_diff import span_diff
from pages._shared.render.report_card_html import report_card_figure, report_card_html
from pages._shared.render.span_diff_html import span_diff_html, text_colour


def test_span_diff_rows_align_character_under_character():
    diff = span_diff("low lowest", {"A": ["low", " ", "low", "est"], "B": ["lo", "w", " ", "lowest"]})
    page = span_diff_html(diff, scope="t")
    rows = re.findall(r'<div class="bpe-spandiff-row".*?</div>', page)
    assert len(rows) == 2 and "<b>A</b> A (4 tokens) · <b>B</b> B (4 tokens)" in page
    # two stretches cut differently ('low' and 'lowest'), ringed once in each row
    assert page.count('class="ring"') == 4
    for row in rows:  # every row draws the whole text, once, whitespace made visible
        assert "".join(re.findall(r'<span class="tok[^"]*"[^>]*>([^<]*)</span>', row)) == "low·lowest"
    # same characters, same colour: 'low' in row A and ' ' in both share their colour
    assert page.count(f"background:{text_colour(' ')}") == 2
    assert page.count('class="tok differs') == 6 and page.count('class="tok c3"') == 2  # ' ' is shared
    assert ".bpe-spandiff-t:has(.c9:hover) .c9{" in page  # hover marks the same characters everywhere


def test_span_diff_escapes_tokens_and_wraps_rows_together():
    text = "<b>x</b> " * 12
    diff = span_diff(text, {"chars": list(text), "whole": [text]})
    page = span_diff_html(diff, scope="t")
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page
    assert page.count('class="bpe-spandiff-line"') == 2  # 108 characters: 54 and 54, cut at a space
    assert span_diff_html(diff, scope="t", large=True).count('class="bpe-spandiff-line"') > page.count(
        'class="bpe-spandiff-line"'
    )


def test_a_byte_token_inside_a_character_is_a_mark_without_width():
    diff = span_diff("é", {"bytes": [b"\xc3", b"\xa9"], "chars": ["é"]})
    page = span_diff_html(diff, scope="t")
    assert page.count('partial c0"') == 1 and "width:0" in page


def test_report_card_table_colours_the_relative_difference():
    text = CardText("prose", "prose", "abcdefgh", "test")
    rows = [
        CardRow(text, {"run": Measure(2, 8, 8), "GPT-2": Measure(4, 8, 8), "GPT-4": Measure(1, 8, 8)}),
        CardRow(
            CardText("odd", "math", "xy", "t"),
            {"run": Measure(None, 2, 2, 1), "GPT-2": Measure(1, 2, 2), "GPT-4": Measure(1, 2, 2)},
        ),
    ]
    table = report_card_html(rows, "run", ["GPT-2", "GPT-4"])
    assert '<td class="better"' in table and "+100%" in table  # 4.0 against GPT-2's 2.0
    assert '<td class="worse"' in table and "-50%" in table  # against GPT-4's 8.0
    assert "1 kind of character outside its alphabet" in table
    figure = report_card_figure(rows, "bytes")
    assert [trace.name for trace in figure.data] == ["run", "GPT-2", "GPT-4"]
    assert figure.data[0].y == (4.0, None) and figure.layout.yaxis.title.text.startswith("bytes per token")
