"""A lecture hall measured (not a test): the classroom script through the lecture hall,
one class per line of one table.

    .venv/bin/python -m pages._shared.lecture_hall.load.hall_runs          # 30 and 60 on one process, 100 on two
    .venv/bin/python -m pages._shared.lecture_hall.load.hall_runs --runs 2x20 --merges 10 --jobs-per 1000
    .venv/bin/python -m pages._shared.lecture_hall.load.hall_runs --runs 2x100 --rounds 4   # where memory settles

Each run ``PxN`` starts the lecture hall's command with ``--processes P`` on free loopback
ports, warmed for the class's link (``--warm``, as a teacher starts it before a lecture;
``--cold`` to leave that out), drives N students through it with `classroom` (``--url``,
every other option passed on unchanged: the same lesson as the one-server figures), stops
it with SIGTERM, and checks that it stopped cleanly with no traceback in its output. Then
it prints one Markdown table (the README's), and ``--json`` keeps every run's figures.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

from bpe.paths import PROJECT_ROOT
from pages._shared.lecture_hall import command
from pages._shared.lecture_hall.load.classroom import FIRST_VISITS
from pages._shared.lecture_hall.load.classroom import main as classroom
from pages._shared.lecture_hall.proxy import free_ports

DEFAULT_RUNS = ["1x30", "1x60", "2x100"]


def one_run(processes: int, students: int, passed: list[str], folder: Path, warm: str | None) -> dict:
    port = free_ports(processes + 1)
    log = folder / f"lecture-hall-{processes}x{students}.log"
    env = {**os.environ, "BPE_SESSION_GRACE_SECONDS": "20"}  # as the one-server script sets it
    with open(log, "w") as out:
        hall = subprocess.Popen(
            [sys.executable, "-m", command.__spec__.parent, "--processes", str(processes), "--port", str(port)]
            + ["--address", "127.0.0.1"]
            + (["--warm", warm] if warm else []),
            cwd=PROJECT_ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 180
        while "BPE Lab: open" not in log.read_text():
            if hall.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the lecture hall did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.5)
        figures = folder / f"class-{processes}x{students}.json"
        status = classroom(
            ["--url", f"http://127.0.0.1:{port}", "--sessions", str(students), "--json", str(figures), *passed]
        )
    finally:
        os.killpg(hall.pid, signal.SIGTERM)
        hall.wait(timeout=120)
    found = json.loads(figures.read_text())
    output = log.read_text()
    found["status"], found["lecture_hall_exit"] = status, hall.returncode
    if "Traceback" in output or hall.returncode != 143:
        found["errors"].append(
            f"the lecture hall's output holds a traceback or it exited with {hall.returncode} ({log})"
        )
    return found


def row(found: dict) -> str:
    lat = found["latency"]

    def p(kind: str, key: str) -> str:
        return f"{lat[kind][key]:.2f}" if kind in lat else "–"

    memory = "; ".join(
        " → ".join(f"{mb}" for mark, mb in (r["memory_mb"] or {}).items() if mark.startswith("after round")) or "?"
        for r in found["per_process"].values()
    )
    waits = [job["waited_in_line_s"] for job in found["jobs"]]
    return (
        f"| {found['processes']} | {found['sessions']} | {p('merge step', 'median_s')} / {p('merge step', 'p95_s')} "
        f"| {p('merge step (round 2)', 'p95_s')} | {p(FIRST_VISITS, 'median_s')} / {p(FIRST_VISITS, 'p95_s')} "
        f"| {len(found['errors'])} | {len(found['leaks'])} | {memory} | {max(waits, default=0):.0f} "
        f"| {' '.join(f'{x:.1f}' for x in found['load_average'])} |"
    )


HEADER = (
    "| app processes | students | merge step p50 / p95 (s) | step p95, round 2 (s) | first page visits p50 / p95 (s) "
    "| errors | leaks | memory per process, after each round (MB) | longest wait for a model slot (s) | load average |\n"
    "|---|---|---|---|---|---|---|---|---|---|"
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", nargs="+", default=DEFAULT_RUNS, help="PxN: P app processes, N students")
    parser.add_argument("--json", type=Path, help="write every run's figures here")
    parser.add_argument("--corpus", default="Python language reference", help="the class's corpus (the link's)")
    parser.add_argument("--vocab", type=int, default=1000, help="the class's vocab size (the link's)")
    parser.add_argument("--cold", action="store_true", help="no --warm: the first students compute the link's results")
    args, passed = parser.parse_known_args(argv)  # the rest goes to the classroom script
    passed += ["--corpus", args.corpus, "--vocab", str(args.vocab)]
    link = None if args.cold else "?" + urllib.parse.urlencode({"corpus": args.corpus, "vocab": args.vocab})
    folder = Path(os.environ.get("TMPDIR", "/tmp")) / f"bpe-lecture-hall-{os.getpid()}"
    folder.mkdir(parents=True, exist_ok=True)
    results = []
    for spec in args.runs:
        processes, students = (int(part) for part in spec.lower().split("x"))
        print(f"\n=== {processes} app process(es), {students} students", flush=True)
        results.append(one_run(processes, students, passed, folder, link))
    print("\n" + HEADER)
    for found in results:
        print(row(found))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0 if all(not f["errors"] and not f["leaks"] for f in results) else 1


if __name__ == "__main__":
    sys.exit(main())
