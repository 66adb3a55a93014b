"""`python -m bpe`: the tutorial's pipeline end to end, and clear errors."""

import subprocess
import sys

import pytest
from helpers import ROOT

from bpe import BPETokenizer
from bpe.cli.main import main

TRAIN = "the cat sat on the mat. the cat ate the rat.\n" * 40
VAL = "the rat sat on the cat.\n" * 10
TEST = "a mat, a hat, a cat.\n" * 10


@pytest.fixture
def splits(tmp_path):
    folder = tmp_path / "processed"
    folder.mkdir()
    for name, text in (("train", TRAIN), ("val", VAL), ("test", TEST)):
        (folder / f"wikitext2_{name}_clean.txt").write_text(text, encoding="utf-8")
    return folder


def test_build_runs_the_whole_pipeline(splits, tmp_path, capsys):
    torch = pytest.importorskip("torch")
    out_json = tmp_path / "tok" / "bpe_tokenizer.json"
    status = main(
        [
            "build",
            "--processed-dir",
            str(splits),
            "--tokenizer-output",
            str(out_json),
            "--encoded-output-dir",
            str(tmp_path / "enc"),
            "--target-vocab-size",
            "40",
            "--training-characters",
            "600",
            "--quiet",
        ]
    )
    out = capsys.readouterr().out
    assert status == 0
    tok = BPETokenizer.from_file(out_json)
    # base tokens from all splits (',' and 'h' of the test split), merges from the first 600 training chars
    assert set(TRAIN + VAL + TEST) == set(tok.base_tokens)
    assert tok.merges == BPETokenizer.train(TRAIN[:600], 40, base_tokens=tok.base_tokens).merges
    for name, text in (("train", TRAIN), ("val", VAL), ("test", TEST)):
        ids = torch.load(tmp_path / "enc" / f"{name}_ids.pt", weights_only=True)
        assert ids.dtype == torch.long and tok.decode(ids.tolist()) == text
    train_tokens = len(tok.encode(TRAIN))
    train_line = next(line for line in out.splitlines() if line.startswith("train "))
    assert train_line.split() == [
        "train",
        f"{len(TRAIN):,}",
        f"{train_tokens:,}",
        f"{len(TRAIN) / train_tokens:.2f}x",
        f"{1 - train_tokens / len(TRAIN):.1%}",
    ]
    assert f"fingerprint {tok.fingerprint()}" in out
    assert "30 longest learned tokens:" in out and "Sample: " not in out  # 'A' is not in the alphabet


def test_encode_decode_inspect(tmp_path, capsys):
    path = tmp_path / "t.json"
    BPETokenizer.train("low lower lowest", 100).save(path)
    assert main(["encode", "--tokenizer", str(path), "--text", "low lower lowest"]) == 0
    assert capsys.readouterr().out.strip() == "9 11 4 11 5 6"
    assert main(["decode", "--tokenizer", str(path), "--ids", "9,11", "4"]) == 0
    assert capsys.readouterr().out == "low lower\n"
    assert main(["inspect", "--tokenizer", str(path), "--first", "2"]) == 0
    out = capsys.readouterr().out
    assert "Merge 1: 'l' + 'o' = 'lo' (id 8)" in out and "Merge 2: 'lo' + 'w' = 'low' (id 9)" in out


@pytest.mark.parametrize(
    "argv,message",
    [
        (["encode", "--text", "héllo"], "outside the tokenizer's alphabet: 'h', 'é'"),
        (["decode", "--ids", "1", "x"], "'x' is not a token id"),
        (["decode", "--ids", "500"], "unknown token id 500"),
    ],
)
def test_bad_input_is_one_clear_line(tmp_path, capsys, argv, message):
    path = tmp_path / "t.json"
    BPETokenizer.train("low lower lowest", 100).save(path)
    assert main(argv[:1] + ["--tokenizer", str(path)] + argv[1:]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and "Traceback" not in err


def test_build_without_splits_says_what_to_give(capsys):
    assert main(["build"]) == 1
    assert "no train split: give --processed-dir DIR or --train FILE" in capsys.readouterr().err


def test_missing_tokenizer_file(tmp_path, capsys):
    assert main(["inspect", "--tokenizer", str(tmp_path / "nope.json")]) == 1
    assert "cannot read tokenizer file" in capsys.readouterr().err


def test_module_entry_point_runs(tmp_path):
    path = tmp_path / "t.json"
    BPETokenizer.train("low lower lowest", 100).save(path)
    result = subprocess.run(
        [sys.executable, "-m", "bpe", "encode", "--tokenizer", str(path), "--text", "lowest"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "9 1 5 6"


def test_build_stops_cleanly_at_max_vocab_characters(splits, tmp_path, capsys):
    pytest.importorskip("torch")
    out_json = tmp_path / "tok.json"
    argv = ["build", "--processed-dir", str(splits), "--tokenizer-output", str(out_json)]
    argv += ["--encoded-output-dir", str(tmp_path / "enc"), "--target-vocab-size", "40", "--quiet"]
    assert main([*argv, "--training-characters", "600", "--max-vocab-characters", "30"]) == 0
    out = capsys.readouterr().out
    assert "past 30 characters in all" in out and "--max-vocab-characters N raises the bound" in out
    merges = BPETokenizer.from_file(out_json).merges
    full = BPETokenizer.train(TRAIN[:600], 40, base_tokens=BPETokenizer.from_file(out_json).base_tokens).merges
    assert 0 < len(merges) < len(full) and merges == full[: len(merges)]
    assert sum(len(a + b) for a, b in merges) <= 30
