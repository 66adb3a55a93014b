"""Benchmarks for the byte-level world, called by `python -m bpe.benchmarks` (or run alone:
``python -m bpe.benchmarks.bytes_level``). Every ratio is measured in one process, one job after
the other, on the same text; nothing here asserts a time.

1. `bench_pretokenized_training`: byte-level training with GPT-2's pre-tokenizer to vocab
   5,000, our fast engine vs Hugging Face `tokenizers` (Rust) on the same text, with our
   time split into chunk counting and merging; and `bench_against_rustbpe`:
   `BPETokenizer.train` against rustbpe at interactive sizes (5,000 and 20,000 merges), the
   CPU of each training call.
2. `bench_gpt2_encoding`: encoding with OpenAI's GPT-2 vocabulary: `bpe.gpt2` (pure
   Python, cold cache: a fresh tokenizer per run) vs tiktoken (Rust) vs Hugging Face's
   GPT-2 built from the same local files; ids checked equal.

Optional packages (tokenizers, tiktoken, rustbpe) are imported when used; a missing one, or
missing GPT-2 files, skips that line with a message.
"""

from __future__ import annotations

import argparse
import sys
import time
from functools import partial
from importlib.util import find_spec
from pathlib import Path

from bpe.alphabet import BYTES
from bpe.benchmarks.scale import train_rustbpe
from bpe.benchmarks.timing import best_of, timed
from bpe.errors import BpeError
from bpe.fast import fast_steps
from bpe.gpt2.files import find_gpt2_files
from bpe.gpt2.tiktoken_check import tiktoken_gpt2
from bpe.gpt2.tokenizer import load_gpt2
from bpe.paths import shared_data_dir
from bpe.tokenizer import BPETokenizer
from bpe.training import prepare_words, train_steps


def _say(line: str) -> None:
    print(f"[bytes] {line}", flush=True)


# ==================== 1. Pre-tokenized byte-level training


def bench_pretokenized_training(text: str, vocab_size: int = 5_000, pretokenizer: str = "gpt2") -> dict:
    """Our fast engine vs Hugging Face `tokenizers`, byte-level, pre-tokenized, same text and vocab."""
    base = [bytes([value]) for value in range(256)]
    started = time.perf_counter()
    merges = sum(
        1
        for _ in train_steps(
            text,
            target_vocab_size=vocab_size,
            minimum_pair_frequency=2,
            engine="fast",
            top_k=0,
            alphabet=BYTES,
            pretokenizer=pretokenizer,
        )
    )
    ours = time.perf_counter() - started
    # Where the time goes: the same job in its two halves.
    started = time.perf_counter()
    words = prepare_words(text, BYTES, pretokenizer)
    counting = time.perf_counter() - started
    started = time.perf_counter()
    for _ in fast_steps(words, base, target_vocab_size=vocab_size, minimum_pair_frequency=2, top_k=0):
        pass
    merging = time.perf_counter() - started
    figures = {
        "characters": len(text),
        "vocab_size": vocab_size,
        "merges": merges,
        "ours_s": ours,
        "ours_counting_s": counting,
        "ours_merging_s": merging,
        "distinct_chunks": len(words),
    }
    _say(
        f"training {len(text):,} chars, bytes + {pretokenizer} pre-tokenizer, to vocab {vocab_size:,}: "
        f"ours {ours:.2f} s ({merges:,} merges; chunk counting {counting:.2f} s for {len(words):,} distinct "
        f"chunks, merging {merging:.2f} s)"
    )
    hf = _hf_training_seconds(text, vocab_size)
    if hf is not None:
        figures.update(hf_s=hf, ratio=ours / hf)
        _say(
            f"  Hugging Face tokenizers (ByteLevel, BpeTrainer min_frequency=2): {hf:.2f} s; "
            f"ours / HF = {ours / hf:.2f}x"
        )
    return figures


def _hf_training_seconds(text: str, vocab_size: int) -> float | None:
    try:
        from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    except ImportError:
        _say("  Hugging Face tokenizers not installed (pip install tokenizers): skipped")
        return None
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=2,
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    # Line by line, as its docs feed it (one 2.4 M-character string is slower for it).
    lines = text.splitlines(keepends=True)
    started = time.perf_counter()
    tokenizer.train_from_iterator(lines, trainer=trainer)
    return time.perf_counter() - started


INTERACTIVE_MERGES = (5_000, 20_000)  # the sizes a class trains live: a few seconds each
TARGET_RUSTBPE_CPU = 0.5  # rustbpe's CPU over ours, at least


def bench_against_rustbpe(text: str, merges_wanted: tuple[int, ...] = INTERACTIVE_MERGES, repeats: int = 3) -> dict:
    """CPU seconds of the training call alone, `BPETokenizer.train` (bytes, GPT-2's split: what
    the app and the API run) against rustbpe's ``train_from_iterator`` on the same lines and
    split, to each number of merges: the best of ``repeats``, the two taking turns.

    CPU, not wall: rustbpe counts on every core, so its CPU is what it costs a shared
    machine (its wall time is lower still). Both ask for 256 + merges tokens; ours stops
    early when no pair occurs twice (WikiText-2 valid+test: 19,965 merges of 20,000)."""
    if find_spec("rustbpe") is None:
        _say("  rustbpe not installed (pip install rustbpe): skipped")
        return {}
    lines = text.splitlines(keepends=True)

    def ours(merges: int) -> int:
        return len(BPETokenizer.train(text, 256 + merges, alphabet=BYTES, pretokenizer="gpt2").merges)

    def theirs(merges: int) -> int:
        return train_rustbpe(iter(lines), merges)

    figures = {}
    for wanted in merges_wanted:
        best_ours = best_theirs = float("inf")
        for _ in range(repeats):  # (in turns, not one best_of each: a moment's load hits both)
            our_merges, seconds = timed(partial(ours, wanted), clock=time.process_time)
            best_ours = min(best_ours, seconds)
            their_merges, seconds = timed(partial(theirs, wanted), clock=time.process_time)
            best_theirs = min(best_theirs, seconds)
        ratio = best_theirs / best_ours
        figures[wanted] = {
            "ours_cpu_s": best_ours,
            "rustbpe_cpu_s": best_theirs,
            "ratio": ratio,
            "ours_merges": our_merges,
            "rustbpe_merges": their_merges,
        }
        _say(
            f"  to {wanted:,} merges, CPU of the training call: BPETokenizer.train {best_ours:.3f} s "
            f"({our_merges:,} merges), rustbpe {best_theirs:.3f} s ({their_merges:,}); rustbpe takes "
            f"{ratio:.2f}x our CPU (target: at least {TARGET_RUSTBPE_CPU}x)"
        )
    return figures


# ==================== 2. GPT-2 encoding


def default_gpt2_text() -> Path | None:
    path = shared_data_dir() / "wikitext-2" / "test.txt"
    return path if path.is_file() else None


def bench_gpt2_encoding(
    text: str, *, files: tuple[Path, Path] | None = None, repeats: int = 3, label: str = ""
) -> dict:
    """MB/s of `bpe.gpt2` (cold cache), tiktoken and Hugging Face's GPT-2 on ``text``; ids compared."""
    files = files or find_gpt2_files()
    if files is None:
        _say("GPT-2 encoding: encoder.json / vocab.bpe not found (python -m bpe gpt2 download): skipped")
        return {}
    encoder, vocab = files
    size = len(text.encode("utf-8"))
    started = time.perf_counter()
    ours = load_gpt2(encoder, vocab)
    load_s = time.perf_counter() - started
    # Cold: a fresh cache every run, so each run pays for every distinct chunk once.
    ids, cold_s = best_of(repeats, lambda: (ours.clear_cache(), ours.encode(text))[1])
    _, warm_s = best_of(repeats, lambda: ours.encode(text))
    figures = {
        "bytes": size,
        "tokens": len(ids),
        "load_s": load_s,
        "ours_s": cold_s,
        "ours_warm_s": warm_s,
        "ours_mb_s": size / cold_s / 1e6,
        "ours_warm_mb_s": size / warm_s / 1e6,
    }
    _say(
        f"GPT-2 encoding {label or f'{size:,} bytes'} ({len(ids):,} tokens): ours (pure Python) "
        f"{figures['ours_mb_s']:.2f} MB/s with a cold cache, {figures['ours_warm_mb_s']:.2f} MB/s warm "
        f"(loading the files: {load_s:.2f} s)"
    )
    figures.update(_tiktoken_figures(text, ids, encoder, vocab, size, repeats, figures["ours_mb_s"]))
    figures.update(_hf_gpt2_figures(text, ids, encoder, vocab, size, repeats, figures["ours_mb_s"]))
    return figures


def _tiktoken_figures(text, ids, encoder, vocab, size, repeats, ours_mb_s) -> dict:
    try:
        reference = tiktoken_gpt2(encoder, vocab)
    except BpeError as error:
        _say(f"  tiktoken: skipped ({error})")
        return {}
    reference.encode_ordinary(text[:10_000])  # warm up (thread pool, regex compilation)
    expected, seconds = best_of(repeats, lambda: reference.encode_ordinary(text))
    mb_s = size / seconds / 1e6
    same = expected == ids
    _say(
        f"  tiktoken (Rust): {mb_s:.2f} MB/s; ours is {ours_mb_s / mb_s:.2f}x its speed; "
        f"ids {'identical' if same else 'DIFFERENT'}"
    )
    return {"tiktoken_mb_s": mb_s, "ours_vs_tiktoken": ours_mb_s / mb_s, "tiktoken_ids_equal": same}


def _hf_gpt2_figures(text, ids, encoder, vocab, size, repeats, ours_mb_s) -> dict:
    try:
        from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    except ImportError:
        _say("  Hugging Face tokenizers not installed: skipped")
        return {}
    hf = Tokenizer(models.BPE.from_file(str(encoder), str(vocab)))
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf.decoder = decoders.ByteLevel()
    hf.encode(text[:10_000])
    encoding, seconds = best_of(repeats, lambda: hf.encode(text))
    mb_s = size / seconds / 1e6
    same = encoding.ids == ids
    _say(
        f"  Hugging Face tokenizers' GPT-2 (Rust, same files): {mb_s:.2f} MB/s; ours is {ours_mb_s / mb_s:.2f}x "
        f"its speed; ids {'identical' if same else 'DIFFERENT'}"
    )
    return {"hf_mb_s": mb_s, "ours_vs_hf": ours_mb_s / mb_s, "hf_ids_equal": same}


# ==================== Both


def run_all(text: str, *, quick: bool = False) -> dict:
    """What `python -m bpe.benchmarks` prints in its byte-level section."""
    training_text = text[:200_000] if quick else text
    figures = {"training": bench_pretokenized_training(training_text, 1_000 if quick else 5_000)}
    figures["rustbpe"] = bench_against_rustbpe(training_text, (500, 1_000) if quick else INTERACTIVE_MERGES)
    test_file = default_gpt2_text()
    if test_file is not None and not quick:
        gpt2_text, label = test_file.read_text(encoding="utf-8"), "WikiText-2 test.txt"
    else:
        gpt2_text, label = text[:200_000] if quick else text, ""
    figures["gpt2"] = bench_gpt2_encoding(gpt2_text, repeats=1 if quick else 3, label=label)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bpe.benchmarks.bytes_level", description=__doc__.split("\n\n")[0])
    parser.add_argument("--text", type=Path, help="UTF-8 text (default: WikiText-2 valid+test from the shared data)")
    parser.add_argument("--quick", action="store_true", help="small jobs, for a smoke run")
    args = parser.parse_args(argv)
    if args.text:
        text = args.text.read_text(encoding="utf-8")
    else:
        parts = [shared_data_dir() / "wikitext-2" / name for name in ("valid.txt", "test.txt")]
        if not all(part.is_file() for part in parts):
            sys.exit(f"benchmark text not found under {shared_data_dir()}; pass --text FILE or set BPE_SHARED_DATA")
        text = "".join(part.read_text(encoding="utf-8") for part in parts)
    run_all(text, quick=args.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
