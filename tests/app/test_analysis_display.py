"""The analysis pages' HTML and figures: escaped token text, linked hover, the window cut, traces."""

from __future__ import annotations

from bpe import train_run
from bpe.analysis.metrics import compression_curve, context_coverage, parting_point
from bpe.analysis.segments import Segment
from pages._shared.render.figures import compression_curve_figure, coverage_figure
from pages._shared.render.html import context_window_html, linked_tokens_html


def test_linked_tokens_escape_text_and_pair_each_token_with_its_id():
    html = linked_tokens_html([Segment("<b>", 7), Segment(" x\n", 3)], scope="t 1")
    assert "<b>" not in html.replace("<style>", "") and "&lt;b&gt;" in html
    assert 'class="tok t0"' in html and 'class="tid t0"' in html and ">7</span>" in html
    assert ".bpe-linked-t-1:has(.t1:hover) .t1{" in html  # one hover rule per position, scoped
    assert "·x↵" in html and "<br>" in html  # whitespace visible; a newline token ends the line


def test_context_window_highlights_the_first_tokens_and_marks_the_cut():
    html = context_window_html("ab<cd ef", [2, 2, 0, 3, 1], 3)  # the 0 is a byte tail: no characters
    assert html.count('class="win"') == 2
    assert 'class="win" style="background:#fde68a;' in html and 'class="win" style="background:#bae6fd;' in html
    assert ">ab</span>" in html and "&lt;c</span>" in html  # two tokens in two different colours
    assert "✂ 3</span>" in html and '<span class="rest" style="color:#94a3b8">d ef</span>' in html
    assert "white-space:nowrap" in html.split('class="cut"')[1].split(">")[0]  # the mark never splits


def test_context_window_of_a_text_shorter_than_the_window_says_it_ends():
    html = context_window_html("low lower", [3, 1, 5], 128)
    assert "✂" not in html and 'class="cut"' not in html
    assert "end of text: 3 of 128 tokens used" in html


def test_compression_figure_has_both_curves_the_parting_and_overlays():
    run = train_run("aaabdaaabac", target_vocab_size=7, heldout_text="aaabac", engine="reference")
    curve = compression_curve(run)
    fig = compression_curve_figure(curve, parting=parting_point(curve), shown_vocab=6, overlays={"<other>": curve})
    names = [trace.name for trace in fig.data]
    assert names == ["training text", "held-out text", "&lt;other&gt; (held-out)", "curves part (vocab 7)"]
    assert list(fig.data[1].y) == [1.0, 1.2, 1.5, 2.0]


def test_coverage_figure_draws_percentiles_as_error_bars():
    cov = context_coverage([1, 2, 3, 4, 5], 2)
    fig = coverage_figure([("BPE", 500, cov)], 2, "held-out text")
    assert list(fig.data[0].y) == [5.0]
    assert fig.data[0].error_y.array[0] == cov.p90 - 5.0 and fig.data[0].error_y.arrayminus[0] == 5.0 - cov.p10
    assert fig.layout.xaxis.type == "log"
