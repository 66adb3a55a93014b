"""The count phase over a corpus: partitions counted on every core or on a Dask cluster,
their tables summed in input order.

This is a map-reduce, as in every serious trainer: each worker reads its partitions
(`bpe.scale.partitions`) and counts their documents' chunks (`bpe.pretokenize.ChunkTally`,
as in-memory training does); the main process adds the tables in input order
(`bpe.scale.chunk_counts.CountsTotal`), so each chunk keeps the place of its first occurrence and the
result is the same table whatever the number of workers. At most a few partitions are in
flight at a time, so memory is the total table plus a window of partition tables, however
big the corpus.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

from bpe.alphabet import check_alphabet
from bpe.errors import BpeError, CorpusError
from bpe.pretokenize import ChunkTally
from bpe.scale.chunk_counts import (
    HELDOUT_SAMPLE_CHARACTERS,
    ChunkCounts,
    CountsTotal,
    chunk_settings,
    table_from_counts,
    training_value,
)
from bpe.scale.corpus_files import PARQUET, TEXT, CorpusFile, file_sha256, find_corpus_files
from bpe.scale.partitions import (
    Document,
    Partition,
    ReadOptions,
    document_passages,
    documents,
    is_heldout,
    partitions,
)
from bpe.specials import check_special_tokens

BYTES_PER_WORKER = 32 << 20  # by default, one more process for each this much input
# Distinct segments a tally keeps before chunking them, when it counts in the process that
# goes on to train (a small corpus, counted here): its tables are freed before training but
# stay in that process's heap, in pieces too small to hold the merge phase's arrays, so they
# are kept small (ChunkTally.IN_MEMORY_PENDING_SEGMENTS, as for a text trained in memory). A
# worker's tally keeps the default, ChunkTally.MAX_PENDING_SEGMENTS: chunking each distinct
# segment once is what makes counting fast, and a worker's memory goes back with it
# (docs/speed.md has both measurements).
DASK_CONNECT_SECONDS = 10  # how long to wait for a scheduler's answer before saying it gives none
DASK_WORKERS_SECONDS = 30  # how long to wait for a scheduler's first worker before saying it has none
NO_PRETOKENIZER = (
    "training with no pre-tokenizer merges across the whole text, so it cannot be counted in chunks: "
    "train it in memory (python -m bpe build), or count with a pre-tokenizer (--pretokenizer gpt2)"
)


@dataclass(frozen=True)
class CountProgress:
    """How far counting is: bytes of input done of the total, characters counted, time spent.

    ``work_seconds`` says where the CPU time went, by step, summed over the workers (so it
    may add up to more than ``seconds``): reading and decoding the files ("read"), cutting
    the text into chunks ("pre-tokenize": see `bpe.pretokenize.ChunkTally`), counting them
    and making each part's table ("count"), and adding the parts' tables in order here
    ("reduce")."""

    bytes_done: int
    bytes_total: int
    characters: int
    seconds: float
    work_seconds: dict = field(default_factory=dict)

    @property
    def megabytes_per_second(self) -> float:
        return self.bytes_done / 1e6 / self.seconds if self.seconds > 0 else 0.0


def available_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def count_corpus(
    inputs: Sequence[str | os.PathLike[str]],
    *,
    alphabet: str,
    pretokenizer: str | None,
    pattern: str | None = None,
    options: ReadOptions | None = None,
    workers: int | None = None,
    dask: str | None = None,
    on_progress: Callable[[CountProgress], None] | None = None,
    special_tokens=(),
) -> ChunkCounts:
    """Count the chunks of the corpus ``inputs`` name (files, folders, globs).

    ``workers``: processes on this machine (default: every core); ``dask``: the address
    of a Dask scheduler (``tcp://host:8786``) whose workers count instead; they must see
    the input files at the same paths. The table is the same either way.
    ``special_tokens``: each document is cut at them before it is chunked (`bpe.specials`).
    """
    check_alphabet(alphabet)
    special_tokens = check_special_tokens(special_tokens)
    name, pattern = chunk_settings(pretokenizer, pattern)
    if name is None:
        raise BpeError(NO_PRETOKENIZER)
    options = options or ReadOptions()
    if workers is not None and (not isinstance(workers, int) or isinstance(workers, bool) or workers < 1):
        raise BpeError(f"workers={workers!r} must be a whole number of at least 1")
    files = find_corpus_files(inputs)
    parts = partitions(files, options, name)
    job = _Job(parts, options, alphabet, name, pattern, special_tokens)
    started = time.perf_counter()
    with ThreadPoolExecutor(1) as hasher:  # the inputs' SHA-256, read beside the counting
        hashes = [hasher.submit(file_sha256, file) for file in files]
        if dask is not None:
            total = _on_dask(job, dask, on_progress, started)
        else:
            total = _on_cores(job, _pool_size(workers, job), on_progress, started)
        entries = tuple((file.name, file.size, digest.result()) for file, digest in zip(files, hashes))
    summed = time.thread_time()
    counts = total.result(inputs=entries) if job.read else None
    job.work["reduce"] += time.thread_time() - summed
    if on_progress is not None:
        on_progress(
            CountProgress(job.bytes_done, job.bytes_total, job.read, time.perf_counter() - started, dict(job.work))
        )
    if counts is None or counts.characters + counts.heldout_characters == 0:
        shown = ", ".join(file.name for file in files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
        raise CorpusError(f"the corpus is empty: {shown} {'holds' if len(files) == 1 else 'hold'} no text to count")
    if counts.characters == 0:
        raise CorpusError(
            f"every document of the corpus was held out ({counts.heldout_documents:,} of them): "
            "lower the held-out fraction"
        )
    return counts


def _pool_size(workers: int | None, job: _Job) -> int:
    """The processes to start: as asked, or by default every core, but no more than there
    are partitions, nor one per less than `BYTES_PER_WORKER` (starting a process costs
    about as much as counting that much, so small corpora are counted right here)."""
    if workers is None:
        workers = min(available_cores(), max(1, -(-job.bytes_total // BYTES_PER_WORKER)))
    return min(workers, max(len(job.parts), 1))


class _Job:
    """The partitions to count, what to count them with, and the running total in order."""

    def __init__(
        self, parts: list[Partition], options: ReadOptions, alphabet: str, name: str, pattern, special_tokens: tuple
    ) -> None:
        self.parts, self.options, self.alphabet, self.name, self.pattern = parts, options, alphabet, name, pattern
        self.special_tokens = special_tokens
        self.pending_segments = ChunkTally.MAX_PENDING_SEGMENTS  # (fewer when counted here)
        self.total = CountsTotal()
        self.read = 0  # characters counted so far (training and held out)
        self.bytes_done = 0
        self.bytes_total = sum(part.size for part in parts)
        self.work = {"read": 0.0, "pre-tokenize": 0.0, "count": 0.0, "reduce": 0.0}  # see `CountProgress`

    def table(self, future) -> ChunkCounts:
        """A counted partition's table, its worker's time by step added to the job's."""
        table, seconds = future.result()
        for step, spent in seconds.items():
            self.work[step] += spent
        return table

    def add(self, table: ChunkCounts) -> None:
        started = time.thread_time()
        self.total.add(table)
        self.work["reduce"] += time.thread_time() - started

    def arguments(self, part: Partition, limit: int | None) -> tuple:
        return (
            part,
            self.options,
            self.alphabet,
            self.name,
            self.pattern,
            limit,
            self.pending_segments,
            self.special_tokens,
        )

    @property
    def limit(self) -> int | None:
        return self.options.max_characters

    def run(self, submit, window: int, on_progress, started: float) -> CountsTotal:
        """Count every partition with ``submit(function, *arguments) -> future``, at most
        ``window`` in flight, adding the tables in input order; stop at the character limit."""
        pending: deque = deque()
        queue = iter(self.parts)

        def top_up() -> None:
            while len(pending) < window:
                part = next(queue, None)
                if part is None:
                    return
                # What is left of the limit now bounds what this partition may need: exact when
                # counting one at a time, an upper bound (checked below) when several run ahead.
                left = None if self.limit is None else self.limit - self.read
                pending.append((part, submit(count_timed, *self.arguments(part, left))))

        # The last table, added only once the next is in: when the limit ends in a partition,
        # the partition before it in the same text file is counted again with it, as one. A
        # cut short partition can end in a space whose chunk takes the spaces before it, on
        # the other side of the safe cut between the two (see `count_partition`'s `waiting`).
        last: tuple[Partition, ChunkCounts] | None = None
        top_up()
        try:
            while pending:
                part, future = pending.popleft()
                table = self.table(future)
                got = table.characters + table.heldout_characters
                reached = self.limit is not None and self.read + got >= self.limit
                if reached and last is not None and _adjacent(last[0], part):
                    # again, with the partition before it, to what is left of the limit
                    before, counted = last
                    before_got = counted.characters + counted.heldout_characters
                    joined = replace(before, end=part.end, size=before.size + part.size)
                    table = self.table(
                        submit(count_timed, *self.arguments(joined, self.limit - self.read + before_got))
                    )
                    got = table.characters + table.heldout_characters - before_got
                    last = None
                elif reached and self.read + got > self.limit:
                    # It read past the limit (it did not know what came before): again, only what is left.
                    table = self.table(submit(count_timed, *self.arguments(part, self.limit - self.read)))
                    got = table.characters + table.heldout_characters
                if got == 0 and last is not None and _adjacent(last[0], part):
                    # nothing here (no safe cut inside it): the text before runs on into the next
                    last = (replace(last[0], end=part.end, size=last[0].size + part.size), last[1])
                else:
                    if last is not None:
                        self.add(last[1])
                    last = (part, table)
                self.read += got
                self.bytes_done += part.size
                if on_progress is not None:
                    seconds = time.perf_counter() - started
                    on_progress(CountProgress(self.bytes_done, self.bytes_total, self.read, seconds, dict(self.work)))
                if self.limit is not None and self.read >= self.limit:
                    break
                top_up()
            if last is not None:
                self.add(last[1])
        finally:
            for _, future in pending:
                future.cancel()
        return self.total


def _adjacent(before: Partition, after: Partition) -> bool:
    """Two partitions of one text file, the second starting where the first ends."""
    return before.file == after.file and before.file.kind == TEXT and before.end == after.start


def _on_cores(job: _Job, workers: int, on_progress, started: float) -> CountsTotal:
    if workers <= 1:
        job.pending_segments = ChunkTally.IN_MEMORY_PENDING_SEGMENTS
        return job.run(_run_here, 1, on_progress, started)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # spawn: a worker starts clean, without the threads and state of the caller (a server)
    from concurrent.futures.process import BrokenProcessPool

    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(workers, mp_context=context, initializer=die_with, initargs=(os.getpid(),)) as pool:

        def submit(function, *arguments) -> Future:
            with _stops_held():
                return pool.submit(function, *arguments)

        try:
            return job.run(submit, 2 * workers, on_progress, started)
        except BrokenProcessPool:
            raise BpeError("a counting worker process died (out of memory, or killed); try fewer --workers") from None
        except BaseException:
            # Ctrl-C, SIGTERM or an error: stop the workers now rather than wait for the
            # partitions they are counting (the executor has no public way to, before 3.14).
            for process in list((getattr(pool, "_processes", None) or {}).values()):
                process.terminate()
            # Then wait for the pool to wind down (quick, its workers are gone): one left to
            # do it alone races the interpreter's exit, which writes to the pool's closed
            # wake-up pipe and prints "Exception ignored ... Bad file descriptor".
            pool.shutdown(wait=True, cancel_futures=True)
            raise


# What stops a count (Ctrl-C, `kill`), while the pool starts a worker or its manager thread
# (`_stops_held`). A SIGTERM that landed between spawning a worker and sending it its
# start-up data left the worker to die on an `EOFError` traceback, and one inside the
# manager thread's start left the pool unable to shut down ("cannot join thread before it
# is started"); a Ctrl-C, which a terminal sends to every process of the command, met a
# worker still starting Python and printed its `KeyboardInterrupt` traceback. Each after
# "interrupted: nothing was written".
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def _stops_held() -> Iterator[None]:
    """Within, a stop signal is noted, not acted on, and raised again on leaving, for its own
    handler (the command line's SIGTERM handler, Ctrl-C's) to act on. Python runs handlers in
    the main thread whichever thread the kernel hands a signal to (here: the thread hashing
    the inputs), so they are put off where Python acts on them; they are blocked too, in this
    thread, so that a worker started here starts with them blocked (a signal mask is
    inherited across exec) and takes them only once it is ready (`die_with`). The handlers
    are the process's, swapped for the moment a worker starts and then put back. Elsewhere
    than the main thread, no handler runs and nothing is changed."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived: list[int] = []
    handlers = {number: signal.signal(number, lambda number, frame: arrived.append(number)) for number in STOP_SIGNALS}
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        # each step in a `finally` of the one before: a signal handled between two of them
        # (it raises) still leaves every handler put back
        try:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # one that waited is noted now
        finally:
            try:
                signal.signal(signal.SIGINT, handlers[signal.SIGINT] or signal.SIG_DFL)
            finally:
                signal.signal(signal.SIGTERM, handlers[signal.SIGTERM] or signal.SIG_DFL)
        if arrived:
            signal.raise_signal(arrived[0])


def die_with(parent: int) -> None:
    """A pool worker's first act: ask the kernel to kill it when ``parent`` (the process that
    counts) dies, as the lecture hall's app processes do. Killed with SIGKILL, the counting
    process runs no clean-up, and its workers would count on for nobody (seen: 30 s and
    more, with the resource tracker beside them). Linux only (PR_SET_PDEATHSIG); a parent
    already gone before the call is caught by its pid.

    It starts with the stop signals blocked (`_stops_held`). It ignores Ctrl-C, which a
    terminal sends to every process of the command: the count stops and ends its workers
    (a worker that took it printed a `KeyboardInterrupt` traceback, one still starting
    Python too); then it takes SIGTERM, so a `terminate` sent while it started ends it here."""
    import ctypes

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    try:
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:
        os._exit(1)


def _run_here(function, *arguments) -> Future:
    future: Future = Future()
    try:
        future.set_result(function(*arguments))
    except Exception as error:
        future.set_exception(error)
    return future


def _on_dask(job: _Job, address: str, on_progress, started: float) -> CountsTotal:
    """Count on the Dask cluster whose scheduler is at ``address``, once it is known to be
    one that can: every way it cannot is one `BpeError` line within a deadline."""
    try:
        from distributed import Client
    except ImportError:
        raise BpeError("--dask needs the distributed package: pip install -r requirements.txt") from None
    workers = dask_workers(address)
    try:
        client = Client(address, timeout=f"{DASK_CONNECT_SECONDS}s", set_as_default=False)
    except Exception as error:  # noqa: BLE001 - it answered a moment ago: whatever it is now, one line
        raise BpeError(f"cannot reach the Dask scheduler at {address!r}: {_first_line(error)}") from None
    try:
        check_workers_import_bpe(client)
        submit = lambda function, *arguments: client.submit(function, *arguments, pure=False)
        try:
            return job.run(submit, 2 * workers, on_progress, started)
        except ImportError as missing:  # a worker that joined after the check
            raise BpeError(f"a Dask worker cannot import {missing.name or missing}: {_install_there()}") from None
    finally:
        client.close(timeout=DASK_CONNECT_SECONDS)  # never distributed's own 40 s wait, nor a traceback at exit


def dask_workers(address: str) -> int:
    """How many workers the Dask scheduler at ``address`` has, asked over Dask's own protocol
    with a deadline before any client is made: a port where nothing listens, one that answers
    something else (an HTTP server's bytes read as a Dask frame asked for 3 EiB), one that
    never answers, and a scheduler without workers (waited for up to `DASK_WORKERS_SECONDS`)
    are each one `BpeError` line. A client made first would wait on each of them and then
    spend 40 s and a traceback closing itself at exit."""
    import asyncio
    import socket  # only here: a counting worker and the merge phase load no network module

    from distributed.comm import get_address_host_port
    from distributed.core import rpc

    try:
        host, port = get_address_host_port(address)
    except ValueError as error:  # an address Dask cannot read ("host:port" with an unknown scheme)
        raise BpeError(f"{address!r} is not a Dask scheduler's address: {_first_line(error)}") from None
    try:
        socket.create_connection((host, port), timeout=DASK_CONNECT_SECONDS).close()
    except ConnectionRefusedError:  # said at once: Dask's own connect would retry it until its timeout
        raise BpeError(
            f"nothing listens at {address!r} (connection refused): is the Dask scheduler running there?"
        ) from None
    except OSError as error:
        raise BpeError(f"cannot reach the Dask scheduler at {address!r}: {error.strerror or error}") from None

    async def identity() -> dict:
        scheduler = rpc(address, timeout=DASK_CONNECT_SECONDS)
        try:
            return await asyncio.wait_for(scheduler.identity(), DASK_CONNECT_SECONDS)
        finally:
            await scheduler.close_rpc()

    ends = time.monotonic() + DASK_WORKERS_SECONDS
    while True:
        try:
            # on a loop of its own, in a thread of its own: the caller's thread may run one already
            with ThreadPoolExecutor(1) as asking:
                info = asking.submit(lambda: asyncio.run(identity())).result()
        except TimeoutError:
            raise BpeError(
                f"the Dask scheduler at {address!r} did not answer within {DASK_CONNECT_SECONDS} s: is it a Dask "
                "scheduler's port (8786 by default)?"
            ) from None
        except OSError as error:
            raise BpeError(f"cannot reach the Dask scheduler at {address!r}: {_first_line(error)}") from None
        except ValueError as error:  # an address Dask cannot read ("host:port" with an unknown scheme)
            raise BpeError(f"{address!r} is not a Dask scheduler's address: {_first_line(error)}") from None
        except Exception as error:  # noqa: BLE001 - the other end's bytes, read as Dask's, fail in any way
            raise BpeError(
                f"{address!r} does not answer as a Dask scheduler ({type(error).__name__}: {_first_line(error)})"
            ) from None
        if not isinstance(info, dict) or info.get("type") != "Scheduler":
            raise BpeError(f"{address!r} answers, but not as a Dask scheduler")
        workers = len(info.get("workers") or {})
        if workers:
            return workers
        if time.monotonic() > ends:
            raise BpeError(
                f"the Dask scheduler at {address!r} has no workers (waited {DASK_WORKERS_SECONDS} s): start them "
                f"with: dask worker {address}"
            )
        time.sleep(0.5)


def check_workers_import_bpe(client) -> None:
    """`BpeError` naming the worker and the missing package when a worker cannot import what
    counting runs (`count_partition` and all it imports): a worker started where BPE Lab is not
    installed fails every task with "Error during deserialization of the task graph"."""
    outcomes = client.run(exec, f"import {__name__}", {}, on_error="return")
    for worker, outcome in sorted(outcomes.items()):
        if isinstance(outcome, BaseException):
            missing = outcome.name if isinstance(outcome, ImportError) and outcome.name else _first_line(outcome)
            raise BpeError(
                f"the Dask worker at {worker} cannot import {missing!r} ({type(outcome).__name__}: "
                f"{_first_line(outcome)}): {_install_there()}"
            )


def _install_there() -> str:
    return (
        "install BPE Lab where the workers run (pip install -r requirements.txt in a checkout installs the bpe "
        "package) and start them from that environment"
    )


def _first_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return lines[0][:200] if lines else type(error).__name__


# ==================== One partition (runs in a worker)


def count_partition(
    partition: Partition,
    options: ReadOptions,
    alphabet: str,
    pretokenizer: str,
    pattern: str | None,
    limit: int | None = None,
    pending_segments: int = ChunkTally.MAX_PENDING_SEGMENTS,
    special_tokens: tuple = (),
    *,
    seconds: dict | None = None,
) -> ChunkCounts:
    """The table of one partition: its documents' chunks, the held-out ones apart, up to
    ``limit`` characters in all (the rest of the corpus's ``max_characters``), with
    ``pending_segments`` segments at most waiting to be chunked (see `bpe.pretokenize.ChunkTally`),
    each document cut at the ``special_tokens`` first. ``seconds``, when given, gets where
    the CPU time went (see `CountProgress.work_seconds`)."""
    started = time.thread_time()
    file: CorpusFile = partition.file
    splitting = training_value(pretokenizer, pattern)
    # One tally a side for the whole partition: a segment that recurs in every passage is
    # chunked once (see `ChunkTally`).
    tallies = {side: ChunkTally(splitting, pending_segments, special_tokens=special_tokens) for side in (False, True)}
    sums = {"characters": 0, "documents": 0, "heldout_characters": 0, "heldout_documents": 0}
    samples = {"training": "", "heldout": ""}
    # A text file's passage waits for the next one before it is counted: when a limit cuts
    # the next one short, the two are counted as one text. The cut between them was safe for
    # the whole file, not for its prefix: GPT-2 cuts before " a" (a space, then a letter),
    # and a prefix ending in that space makes one chunk of it and the spaces before it.
    waiting: tuple[bool, str] | None = None
    # Each passage is counted as it comes (a text file's 64 KB passages meet at safe cuts):
    # the tally's segments cost nothing per text, and each text's segments are a Python
    # string each while it is cut, so short texts keep a worker small.
    for document, text in _capped_documents(partition, options, pretokenizer, limit, special_tokens):
        if not text:
            continue
        held = is_heldout(options, partition.input_index, document.key)
        if file.kind == TEXT:
            counted = text
            if waiting is not None and waiting[0] == held and len(text) < len(document.text):
                counted, waiting = waiting[1] + text, None  # the cut short passage with the one before
            if waiting is not None:
                tallies[waiting[0]].add(waiting[1])
            waiting = (held, counted)
        else:
            where = lambda: f"{file.name}: the document at {_place(file, document.key)}"  # noqa: B023 (called at once)
            for passage in document_passages(text, pretokenizer, options.passage_bytes, where=where):
                tallies[held].add(passage)
        key, part = ("heldout_", "heldout") if held else ("", "training")
        sums[key + "characters"] += len(text)
        sums[key + "documents"] += 1
        if len(samples[part]) < HELDOUT_SAMPLE_CHARACTERS:
            samples[part] = (samples[part] + text)[:HELDOUT_SAMPLE_CHARACTERS]
    if waiting is not None:
        tallies[waiting[0]].add(waiting[1])
    training, heldout = tallies[False].counts(), tallies[True].counts()
    tabled = time.thread_time()
    table = table_from_counts(
        training,
        heldout,
        alphabet=alphabet,
        pretokenizer=pretokenizer,
        pattern=pattern,
        special_tokens=special_tokens,
        special_counts=tallies[False].special_counts(),
        heldout_special_counts=tallies[True].special_counts(),
        heldout_text=samples["heldout"],
        training_sample=samples["training"],
        **sums,
    )
    if seconds is not None:
        ended = time.thread_time()
        for step in ("pre-tokenize", "count"):
            seconds[step] = sum(tally.seconds[step] for tally in tallies.values())
        seconds["count"] += ended - tabled
        seconds["read"] = ended - started - seconds["pre-tokenize"] - seconds["count"]  # the rest: reading, decoding
    return table


def count_timed(*arguments) -> tuple[ChunkCounts, dict]:
    """`count_partition` and where its time went, by step: what a worker sends back."""
    seconds: dict = {}
    return count_partition(*arguments, seconds=seconds), seconds


def _place(file: CorpusFile, key: int) -> str:
    """Where a document starts, for a message: a JSON line's byte offset, a Parquet row."""
    return f"row {key:,}" if file.kind == PARQUET else f"byte {key:,}"


def _capped_documents(
    partition: Partition, options: ReadOptions, pretokenizer: str, limit: int | None, special_tokens: tuple = ()
) -> Iterator[tuple[Document, str]]:
    """Each document of the partition with the text of it that is counted: within
    ``max_document_characters`` (a text file's passages share one cap: the file is one
    document for it) and within what is left of ``limit``; it stops once either is used up.
    With a cap of 10 on a text file of passages "abcdefgh" and "ijklmnop", the second
    passage keeps "ij" and nothing after it is read."""
    cap = options.max_document_characters
    file_left = cap if partition.file.kind == TEXT and cap is not None else None
    read = 0
    for document in documents(partition, options, pretokenizer, special_tokens):
        text = document.text
        if file_left is not None:
            text = text[:file_left]
            file_left -= len(text)
        elif cap is not None:
            text = text[:cap]
        if limit is not None:
            text = text[: limit - read]
        read += len(text)
        yield document, text
        if (limit is not None and read >= limit) or file_left == 0:
            return
