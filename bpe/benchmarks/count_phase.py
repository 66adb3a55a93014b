"""`python -m bpe.benchmarks.count_phase`: speed and memory of the count phase.

1. Speed: the shared texts concatenated into one file (``--copies N``: repeated N times), counted (GPT-2 split, bytes) on one
   process, on two, and on a two-worker Dask `LocalCluster` on loopback, in MB/s; the three
   tables must be identical.
2. Memory: corpora of growing size made by repeating the shared texts as separate files
   (repetition only for this check: the distinct chunks stay the same, so what grows with
   the corpus would show), each counted in a fresh interpreter; peak resident size of the
   main process and of the largest worker.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bpe.benchmarks.in_memory import shared_text
from bpe.paths import PROJECT_ROOT
from bpe.scale.count_phase import count_corpus
from bpe.scale.partitions import ReadOptions

MEMORY_JOB = """
import json, resource, sys
from bpe.scale.count_phase import count_corpus
counts = count_corpus([{folder!r}], alphabet="bytes", pretokenizer="gpt2", workers={workers})
# VmHWM, not ru_maxrss: that one survives exec, so it would report the benchmark's own peak
hwm = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({{"main": hwm * 1024,
                   "worker": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024,
                   "characters": counts.characters, "chunks": len(counts.chunks)}}))
"""


def speed(path: Path, partition_mb: int) -> None:
    options = ReadOptions(partition_bytes=partition_mb << 20)
    size = path.stat().st_size
    tables = {}
    for name, settings in (("1 worker", {"workers": 1}), ("2 workers", {"workers": 2}), ("Dask 2 workers", None)):
        cpu_before = _cpu_seconds()
        if settings is None:
            from distributed import LocalCluster

            with LocalCluster(
                n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
            ) as cluster:
                started = time.perf_counter()
                tables[name] = count_corpus(
                    [path], alphabet="bytes", pretokenizer="gpt2", options=options, dask=cluster.scheduler_address
                )
                seconds = time.perf_counter() - started
        else:
            started = time.perf_counter()
            tables[name] = count_corpus([path], alphabet="bytes", pretokenizer="gpt2", options=options, **settings)
            seconds = time.perf_counter() - started
        cpu = _cpu_seconds() - cpu_before  # workers included, once they have ended
        print(
            f"[speed] {name:<15} {size / 1e6:.1f} MB in {seconds:.2f} s: {size / 1e6 / seconds:.1f} MB/s "
            f"(CPU {cpu:.2f} s in all processes, {size / 1e6 / cpu:.1f} MB per CPU second)"
        )
    first = next(iter(tables.values()))
    print(f"[speed] tables identical: {all(table == first for table in tables.values())}")


def _cpu_seconds() -> float:
    """CPU time of this process and of its children that have ended (pool and cluster workers)."""
    import resource

    mine, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return mine.ru_utime + mine.ru_stime + children.ru_utime + children.ru_stime


def memory(folder: Path, sizes_mb: list[int], workers: int) -> None:
    text = shared_text()
    one = text.encode("utf-8")
    for size_mb in sizes_mb:
        corpus = folder / f"corpus-{size_mb}"
        corpus.mkdir()
        copies = max(1, round(size_mb * 1e6 / len(one)))
        for copy in range(copies):
            (corpus / f"part-{copy:04d}.txt").write_bytes(one)
        code = MEMORY_JOB.format(folder=str(corpus), workers=workers)
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True
        )
        seconds = time.perf_counter() - started
        out = json.loads(done.stdout.strip().splitlines()[-1])
        print(
            f"[memory] {copies * len(one) / 1e6:.0f} MB ({copies} files), {workers} workers: main {out['main'] / 2**20:.0f} "
            f"MiB, largest worker {out['worker'] / 2**20:.0f} MiB peak; {out['chunks']:,} distinct chunks; {seconds:.1f} s"
        )
        shutil.rmtree(corpus)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bpe.benchmarks.count_phase", description=__doc__.split("\n\n")[0])
    parser.add_argument("--partition-mb", type=int, default=1, help="partition size for the speed runs (default 1 MB)")
    parser.add_argument(
        "--copies", type=int, default=1, help="repeat the shared texts this many times for the speed runs"
    )
    parser.add_argument("--sizes-mb", type=int, nargs="+", default=[50, 200])
    parser.add_argument("--workers", type=int, default=2, help="workers for the memory runs")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--skip-memory", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        if not args.skip_speed:
            path = folder / "shared.txt"
            path.write_text(shared_text() * args.copies, encoding="utf-8")
            speed(path, args.partition_mb)
        if not args.skip_memory:
            memory(folder, args.sizes_mb, args.workers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
