"""`--special-token` and `--preset cs336` on the command line: a TinyStories-style text with
<|endoftext|> trains with no merge that touches the marker (build, count, train), the preset
says what it set and an option given beside it wins, and any file name is a text file."""

from __future__ import annotations

import json

import pytest

from bpe import BPETokenizer
from bpe.alphabet import from_gpt2_spelling
from bpe.cli.main import main
from bpe.paths import shared_data_dir
from bpe.scale.counts_file import read_counts
from bpe.scale.run_file import read_run_file

EOT = "<|endoftext|>"
STORIES = "".join(
    f"Once upon a time, {name} had a {thing}. {name} liked to play with the {thing} every day.{EOT}"
    for name, thing in [("Tom", "red ball"), ("Lily", "big dog"), ("Sam", "little cat"), ("Mia", "blue kite")] * 40
)


def touches_the_marker(merges) -> list:
    """The merges whose token holds a piece of <|endoftext|> that the stories' words do not."""
    spelled = [(left + right).decode() if isinstance(left, bytes) else left + right for left, right in merges]
    return [token for token in spelled if any(piece in token for piece in ("<|", "|>", "|", "endoftext", "ext|"))]


@pytest.fixture
def stories(tmp_path):
    path = tmp_path / "stories.raw"  # not .txt: any file name is text
    path.write_text(STORIES, encoding="utf-8")
    return path


def test_train_with_the_preset_learns_nothing_of_the_marker(stories, tmp_path, capsys):
    tokenizer, run = tmp_path / "t.json", tmp_path / "r.bperun"
    status = main(
        ["train", str(stories), "--preset", "cs336", "--vocab-size", "400", "--tokenizer-output", str(tokenizer)]
        + ["--run-output", str(run), "--quiet"]
    )
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "preset cs336 (Stanford CS336 (assignment 1)) set the bytes alphabet, GPT-2's split pattern, ties" in err
    assert "special tokens: '<|endoftext|>' 160 times" in err
    loaded = BPETokenizer.from_file(tokenizer)
    assert loaded.special_tokens == {EOT: 0} and loaded.tie_rule == "lexicographic_greatest"
    assert loaded.vocab_size <= 400 and len(loaded.merges) > 60 and touches_the_marker(loaded.merges) == []
    replay = read_run_file(run).run
    assert replay.special_tokens == (EOT,) and replay.merges == loaded.merges
    assert loaded.encode(f"Tom had a dog.{EOT}")[-1] == 0
    # without the special token the marker's pieces are merges
    plain = tmp_path / "plain.json"
    assert (
        main(
            [
                "train",
                str(stories),
                "--alphabet",
                "bytes",
                "--vocab-size",
                "400",
                "--tokenizer-output",
                str(plain),
                "--quiet",
            ]
        )
        == 0
    )
    assert touches_the_marker(BPETokenizer.from_file(plain).merges)


def test_an_option_given_beside_the_preset_wins_and_is_said(stories, tmp_path, capsys):
    tokenizer = tmp_path / "t.json"
    status = main(
        ["train", str(stories), "--preset", "cs336", "--minimum-pair-frequency", "3", "--tie-rule", "lexicographic"]
        + ["--vocab-size", "400", "--tokenizer-output", str(tokenizer), "--quiet"]
    )
    err = capsys.readouterr().err
    assert status == 0, err
    assert "given instead: minimum pair frequency 3, the lexicographic tie rule" in err
    data = json.loads(tokenizer.read_text())
    assert data["tie_rule"] == "lexicographic" and data["special_tokens"] == [EOT]
    expected = BPETokenizer.train(
        STORIES, 400, 3, alphabet="bytes", pretokenizer="gpt2", tie_rule="lexicographic", special_tokens=[EOT]
    )
    assert BPETokenizer.from_file(tokenizer) == expected


def test_count_then_train_with_special_tokens_is_training_in_memory(stories, tmp_path, capsys):
    counts, tokenizer = tmp_path / "c.parquet", tmp_path / "t.json"
    assert (
        main(["count", str(stories), "--alphabet", "bytes", "--special-token", EOT, "-o", str(counts), "--quiet"]) == 0
    )
    assert "special tokens: '<|endoftext|>' 160 times" in capsys.readouterr().out
    assert read_counts(counts).special_tokens == (EOT,)
    assert (
        main(
            [
                "train",
                "--counts",
                str(counts),
                "--preset",
                "cs336",
                "--vocab-size",
                "400",
                "--tokenizer-output",
                str(tokenizer),
                "--quiet",
            ]
        )
        == 0
    )
    err = capsys.readouterr().err
    assert "the alphabet, pre-tokenizer and special tokens are the counts file's" in err
    expected = BPETokenizer.train(
        STORIES, 400, 1, alphabet="bytes", pretokenizer="gpt2", tie_rule="lexicographic_greatest", special_tokens=[EOT]
    )
    assert BPETokenizer.from_file(tokenizer) == expected
    assert main(["train", "--counts", str(counts), "--special-token", "<|x|>", "--vocab-size", "400", "--quiet"]) == 1
    assert "shapes the counting" in capsys.readouterr().err


def test_build_with_special_tokens_and_the_preset(stories, tmp_path, capsys):
    pytest.importorskip("torch")  # build saves the ids as torch tensors
    out = tmp_path / "tok.json"
    status = main(
        ["build", "--train", str(stories), "--val", str(stories), "--test", str(stories), "--preset", "cs336"]
        + ["--tokenizer-output", str(out), "--encoded-output-dir", str(tmp_path / "enc"), "--target-vocab-size", "300"]
    )
    captured = capsys.readouterr()
    assert status == 0, captured.err
    assert "preset cs336" in captured.err
    tok = BPETokenizer.from_file(out)
    assert tok.special_tokens == {EOT: 0} and tok.alphabet == "bytes" and touches_the_marker(tok.merges) == []
    # the splits round-trip with the marker as one token each
    assert "vocab size 300" in captured.out
    characters = BPETokenizer.from_file(out)
    assert characters.encode(STORIES).count(0) == 160
    status = main(
        ["build", "--train", str(stories), "--val", str(stories), "--test", str(stories), "--special-token", EOT]
        + [
            "--tokenizer-output",
            str(out),
            "--encoded-output-dir",
            str(tmp_path / "enc"),
            "--target-vocab-size",
            "100",
            "--quiet",
        ]
    )
    assert status == 0
    tok = BPETokenizer.from_file(out)
    assert tok.alphabet == "characters" and "|" not in tok.base_tokens and touches_the_marker(tok.merges) == []


@pytest.mark.shared_data
def test_the_cs336_reference_merges_from_the_command_line(tmp_path, capsys):
    folder = shared_data_dir() / "cs336"
    if not (folder / "corpus.en").is_file():
        pytest.skip(f"CS336's corpus.en is not in {folder} (the shared data)")
    tokenizer = tmp_path / "t.json"
    status = main(
        [
            "train",
            str(folder / "corpus.en"),
            "--preset",
            "cs336",
            "--vocab-size",
            "500",
            "--tokenizer-output",
            str(tokenizer),
            "--quiet",
        ]
    )
    assert status == 0, capsys.readouterr().err
    reference = [
        tuple(from_gpt2_spelling(part) for part in line.split(" "))
        for line in (folder / "train-bpe-reference-merges.txt").read_text(encoding="utf-8").splitlines()
    ]
    assert BPETokenizer.from_file(tokenizer).merges == reference


def test_encode_matches_special_tokens_as_the_files_library_does_and_as_told(stories, tmp_path, capsys):
    """``encode`` on the lab's file and its Hugging Face export gives ``<|endoftext|>`` one id
    (both libraries match it in any text); on the tiktoken export it is plain text, as
    tiktoken's ``encode_ordinary`` reads it, until ``--allowed-special`` names it or says
    all; ``--allowed-special`` with no token makes it plain text everywhere. ``--tokens``
    shows the tokens of those ids."""
    tokenizer = BPETokenizer.train(
        stories.read_text(encoding="utf-8"), 300, alphabet="bytes", pretokenizer="gpt2", special_tokens=[EOT]
    )
    tokenizer.save(tmp_path / "lab.json")
    for fmt, name in (("hf", "tokenizer.json"), ("tiktoken", "lab.tiktoken")):
        assert (
            main(
                ["export", "--tokenizer", str(tmp_path / "lab.json"), "--format", fmt, "--output", str(tmp_path / name)]
            )
            == 0
        )
    capsys.readouterr()
    text = f"the end{EOT}"
    as_special = tokenizer.encode(text)
    assert as_special[-1] == 0

    def encoded(name: str, *options: str) -> tuple[list[int], str]:
        assert main(["encode", "--tokenizer", str(tmp_path / name), "--text", text, "--tokens", *options]) == 0
        ids, tokens = capsys.readouterr().out.splitlines()
        return [int(i) for i in ids.split()], tokens

    ids, tokens = encoded("lab.json")
    assert ids == as_special and tokens.endswith(f"{EOT!r}")
    assert encoded("tokenizer.json")[0] == as_special
    as_text, tokens = encoded("lab.tiktoken")
    assert len(as_text) > len(as_special) and EOT not in tokens
    for options in (["--allowed-special", "all"], ["--allowed-special", EOT]):
        assert encoded("lab.tiktoken", *options)[0] == as_special
    for name in ("lab.json", "tokenizer.json", "lab.tiktoken"):
        assert encoded(name, "--allowed-special")[0] == as_text
