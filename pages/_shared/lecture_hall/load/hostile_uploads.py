"""What a hostile upload costs the server a class shares (a measurement, not a test).

    .venv/bin/python -m pages._shared.lecture_hall.load.hostile_uploads
    .venv/bin/python -m pages._shared.lecture_hall.load.hostile_uploads --only run-doubling,text-box

Starts the real server (`streamlit run app.py`, as the lecture hall starts an app process)
and two sessions through Streamlit's websocket protocol, as browsers: a student who steps
through the film (Merge by merge, one step after another, the whole time), and a visitor
who uploads one hostile file after another through the app's own uploaders (a run file, a
tokenizer in each format, a lesson file, a text) or types a megabyte into the Tokenize box.
For each it prints the server's resident memory before and at its peak while the upload
was handled (sampled twice a second from /proc), how long the upload's script run took,
what the visitor was shown (the first error line), and the student's slowest step
meanwhile. Every file is built here, small, as an attacker would: a description of
something far bigger (`bpe.io.budget` says why each is refused before the work).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import gzip
import hashlib
import json
import os
import time
import urllib.parse

from bpe.alphabet import gpt2_spelling
from pages._shared.lecture_hall.load.classroom import (
    MERGE_PAGE,
    MemorySampler,
    Report,
    Session,
    free_port,
    start_server,
    stop_server,
    xsrf_cookie,
)

RUN_UPLOAD, TEXT_UPLOAD, LESSON_UPLOAD, TOKENIZER_UPLOAD = (
    "settings_run_upload",
    "settings_upload",
    "lesson_upload",
    "vocab_upload",
)


def run_file(lefts: list[int], rights: list[int], extra: dict | None = None, *, body: bytes | None = None) -> bytes:
    """A byte-level run file naming its merges by id, checksummed as anyone can."""
    merges = len(lefts)
    fields = {
        "settings": {
            "target_vocab_size": 256 + merges,
            "minimum_pair_frequency": 1,
            "engine": "fast",
            "top_k": 0,
            "alphabet": "bytes",
            "pretokenizer": None,
            "tie_rule": "first_occurrence",
            "max_vocab_characters": None,
        },
        "source": {"name": "hostile", "inputs": [], "characters": 0, "documents": 0},
        "base_tokens": [gpt2_spelling(bytes([value])) for value in range(256)],
        "lefts": lefts,
        "rights": rights,
        "frequencies": [1] * merges,
        "sequence_lengths": list(range(10 * merges - 1, 9 * merges - 1, -1)),
        "top_sizes": [0] * merges,
        "top_values": [],
        "change_sizes": [0] * merges,
        "change_values": [],
        "heldout_lengths": [],
        "step_seconds": [0.0] * merges,
        "stop_reason": "target_reached",
        "training_seconds": 0.0,
        "training_characters": 10 * merges,
        "initial_length": 10 * merges,
        "heldout_characters": 0,
        "base_counts": None,
        "sample": "",
        **(extra or {}),
    }
    if body is None:
        body = json.dumps(fields, separators=(",", ":")).encode()
    header = {
        "format": "bpe-lab-run",
        "version": 1,
        "body_bytes": len(body),
        "body_sha256": hashlib.sha256(body).hexdigest(),
        "summary": {"name": "hostile", "inputs": [], "characters": 10 * merges, "merges": merges},
    }
    return gzip.compress(json.dumps(header).encode() + b"\n" + body + b"\n", mtime=0)


def minbpe_model(lines: list[str]) -> bytes:
    return ("\n".join(["minbpe v1", "", "0", *lines]) + "\n").encode()


@functools.cache
def cases() -> dict[str, tuple[str, str, bytes]]:
    """name -> (uploader key, file name, bytes): each a few bytes to a few MB. Made once, before
    the sessions start: making them takes seconds, which would stall this script's own loop."""
    doubling = [0] + [255 + k for k in range(1, 40)]
    chain = 50_000
    return {
        "run-doubling": (RUN_UPLOAD, "double.bperun", run_file(doubling, doubling)),
        "run-chain": (RUN_UPLOAD, "chain.bperun", run_file([0] + [255 + k for k in range(1, chain)], [0] * chain)),
        "run-value-flood": (RUN_UPLOAD, "flood.bperun", run_file([0], [0], {"x": [1] * 15_000_000})),
        "run-zeros-bomb": (RUN_UPLOAD, "bomb.bperun", run_file([0], [0], body=b"0," * 200_000_000)),
        "run-empty-objects": (
            RUN_UPLOAD,
            "objects.bperun",
            run_file([0], [0], body=b"[" + b"{}," * 20_000_000 + b"{}]"),
        ),
        "minbpe-doubling": (
            TOKENIZER_UPLOAD,
            "double.model",
            minbpe_model(["97 97"] + [f"{256 + k} {256 + k}" for k in range(39)]),
        ),
        "minbpe-chain": (
            TOKENIZER_UPLOAD,
            "chain.model",
            minbpe_model(["97 97"] + [f"{256 + k} 97" for k in range(chain - 1)]),
        ),
        "tokenizer-empty-objects": (TOKENIZER_UPLOAD, "objects.json", b"[" + b"{}," * 3_000_000 + b"{}]"),
        "lesson-empty-objects": (LESSON_UPLOAD, "lesson.json", b"[" + b"{}," * 3_000_000 + b"{}]"),
        "lesson-deep": (LESSON_UPLOAD, "deep.json", b"[" * 3_000_000),
        "text-not-utf8": (TEXT_UPLOAD, "latin1.txt", "café naïve ".encode("latin-1") * 900_000),
        "text-one-letter": (TEXT_UPLOAD, "aaaa.txt", b"a" * 9_000_000),
        # not hostile: a real text of the same size, what an upload of that size costs anyway
        "text-prose-same-size": (TEXT_UPLOAD, "prose.txt", PROSE * (9_000_000 // len(PROSE))),
    }


PROSE = b"The merge of the most frequent pair makes a new token, and the text gets shorter. "


TEXT_BOX = "text-box"  # a megabyte typed into the Tokenize box (not an upload: the box's own bound)


async def student(session: Session, stop: asyncio.Event, steps: list[tuple[float, float]]) -> None:
    """Step through the film until told to stop: (when, seconds) of each step."""
    await session.rerun("open", page="")
    await session.rerun("merge page", page=session.pages[MERGE_PAGE])
    while not stop.is_set():
        started = time.monotonic()
        await session.click("merge step", "merges_forward")
        steps.append((started, time.monotonic() - started))


async def visitor(session: Session, sampler: MemorySampler, chosen: list[str], steps: list) -> list[dict]:
    await session.rerun("open", page="")
    found = []
    for name in chosen:
        # The page the upload is made on: the tokenizer's uploader is on Vocabulary (visited
        # first, so that its own first computation is not the case's), the others on Home.
        page = session.pages["Vocabulary"] if name in TOKENIZER_CASES else ""
        if page != session.page:
            await session.rerun("page", page=page)
        await asyncio.sleep(3)  # the server settles: the peak below is this case's
        quiet = [seconds for when, seconds in steps if when >= time.monotonic() - 3]
        before = sampler.rss()
        seen = set(session.report.errors)  # errors a page still shows from an earlier case
        mark = len(sampler.samples)
        started = time.monotonic()
        if name == TEXT_BOX:
            await session.rerun("tokenize page", page=session.pages["Tokenize"])
            seconds = await session.set_text("type a megabyte", "_w_tokenize_text", "lowest newest " * 75_000)
        else:
            key, file_name, data = cases()[name]
            seconds = await session.upload(name, key, file_name, data)
        await asyncio.sleep(1)  # a sample after the end
        during = [rss for _, rss, _ in sampler.samples[mark:]] or [sampler.rss()]
        slowest = max((s for when, s in steps if when >= started - 1), default=0.0)
        shown = next((error for error in session.report.errors if error not in seen), "(no error shown)")
        found.append(
            {
                "case": name,
                "bytes": 1_050_000 if name == TEXT_BOX else len(cases()[name][2]),
                "rss_before_mb": round(before),
                "rss_peak_mb": round(max(during)),
                "seconds": round(seconds, 2),
                "student_step_s_before": round(sorted(quiet)[len(quiet) // 2], 2) if quiet else None,
                "student_slowest_step_s": round(slowest, 2),
                "shown": shown[:200],
            }
        )
        print(json.dumps(found[-1], ensure_ascii=False), flush=True)
    return found


TOKENIZER_CASES = ("minbpe-doubling", "minbpe-chain", "tokenizer-empty-objects")


async def measure(port: int, sampler: MemorySampler, chosen: list[str], corpus: str, vocab: int) -> list[dict]:
    query = urllib.parse.urlencode({"corpus": corpus, "vocab": vocab})
    sessions = []
    for number in (1, 2):
        cookie, xsrf, _ = xsrf_cookie(port)
        session = Session(number, port, cookie, xsrf, Report(), {})
        await session.open(query)
        sessions.append(session)
    stop, steps = asyncio.Event(), []
    stepping = asyncio.create_task(student(sessions[0], stop, steps))
    while not steps:  # the film is playing before the first upload
        if stepping.done():
            stepping.result()  # why the student could not step
            raise RuntimeError(f"the student could not step: {sessions[0].report.errors[:3]}")
        await asyncio.sleep(0.5)
    try:
        return await visitor(sessions[1], sampler, chosen, steps)
    finally:
        stop.set()
        await stepping
        for session in sessions:
            await session.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="comma-separated cases (default: all): " + ", ".join([*cases(), TEXT_BOX]))
    parser.add_argument("--corpus", default="Tiny Shakespeare", help="the class's corpus (default Tiny Shakespeare)")
    parser.add_argument("--vocab", type=int, default=1000, help="the class's vocab size (default 1000)")
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args(argv)
    chosen = args.only.split(",") if args.only else [*cases(), TEXT_BOX]
    cases()  # made before the server and the sessions start
    port = free_port()
    process = start_server(port, dict(os.environ))
    sampler = MemorySampler(process.pid).start()
    try:
        rows = asyncio.run(measure(port, sampler, chosen, args.corpus, args.vocab))
    finally:
        sampler.stop()
        log = stop_server(process)
    print(f"\n{'case':26} {'bytes':>11} {'RSS before':>10} {'peak':>6} {'seconds':>8} {'step p50/max':>13}  shown")
    for row in rows:
        steps = f"{row['student_step_s_before']}/{row['student_slowest_step_s']}"
        print(
            f"{row['case']:26} {row['bytes']:>11,} {row['rss_before_mb']:>8} MB {row['rss_peak_mb']:>6} "
            f"{row['seconds']:>8} {steps:>13}  {row['shown'][:110]}"
        )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(rows, out, indent=1)
    if "Traceback" in log:
        print("\nthe server's log holds a traceback:\n" + log[-3000:])
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
