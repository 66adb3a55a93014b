"""`python -m bpe.benchmarks`: speed of the fast paths, as ratios against the reference
run in the same process (never timed assertions in tests).

What it measures (WikiText-2 valid+test from the shared data, or ``--text FILE``):

1. training 500,000 characters to vocab 1,000: fast engine vs a copy of the tutorial's own
   loop (`bpe.benchmarks.tutorial_loop`) and the reference engine (and Hugging Face
   `tokenizers` on the same whole-text job, when installed);
2. training all 2.4 M characters to vocab 5,000 with the fast engine: seconds (the best of
   3) and peak memory, in a fresh subprocess so the figure is this job's alone;
3. encoding 1 M characters with a 1,000-token vocabulary: `BPETokenizer.encode` vs replaying
   the merges one by one;
4. tie-heavy training (the-verdict.txt, minimum frequency 1, vocab 10,000: fast vs
   reference), and the time per merge to vocab 10,000 against vocab 5,000;
5. the byte-level / GPT-2 section from `bpe.benchmarks.bytes_level`;
6. Stanford CS336's `train_bpe` job (`bench_cs336`: corpus.en to vocab 500 under the cs336
   preset, its 243 merges checked against the course's reference) beside the course's own
   figures; alone: ``python -m bpe.benchmarks cs336``;
7. the speed targets, each with its measured value and the two sides of its ratio.

``--quick`` shrinks every job (for a smoke run); the figures quoted in the README come
from a full run.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from bpe.alphabet import from_gpt2_spelling
from bpe.benchmarks import bytes_level
from bpe.benchmarks.timing import best_of, timed
from bpe.benchmarks.tutorial_loop import tutorial_train
from bpe.corpora.corpus import python_reference_text
from bpe.encoder import replay_merges
from bpe.io.files import atomic_write_bytes
from bpe.paths import PROJECT_ROOT, shared_data_dir
from bpe.tokenizer import BPETokenizer
from bpe.training import CS336, preset_fields, train_steps


def default_text() -> str:
    parts = [shared_data_dir() / "wikitext-2" / "valid.txt", shared_data_dir() / "wikitext-2" / "test.txt"]
    missing = [str(p) for p in parts if not p.is_file()]
    if missing:
        sys.exit(f"benchmark text not found: {', '.join(missing)}; pass --text FILE or set BPE_SHARED_DATA")
    return "".join(p.read_text(encoding="utf-8") for p in parts)


def bench_training(text: str, chars: int, vocab: int, with_hf: bool) -> dict:
    """Fast engine, reference engine and the tutorial's own loop on one job, in one process."""
    sample = text[:chars]
    # The fast engine's half second, the best of 3 (a moment's load on a shared machine
    # moves it by a tenth); the others take tens of seconds, once.
    fast_merges, fast_s = best_of(
        3, lambda: [s.pair for s in train_steps(sample, target_vocab_size=vocab, engine="fast", top_k=10)]
    )
    ref_merges, ref_s = timed(
        lambda: [s.pair for s in train_steps(sample, target_vocab_size=vocab, engine="reference", top_k=10)]
    )
    tutorial_merges, tutorial_s = timed(lambda: tutorial_train(sample, vocab))
    if not fast_merges == ref_merges == tutorial_merges:
        sys.exit("engines disagree: fast, reference and the tutorial's loop learn different merges")
    print(
        f"[train] {chars:,} chars → vocab {vocab}: tutorial's loop {tutorial_s:.2f} s, reference {ref_s:.2f} s, "
        f"fast {fast_s:.3f} s; fast is {tutorial_s / fast_s:.1f}x the tutorial's loop and {ref_s / fast_s:.1f}x "
        f"the reference; the reference takes {ref_s / tutorial_s:.2f}x the tutorial's time "
        f"({len(fast_merges)} merges, identical)"
    )
    out = {
        "chars": chars,
        "vocab": vocab,
        "reference_s": ref_s,
        "fast_s": fast_s,
        "tutorial_s": tutorial_s,
        "ratio": ref_s / fast_s,
        "tutorial_ratio": tutorial_s / fast_s,
    }
    if with_hf:
        hf_s = _hf_whole_text(sample, vocab)
        if hf_s is not None:
            print(
                f"[train] Hugging Face tokenizers, same whole-text job: {hf_s:.2f} s "
                f"(fast is {hf_s / fast_s:.1f}x faster)"
            )
            out["hf_s"] = hf_s
    return out


def _hf_whole_text(sample: str, vocab: int) -> float | None:
    try:
        from tokenizers import Tokenizer, models, trainers
    except ImportError:
        print("[train] Hugging Face tokenizers not installed: skipped")
        return None
    tok = Tokenizer(models.BPE())  # no pre-tokenizer: the whole text is one sequence, as here
    trainer = trainers.BpeTrainer(vocab_size=vocab, min_frequency=2, show_progress=False)
    _, seconds = timed(lambda: tok.train_from_iterator([sample], trainer=trainer))
    return seconds


def bench_big_training(text_path: str | None, vocab: int, quick: bool, top_k: int = 0) -> dict:
    """Run in a fresh interpreter so peak memory is this job's alone. ``top_k=0`` is what
    `BPETokenizer.train` and `python -m bpe build` do; the app records 20 pairs a step."""
    code = (
        "import json, resource\n"
        "from bpe.benchmarks.timing import best_of\n"
        "from bpe.benchmarks.training import default_text\n"
        "from bpe.training import train_steps\n"
        f"text = open({text_path!r}, encoding='utf-8').read() if {text_path!r} else default_text()\n"
        f"text = text[:{300_000 if quick else 'len(text)'}]\n"
        f"steps, seconds = best_of(3, lambda: sum(1 for _ in train_steps(text, target_vocab_size={vocab}, "
        f"engine='fast', top_k={top_k})))\n"
        "peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024\n"
        "print(json.dumps({'chars': len(text), 'merges': steps, 'seconds': seconds, 'peak_mb': peak}))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True)
    out = json.loads(result.stdout.strip().splitlines()[-1])
    print(
        f"[train] {out['chars']:,} chars → vocab {vocab}, fast engine, top_k={top_k}: {out['seconds']:.2f} s, "
        f"peak memory {out['peak_mb']:.0f} MB (whole process), {out['merges']} merges"
    )
    return out


def bench_tie_heavy(path: Path, vocab: int) -> dict:
    """Minimum frequency 1 on a short text: thousands of pairs tie at the top every step."""
    text = path.read_text(encoding="utf-8")
    fast_steps_, fast_s = timed(
        lambda: [s.pair for s in train_steps(text, target_vocab_size=vocab, minimum_pair_frequency=1, top_k=10)]
    )
    ref_steps, ref_s = timed(
        lambda: [
            s.pair
            for s in train_steps(text, target_vocab_size=vocab, minimum_pair_frequency=1, engine="reference", top_k=10)
        ]
    )
    if fast_steps_ != ref_steps:
        sys.exit("engines disagree on the tie-heavy job")
    print(
        f"[ties] {path.name} ({len(text):,} chars), minimum frequency 1 → vocab {vocab:,}: reference {ref_s:.2f} s, "
        f"fast {fast_s:.2f} s ({fast_s / ref_s:.3f} of the reference; {len(ref_steps):,} merges, identical)"
    )
    return {"chars": len(text), "merges": len(ref_steps), "reference_s": ref_s, "fast_s": fast_s}


def bench_vocab_growth(text: str, small: int, large: int) -> dict:
    """Seconds per merge of the fast engine (what the app runs) on the Python language
    reference to ``small`` and to ``large`` tokens: late merges tie by the thousand, and
    the cost of a step must not grow with how many pairs share the top count."""
    small_steps, small_s = timed(lambda: len(list(train_steps(text, target_vocab_size=small, top_k=20))))
    large_steps, large_s = timed(lambda: len(list(train_steps(text, target_vocab_size=large, top_k=20))))
    per_small, per_large = small_s / max(small_steps, 1), large_s / max(large_steps, 1)
    print(
        f"[ties] the Python language reference ({len(text):,} chars), fast engine: to {small:,} {small_s:.2f} s "
        f"({per_small * 1000:.2f} ms/merge), to {large:,} {large_s:.2f} s ({per_large * 1000:.2f} ms/merge): "
        f"{per_large / per_small:.2f}x per merge"
    )
    return {"small_s": small_s, "large_s": large_s, "per_merge_ratio": per_large / per_small}


def bench_encoding(text: str, chars: int, vocab: int) -> dict:
    sample = text[:chars]
    # base characters from the encoded text too, as the tutorial takes them from all splits
    tok = BPETokenizer.train(text[:500_000], vocab, base_tokens=sorted(set(text[:500_000]) | set(sample)))
    ids, fast_s = timed(lambda: tok.encode(sample))
    replayed, replay_s = timed(lambda: replay_merges(sample, tok.merges))
    if [tok.itos[i] for i in ids] != replayed:
        sys.exit("encoders disagree: BPETokenizer.encode and the merge replay differ")
    mb = len(sample.encode("utf-8")) / 1e6
    print(
        f"[encode] {chars:,} chars, vocab {tok.vocab_size}: replay {replay_s:.2f} s, BPETokenizer.encode "
        f"{fast_s:.2f} s ({mb / fast_s:.2f} MB/s), {replay_s / fast_s:.1f}x the replay, identical tokens"
    )
    return {"chars": chars, "replay_s": replay_s, "fast_s": fast_s, "ratio": replay_s / fast_s, "mb_per_s": mb / fast_s}


# The course's figures for its train_bpe test (assignment 1's handout and its test of train_bpe):
# the reference implementation takes 0.38 s on the instructor's laptop; the test fails past 1.5 s.
CS336_REFERENCE_S, CS336_TEST_BAR_S = 0.38, 1.5


def bench_cs336(repeats: int = 5) -> dict | None:
    """CS336's `train_bpe` job as a student's test runs it: corpus.en (the shared data) to
    vocab 500 with <|endoftext|> under the cs336 preset, `BPETokenizer.train` (the text read
    and cut, the merges learned, the tokenizer built), the best of ``repeats``. The merges
    are checked against the course's reference first. None when the fixtures are absent."""
    folder = shared_data_dir() / "cs336"
    corpus, reference = folder / "corpus.en", folder / "train-bpe-reference-merges.txt"
    if not (corpus.is_file() and reference.is_file()):
        print(f"[cs336] skipped: CS336's fixtures are not in {folder}")
        return None
    expected = [tuple(map(from_gpt2_spelling, line.split(" "))) for line in reference.read_text("utf-8").splitlines()]
    times = []
    for _ in range(repeats):
        tokenizer, seconds = timed(
            lambda: BPETokenizer.train(corpus.read_text(encoding="utf-8"), 500, **preset_fields(CS336))
        )
        times.append(seconds)
        if tokenizer.merges != expected:
            sys.exit("the cs336 preset does not give the course's reference merges on corpus.en")
    best = min(times)
    print(
        f"[cs336] corpus.en ({corpus.stat().st_size:,} bytes) -> vocab 500 under the cs336 preset: {best:.3f} s (best of "
        f"{repeats}; {len(expected)} merges, the course's reference exactly); the course's reference implementation "
        f"{CS336_REFERENCE_S} s on the instructor's laptop, its test's bar {CS336_TEST_BAR_S} s: "
        f"{best / CS336_TEST_BAR_S:.2f} of the bar"
    )
    return {"seconds": best, "times": times, "merges": len(expected)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bpe.benchmarks", description=__doc__.split("\n\n")[0])
    parser.add_argument("--text", help="UTF-8 text to benchmark on (default: WikiText-2 valid+test)")
    parser.add_argument("--quick", action="store_true", help="small jobs, for a smoke run")
    parser.add_argument("--skip-hf", action="store_true", help="skip Hugging Face tokenizers (126 s at full size)")
    parser.add_argument("--skip-bytes", action="store_true", help="skip the byte-level / GPT-2 section")
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    text = Path(args.text).read_text(encoding="utf-8") if args.text else default_text()
    quick = args.quick
    figures = {
        "train_500k": bench_training(
            text, 50_000 if quick else 500_000, 300 if quick else 1_000, with_hf=not args.skip_hf
        ),
        "train_all": bench_big_training(args.text, 1_000 if quick else 5_000, quick),
        "train_all_top20": bench_big_training(args.text, 1_000 if quick else 5_000, quick, top_k=20),
        "encode_1m": bench_encoding(text, 100_000 if quick else 1_000_000, 1_000),
    }
    verdict = shared_data_dir() / "the-verdict.txt"
    if verdict.is_file():
        figures["ties"] = bench_tie_heavy(verdict, 2_000 if quick else 10_000)
    python_reference = python_reference_text()[: 100_000 if quick else 500_000]
    figures["vocab_growth"] = bench_vocab_growth(
        python_reference, 1_000 if quick else 5_000, 2_000 if quick else 10_000
    )
    if not args.skip_bytes:
        figures["bytes"] = bytes_level.run_all(text, quick=quick)
    cs336 = bench_cs336()
    if cs336 is not None:
        figures["cs336"] = cs336
    print_targets(figures, judged=not quick)
    if args.json:
        atomic_write_bytes(args.json, json.dumps(figures, indent=2).encode("utf-8"))
    return 0


def print_targets(figures: dict, *, judged: bool = True) -> None:
    """Each target of the speed issue beside its measured value and the two sides of its ratio.
    Not ``judged`` (a ``--quick`` run: smaller jobs than the targets name), no row says met
    or missed: "train 500k chars" was 50,000 characters there, and 30x the tutorial's loop
    on those says nothing of the 100x asked for 500,000."""
    if judged:
        print("\n[targets] (the app's page times: .venv/bin/python tests/app/measure_render.py)")
    else:
        print("\n[targets] not judged: --quick ran smaller jobs than the targets name (run without it)")
    for target, measured, met in target_rows(figures):
        verdict = ("met " if met else "MISS") if judged else "  - "
        print(f"  {verdict}  {target}: {measured}")


def target_rows(figures: dict) -> list[tuple[str, str, bool]]:
    """``(target, what was measured, met?)`` for each target the figures say something about."""
    rows = []
    train, big, encode = figures["train_500k"], figures["train_all"], figures["encode_1m"]
    rows.append(
        (
            "train 500k chars -> 1,000: >= 100x the tutorial's loop",
            f"{train['tutorial_ratio']:.1f}x ({train['tutorial_s']:.2f} s / {train['fast_s']:.3f} s)",
            train["tutorial_ratio"] >= 100,
        )
    )
    rows.append(
        (
            "reference at least as fast as the tutorial's loop",
            f"{train['reference_s'] / train['tutorial_s']:.2f}x its time ({train['reference_s']:.2f} s / "
            f"{train['tutorial_s']:.2f} s)",
            train["reference_s"] <= train["tutorial_s"],
        )
    )
    rows.append(
        (
            "all 2.4 M chars -> 5,000: <= 3 s",
            f"{big['seconds']:.2f} s, peak {big['peak_mb']:.0f} MB",
            big["seconds"] <= 3,
        )
    )
    if "ties" in figures:
        ties = figures["ties"]
        rows.append(
            (
                "the-verdict.txt, min frequency 1 -> 10,000: <= 1/10 of the reference",
                f"{ties['fast_s'] / ties['reference_s']:.3f} ({ties['fast_s']:.2f} s / {ties['reference_s']:.2f} s)",
                ties["fast_s"] <= ties["reference_s"] / 10,
            )
        )
    growth = figures["vocab_growth"]
    rows.append(
        (
            "the Python reference to 10,000 within 2x of its time to 5,000 per merge",
            f"{growth['per_merge_ratio']:.2f}x ({growth['large_s']:.2f} s / {growth['small_s']:.2f} s in all)",
            growth["per_merge_ratio"] <= 2,
        )
    )
    rows.append(
        ("encode 1 M chars at vocab 1,000: >= 2 MB/s", f"{encode['mb_per_s']:.2f} MB/s", encode["mb_per_s"] >= 2)
    )
    if "cs336" in figures:
        rows.append(
            (
                f"CS336 corpus.en -> 500 under the preset: <= {CS336_TEST_BAR_S} s (the course's test bar)",
                f"{figures['cs336']['seconds']:.3f} s (its reference: {CS336_REFERENCE_S} s on the instructor's laptop)",
                figures["cs336"]["seconds"] <= CS336_TEST_BAR_S,
            )
        )
    byte_figures = figures.get("bytes", {})
    training = byte_figures.get("training", {})
    if "hf_s" in training:
        rows.append(
            (
                "byte-level GPT-2-split training -> 5,000: <= Hugging Face's time",
                f"{training['ours_s'] / training['hf_s']:.2f}x ({training['ours_s']:.2f} s / {training['hf_s']:.2f} s)",
                training["ours_s"] <= training["hf_s"],
            )
        )
    for merges, against in byte_figures.get("rustbpe", {}).items():
        rows.append(
            (
                f"BPETokenizer.train, bytes, GPT-2 split -> {merges:,} merges: "
                f">= {bytes_level.TARGET_RUSTBPE_CPU}x rustbpe's CPU",
                f"{against['ratio']:.2f}x ({against['rustbpe_cpu_s']:.3f} s / {against['ours_cpu_s']:.3f} s)",
                against["ratio"] >= bytes_level.TARGET_RUSTBPE_CPU,
            )
        )
    gpt2 = byte_figures.get("gpt2", {})
    if "tiktoken_mb_s" in gpt2:
        ratio = gpt2["ours_mb_s"] / gpt2["tiktoken_mb_s"]
        rows.append(
            (
                "GPT-2 encoding, cold cache: >= 0.75x tiktoken",
                f"{ratio:.2f}x ({gpt2['ours_mb_s']:.2f} MB/s / {gpt2['tiktoken_mb_s']:.2f} MB/s)",
                ratio >= 0.75,
            )
        )
    return rows


if __name__ == "__main__":
    sys.exit(main())
