"""The merge phase in compiled code: the fast engine's steps, runners-up and count changes
included, from one compiled loop, under the first-occurrence tie rule.

`bpe.fast` is the engine every page and test reads; this module is the same algorithm
written for numba, which compiles it to machine code on first use (cached on disk after).
It exists for one measured case: the merge phase of a big corpus, where the pure-Python
loop was the slowest step after the split (docs/speed.md). So the merge phase runs it from
`COMPILED_FROM_CHARACTERS` up, where it can (`compiled_by_default`), and the fast engine
below. numba is optional: without it,
asking for this says how to install it, in one line, and the two pure-Python engines do
everything else. The kernel itself is `bpe.scale.merge_kernel`.

The layout is the fast engine's (`bpe.fast._Sequence`): the chunks laid end to end in one
array of token ids with an edge slot between them; a merged token sits at its first base
symbol's position, the next position inside it holds `DEAD` and its last minus its length,
which leads from its right neighbour back to it. Each pair lists the positions where it may
occur (checked when read: a merge never searches for what to delete), and one heap holds
``(-count, first position, pair)`` for every pair that can still win, stale entries put
back with their current key when they surface.

Two things a compiled loop cannot borrow from Python, written here instead:

- the vocabulary is a set of strings: merging ``"a" + "bc"`` after ``"ab" + "c"`` makes no
  new token. Each token's characters (bytes, for the byte alphabet) are kept as code units,
  looked up by a hash and compared in full, so no two strings share an id by accident;
- every pair ever seen keeps its count (the fast engine leaves pairs below the minimum
  frequency out and counts them again when a merge could lift them): counts are plain
  ints here, so nothing is recounted, and the stop reason is read from them.

Each merge also reports its pair-count changes, as many as `bpe.steps.CHANGES_KEPT` keeps
(those at the cut included, which the steps' own order settles), so its steps are the fast
engine's, merge for merge; tests/scale/test_compiled_merges.py holds the two side by side.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator
from functools import cache
from importlib.util import find_spec

from bpe.errors import BpeError
from bpe.fast import DEAD, SWEEP_SLACK, edge_symbol, spelled_words
from bpe.specials import initial_tokens
from bpe.steps import (
    CHANGES_KEPT,
    FIRST_OCCURRENCE,
    MergeStep,
    StepStream,
    StopReason,
    make_step,
    shared_token_ids,
)
from bpe.training import DEFAULT_ENGINE, TrainingSettings

# numba and the version it is tested with (requirements.txt): a wheel from the package
# index, about 4 MB, with llvmlite's 60 MB (x86_64); no compiler needed.
NUMBA = "numba==0.68.1"

# The stop the kernel returns: an index into this tuple.
_STOPS = (
    StopReason.TARGET_REACHED,
    StopReason.NO_PAIRS_LEFT,
    StopReason.BELOW_MINIMUM_FREQUENCY,
    StopReason.VOCAB_CHARACTERS_REACHED,
)


# The corpus size, in characters, from which the merge phase runs compiled by default. Its
# price is memory: numba and the loaded loop take about 110 MB in any job, most of a small
# one's peak. 16 M characters to 50,000 merges peak at 216 MB compiled against 50 MB in
# Python; from 100 M up the compiled job stays under the 4 MB a million characters the
# pipeline keeps to (docs/speed.md has the table).
COMPILED_FROM_CHARACTERS = 100_000_000


def compiled_settings_problem(settings: TrainingSettings) -> str | None:
    """Why the compiled merge loop cannot train under ``settings``, naming the setting; None if it can."""
    if settings.engine != DEFAULT_ENGINE:
        return f"compiled merges are the {DEFAULT_ENGINE} engine's: engine {settings.engine!r} trains in Python"
    if settings.tie_rule != FIRST_OCCURRENCE:
        return (
            f"compiled merges break ties by first occurrence only: tie_rule {settings.tie_rule!r} needs the fast engine"
        )
    return None


def check_compiled_settings(settings: TrainingSettings) -> None:
    """`BpeError` naming the setting when the compiled merge loop cannot train under it."""
    problem = compiled_settings_problem(settings)
    if problem is not None:
        raise BpeError(problem)


def compiled_by_default(settings: TrainingSettings, characters: int) -> bool:
    """Whether a merge phase given no choice runs compiled: on ``characters`` from
    `COMPILED_FROM_CHARACTERS` up, under settings it can train, with numba installed (found,
    not imported: a small corpus never pays for loading it)."""
    return (
        characters >= COMPILED_FROM_CHARACTERS
        and compiled_settings_problem(settings) is None
        and find_spec("numba") is not None
    )


def compiled_step_stream(words: Iterable, base: list, settings: TrainingSettings, *, token_ids: dict) -> StepStream:
    """`bpe.training.engine_steps` with the compiled loop: the fast engine's steps."""
    check_compiled_settings(settings)
    steps = compiled_steps(
        words,
        initial_tokens(settings.special_tokens, base, settings.alphabet),
        target_vocab_size=settings.target_vocab_size,
        minimum_pair_frequency=settings.minimum_pair_frequency,
        top_k=settings.top_k,
        max_vocab_characters=settings.max_vocab_characters,
        token_ids=token_ids,
    )
    return StepStream(steps, base_tokens=base, settings=settings)


def compiled_steps(
    words: Iterable,
    base_tokens: list,
    *,
    target_vocab_size: int,
    minimum_pair_frequency: int,
    top_k: int = 0,
    max_vocab_characters: int | None = None,
    token_ids: dict | None = None,
) -> Iterator[MergeStep]:
    """Yield the same `MergeStep` stream as `bpe.fast.fast_steps` under the
    first-occurrence tie rule, all merges learned in one call before the first step comes out."""
    kernel = _kernel()
    import numpy as np

    vocab = list(base_tokens)
    token_ids = shared_token_ids(vocab, token_ids)
    edge = edge_symbol(target_vocab_size)
    symbols, chunk_lengths, frequencies = spelled_words(words, token_ids, edge)
    if len(symbols) >= 1 << 31:
        raise BpeError(f"{len(symbols):,} symbols are more than the compiled engine's 32-bit positions hold")
    contents = array("i")  # each token's characters (or bytes) as code units, end to end
    content_ends = array("q")
    for token in vocab:
        contents.extend(token if type(token) is bytes else map(ord, token))
        content_ends.append(len(contents))
    learned = kernel(
        np.frombuffer(symbols, np.int32),  # the array's own memory, which the kernel merges in
        np.frombuffer(chunk_lengths, np.uint32),
        np.frombuffer(frequencies, np.uint64),
        np.frombuffer(contents, np.int32),
        np.frombuffer(content_ends, np.int64),
        edge,
        target_vocab_size,
        minimum_pair_frequency,
        -1 if max_vocab_characters is None else max_vocab_characters,
        CHANGES_KEPT,
        top_k,
        DEAD,
        SWEEP_SLACK,
    )
    del symbols
    lefts, rights, made, frequencies, lengths, change_ends, top_ends, *rest = learned
    changed_lefts, changed_rights, deltas, top_lefts, top_rights, top_counts, stop = rest
    start = top_start = 0
    for number, (a, b, token_id, frequency, length, end, top_end) in enumerate(
        zip(
            lefts.tolist(),
            rights.tolist(),
            made.tolist(),
            frequencies.tolist(),
            lengths.tolist(),
            change_ends.tolist(),
            top_ends.tolist(),
        ),
        1,
    ):
        top_pairs = [  # (before the merge: its token is not in `vocab` yet)
            ((vocab[x], vocab[y]), found)
            for x, y, found in zip(
                top_lefts[top_start:top_end].tolist(),
                top_rights[top_start:top_end].tolist(),
                top_counts[top_start:top_end].tolist(),
            )
        ]
        top_start = top_end
        token = vocab[a] + vocab[b]
        new = token_id == len(vocab)
        if new:
            token_ids[token] = token_id
            vocab.append(token)
        changes = {
            (vocab[x], vocab[y]): delta
            for x, y, delta in zip(
                changed_lefts[start:end].tolist(), changed_rights[start:end].tolist(), deltas[start:end].tolist()
            )
        }
        start = end
        yield make_step(
            number=number,
            pair=(vocab[a], vocab[b]),
            token=token,
            token_id=token_id,
            frequency=frequency,
            top_pairs=top_pairs,
            changes=changes,
            sequence_length=length,
            vocab_size=len(vocab),
            new=new,
        )
    return _STOPS[stop]


@cache
def _kernel():
    """The compiled merge loop (compiled once a process, or loaded from numba's cache)."""
    try:
        import numba  # noqa: F401  (only to know it is there, before the module that needs it)
    except ImportError:
        raise BpeError(f"compiled merges need numba: pip install {NUMBA} (or train without them)") from None
    from bpe.scale.merge_kernel import learn_merges

    return learn_merges
