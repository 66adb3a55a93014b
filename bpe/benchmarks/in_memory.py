"""`python -m bpe.benchmarks.in_memory`: what training a text whole in one process costs in
memory, the figures behind `bpe.training_memory.in_memory_bytes`.

Each job runs in a fresh interpreter (so its peak resident size is its own): read the
text, train with the fast engine, report ``ru_maxrss``. The bytes per character are the
slope between the two largest sizes; the fixed part is what is left at the smallest.
The text is the shared data concatenated, repeated to reach the larger sizes (repetition
does not change what whole-text training holds per character).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

from bpe.paths import PROJECT_ROOT, shared_data_dir

JOB = """
import json, resource, sys
from bpe.training import train_steps
from bpe.benchmarks.in_memory import corpus_text
text = corpus_text({characters})
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
steps = sum(1 for _ in train_steps(text, target_vocab_size={vocab}, alphabet={alphabet!r},
                                     pretokenizer={pretokenizer!r}, top_k={top_k}))
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({{"peak": peak, "before": before, "steps": steps}}))
"""


def shared_text() -> str:
    """The shared texts concatenated, once (about 5.9 M characters)."""
    folder = shared_data_dir()
    parts = [folder / "tinyshakespeare" / "input.txt", folder / "wikitext-2" / "valid.txt"]
    parts += [folder / "wikitext-2" / "test.txt", folder / "taylorswift.txt", folder / "the-verdict.txt"]
    text = "".join(path.read_text(encoding="utf-8") for path in parts if path.is_file())
    if not text:
        sys.exit(f"no shared texts under {folder}; set BPE_SHARED_DATA")
    return text


def corpus_text(characters: int) -> str:
    """The shared texts concatenated, repeated to ``characters`` characters."""
    text = shared_text()
    return (text * (characters // len(text) + 1))[:characters]


def peak_bytes(characters: int, alphabet: str, pretokenizer: str | None, vocab: int, top_k: int) -> dict:
    code = JOB.format(characters=characters, vocab=vocab, alphabet=alphabet, pretokenizer=pretokenizer, top_k=top_k)
    result = subprocess.run([sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bpe.benchmarks.in_memory", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000_000, 4_000_000, 8_000_000])
    parser.add_argument("--vocab", type=int, default=1_000)
    parser.add_argument("--top-k", type=int, default=10)
    args = parser.parse_args(argv)
    sizes = sorted(set(args.sizes))
    if len(sizes) < 2 or sizes[0] < 1:  # the slope is taken between the two largest
        parser.error(f"--sizes needs two different sizes of 1 character or more, got {' '.join(map(str, args.sizes))}")
    for alphabet in ("characters", "bytes"):
        for pretokenizer in (None, "gpt2"):
            peaks = [peak_bytes(size, alphabet, pretokenizer, args.vocab, args.top_k)["peak"] for size in sizes]
            slope = (peaks[-1] - peaks[-2]) / (sizes[-1] - sizes[-2])
            fixed = peaks[0] - slope * sizes[0]
            shown = ", ".join(f"{size / 1e6:g} M chars: {peak / 2**20:,.0f} MiB" for size, peak in zip(sizes, peaks))
            print(
                f"{alphabet:<10} {pretokenizer or 'none':<5} {shown}; {slope:.1f} bytes per character "
                f"+ {fixed / 2**20:,.0f} MiB"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
