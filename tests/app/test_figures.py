"""pages._shared.render.figures: the pair-frequency chart (winner, ties, escaped labels)."""

import math

import plotly.graph_objects as go
from app_helpers import title_text

from bpe.run import train_run
from pages._shared.render.figures import (
    BASE_FONT,
    OTHER,
    TICK_FONT,
    TIE_RULE,
    TIED,
    TITLE_FONT,
    WINNER,
    pair_frequency_figure,
    tied_with_winner,
)


def test_winner_is_first_and_red_ties_are_flagged_and_the_rule_stated():
    step = train_run("low lower newest widest", target_vocab_size=50, minimum_pair_frequency=1).steps[
        0
    ]  # ('l','o') ties with ('o','w') ... at 2
    fig = pair_frequency_figure(step, 6)
    bar = fig.data[0]
    assert list(bar.y) == [count for _, count in step.top_pairs[:6]]
    assert bar.marker.color[0] == WINNER and bar.text[0] == "winner"
    tied = tied_with_winner(step)
    assert tied and all(bar.marker.color[i] == TIED and bar.text[i] == "tie" for i in range(1, len(tied) + 1))
    assert TIE_RULE in title_text(fig.to_plotly_json())
    assert list(fig.layout.xaxis.ticktext[:2]) == ["l + o", "o + w"]


def test_no_tie_no_rule_in_title_and_top_k_limits_bars():
    step = train_run("aaabdaaabac", target_vocab_size=20, minimum_pair_frequency=1).steps[
        0
    ]  # ('a','a') 4 times, alone at the top
    fig = pair_frequency_figure(step, 2)
    assert len(fig.data[0].y) == 2 and list(fig.data[0].marker.color) == [WINNER, OTHER]
    assert TIE_RULE not in title_text(fig.to_plotly_json())


def test_labels_are_html_escaped():
    step = train_run("<a href=x>" * 3, target_vocab_size=20, minimum_pair_frequency=1).steps[0]
    fig = pair_frequency_figure(step, 10)
    labels = " ".join(fig.layout.xaxis.ticktext) + " ".join(fig.data[0].customdata)
    assert "<" not in labels and "&lt;" in labels


def test_the_pair_chart_spec_is_valid_plotly_with_readable_type():
    """It is built without plotly's validation (it is drawn on every step): the same spec,
    validated, must be accepted unchanged."""
    for text, vocab in (("low lower newest widest", 50), ("<a href=x>" * 3, 20)):
        fig = pair_frequency_figure(train_run(text, target_vocab_size=vocab, minimum_pair_frequency=1).steps[0], 10)
        assert go.Figure(fig.to_plotly_json()).to_plotly_json() == fig.to_plotly_json()
        layout = fig.layout
        assert (layout.font.size, layout.title.font.size) == (BASE_FONT, TITLE_FONT)
        assert layout.xaxis.tickfont.size == layout.yaxis.tickfont.size == TICK_FONT
        assert layout.xaxis.title.font.size == layout.yaxis.title.font.size == BASE_FONT


def test_the_quiz_chart_takes_presenter_mode_type():
    from pages._shared.render.figures import PRESENTER_SCALE, enlarged, question_figure

    step = train_run("low lower newest widest " * 3, target_vocab_size=40, minimum_pair_frequency=2).steps[2]
    for asking in (True, False):
        fig = enlarged(question_figure(pair_frequency_figure(step, 10), step, asking=asking))
        assert fig.layout.title.text.startswith(f"Step {step.number}: ")
        assert fig.layout.font.size == round(BASE_FONT * PRESENTER_SCALE)


def test_a_step_past_999_is_written_with_thousands_separators():
    from dataclasses import replace

    from pages._shared.render.figures import question_figure

    step = replace(train_run("low lower newest widest " * 3, target_vocab_size=40).steps[2], number=32_000)
    assert pair_frequency_figure(step, 10).layout.title.text.startswith("Step 32,000: ")
    assert question_figure(pair_frequency_figure(step, 10), step, asking=True).layout.title.text.startswith(
        "Step 32,000: "
    )


def test_the_coverage_charts_vocab_ticks_never_sit_closer_than_they_can_be_read():
    from pages._shared.render.figures import TICK_RATIO, spaced_ticks

    assert spaced_ticks([63, 500, 1_000, 50_257, 100_261]) == [63, 500, 50_257]
    kept = spaced_ticks(sorted({256, 300, 700, 1_000, 2_000, 5_000, 32_000, 50_257, 100_261}))
    assert all(b >= a * TICK_RATIO for a, b in zip(kept, kept[1:])) and kept[0] == 256


def test_the_compression_axis_ticks_all_read_differently_on_a_small_corpus():
    """A small corpus's curve spans 1.00 to 1.09 characters per token: its ticks are spaced
    and printed so that no two read alike (one decimal printed 1.0, 1.0, 1.0, 1.1)."""
    from bpe.analysis.metrics import CurvePoint
    from pages._shared.render.figures import compression_curve_figure

    for top in (1.09, 1.6, 4.3, 1.004):
        curve = [CurvePoint(k, 20 + k, 1 + (top - 1) * k / 10, None) for k in range(11)]
        axis = compression_curve_figure(curve).layout.yaxis
        assert axis.dtick, axis
        low = math.floor(1 / axis.dtick) * axis.dtick
        ticks = [low + i * axis.dtick for i in range(int((top - low) / axis.dtick) + 2)]
        labels = [format(tick, axis.tickformat) for tick in ticks]
        assert len(ticks) >= 3 and len(set(labels)) == len(labels), (top, labels)


def test_presenter_type_reaches_the_legend_and_no_bar_label_is_shrunk_past_reading():
    """Streamlit's chart theme gives legends a small size of their own: `readable` sets it to
    the figures' size, which presenter mode keeps (larger, long entries ran past a chart in
    half a 1024 px page). A language's bar label too wide for its bar is hidden, not shrunk
    to 6 px, and presenter mode raises the size below which that happens."""
    from bpe.analysis.languages import LanguageCost
    from pages._shared.render.figures import PRESENTER_SCALE, enlarged, language_cost_figure

    costs = [LanguageCost(language, 100, 100, tokens, 300, 50) for language, tokens in (("English", 50), ("Greek", 90))]
    fig = language_cost_figure({"BPE": costs, "GPT-2": costs}, "English")
    assert fig.layout.legend.font.size == BASE_FONT
    assert (fig.layout.uniformtext.mode, fig.layout.uniformtext.minsize) == ("hide", TICK_FONT - 3)
    fig = enlarged(fig)
    assert fig.layout.font.size == round(BASE_FONT * PRESENTER_SCALE) and fig.layout.legend.font.size == BASE_FONT
    assert fig.layout.uniformtext.minsize == round((TICK_FONT - 3) * PRESENTER_SCALE)
