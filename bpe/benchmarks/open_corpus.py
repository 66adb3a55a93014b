"""`python -m bpe.benchmarks.open_corpus`: an open-vocabulary corpus, real text first, then
generated text whose distinct GPT-2 chunks keep growing as real text's do.

The real text is every distinct text found offline (`bpe.benchmarks.scale_corpora.real_sources`:
the shared data, pydoc's topics, the standard library's sources; and the installed
packages' sources and documentation), each file once, in an order shuffled by the seed, so
that every prefix is a mixture and the distinct chunks grow smoothly. Heaps' law
(`bpe.benchmarks.heaps`) is fitted on it: ``D = K * N ** beta``.

Past the real text, each block of `BLOCK_CHARACTERS` is the scale benchmark's word-level
Markov prose (a closed vocabulary: it adds next to no new chunks) with new tokens put in
between its words, as many as keep the curve on ``D_real * (N / N_real) ** beta``: the fit's
exponent, carried on from where the real text ends (not from the fitted line, which the
real text's end may lie a little above or below), so that the curve has no kink there:

- (half of them) words of no real text, drawn letter by letter from an order-`ORDER`
  character model of the real text's words ("tokenstrow", "Palendate"), a tenth of them
  capitalized like names;
- (a fifth, and a tenth) identifiers of two or three parts, real words or new ones:
  ``camelCase`` (one chunk: GPT-2 splits at neither case nor digits) and ``snake_case``
  (the underscores split it);
- (a fifth) numbers of six to twelve digits, a fifth of them with decimals.

A candidate counts for its chunks that neither the real text nor the block has shown; the
block draws candidates until it has its share of new chunks. Then, as in Simon's model of
word frequencies, each new token is followed by copies of tokens the block already put in
(a copy half the time, again and again, of an earlier one chosen uniformly, so the tokens
used early are used most): new words recur, about two in three occur once, as in real text.
Blocks are seeded by their index and made on every core, a few at a time (see
`open_vocabulary_pieces`); the files are streamed, never held.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import random
import sys
import sysconfig
import time
from collections.abc import Iterator
from pathlib import Path

from bpe.benchmarks import scale_corpora
from bpe.benchmarks.heaps import DistinctChunks, HeapsFit, distinct_chunks_at, fit_heaps
from bpe.cli.arguments import parse_size
from bpe.paths import CACHE_DIR
from bpe.pretokenize import split

NAME = "open"  # the files: open-16M.txt, open-16M.json, open-heaps.json
SEED = scale_corpora.SEED
BLOCK_CHARACTERS = 4_000_000
BATCH_BLOCKS = 4  # blocks made at once (on every core)
ORDER = 3  # letters of context in the character model
REAL_PIECE_CHARACTERS = 1_000_000  # the real text is measured this finely, for the fit
MAX_MODEL_WORDS = 500_000  # distinct real words the character model learns from
SHORTEST = 6  # letters of a new word, digits of a number
COPY_PROBABILITY = 0.5  # after a new token, how often another copy of an earlier one follows
GENERATED = "open-vocabulary text"
PROSE_KINDS = ("shared data", "Python docs", "package docs")


# ==================== The real text


def package_files() -> tuple[Path, list[Path], list[Path]]:
    """The installed packages' folder, their documentation files (READMEs, Markdown and
    reStructuredText pages, text files, each package's METADATA, which holds its README)
    and their sources (``.py``, ``.pyi``), in sorted order. Licence texts, copies of the
    same few, are left out."""
    root = Path(sysconfig.get_paths()["purelib"])
    docs, sources = [], []
    for path in sorted(root.rglob("*")):
        in_metadata = any(part.endswith((".dist-info", ".egg-info")) for part in path.parts)
        if path.suffix in (".py", ".pyi") and not in_metadata:
            sources.append(path)
        elif (path.name == "METADATA" and in_metadata) or (path.suffix in (".md", ".rst", ".txt") and not in_metadata):
            if not any(word in path.name.upper() for word in ("LICEN", "COPYING", "NOTICE")):
                docs.append(path)
    return root, docs, sources


class RealText:
    """Every distinct real text, in an order shuffled by the seed, measured as it is read:
    its distinct chunks (`chunks`), the points of its Heaps curve, its words."""

    def __init__(self, seed: int = SEED) -> None:
        self.seed = seed
        self.chunks = DistinctChunks(REAL_PIECE_CHARACTERS)
        self.points: list[tuple[int, int]] = []  # (characters, distinct chunks) at each piece
        self.words: dict[str, None] = {}  # distinct words in order of first appearance (capped)
        self.parts: dict[str, int] = {}  # characters of each kind
        self.prose: list[tuple[str, str, str]] = []  # (kind, name, text) of the prose, for the Markov chain

    def documents(self) -> Iterator[tuple[str, str]]:
        """``(kind, text)`` of each document, each ending in a line break."""
        texts = list(scale_corpora.real_sources())
        seen = {hashlib.sha256(text.encode("utf-8")).digest() for _, _, text in texts}
        root, doc_paths, source_paths = package_files()
        texts += [("package docs", name, text) for name, text in scale_corpora.distinct_texts(doc_paths, root, seen)]
        self.prose = [text for text in texts if text[0] in PROSE_KINDS]
        entries: list[tuple[str, str | Path]] = [(kind, text) for kind, _, text in texts]
        entries += [("package sources", path) for path in source_paths]  # read when their turn comes
        random.Random(self.seed).shuffle(entries)
        for kind, entry in entries:
            if isinstance(entry, Path):
                found = [text for _, text in scale_corpora.distinct_texts([entry], root, seen)]
                if not found:
                    continue
                entry = found[0]
            text = entry if entry.endswith("\n") else entry + "\n"
            self._measure(self.chunks.add(text))
            self.parts[kind] = self.parts.get(kind, 0) + len(text)
            yield kind, text
        self._measure(self.chunks.finish())

    def _measure(self, new_chunks: list[str]) -> None:
        if not new_chunks:
            return
        self.points.append((self.chunks.characters, len(self.chunks)))
        if len(self.words) < MAX_MODEL_WORDS:
            for chunk in new_chunks:
                word = chunk.lstrip(" ")
                if word.isalpha():
                    self.words[word] = None

    def fit(self) -> HeapsFit:
        k, beta = fit_heaps(self.points, smallest=min(1_000_000, self.chunks.characters // 64))
        made_of = " + ".join(f"{count / 1e6:.1f}M {kind}" for kind, count in sorted(self.parts.items()))
        return HeapsFit(k, beta, self.chunks.characters, len(self.chunks), made_of)


# ==================== New words, identifiers and numbers


class CharacterModel:
    """Order-``order`` letter model of a vocabulary: each next letter is drawn from the
    letters that follow the same ``order`` letters somewhere in its words, as often as they
    do, and a word ends where words end. Example (order 2): from "token" and "toward", after
    "to" comes "k" or "w", each half the time."""

    START, END = "^", "$"  # never letters, so never in a word

    def __init__(self, words, order: int = ORDER) -> None:
        self.order = order
        followers: dict[str, list[str]] = {}
        for word in words:
            padded = self.START * order + word + self.END
            for at in range(len(word) + 1):
                followers.setdefault(padded[at : at + order], []).append(padded[at + order])
        self.followers = {context: "".join(letters) for context, letters in followers.items()}

    def word(self, draw, longest: int = 24) -> str:
        """A word spelled letter by letter with ``draw()`` (in [0, 1)), of ``longest`` letters at most."""
        context, letters = self.START * self.order, []
        while len(letters) < longest:
            options = self.followers[context]
            letter = options[int(draw() * len(options))]
            if letter == self.END:
                break
            letters.append(letter)
            context = context[1:] + letter
        return "".join(letters)


class NewTokens:
    """Candidates for new tokens, drawn with one block's random numbers (see the module's
    docstring for the kinds and their shares). Short ones are left out: the real text has
    met nearly all of them already, and the few it has not would come up again and again,
    in block after block ("cons", "theThe", "06"), new only once."""

    def __init__(self, model: CharacterModel, rng: random.Random, vocabulary: list[str]) -> None:
        self.model, self.rng, self.draw = model, rng, rng.random
        self.vocabulary = vocabulary  # the real words, each once: parts of identifiers

    def candidate(self) -> str:
        kind = self.draw()
        if kind < 0.5:
            word = self._new_word()
            return word.capitalize() if self.draw() < 0.1 else word
        if kind < 0.7:
            parts = [self._part() for _ in range(2 + (self.draw() < 0.3))]
            return parts[0] + "".join(part.capitalize() for part in parts[1:])
        if kind < 0.8:
            return "_".join(self._part() for _ in range(2 + (self.draw() < 0.3)))
        digits = str(self.rng.randrange(10 ** (SHORTEST - 1), 10 ** self.rng.randint(SHORTEST, 12)))
        return f"{digits[:-4]}.{digits[-4:]}" if self.draw() < 0.2 else digits

    def _new_word(self) -> str:
        while len(word := self.model.word(self.draw)) < SHORTEST:
            pass
        return word

    def _part(self) -> str:
        """A real word or, one time in three, a new one, in lower case."""
        if self.draw() < 1 / 3:
            return self._new_word().lower()
        return self.vocabulary[int(self.draw() * len(self.vocabulary))].lower()


class OpenVocabularyText:
    """Blocks of generated text that carry on the real text's growth of distinct chunks."""

    def __init__(self, real: RealText, beta: float, seed: int, block_characters: int) -> None:
        self.known = real.chunks  # the real text's chunks: a candidate's new chunks are new to them
        self.start, self.start_distinct = real.chunks.characters, len(real.chunks)
        self.beta, self.seed, self.block_characters = beta, seed, block_characters
        self.chain = scale_corpora.MarkovChain(scale_corpora.prose_words(real.prose))
        self.vocabulary = list(real.words)
        self.model = CharacterModel(self.vocabulary)

    def target(self, characters: int) -> int:
        """The distinct chunks the text should hold at ``characters`` characters (from the start of the real text)."""
        return round(self.start_distinct * (characters / self.start) ** self.beta)

    def block_end(self, index: int) -> int:
        """Where block ``index`` ends, in characters from the start of the real text."""
        return self.start + (index + 1) * self.block_characters

    def block(self, index: int, wanted: int) -> tuple[str, list[str]]:
        """Block ``index`` (about `block_characters` characters, the same for the same seed
        and ``wanted``) with ``wanted`` chunks new to the real text and to the block, and those chunks."""
        rng = random.Random(f"{self.seed}-open-{index}")
        prose = self.chain.block(index, self.block_characters, seed=self.seed)
        tokens, new_chunks = self._new_tokens(rng, wanted)
        used = tokens[:1]
        for token in tokens[1:]:  # Simon's model: before each new token, copies of earlier ones
            while rng.random() < COPY_PROBABILITY:
                used.append(used[int(rng.random() * len(used))])
            used.append(token)
        # as much prose as leaves room for the tokens, ending in a paragraph break as it did
        room = len(prose) - sum(len(token) + 1 for token in used)
        words = prose[: max(prose.rfind(" ", 0, room), 0)].split(" ")
        words[-1] += "\n\n"
        # each token after a word, never after the block's last one: so it keeps its leading
        # space (" word", as counted) and the next block's first word stays apart
        at = sorted(rng.sample(range(len(words) - 1), min(len(used), len(words) - 1)))
        for where, token in zip(at, used):
            words[where] += " " + token
        return " ".join(words), new_chunks

    def _new_tokens(self, rng: random.Random, wanted: int) -> tuple[list[str], list[str]]:
        """New tokens, in order, that bring ``wanted`` chunks unseen in the real text and
        in the block; and those chunks."""
        candidates = NewTokens(self.model, rng, self.vocabulary)
        tokens: list[str] = []
        new_chunks: dict[str, None] = {}
        while len(new_chunks) < wanted:
            token = candidates.candidate()
            new = [c for c in split(" " + token, "gpt2") if c not in new_chunks and not self.known.is_known(c)]
            if new:
                new_chunks.update(dict.fromkeys(new))
                tokens.append(token)
        return tokens, list(new_chunks)


_TEXT: OpenVocabularyText | None = None  # the generator, shared with forked workers


def _open_block(job: tuple[int, int]) -> tuple[str, list[str]]:
    assert _TEXT is not None
    return _TEXT.block(*job)


def open_vocabulary_pieces(seed: int = SEED, folder: Path = CACHE_DIR / "scale") -> Iterator[tuple[str, str]]:
    """``(kind, text)``: the real text, then generated blocks for ever. Saves the Heaps fit
    of the real text in ``folder`` when the real text is done.

    Blocks are made `BATCH_BLOCKS` at a time. Each batch makes up what the blocks before it
    fell short: the new tokens of two blocks, made apart, are sometimes the same (about one
    chunk in ten by 1 G characters), so the first block of a batch is asked for the chunks
    the text is short of its target, all told. The batch's size is fixed, not the number of
    cores, so the text is the same on every machine."""
    global _TEXT
    real = RealText(seed)
    yield from real.documents()
    fit = real.fit()
    _save_fit(fit, folder)
    _TEXT = text = OpenVocabularyText(real, fit.beta, seed, BLOCK_CHARACTERS)
    generated = DistinctChunks()  # the new chunks of the blocks so far

    def batches() -> Iterator[list[tuple[int, int]]]:
        for first in itertools.count(0, BATCH_BLOCKS):
            indices = range(first, first + BATCH_BLOCKS)
            distinct = text.start_distinct + len(generated)
            targets = [distinct] + [text.target(text.block_end(index)) for index in indices]
            yield [(index, max(0, after - before)) for index, before, after in zip(indices, targets, targets[1:])]

    try:
        for block, new_chunks in scale_corpora.blocks_in_order(_open_block, batches()):
            generated.add_chunks(new_chunks)
            yield GENERATED, block
    finally:
        _TEXT = None


# ==================== Corpora, their fit and their distinct chunks


def build_open_corpora(
    sizes: list[int], folder: Path = CACHE_DIR / "scale", say=print, seed: int = SEED
) -> dict[int, scale_corpora.Corpus]:
    """The open-vocabulary corpus of each size, built once and cached like the scale benchmark's."""
    return scale_corpora.build_corpora(
        sizes, folder, say, name=NAME, pieces=lambda: open_vocabulary_pieces(seed, folder)
    )


def heaps_fit(folder: Path = CACHE_DIR / "scale", say=print) -> HeapsFit:
    """The fit of the real text: cached, or measured in one pass over it (about a minute)."""
    path = folder / f"{NAME}-heaps.json"
    if not path.is_file():
        say("[scale] fitting Heaps' law on the real text ...")
        real = RealText()
        for _ in real.documents():
            pass
        _save_fit(real.fit(), folder)
    return HeapsFit(**json.loads(path.read_text(encoding="utf-8")))


def _save_fit(fit: HeapsFit, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{NAME}-heaps.json").write_text(json.dumps(fit.__dict__), encoding="utf-8")


def distinct_chunks(corpora: list[scale_corpora.Corpus]) -> dict[int, int]:
    """The distinct GPT-2 chunks of each corpus (by size), read from its note, or measured
    (streaming, in one pass over the largest: the corpora are prefixes of one stream) and
    written there."""
    notes = {corpus.characters: corpus.path.with_suffix(".json") for corpus in corpora}
    fields = {size: json.loads(note.read_text(encoding="utf-8")) for size, note in notes.items()}
    missing = sorted(size for size in notes if "distinct_chunks" not in fields[size])
    if missing:
        largest = next(corpus.path for corpus in corpora if corpus.characters == missing[-1])
        for size, (_, distinct) in zip(missing, distinct_chunks_at(largest, missing)):
            fields[size]["distinct_chunks"] = distinct
            notes[size].write_text(json.dumps(fields[size]), encoding="utf-8")
    return {size: fields[size]["distinct_chunks"] for size in notes}


def distinct_line(distinct: int, characters: int, fit: HeapsFit) -> str:
    """``"1,009,312 distinct GPT-2 chunks; the fit predicts 1,004,227 (1.01x)"``."""
    predicted = fit.predict(characters)
    return f"{distinct:,} distinct GPT-2 chunks; the fit predicts {predicted:,.0f} ({distinct / predicted:.2f}x)"


def fit_line(fit: HeapsFit) -> str:
    return (
        f"Heaps' law on the real text ({fit.characters / 1e6:.1f}M characters: {fit.made_of}, "
        f"{fit.distinct:,} distinct chunks): D = {fit.k:.3f} * N^{fit.beta:.4f}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bpe.benchmarks.open_corpus", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes", default=scale_corpora.DEFAULT_SIZES, help=f"corpus sizes (default {scale_corpora.DEFAULT_SIZES})"
    )
    args = parser.parse_args(argv)
    sizes = [parse_size(size) for size in args.sizes.split(",")]
    corpora = build_open_corpora(sizes)
    fit = heaps_fit()
    started = time.perf_counter()
    distinct = distinct_chunks(list(corpora.values()))
    print(f"[open corpus] distinct chunks ready in {time.perf_counter() - started:.0f} s")
    print(fit_line(fit))
    print(f"{'size':>6} {'characters':>15} {'distinct chunks':>16} {'fit predicts':>14} {'ratio':>6}  made of")
    for size in sizes:
        predicted = fit.predict(size)
        print(
            f"{scale_corpora.size_name(size):>6} {size:>15,} {distinct[size]:>16,} {predicted:>14,.0f} "
            f"{distinct[size] / predicted:>6.3f}  {corpora[size].made_of}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
