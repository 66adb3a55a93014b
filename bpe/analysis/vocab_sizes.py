"""Which vocab sizes to put side by side, derived from the run itself.

Fixed sizes (300, 500, 1,000, 2,000) fit one corpus and setting: where training stops at
1,000 the last row repeats the one before it, and on "low lower lowest" (alphabet 8,
training stops at 12) every row is the same. Sizes the run really reaches, spread from
its alphabet to where it stopped, always differ.
"""

from __future__ import annotations

from bpe.run import TrainingRun

ROUND_STEPS = (1, 2, 3, 5)  # round sizes: 100, 200, 300, 500, 1,000, ...


def round_sizes(low: int, high: int) -> list[int]:
    """Round numbers (1, 2, 3 or 5 times a power of ten) strictly between low and high.

    >>> round_sizes(65, 1_000)
    [100, 200, 300, 500]
    """
    found, scale = [], 1
    while scale < high:
        found += [step * scale for step in ROUND_STEPS if low < step * scale < high]
        scale *= 10
    return sorted(found)


def reached_vocab_size(run: TrainingRun, vocab_size: int) -> int:
    """The vocab size the run's tokenizer for ``vocab_size`` really has (training may stop
    short, or a merge may re-create a token)."""
    merges = run.merge_count(vocab_size)
    return run.vocab_size_after(merges)


def spread_sizes(run: TrainingRun, count: int = 4) -> list[int]:
    """Up to ``count`` vocab sizes the run reaches, smallest first, ending at its final
    vocab: round sizes spread over the range (on a log scale, as the run's rows change
    fastest at first), or every size in between when few exist. All different.

    Examples: alphabet 62, training to 2,000 -> [100, 300, 1,000, 2,000]; alphabet 8,
    training stopping at 12 -> [9, 10, 11, 12].
    """
    low, high = run.initial_vocab_size, run.final_vocab_size
    if high <= low:
        return [high]
    inside = sorted({reached_vocab_size(run, size) for size in round_sizes(low, high)} - {low, high})
    if len(inside) < count - 1:  # few round sizes: add evenly spaced ones
        span = high - low
        evenly = {low + round(span * i / count) for i in range(1, count)}
        inside = sorted(({reached_vocab_size(run, size) for size in evenly} | set(inside)) - {low, high})
    if len(inside) > count - 1:
        picks = count - 1
        inside = [inside[round(i * (len(inside) - 1) / max(picks - 1, 1))] for i in range(picks)]
    return sorted(set(inside)) + [high]
