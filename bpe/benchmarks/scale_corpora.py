"""The scale benchmark's corpora: distinct real text found offline, then seeded text past
what exists, written once as one file per size (each a prefix of the same stream) and
cached under ``data/cache/scale/`` with a note of what each is made of.

The real text, in this order: the shared reference data (WikiText-2's splits, Tiny
Shakespeare, ...), Python's own documentation (pydoc's topics) and its library's sources
(every distinct ``.py`` and ``.txt`` file of the standard library, site-packages left out).
The closed-vocabulary corpus goes on with a seeded word-level Markov chain over that prose
(each word drawn from the words that follow the previous one in the prose: prose-like
statistics, no passage repeated, but no word the prose lacks: the best case for BPE). The
open-vocabulary corpus (`bpe.benchmarks.open_corpus`) builds on these parts.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import random
import re
import sysconfig
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from bpe.paths import CACHE_DIR, shared_data_dir

DEFAULT_SIZES = "16M,64M,100M,256M,1G"
SEED = 2024
MARKOV_BLOCK_CHARACTERS = 4_000_000  # one document of generated prose, seeded by its index
SHARED_TEXTS = (
    "wikitext-2/valid.txt",
    "wikitext-2/test.txt",
    "tinyshakespeare/input.txt",
    "taylorswift.txt",
    "the-verdict.txt",
)


def size_name(characters: int) -> str:
    for unit, scale in (("G", 10**9), ("M", 10**6), ("K", 10**3)):
        if characters >= scale and characters % scale == 0:
            return f"{characters // scale}{unit}"
    return f"{characters:,}"


def real_sources() -> list[tuple[str, str, str]]:
    """``(kind, name, text)`` of every distinct real text found offline, in a fixed order."""
    found = []
    shared = shared_data_dir()
    for relative in SHARED_TEXTS:
        path = shared / relative
        if path.is_file():
            found.append(("shared data", relative, path.read_text(encoding="utf-8")))
    import pydoc_data.topics

    for topic, text in sorted(pydoc_data.topics.topics.items()):
        found.append(("Python docs", topic, text))
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    library = (
        path
        for path in sorted(stdlib.rglob("*"))
        if path.suffix in (".py", ".txt") and "site-packages" not in path.parts
    )
    found.extend((("Python sources", name, text) for name, text in distinct_texts(library, stdlib, set())))
    return found


def distinct_texts(paths: Iterable[Path], root: Path, seen: set[bytes]) -> Iterator[tuple[str, str]]:
    """``(name under root, text)`` of each file among ``paths`` whose bytes are not in
    ``seen`` (their SHA-256, which it adds), read as UTF-8; files that are not are left out."""
    for path in paths:
        if not path.is_file():
            continue
        raw = path.read_bytes()
        digest = hashlib.sha256(raw).digest()
        if digest in seen:
            continue
        seen.add(digest)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue  # a few test files are other encodings on purpose
        yield str(path.relative_to(root)), text


def prose_words(sources: list[tuple[str, str, str]]) -> list[str]:
    """The words (and line breaks) of the prose among the sources: what the chain learns."""
    prose = "\n".join(text for kind, _, text in sources if kind != "Python sources")
    return re.findall(r"\S+|\n", prose)


class MarkovChain:
    """Word-level, order one: each next word is drawn from the words that follow the
    current one somewhere in the prose, as often as they do."""

    def __init__(self, words: list[str]) -> None:
        ids: dict[str, int] = {}
        sequence = [ids.setdefault(word, len(ids)) for word in words]
        followers: list[list[int]] = [[] for _ in ids]
        for current, following in zip(sequence, sequence[1:]):
            followers[current].append(following)
        for options in followers:
            if not options:  # the last word: start again from the first
                options.append(sequence[0])
        self.followers = [tuple(options) for options in followers]
        self.words = list(ids)

    def block(self, index: int, characters: int, seed: int = SEED) -> str:
        """About ``characters`` characters of prose, the same for the same index and seed every time."""
        rng = random.Random(f"{seed}-{index}")
        draw, followers = rng.random, self.followers
        state = rng.randrange(len(followers))
        out: list[int] = []
        append = out.append
        for _ in range(characters // 5 + 1):  # about 5.5 characters a word with its space
            options = followers[state]
            state = options[int(draw() * len(options))]
            append(state)
        text = " ".join(map(self.words.__getitem__, out)).replace(" \n ", "\n")
        return text[:characters].rstrip() + "\n\n"


_CHAIN: MarkovChain | None = None  # the chain, shared with forked workers


def _generated_block(index: int) -> str:
    assert _CHAIN is not None
    return _CHAIN.block(index, MARKOV_BLOCK_CHARACTERS)


@dataclass(frozen=True)
class Corpus:
    path: Path
    characters: int
    made_of: str  # "4.9M shared data + 0.5M Python docs + 31.5M Python sources + 27.7M Markov prose"


def build_corpora(
    sizes: list[int], folder: Path = CACHE_DIR / "scale", say=print, *, name: str = "corpus", pieces=None
) -> dict[int, Corpus]:
    """One text file per size (``corpus-16M.txt``, ...), each a prefix of the same stream
    of ``(kind, text)`` pieces that ``pieces()`` makes (by default `closed_vocabulary_pieces`:
    real text, then prose); built once and cached with a note of what each is made of."""
    folder.mkdir(parents=True, exist_ok=True)
    corpora = {}
    missing = []
    for size in sizes:
        path, note = folder / f"{name}-{size_name(size)}.txt", folder / f"{name}-{size_name(size)}.json"
        if path.is_file() and note.is_file():
            made_of = json.loads(note.read_text(encoding="utf-8"))["made_of"]
            corpora[size] = Corpus(path, size, made_of)
        else:
            missing.append(size)
    if missing:
        started = time.perf_counter()
        say(f"[scale] building corpora of {', '.join(size_name(s) for s in missing)} characters in {folder.name}/ ...")
        stream = (pieces or closed_vocabulary_pieces)()
        for size, made_of in _write_corpora(sorted(missing), folder / name, stream):
            path = folder / f"{name}-{size_name(size)}.txt"
            (folder / f"{name}-{size_name(size)}.json").write_text(json.dumps({"made_of": made_of}), encoding="utf-8")
            corpora[size] = Corpus(path, size, made_of)
        say(f"[scale] corpora built in {time.perf_counter() - started:.0f} s")
    return {size: corpora[size] for size in sizes}


def _write_corpora(sizes: list[int], stem: Path, pieces: Iterator[tuple[str, str]]) -> Iterator[tuple[int, str]]:
    """Stream the pieces into every file at once, each file closed when it holds its
    number of characters; then the stream is closed."""
    files = {size: stem.with_name(f"{stem.name}-{size_name(size)}.txt") for size in sizes}
    handles = {size: open(f"{path}.part", "w", encoding="utf-8") for size, path in files.items()}
    written = 0
    parts: dict[str, int] = {}
    try:
        for kind, text in pieces:
            for size, handle in list(handles.items()):
                room = size - written
                if room > 0:
                    handle.write(text[:room])
            taken = min(len(text), max(sizes) - written)
            parts[kind] = parts.get(kind, 0) + taken
            written += taken
            for size in [s for s in handles if written >= s]:
                handles.pop(size).close()
                os.replace(f"{files[size]}.part", files[size])
                yield size, _made_of(parts, kind, written - size)
            if not handles:
                break
    finally:
        pieces.close()
        for handle in handles.values():
            handle.close()


def closed_vocabulary_pieces() -> Iterator[tuple[str, str]]:
    """The real text, then prose from a word-level Markov chain over its prose, for ever."""
    global _CHAIN
    sources = real_sources()
    for kind, _, text in sources:
        yield kind, text if text.endswith("\n") else text + "\n"
    _CHAIN = MarkovChain(prose_words(sources))
    batch = 2 * (os.cpu_count() or 1)
    try:
        for block in blocks_in_order(
            _generated_block, (range(first, first + batch) for first in itertools.count(0, batch))
        ):
            yield "Markov prose", block
    finally:
        _CHAIN = None


def blocks_in_order(make_block, batches: Iterator) -> Iterator:
    """``make_block(argument)`` for every argument of every batch, in order, each batch made
    on every core. The next batch is asked for once the blocks before it are used, so it may
    depend on them. The workers are forked: they see what ``make_block`` reads (a model
    built once) as it was, without it being sent to each."""
    import multiprocessing

    pool = multiprocessing.get_context("fork").Pool(os.cpu_count())
    try:
        for batch in batches:
            yield from pool.imap(make_block, batch)
    finally:
        # Closed and waited for, never terminated (as `with Pool` does): a worker killed while
        # it sends a block back keeps the result queue's lock, and the pool's own shutdown
        # then waits for that lock for ever, which is where a consumer that stops early (a
        # corpus file is full) would hang. The workers finish the batch they hold, then exit.
        pool.close()
        pool.join()


def _made_of(parts: dict[str, int], last_kind: str, beyond: int) -> str:
    """``"3.7M shared data + 12.3M Python sources"``: the characters of each kind, less the
    ``beyond`` characters of the last piece (of ``last_kind``) that lie past the file's end."""
    shown = []
    for kind, count in parts.items():
        count -= beyond if kind == last_kind else 0
        if count:
            shown.append(f"{count / 1e6:.1f}M {kind}")
    return " + ".join(shown)
