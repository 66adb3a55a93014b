"""One number style, plain words and readable charts (issue 11, "readable on a projector")."""

from __future__ import annotations

from bpe.analysis.compare import Variant
from bpe.analysis.metrics import context_coverage
from bpe.pretokenize import pretokenizer_name
from bpe.steps import MergeStep, StopReason
from pages._shared.render.figures import TICK_FONT, coverage_figure, pair_frequency_figure
from pages._shared.render.numbers import cell, change_delta, table_frame


def test_cells_have_separators_fixed_decimals_and_no_none():
    assert [cell(None), cell(1234567), cell(3.14159), cell(2.0, 3), cell(True), cell(float("nan"))] == [
        "—",
        "1,234,567",
        "3.14",
        "2.000",
        "yes",
        "—",
    ]
    assert cell("a*b_c") == "a\\*b\\_c"  # st.table renders Markdown: token text is escaped
    assert cell("<0xE2>", markdown=False) == "<0xE2>"  # st.dataframe shows a backslash as one
    frame = table_frame([{"size": 1000, "held-out": None, "bits": 1.23456}], decimals={"bits": 3})
    assert frame.to_pylist() == [{"size": "1,000", "held-out": "—", "bits": "1.235"}]


def test_a_change_is_said_in_words_with_one_arrow():
    fewer = change_delta(-10_509, "tokens")
    assert fewer == {"delta": "10,509 fewer tokens", "delta_arrow": "down", "delta_color": "green"}
    assert change_delta(12, "tokens", than="than before")["delta"] == "12 more tokens than before"
    assert change_delta(0, "tokens")["delta"] == 0


def test_stop_reasons_use_plain_words():
    said = StopReason.BELOW_MINIMUM_FREQUENCY.explain(target_vocab_size=1_000, minimum_pair_frequency=2)
    assert said == "the most frequent pair occurs fewer than 2 times (the minimum pair frequency)"
    assert "1,000" in StopReason.TARGET_REACHED.explain(target_vocab_size=1_000, minimum_pair_frequency=2)
    assert "_" not in said and "=" not in said


def test_tokenizer_labels_are_words():
    def variant(alphabet, pretokenizer):
        return Variant(alphabet, pretokenizer, 256, (), (), 256, 1, 1, 1, 1, 1, 0.0)

    assert [variant("characters", None).label, variant("bytes", "gpt2").label, variant("bytes", "gpt4").label] == [
        "characters, no split",
        "bytes, GPT-2 split",
        "bytes, GPT-4 split",
    ]
    assert [pretokenizer_name(p) for p in (None, "none", "gpt2", "whitespace")] == [
        "none",
        "none",
        "GPT-2",
        "whitespace",
    ]


def test_chart_ticks_are_large_and_counts_whole():
    step = MergeStep(
        number=1,
        pair=("l", "o"),
        token="lo",
        token_id=8,
        frequency=3,
        top_pairs=((("l", "o"), 3), (("o", "w"), 2)),
        count_changes=(),
        sequence_length=13,
        vocab_size=9,
        new_token=True,
    )
    fig = pair_frequency_figure(step, 10)
    assert fig.layout.yaxis.tickformat == ",d" and fig.layout.yaxis.dtick == 1  # never 0.5 on a count
    assert fig.layout.yaxis.tickfont.size == TICK_FONT >= 14 and fig.layout.xaxis.tickfont.size >= 14


def test_coverage_points_stay_inside_the_plot_and_are_named_in_a_legend():
    rows = [("characters", 8, context_coverage([1] * 16, 128)), ("BPE 64", 64, context_coverage([3, 3, 4, 6], 128))]
    fig = coverage_figure(rows, 128, "training text")
    assert [trace.name for trace in fig.data] == ["characters", "BPE 64"] and fig.layout.showlegend
    assert all(trace.mode == "markers" for trace in fig.data)  # no text labels to print over each other
    assert fig.layout.yaxis.range[1] > max(c.p90 for _, _, c in rows)
    assert list(fig.layout.xaxis.ticktext) == ["8", "64"]
