"""pages._shared.render.html and bpe.text: printable token text, colours, escaped HTML spans."""

import re
from dataclasses import replace

import pytest

from bpe.analysis.segments import Segment
from bpe.run import train_run
from bpe.text import pair_label, printable, readable_token
from pages._shared.render.html import (
    SEGMENTS_CSS,
    escape_markdown,
    merge_headline_html,
    segments_html,
    splits_html,
    token_colour,
    token_hue,
)
from pages._shared.render.merge_lists_html import merge_lists_html


@pytest.mark.parametrize(
    "token, shown",
    [
        (" the", "·the"),
        ("a\nb", "a↵b"),
        ("\t", "→"),
        ("\r\n", "␍↵"),
        ("plain", "plain"),
        (b" the", "·the"),
        ("€".encode(), "€"),
        (b"\xe2\x82", "<0xE2><0x82>"),
        (b"a\xffb", "a<0xFF>b"),
        ("€".encode()[:1] + b" ok", "<0xE2>·ok"),
    ],
    ids=repr,
)
def test_printable_makes_whitespace_visible_and_bytes_readable(token, shown):
    assert printable(token) == shown


def test_token_text_keeps_whitespace():
    assert readable_token(b"a \n") == "a \n"
    assert readable_token("x y") == "x y"


def test_pair_label():
    assert pair_label(("t", " h")) == "t + ·h"


def test_colour_is_stable_per_id_and_differs_between_neighbours():
    assert token_colour(42) == token_colour(42)
    assert token_colour(1) != token_colour(2)
    assert re.fullmatch(r"hsl\(\d+,70%,85%\)", token_colour(12345))


MALICIOUS = ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>", '" onmouseover="x', "'><b>"]


@pytest.mark.parametrize("text", MALICIOUS)
def test_segments_html_escapes_token_text_in_body_and_title(text):
    html = segments_html([Segment(text, 7), Segment(b"<i>", 8, "merged")])
    assert "<script" not in html and "<img" not in html and "<i>" not in html and "<b>" not in html
    assert "&lt;" in html
    # every attribute value is closed where it should be: no injected attribute
    assert "onmouseover=" not in html.replace("onmouseover=&quot;", "")
    assert html.count("<span") == html.count("</span>") == 2


def test_segments_html_spans_titles_marks_and_wrapping():
    html = segments_html(
        [
            Segment("l", 4, "left"),
            Segment("o", 6, "right"),
            Segment(" ", 0),
            Segment("lo", 12, "merged"),
            Segment("\n", 1),
        ]
    )
    assert html.startswith('<div class="bpe-segments"')
    assert "title=\"id 4: 'l'\"" in html and "title=\"id 0: '·'\"" in html
    assert '<span class="pair"' in html and 'class="tok pair-left"' in html and 'class="tok pair-right"' in html
    assert 'class="tok merged"' in html
    # each mark's outline is a rule of the page's style, not a copy in every span
    assert re.search(r"\.bpe-segments \.tok\.merged \{ outline:2px solid #dc2626", SEGMENTS_CSS)
    assert re.search(r"\.bpe-segments \.tok\.pair-left \{ outline:2px dashed", SEGMENTS_CSS)
    assert "outline" not in html and "border-radius" not in html
    assert f'style="--h:{token_hue(12)}"' in html and "background" not in html  # the page's rule colours it
    assert re.search(r"\.bpe-segments \.tok \{ [^}]*background:hsl\(var\(--h\),70%,85%\)", SEGMENTS_CSS)
    assert token_colour(12) == f"hsl({token_hue(12)},70%,85%)"
    # a pair's halves stay together, tokens are separated by spaces so lines wrap
    assert "</span></span> <span" in html
    assert "↵</span><br>" in html


def test_segments_html_of_nothing_is_an_empty_div():
    assert segments_html([]).endswith("></div>")


@pytest.mark.parametrize("text", MALICIOUS)
def test_splits_html_is_one_grid_of_escaped_headings_names_and_tokens(text):
    grid = splits_html(
        [f"Text '{text}'", "Text 'ab'"],
        {
            "BPE Lab": [[Segment(text, 3)], [Segment("ab", 9)]],
            text: [[Segment("x", 1)], [Segment("a", 2), Segment("b", 4)]],
        },
    )
    assert grid.startswith('<div class="bpe-splits"') and "repeat(3," in grid  # the names, then a column per text
    assert "<script" not in grid and "<img" not in grid and "<b>" not in grid and 'onmouseover="' not in grid
    assert ("&lt;" in grid) == ("<" in text)
    assert grid.count('<div class="bpe-segments"') == 4 and grid.count("<span") == 5  # a row of tokens per text
    assert grid.index("BPE Lab") < grid.index('title="id 3:') < grid.index('title="id 9:') < grid.index('title="id 1:')


def test_merge_lists_html_shades_the_merges_that_cross_and_escapes_tokens():
    rows = [
        {"merge": 1, "a": "e·", "a crosses": True, "b": "th", "b crosses": False},
        {"merge": 1_000, "a": "<b>x", "a crosses": False, "b": "▶ ·t", "b crosses": True},
    ]
    table = merge_lists_html(rows, ["a", "b"])
    assert re.findall(r"<th>(.*?)</th>", table) == ["merge", "a", "b"]
    cells = re.findall(r'<td( class="x")?>(.*?)</td>', table)
    assert cells == [(' class="x"', "e·"), ("", "th"), ("", "&lt;b&gt;x"), (' class="x"', "▶ ·t")]
    assert '<td class="n">1,000</td>' in table and "<b>x" not in table
    assert re.search(r"\.bpe-merge-lists td\.x \{ background:#fde2e1", table)  # the rule that shades them
    assert re.search(r"\.bpe-merge-lists th \{ position:sticky", table)  # the header stays in sight


def test_merge_headline_escapes_and_says_when_no_token_is_new():
    run = train_run("<b><b> aa aa", target_vocab_size=40, minimum_pair_frequency=1)
    step = next(s for s in run.steps if "<" in s.token)
    headline = merge_headline_html(step)
    assert "<b>" not in headline and "&lt;" in headline and f"Merge {step.number}:" in headline
    assert "no new token" not in headline
    assert "no new token" in merge_headline_html(replace(step, new_token=False))


def test_escape_markdown_neutralises_links_and_directives():
    assert escape_markdown("[x](javascript:1) :red[y] *z* $m$") == (
        "\\[x\\](javascript\\:1) \\:red\\[y\\] \\*z\\* \\$m\\$"
    )
    assert escape_markdown("café.txt is 5 bytes") == "café.txt is 5 bytes"
