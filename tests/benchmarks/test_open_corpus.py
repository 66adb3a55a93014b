"""The open-vocabulary corpus: seeded, streamed, and growing in distinct chunks as the real
text it carries on does (Heaps' law), on a real text small enough for a test: pydoc's
topics and part of the standard library's sources (the same on every machine that has
this Python), no installed packages, blocks of 125,000 characters."""

from __future__ import annotations

import math
import random
import tracemalloc
from collections import Counter
from dataclasses import dataclass

import pytest

import bpe.benchmarks.open_corpus as open_corpus
import bpe.benchmarks.scale_corpora as scale_corpora
from bpe.benchmarks.heaps import distinct_chunks_at
from bpe.pretokenize import split

BLOCK = 125_000
REAL = 2_000_000  # about: the documents are whole
LARGEST = 8_000_000


@pytest.fixture(scope="module")
def python_texts():
    texts, characters = [], 0
    for source in scale_corpora.real_sources():
        if source[0] == "Python docs" or (source[0] == "Python sources" and characters < REAL):
            texts.append(source)
            characters += len(source[2])
    return texts


def use_small_real_text(patch: pytest.MonkeyPatch, python_texts) -> None:
    patch.setattr(scale_corpora, "real_sources", lambda: python_texts)
    patch.setattr(open_corpus, "package_files", lambda: (open_corpus.Path("."), [], []))
    patch.setattr(open_corpus, "BLOCK_CHARACTERS", BLOCK)


@pytest.fixture
def small_real_text(monkeypatch, python_texts):
    use_small_real_text(monkeypatch, python_texts)


def build(folder, sizes, seed=open_corpus.SEED):
    return open_corpus.build_open_corpora(sizes, folder, say=lambda message: None, seed=seed)


@dataclass
class Built:
    corpus: scale_corpora.Corpus
    fit: open_corpus.HeapsFit
    pieces: list[tuple[str, int]]  # (kind, characters) of each piece of the stream
    on_disk: list[int]  # the largest file's size on disk when each piece was asked for


@pytest.fixture(scope="module")
def built(tmp_path_factory, python_texts):
    """The corpus of `LARGEST` characters, its stream watched as it is written."""
    folder = tmp_path_factory.mktemp("open")
    stream = open_corpus.open_vocabulary_pieces
    part = folder / f"open-{scale_corpora.size_name(LARGEST)}.txt.part"
    pieces, on_disk = [], []

    def watched(seed, folder):
        for kind, text in stream(seed, folder):
            on_disk.append(part.stat().st_size if part.exists() else 0)
            pieces.append((kind, len(text)))
            yield kind, text

    with pytest.MonkeyPatch.context() as patch:
        use_small_real_text(patch, python_texts)
        patch.setattr(open_corpus, "open_vocabulary_pieces", watched)
        corpora = build(folder, [LARGEST])
    return Built(corpora[LARGEST], open_corpus.heaps_fit(folder), pieces, on_disk)


def test_a_seed_gives_the_same_text_and_another_seed_another(tmp_path, small_real_text, built):
    corpora = build(tmp_path / "a", [1_000_000, 4_000_000])
    other = build(tmp_path / "b", [4_000_000], seed=7)
    text = corpora[4_000_000].path.read_bytes()
    assert len(text.decode("utf-8")) == 4_000_000
    largest = built.corpus.path.read_bytes().decode("utf-8")
    assert text == largest[:4_000_000].encode("utf-8")  # made again: the same, to the byte
    assert text.startswith(corpora[1_000_000].path.read_bytes())  # sizes are prefixes of one stream
    assert text != other[4_000_000].path.read_bytes()
    assert corpora[4_000_000].made_of.endswith(f"M {open_corpus.GENERATED}")
    made_of = corpora[1_000_000].made_of
    assert "Python sources" in made_of and open_corpus.GENERATED not in made_of


def test_the_generated_text_grows_as_the_fit_says(built):
    fit, real = built.fit, built.fit.characters
    assert 1_900_000 < real < 2_600_000 and 0.4 < fit.beta < 0.9
    (_, at_real), (_, at_double), (_, at_triple) = distinct_chunks_at(built.corpus.path, [real, 2 * real, 3 * real])
    assert at_real == pytest.approx(fit.distinct, abs=2)  # the first generated block's first chunk may end a word
    # the generated text's own exponent, from the end of the real text to three times its length
    assert math.log(at_triple / at_real) / math.log(3) == pytest.approx(fit.beta, abs=0.03)
    assert at_double == pytest.approx(fit.distinct * 2**fit.beta, rel=0.03)


def test_the_corpus_is_written_as_it_is_made(built):
    generated = [length for kind, length in built.pieces if kind == open_corpus.GENERATED]
    assert len(generated) >= 20 and max(generated) <= BLOCK + 100
    on_disk = built.on_disk
    assert on_disk == sorted(on_disk) and on_disk[-1] > LARGEST - 2 * BLOCK  # written all along, not at the end


def test_the_generated_text_is_never_held(tmp_path, small_real_text, monkeypatch):
    # what the stream holds besides the new chunks (kept to count them): none are asked for here
    monkeypatch.setattr(open_corpus.OpenVocabularyText, "target", lambda self, characters: self.start_distinct)
    stream, generated = open_corpus.open_vocabulary_pieces, []

    def watched(seed, folder):
        for kind, text in stream(seed, folder):
            if kind == open_corpus.GENERATED:
                generated.append(len(text))
                if not tracemalloc.is_tracing():
                    tracemalloc.start()  # from the first generated block on
            yield kind, text

    monkeypatch.setattr(open_corpus, "open_vocabulary_pieces", watched)
    try:
        build(tmp_path, [10_000_000])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # a batch of blocks at a time (as text, and as what came from its worker), never the text
    assert sum(generated) > 7_900_000 and peak < sum(generated) / 4


def test_blocks_make_up_for_new_tokens_that_earlier_blocks_had(tmp_path, small_real_text, monkeypatch):
    # new tokens from a narrow pool: blocks made apart often bring the same ones
    monkeypatch.setattr(open_corpus.NewTokens, "candidate", lambda self: str(self.rng.randrange(10**6, 10**6 + 60_000)))
    corpora = build(tmp_path, [6_000_000])
    fit = open_corpus.heaps_fit(tmp_path)
    [(_, distinct)] = distinct_chunks_at(corpora[6_000_000].path, [6_000_000])
    assert distinct == pytest.approx(fit.distinct * (6_000_000 / fit.characters) ** fit.beta, rel=0.02)


def test_the_character_model_spells_as_its_words_do():
    model = open_corpus.CharacterModel(["token", "toward"], order=2)
    assert model.followers["to"] == "kw" and model.followers["^^"] == "tt"
    words = {model.word(random.Random(seed).random) for seed in range(50)}
    assert words == {"token", "toward"}  # no two letters in a row that the words lack
    vocabulary = ["taken", "tower", "token", "lower", "lowest", "newer"]
    richer = open_corpus.CharacterModel(vocabulary, order=1)
    spelled = {richer.word(random.Random(seed).random) for seed in range(300)}
    assert len(spelled) > 10  # new words, each made of the words' own letter pairs
    pairs = {(a, b) for word in vocabulary for a, b in zip(word, word[1:])}
    assert all((a, b) in pairs for word in spelled for a, b in zip(word, word[1:]))


def test_new_tokens_bring_chunks_the_real_text_lacks(small_real_text):
    real = open_corpus.RealText()
    for _ in real.documents():
        pass
    text = open_corpus.OpenVocabularyText(real, 0.6, seed=1, block_characters=BLOCK)
    block, new_chunks = text.block(0, 500)
    assert len(new_chunks) == 500 and not any(real.chunks.is_known(chunk) for chunk in new_chunks)
    chunks = Counter(split(block, "gpt2"))
    assert set(new_chunks) <= set(chunks)  # put in whole, each with its leading space where it has one
    once = sum(chunks[chunk] == 1 for chunk in new_chunks) / len(new_chunks)
    assert 0.5 < once < 0.8  # Simon's model: about two in three occur once, the rest again and again
    quiet, none = text.block(0, 0)
    assert none == [] and len(quiet) == pytest.approx(BLOCK, rel=0.01)
