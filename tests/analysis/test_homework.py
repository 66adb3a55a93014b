"""The homework check's core: a student's files read through the bounded readers (CS336's
merges.txt + vocab.json, a minbpe .model, a tokenizer.json; never a pickle), and the first
merge where their list parts from a run, with the reason: a tie, a count, a pair never
seen, a stop."""

from __future__ import annotations

import json

import pytest

from bpe import BPETokenizer
from bpe.alphabet import gpt2_spelling
from bpe.analysis.homework import (
    COUNTS,
    CS336_FILES,
    HF_FILE,
    MINBPE_FILE,
    STOPPED,
    TIE,
    UNSEEN,
    first_parting,
    pair_count,
    read_homework,
)
from bpe.errors import TokenizerFileError
from bpe.formats import export_files
from bpe.io.budget import MAX_TOKEN_LENGTH
from bpe.paths import shared_data_dir
from bpe.run import train_run
from bpe.training import CS336, preset_fields

EOT = "<|endoftext|>"
STORIES = "".join(
    f"Once upon a time, {name} had a {thing}. {name} liked to play with the {thing} every day.{EOT}"
    for name, thing in [("Tom", "red ball"), ("Lily", "big dog"), ("Sam", "little cat"), ("Mia", "blue kite")] * 20
)
LIMITS = dict(max_bytes=5_000_000, max_merges=60_000)


def cs336_files(tokenizer: BPETokenizer) -> dict[str, bytes]:
    """merges.txt and vocab.json as a CS336 student's code saves them (GPT-2's byte spelling)."""
    merges = "".join(f"{gpt2_spelling(left)} {gpt2_spelling(right)}\n" for left, right in tokenizer.merges)
    specials = set(tokenizer.special_tokens.values())
    vocab = {
        (token.decode() if token_id in specials else gpt2_spelling(token)): token_id
        for token_id, token in enumerate(tokenizer.tokens)
    }
    return {"merges.txt": merges.encode(), "vocab.json": json.dumps(vocab).encode()}


def student(rule: str = "lexicographic", **changes) -> BPETokenizer:
    return BPETokenizer.train(STORIES, 257 + 60, **{**preset_fields(CS336), "tie_rule": rule, **changes})


def cs336_run(**changes):
    return train_run(STORIES, 257 + 61, **{**preset_fields(CS336), **changes}, top_k=5)


# ==================== Reading


@pytest.mark.parametrize("fmt,source", [("minbpe", MINBPE_FILE), ("hf", HF_FILE)])
def test_minbpe_and_hugging_face_files_give_their_merges_and_special_tokens(fmt, source):
    tok = student()
    files = export_files(tok, fmt)
    read = read_homework({files.main_name: files.main_bytes}, **LIMITS)
    assert (read.source, read.alphabet, read.merges, read.special_tokens) == (
        source,
        "bytes",
        tuple(tok.merges),
        (EOT,),
    )
    assert read.pretokenizer == "gpt2"


def test_cs336_files_with_and_without_the_vocabulary():
    tok = student()
    files = cs336_files(tok)
    read = read_homework(files, **LIMITS)
    assert (read.source, read.merges, read.special_tokens) == (CS336_FILES, tuple(tok.merges), (EOT,))
    assert read_homework({"merges.txt": files["merges.txt"]}, **LIMITS).special_tokens == ()


@pytest.mark.parametrize(
    "files,message",
    [
        ({"merges.pkl": b"\x80\x04\x95junk"}, "is a pickle: it can hold a program, so it is never read"),
        ({"merges": b"\x80\x05anything"}, "is a pickle"),
        ({"merges.txt": b"G t\nthree parts here\n"}, "merges.txt, line 2: expected two tokens separated by one space"),
        (
            {"merges.txt": "Ġ t\nĠt he\n".encode()},
            "line 2: 'he' is neither a single byte nor made by an earlier line",
        ),
        ({"merges.txt": "a \u4e2d\n".encode()}, "line 1: .* is not in GPT-2's byte-to-unicode table"),
        ({"merges.txt": b""}, "holds no merges"),
        ({"merges.txt": b"a b\n" * 70_000}, "lines; it holds one merge per line and at most 60,001 lines are read"),
        ({"merges.txt": b"a b\n", "vocab.json": b"[1, 2]"}, "vocab.json holds a JSON list"),
        ({"a.txt": b"a b\n", "b.txt": b"a b\n"}, "give one merges file"),
        ({"m.model": b"minbpe v1\n\n0\n", "vocab.json": b"{}"}, "is the whole model: upload it alone"),
        ({"merges.txt": b"x" * 5_000_001}, "the most read here is 5,000,000"),
    ],
)
def test_a_file_that_cannot_be_read_is_one_line_naming_it(files, message):
    with pytest.raises(TokenizerFileError, match=message) as caught:
        read_homework(files, **LIMITS)
    assert "\n" not in str(caught.value)


# ==================== Where they part, and why


def test_a_tie_broken_toward_the_smaller_pair_is_found_and_explained():
    run = cs336_run()
    smaller = read_homework(cs336_files(student("lexicographic")), **LIMITS)
    parting = first_parting(smaller, run, STORIES, label="preset cs336")
    greater = BPETokenizer.train(STORIES, 257 + 60, **preset_fields(CS336)).merges
    step = next(i for i, (a, b) in enumerate(zip(smaller.merges, greater), start=1) if a != b)
    assert (parting.kind, parting.step, parting.agreed) == (TIE, step, step - 1)
    assert parting.ours_count == parting.theirs_count > 0
    assert "A tie broken the other way: both are counted" in parting.explanation
    assert "yours took the smaller pair" in parting.explanation
    same = first_parting(
        read_homework(cs336_files(student("lexicographic_greatest")), **LIMITS), run, STORIES, label=""
    )
    assert same.step is None and same.agreed == 60


def test_merging_across_the_special_token_is_a_count_that_differs():
    across = read_homework(cs336_files(student("lexicographic_greatest", special_tokens=())), **LIMITS)  # text to them
    parting = first_parting(across, cs336_run(), STORIES, label="preset cs336")
    assert parting.kind in (COUNTS, UNSEEN)
    assert parting.kind != TIE and parting.step is not None
    assert "special tokens" in parting.explanation


def test_a_pair_across_a_chunk_is_one_bpe_lab_never_sees():
    # the student merges 'e' with the space after it, as training without a pre-tokenizer does
    whole = read_homework(cs336_files(student(pretokenizer=None, minimum_pair_frequency=2)), **LIMITS)
    run = train_run(STORIES, 257 + 61, **{**preset_fields(CS336), "pretokenizer": "whitespace"}, top_k=0)
    parting = first_parting(whole, run, STORIES, label="whitespace")
    assert parting.kind == UNSEEN and parting.theirs_count == 0
    assert "BPE Lab never sees" in parting.explanation and "pre-tokenizer whitespace" in parting.explanation
    assert pair_count(run, STORIES, parting.step, parting.ours) == parting.ours_count  # the recount is exact


def test_a_run_that_stops_at_its_minimum_frequency_is_a_stop():
    rare = read_homework(cs336_files(student("lexicographic_greatest")), **LIMITS)
    run = train_run(STORIES, 257 + 61, **{**preset_fields(CS336), "minimum_pair_frequency": 100}, top_k=0)
    parting = first_parting(rare, run, STORIES, label="min 100")
    assert parting.kind == STOPPED and parting.ours is None
    assert "set the minimum pair frequency to 1" in parting.explanation


@pytest.mark.shared_data
def test_cs336s_own_reference_merges_are_the_presets_run():
    folder = shared_data_dir() / "cs336"
    if not (folder / "corpus.en").is_file():
        pytest.skip(f"CS336's fixtures are not in {folder} (the shared data)")
    text = (folder / "corpus.en").read_text(encoding="utf-8")
    files = {
        name: (folder / name).read_bytes()
        for name in ("train-bpe-reference-merges.txt", "train-bpe-reference-vocab.json")
    }
    reference = read_homework(files, **LIMITS)
    assert len(reference.merges) == 243 and reference.special_tokens == (EOT,)
    run = train_run(text, 501, **preset_fields(CS336), top_k=10)
    assert first_parting(reference, run, text, label="preset cs336").step is None
    smaller = train_run(text, 501, **{**preset_fields(CS336), "tie_rule": "lexicographic"}, top_k=10)
    parting = first_parting(reference, smaller, text, label="lexicographic")
    assert (parting.step, parting.kind, parting.ours_count) == (32, TIE, 609)


def _hf_with_long_merge(length: int) -> bytes:
    """A Hugging Face tokenizer.json whose one merge makes a token of ``length`` bytes."""
    half = length // 2
    left, right = "a" * half, "a" * (length - half)
    vocab = {"a": 0, left: 1, right: 2, left + right: 3}
    model = {"type": "BPE", "vocab": vocab, "merges": [[left, right]]}
    return json.dumps({"model": model, "pre_tokenizer": None, "added_tokens": []}).encode()


@pytest.mark.parametrize(
    "files",
    [
        # minbpe: each merge joins the newest token with itself, 2**41 bytes from ~400 bytes
        {
            "d.model": (
                "\n".join(["minbpe v1", "", "0", "97 97", *(f"{256 + k} {256 + k}" for k in range(39))]) + "\n"
            ).encode()
        },
        # CS336: one merge spelled in full whose token is one byte past the bound
        {"merges.txt": b"a" * 2048 + b" " + b"a" * 2049 + b"\n"},
        {"tokenizer.json": _hf_with_long_merge(4097)},
    ],
    ids=["minbpe-doubling", "cs336-long-merge", "hf-long-merge"],
)
def test_a_students_file_is_held_to_the_token_length_bound_every_reader_holds(files):
    """The homework check reads a stranger's merges: a token longer than MAX_TOKEN_LENGTH
    is refused in one line, as a run file's or a tokenizer file's is (minbpe's doubling
    reaches the total its file may describe, eight times its bytes, first)."""
    bound = f"the longest BPE Lab accepts is {MAX_TOKEN_LENGTH:,} (bytes|characters)|the most BPE Lab accepts is [0-9,]+ bytes of tokens"
    with pytest.raises(TokenizerFileError, match=bound) as caught:
        read_homework(files, **LIMITS)
    assert "\n" not in str(caught.value)
