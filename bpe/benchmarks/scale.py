"""`python -m bpe.benchmarks scale`: BPE at corpus scale against Hugging Face and rustbpe.

For each corpus size (``--sizes 16M,64M,100M,256M,1G`` by default) it builds a corpus of
that many characters (`bpe.benchmarks.scale_corpora`). ``--corpus open`` (the default, the
headline table) is real text found offline, then generated text that keeps meeting new
words at the rate Heaps' law fitted on the real text says (`bpe.benchmarks.open_corpus`);
``--corpus closed`` (the second table, with ``open,closed``) is real text, then word-level
Markov prose over a closed vocabulary, the best case for BPE. Each row says what its
corpus is made of, and how many distinct GPT-2 chunks it holds beside what the fit predicts.

Then, side by side in one run, each in a child process of its own: the project (count on
every core, then the merge phase, as ``bpe count`` + ``bpe train`` do, run file
included: its merges in Python below 100 M characters and in compiled code from there,
where numba is installed, `bpe.scale.compiled_merges.compiled_by_default`), the same with
its merges in Python at every size (``project-python``, as ``bpe train --no-compiled``)
and compiled at every size (``project-compiled``, as ``bpe train --compiled``), Hugging
Face ``tokenizers``' BpeTrainer and rustbpe, all byte-level with the GPT-2 split, to
32,000 and 50,000 merges: wall time, CPU time (the child and its
workers), peak resident memory (of the whole process tree, sampled), and the ratios.
``--tools ...,app`` adds `BPETokenizer.train` on the text read whole, as the app trains.
The compiled loop's first use, which compiles it (numba caches it on disk after), is timed
apart before the rows (`compiled_first_use`), so each row times the loop itself.
Under each project row, where its time went: read, pre-tokenize, count, reduce (the count
phase, CPU seconds summed over its workers), pair index, merges, write (the merge phase),
each beside what a native engine needs where that is known (`FLOORS`). Last, the targets
with their measured values: 100 M characters -> 32,000 merges in 30 s or less; 1 G
characters -> 50,000 merges in 60 s or less and at or below 0.8x rustbpe's wall time; at
most 4 MB per million characters; counts from 1 and 2 workers and from a Dask cluster
identical.

The machine's other work shares its cores: timings are of this machine as it was.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bpe.benchmarks import open_corpus
from bpe.benchmarks.scale_corpora import DEFAULT_SIZES, build_corpora, size_name
from bpe.cli.arguments import parse_size
from bpe.paths import PROJECT_ROOT
from bpe.scale.compiled_merges import COMPILED_FROM_CHARACTERS, compiled_by_default
from bpe.scale.count_phase import count_corpus
from bpe.scale.merge_phase import train_run_from_counts
from bpe.scale.run_file import RunSource, run_file_bytes
from bpe.tokenizer import BPETokenizer
from bpe.training import TrainingSettings

MERGES = (32_000, 50_000)
# The project as `bpe train` runs it unasked, and with its merge phase in Python
# (`--no-compiled`) or in compiled code (`--compiled`, where numba is installed) at every size.
PROJECT = "project"
PYTHON = "project-python"
COMPILED = "project-compiled"
PROJECT_TOOLS = (PROJECT, PYTHON, COMPILED)
TOOLS = (*PROJECT_TOOLS, "huggingface", "rustbpe")
APP = "app"  # BPETokenizer.train on the text whole, as the app and the API train: asked for by name
# ... in each alphabet and pre-tokenizer: "app" is bytes with GPT-2's split, as the peers
# train; "app-characters-whitespace" and the like name the others.
APP_MODES = {APP: ("bytes", "gpt2")} | {
    f"app-{alphabet}-{pretokenizer}": (alphabet, pretokenizer)
    for alphabet in ("bytes", "characters")
    for pretokenizer in ("whitespace", "gpt2", "gpt4")
    if (alphabet, pretokenizer) != ("bytes", "gpt2")
}
CORPORA = {
    "open": "open-vocabulary corpus (real text, then text whose distinct chunks keep growing as real text's do)",
    "closed": "closed-vocabulary corpus (real text, then word-level Markov prose over a fixed set of words)",
}
# GPT-2's split as its release spells it (no possessive quantifiers), for rustbpe's regex engine
GPT2_RELEASE_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
TARGET_SECONDS_100M = 30.0
TARGET_SECONDS_1G = 60.0
TARGET_RATIO_1G = 0.8  # of rustbpe's wall time
TARGET_MB_PER_MILLION = 4.0
# The project's steps, and what a native engine needs for each where there is a known
# floor: a DFA lexer splits GPT-2's pattern at about 0.7 s a GB, a regex engine at 20 to 33;
# 50,000 merges take a native trainer 5 to 15 s (a floor per GB, or for the whole step).
# The count phase's steps are CPU seconds summed over its workers, the merge phase's wall.
PHASES = ("read", "pre-tokenize", "count", "reduce", "pair index", "merges", "write")
FLOORS = {"pre-tokenize": ("per GB", 0.7, 33.0), "merges": ("50,000 merges", 5.0, 15.0)}
# The compiled loop's first use, measured apart from the rows (`compiled_first_use`): a
# text of this many characters trained to this many merges.
FIRST_USE_CHARACTERS = 1_000_000
FIRST_USE_MERGES = 1_000


# ==================== Jobs, each in a child process


def run_job(kind: str, corpus: str, merges: int) -> dict:
    """The job itself (in the child): train to ``merges`` merges, byte-level, GPT-2 split."""
    if kind in PROJECT_TOOLS:
        return _project_job(Path(corpus), merges, compiled={PROJECT: None, PYTHON: False, COMPILED: True}[kind])
    if kind == "huggingface":
        from tokenizers import Tokenizer, models, pre_tokenizers, trainers

        tokenizer = Tokenizer(models.BPE())
        tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
        trainer = trainers.BpeTrainer(
            vocab_size=256 + merges,
            min_frequency=2,
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
            show_progress=False,
        )
        tokenizer.train([corpus], trainer=trainer)
        return {"merges": tokenizer.get_vocab_size() - 256}
    if kind in APP_MODES:
        alphabet, pretokenizer = APP_MODES[kind]
        with open(corpus, encoding="utf-8", newline="") as file:  # the text exactly, \r\n kept
            text = file.read()
        read_mb = _tree_rss_bytes(os.getpid()) / 2**20
        base = 256 if alphabet == "bytes" else len(set(text))
        tokenizer = BPETokenizer.train(text, base + merges, alphabet=alphabet, pretokenizer=pretokenizer)
        return {"merges": len(tokenizer.merges), "read_mb": read_mb}
    if kind == "rustbpe":
        return {"merges": train_rustbpe(_lines(Path(corpus)), merges)}
    raise ValueError(f"unknown job {kind!r}")


def train_rustbpe(documents: Iterator[str], merges: int) -> int:
    """rustbpe, the peer, trained on ``documents`` to 256 + ``merges`` tokens with GPT-2's
    split, as the project trains byte-level: the merges it learned."""
    import rustbpe

    tokenizer = rustbpe.Tokenizer()
    tokenizer.train_from_iterator(documents, 256 + merges, pattern=GPT2_RELEASE_PATTERN)
    return tokenizer.vocab_size - 256


def _lines(path: Path, block_bytes: int = 1 << 20) -> Iterator[str]:
    """The file in pieces of about a megabyte that end at a line break (rustbpe's documents)."""
    with path.open(encoding="utf-8", newline="") as file:  # the text exactly, \r\n kept
        while piece := file.read(block_bytes):
            yield piece + file.readline()


def _project_job(corpus: Path, merges: int, compiled: bool | None) -> dict:
    """``bpe count`` on every core, then ``bpe train`` with its defaults (10 runners-up a
    step), its merges in compiled code or not (None: as it chooses unasked), the run file
    included; and where the time went (`PHASES`)."""

    started = time.perf_counter()
    progress: list = []
    counts = count_corpus([corpus], alphabet="bytes", pretokenizer="gpt2", on_progress=progress.append)
    counted = time.perf_counter() - started
    if compiled is None:  # (the merge phase's own choice, made here to report it)
        compiled = compiled_by_default(TrainingSettings(target_vocab_size=256 + merges), counts.characters)
    run = train_run_from_counts(counts, target_vocab_size=256 + merges, top_k=10, compiled=compiled)
    written = time.perf_counter()
    run_file = run_file_bytes(run, source=RunSource(name=corpus.stem), sample=counts.heldout_text)
    written = time.perf_counter() - written
    if compiled:
        # The compiled loop learns every merge before the first step comes out: its pair
        # index and merges are one figure, under "merges".
        steps = {"merges": run.training_seconds}
    else:
        indexed = run.step_seconds[0] if len(run.step_seconds) else run.training_seconds  # up to the first merge
        steps = {"pair index": indexed, "merges": run.training_seconds - indexed}
    return {
        "merges": len(run.steps),
        "compiled": compiled,
        "count_s": counted,
        "merge_s": run.training_seconds,
        "chunks": len(counts.chunks),
        "run_file_bytes": len(run_file),
        "phases": {
            **progress[-1].work_seconds,
            **steps,
            "write": written,
        },
    }


@dataclass(frozen=True)
class Measured:
    wall_s: float
    cpu_s: float
    peak_mb: float  # resident memory of the whole process tree, at its largest
    result: dict


def measure(kind: str, corpus: Path, merges: int, environment: dict | None = None) -> Measured:
    """Run one job in a fresh interpreter (``environment``: variables set for it); its wall
    time, CPU time and peak memory."""
    command = [sys.executable, "-m", "bpe.benchmarks.scale", "--job", kind, str(corpus), str(merges)]
    wall, cpu, peak, output = measure_command(command, environment)
    return Measured(wall, cpu, peak / 2**20, json.loads(output.strip().splitlines()[-1]))


def measure_command(command: list[str], environment: dict | None = None) -> tuple[float, float, int, str]:
    """Run a command; its wall seconds, CPU seconds (it and the workers it waited for),
    peak resident bytes of its process tree, and what it printed."""
    started = time.perf_counter()
    child = subprocess.Popen(
        command, cwd=PROJECT_ROOT, stdout=subprocess.PIPE, text=True, env=os.environ | (environment or {})
    )
    peak = 0
    while True:
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            break
        peak = max(peak, _tree_rss_bytes(child.pid))
        time.sleep(0.05)
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    output = child.stdout.read()
    child.stdout.close()
    if child.returncode != 0:
        raise RuntimeError(f"{' '.join(command[-4:])} failed (exit status {child.returncode})")
    # wait4's ru_maxrss is the largest process alone, and Linux starts a child's at the
    # parent's own peak (exec keeps the high-water mark of the memory it replaced): after
    # this process built a 1G corpus (238 MB), a bare interpreter's job read 238 MB. So it
    # counts only above this process's own peak; the sampled tree covers the rest.
    own_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    if usage.ru_maxrss * 1024 > own_peak:
        peak = max(peak, usage.ru_maxrss * 1024)
    return wall, usage.ru_utime + usage.ru_stime, peak, output


def _tree_rss_bytes(root: int) -> int:
    """Resident memory of a process and all its descendants, from /proc (Linux)."""
    parents: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as stat:
                    fields = stat.read().rsplit(b")", 1)[1].split()
                parents[int(entry.name)] = int(fields[1])
            except (OSError, IndexError, ValueError):
                continue
    tree, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        for pid, ppid in parents.items():
            if ppid == parent and pid not in tree:
                tree.add(pid)
                frontier.append(pid)
    total = 0
    for pid in tree:
        try:
            with open(f"/proc/{pid}/statm", "rb") as statm:
                total += int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            continue
    return total


def compiled_first_use(corpus: Path) -> dict:
    """What the compiled merge loop's first use costs, and a use once numba has cached it:
    a `project-compiled` job on the first `FIRST_USE_CHARACTERS` of ``corpus`` with an empty
    cache of its own (so numba compiles the loop, as on a fresh install), then with numba's
    own cache, filled first where it is not yet. The rows are timed after it: each is the
    loop itself, as every run after the first is."""
    with tempfile.TemporaryDirectory() as folder:
        sample = Path(folder) / "sample.txt"
        with corpus.open(encoding="utf-8", newline="") as file:
            sample.write_text(file.read(FIRST_USE_CHARACTERS), encoding="utf-8", newline="")
        cache = Path(folder) / "numba-cache"
        first = measure(COMPILED, sample, FIRST_USE_MERGES, {"NUMBA_CACHE_DIR": str(cache)})
        measure(COMPILED, sample, FIRST_USE_MERGES)  # fills numba's own cache
        cached = measure(COMPILED, sample, FIRST_USE_MERGES)
    return {"first": first.__dict__, "cached": cached.__dict__}


def counts_agree(corpus: Path) -> dict:
    """Count the corpus with one worker, two, and a Dask cluster of two on loopback; are
    the tables identical?"""
    import distributed

    def count(**where):
        started = time.perf_counter()
        table = count_corpus([corpus], alphabet="bytes", pretokenizer="gpt2", **where)
        return table, time.perf_counter() - started

    one, one_s = count(workers=1)
    two, two_s = count(workers=2)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        on_dask, dask_s = count(dask=cluster.scheduler_address)
    return {
        "identical": one == two == on_dask,
        "chunks": len(one.chunks),
        "seconds": {"1 worker": one_s, "2 workers": two_s, "Dask, 2 workers": dask_s},
    }


# ==================== The table and the targets


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bpe.benchmarks scale", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=DEFAULT_SIZES, help=f"corpus sizes in characters (default {DEFAULT_SIZES})")
    parser.add_argument("--merges", default=",".join(map(str, MERGES)), help="merge counts (default 32000,50000)")
    parser.add_argument(
        "--tools",
        default=",".join(TOOLS),
        help=f"which to run (default {','.join(TOOLS)}; also {APP}: BPETokenizer.train, bytes and GPT-2's split; "
        f"{', '.join(mode for mode in APP_MODES if mode != APP)}: in that alphabet and pre-tokenizer)",
    )
    parser.add_argument(
        "--corpus",
        default="open",
        help="open (the default, the headline table) or closed, or open,closed for both tables: "
        + "; ".join(f"{name}: {what}" for name, what in CORPORA.items()),
    )
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    parser.add_argument(
        "--skip-agreement", action="store_true", help="skip counting with 1, 2 and Dask workers (smallest size)"
    )
    parser.add_argument("--job", nargs=3, metavar=("KIND", "CORPUS", "MERGES"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.job:  # in the child process
        kind, corpus, merges = args.job
        print(json.dumps(run_job(kind, corpus, int(merges))))
        return 0
    sizes = [parse_size(size) for size in args.sizes.split(",")]
    merge_counts = [int(m) for m in args.merges.split(",")]
    tools = [tool for tool in args.tools.split(",") if tool]
    for given, known, what in ((tools, (*TOOLS, *APP_MODES), "tool"), (args.corpus.split(","), CORPORA, "corpus")):
        unknown = sorted(set(given) - set(known))
        if unknown:
            parser.error(f"unknown {what} {', '.join(unknown)}: choose from {', '.join(known)}")
    tools = [tool for tool in tools if _available(tool)]
    print(f"[scale] {os.cpu_count()} cores, shared with whatever else runs on this machine; tools: {', '.join(tools)}")
    fit = open_corpus.heaps_fit()
    print(f"[scale] {open_corpus.fit_line(fit)}")
    rows = []
    agreement = first_use = None
    for number, kind in enumerate(args.corpus.split(","), start=1):
        corpora = open_corpus.build_open_corpora(sizes) if kind == "open" else build_corpora(sizes)
        distinct = open_corpus.distinct_chunks(list(corpora.values()))
        compiling = COMPILED in tools or (PROJECT in tools and max(sizes) >= COMPILED_FROM_CHARACTERS)
        if compiling and first_use is None:
            first_use = compiled_first_use(corpora[min(sizes)].path)
            print(f"\n[scale] {first_use_line(first_use)}")
        print(f"\n[scale] table {number}: the {CORPORA[kind]}")
        for size in sizes:
            print(f"\n[scale] {size_name(size)} characters: {corpora[size].made_of}")
            print(f"  {open_corpus.distinct_line(distinct[size], size, fit)}")
            for merges in merge_counts:
                measured = {}
                for tool in tools:
                    measured[tool] = measure(tool, corpora[size].path, merges)
                    row = {"corpus": kind, "size": size, "distinct_chunks": distinct[size], "merges": merges}
                    rows.append(row | {"tool": tool, **measured[tool].__dict__})
                _print_rows(size, merges, measured)
                for tool in PROJECT_TOOLS:
                    if tool in measured:
                        _print_phases(size, merges, tool, measured[tool])
        if number == 1 and set(PROJECT_TOOLS) & set(tools) and not args.skip_agreement:
            agreement = counts_agree(corpora[min(sizes)].path)
            timings = ", ".join(f"{where} {seconds:.1f} s" for where, seconds in agreement["seconds"].items())
            print(f"\n[scale] counts of {size_name(min(sizes))} characters: {timings}")
    headline = args.corpus.split(",")[0]
    _print_targets([row for row in rows if row["corpus"] == headline], agreement, min(sizes), headline)
    if args.json:
        args.json.write_text(
            json.dumps(
                {"heaps_fit": fit.__dict__, "rows": rows, "counts_agree": agreement, "compiled_first_use": first_use},
                indent=2,
            ),
            encoding="utf-8",
        )
    return 0


def first_use_line(first_use: dict) -> str:
    """``"The compiled merge loop's first use (1M characters to 1,000 merges) compiles it: 14.1 s, 310 MB; ..."``."""
    first, cached = first_use["first"], first_use["cached"]
    return (
        f"The compiled merge loop's first use ({size_name(FIRST_USE_CHARACTERS)} characters to "
        f"{FIRST_USE_MERGES:,} merges) compiles it: {first['wall_s']:.1f} s, {first['peak_mb']:.0f} MB; once numba has cached it, "
        f"{cached['wall_s']:.1f} s, {cached['peak_mb']:.0f} MB. The rows below are timed after it"
    )


def _available(tool: str) -> bool:
    module = {"huggingface": "tokenizers", "rustbpe": "rustbpe", COMPILED: "numba"}.get(tool)
    if module is None:
        return True
    import importlib.util

    if importlib.util.find_spec(module) is None:
        print(f"[scale] {tool}: not installed (pip install {module}); its rows are missing")
        return False
    return True


def _print_rows(size: int, merges: int, measured: dict[str, Measured]) -> None:
    project = measured.get("project")
    print(
        f"  {'merges':>7} {'tool':<25} {'wall s':>8} {'CPU s':>8} {'peak MB':>8} {'MB/M chars':>10} "
        f"{'wall vs project':>15} {'RSS vs project':>14}"
    )
    for tool, m in measured.items():
        wall_ratio = f"{m.wall_s / project.wall_s:.2f}x" if project else "-"
        rss_ratio = f"{m.peak_mb / project.peak_mb:.2f}x" if project else "-"
        print(
            f"  {merges:>7,} {tool:<25} {m.wall_s:>8.1f} {m.cpu_s:>8.1f} {m.peak_mb:>8.0f} "
            f"{m.peak_mb / (size / 1e6):>10.2f} {wall_ratio:>15} {rss_ratio:>14}"
            + (
                f"   (count {m.result['count_s']:.1f} s, merge {m.result['merge_s']:.1f} s"
                f"{' compiled' if m.result['compiled'] else ' in Python'}, {m.result['chunks']:,} chunks, "
                f"{m.result['merges']:,} merges)"
                if tool in PROJECT_TOOLS
                else f"   ({m.result['merges']:,} merges, {m.result['read_mb']:.0f} MB once the text is read: "
                f"{(m.peak_mb - m.result['read_mb']) / (size / 1e6):.2f} MB per million characters more)"
                if tool in APP_MODES
                else f"   ({m.result['merges']:,} merges)"
            )
        )


def _print_phases(size: int, merges: int, tool: str, measured: Measured) -> None:
    """Where the project's time went, each step beside a native engine's floor where one is known."""
    phases = measured.result.get("phases", {})
    shown = []
    for step in PHASES:
        if step not in phases:
            continue
        floor = FLOORS.get(step)
        if floor is None:
            shown.append(f"{step} {phases[step]:.1f}")
        elif floor[0] == "per GB":
            low, high = floor[1] * size / 1e9, floor[2] * size / 1e9
            shown.append(
                f"{step} {phases[step]:.1f} (native: {low:.2g} with a DFA lexer, {high:.2g} with a regex engine)"
            )
        else:
            scale = merges / 50_000
            indexed = "" if "pair index" in phases else ", pair index included"
            shown.append(f"{step} {phases[step]:.1f} (native: {floor[1] * scale:.0f}-{floor[2] * scale:.0f}{indexed})")
    if shown:
        print(f"    {tool}'s steps, s (count phase: CPU over its workers; merge phase: wall): " + "; ".join(shown))


def _print_targets(rows: list[dict], agreement: dict | None, smallest: int, corpus: str) -> None:
    print(f"\n[scale] targets, on the {corpus}-vocabulary corpus")

    def row(size: int, merges: int, tool: str) -> dict | None:
        return next((r for r in rows if (r["size"], r["merges"], r["tool"]) == (size, merges, tool)), None)

    fast = row(100_000_000, 32_000, "project")
    if fast:
        verdict = "met" if fast["wall_s"] <= TARGET_SECONDS_100M else "not met"
        print(
            f"  100M characters -> 32,000 merges in <= {TARGET_SECONDS_100M:.0f} s: {fast['wall_s']:.1f} s, {verdict}"
        )
    else:
        print("  100M characters -> 32,000 merges in <= 30 s: not measured (add 100M to --sizes and 32000 to --merges)")
    theirs = row(1_000_000_000, 50_000, "rustbpe")
    for tool in PROJECT_TOOLS:
        ours = row(1_000_000_000, 50_000, tool)
        if ours:
            verdict = "met" if ours["wall_s"] <= TARGET_SECONDS_1G else "not met"
            print(
                f"  1G characters -> 50,000 merges in <= {TARGET_SECONDS_1G:.0f} s, {tool}: {ours['wall_s']:.1f} s, "
                f"{verdict}"
            )
        if ours and theirs:
            ratio = ours["wall_s"] / theirs["wall_s"]
            verdict = "met" if ratio <= TARGET_RATIO_1G else "not met"
            print(
                f"  1G characters -> 50,000 merges at <= {TARGET_RATIO_1G}x rustbpe's wall time, {tool}: "
                f"{ours['wall_s']:.1f} s against {theirs['wall_s']:.1f} s ({ratio:.2f}x), {verdict}"
            )
    if not theirs or not any(row(1_000_000_000, 50_000, tool) for tool in PROJECT_TOOLS):
        print("  1G characters -> 50,000 merges beside rustbpe: not measured (add 1G to --sizes, install rustbpe)")
    for tool in PROJECT_TOOLS:
        ours_rows = [r for r in rows if r["tool"] == tool]
        for size in sorted({r["size"] for r in ours_rows}):
            peak = max(r["peak_mb"] for r in ours_rows if r["size"] == size)
            per_million = peak / (size / 1e6)
            verdict = "met" if per_million <= TARGET_MB_PER_MILLION else "not met"
            print(
                f"  <= {TARGET_MB_PER_MILLION:.0f} MB per million characters (peak RSS, whole process tree), "
                f"{tool}, {size_name(size)}: {per_million:.2f} ({peak:.0f} MB), {verdict}"
            )
    if agreement is not None:
        verdict = "met" if agreement["identical"] else "NOT met"
        print(
            f"  counts from 1 and 2 workers and a Dask cluster identical ({size_name(smallest)} characters, "
            f"{agreement['chunks']:,} chunks): {'identical' if agreement['identical'] else 'DIFFERENT'}, {verdict}"
        )


if __name__ == "__main__":
    sys.exit(main())
