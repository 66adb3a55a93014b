"""`bpe.benchmarks.bytes_level`'s comparison with rustbpe at interactive sizes: both sides train
the same text for real, the figures are what each training gave, and the speed targets' table
calls the target met only at rustbpe's CPU over ours of at least 0.5 (no time is asserted)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpe.benchmarks import bytes_level
from bpe.benchmarks.training import print_targets, target_rows
from bpe.paths import PROJECT_ROOT
from bpe.tokenizer import BPETokenizer

pytest.importorskip("rustbpe", reason="rustbpe is in requirements.txt; this environment lacks it")

TEXT = (Path(PROJECT_ROOT) / "data" / "tinyshakespeare.txt").read_text(encoding="utf-8")[:100_000]


def test_both_sides_train_the_text_to_the_merges_asked_for(capsys):
    figures = bytes_level.bench_against_rustbpe(TEXT, (100, 300), repeats=1)
    assert sorted(figures) == [100, 300]
    for wanted, against in figures.items():
        ours = BPETokenizer.train(TEXT, 256 + wanted, alphabet="bytes", pretokenizer="gpt2")
        assert against["ours_merges"] == len(ours.merges) == wanted
        assert against["rustbpe_merges"] == wanted
        assert against["ours_cpu_s"] > 0 and against["rustbpe_cpu_s"] > 0
        assert against["ratio"] == against["rustbpe_cpu_s"] / against["ours_cpu_s"]
    printed = capsys.readouterr().out
    assert "to 300 merges, CPU of the training call: BPETokenizer.train" in printed


def _figures(ratios: dict[int, float]) -> dict:
    """The benchmark's figures with every other section left out of the targets' table."""
    return {
        "train_500k": {"tutorial_ratio": 110, "tutorial_s": 46, "fast_s": 0.4, "reference_s": 35},
        "train_all": {"seconds": 2.6, "peak_mb": 135},
        "encode_1m": {"mb_per_s": 3},
        "vocab_growth": {"per_merge_ratio": 0.6, "large_s": 1.4, "small_s": 1.1},
        "bytes": {
            "rustbpe": {
                merges: {"ratio": ratio, "rustbpe_cpu_s": ratio, "ours_cpu_s": 1.0} for merges, ratio in ratios.items()
            }
        },
    }


def test_the_targets_table_holds_a_row_per_size_met_at_half_rustbpes_speed_or_more():
    rows = [row for row in target_rows(_figures({5_000: 0.5, 20_000: 0.32})) if "rustbpe" in row[0]]
    assert rows == [
        (
            "BPETokenizer.train, bytes, GPT-2 split -> 5,000 merges: >= 0.5x rustbpe's CPU",
            "0.50x (0.500 s / 1.000 s)",
            True,
        ),
        (
            "BPETokenizer.train, bytes, GPT-2 split -> 20,000 merges: >= 0.5x rustbpe's CPU",
            "0.32x (0.320 s / 1.000 s)",
            False,
        ),
    ]


def test_a_quick_run_prints_its_figures_without_verdicts(capsys):
    # --quick trains smaller jobs than the targets name: its rows say what was measured,
    # and none says met or MISS.
    figures = _figures({5_000: 0.5, 20_000: 0.32})
    print_targets(figures, judged=False)
    quick = capsys.readouterr().out
    assert "not judged: --quick ran smaller jobs" in quick
    assert "MISS" not in quick and "met " not in quick and "0.32x (0.320 s / 1.000 s)" in quick
    print_targets(figures)
    full = capsys.readouterr().out
    assert "  met   BPETokenizer.train, bytes, GPT-2 split -> 5,000 merges" in full and "  MISS  " in full
