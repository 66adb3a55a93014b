"""`python -m bpe build --tie-rule`: the rule reaches training and the saved file."""

import json

import pytest

from bpe import BPETokenizer
from bpe.cli.main import main

TRAIN = "xyab xyab cdqr cdqr\n" * 6  # every pair inside a word ties with the others
VAL = "xyab cdqr\n"
TEST = "cdqr xyab\n"


@pytest.fixture
def splits(tmp_path):
    pytest.importorskip("torch")  # build saves the ids as torch tensors
    paths = {}
    for name, text in (("train", TRAIN), ("val", VAL), ("test", TEST)):
        paths[name] = tmp_path / f"{name}.txt"
        paths[name].write_text(text, encoding="utf-8")
    return paths


def build(tmp_path, splits, *rule, status: int = 0) -> dict | None:
    out = tmp_path / f"tok{'-'.join(rule)}.json"
    got = main(
        [
            "build",
            "--train",
            str(splits["train"]),
            "--val",
            str(splits["val"]),
            "--test",
            str(splits["test"]),
            "--tokenizer-output",
            str(out),
            "--encoded-output-dir",
            str(tmp_path / "enc"),
            "--target-vocab-size",
            "16",
            "--quiet",
            *rule,
        ]
    )
    assert got == status
    return json.loads(out.read_text(encoding="utf-8")) if status == 0 else None


def test_build_records_another_rule_and_trains_with_it(splits, tmp_path, capsys):
    default = build(tmp_path, splits)
    lexicographic = build(tmp_path, splits, "--tie-rule", "lexicographic")
    assert "tie_rule" not in default  # the tutorial's file, exactly
    assert lexicographic["tie_rule"] == "lexicographic"
    assert lexicographic["merges"] != default["merges"]
    base = default["base_tokens"]
    expected = BPETokenizer.train(TRAIN, 16, base_tokens=base, tie_rule="lexicographic")
    assert [tuple(m) for m in lexicographic["merges"]] == expected.merges
    assert lexicographic["merges"][0] == [" ", "c"] and default["merges"][0] == ["x", "y"]  # all counted 12 times


def test_an_unknown_rule_is_refused_by_the_parser(splits, tmp_path, capsys):
    build(tmp_path, splits, "--tie-rule", "random", status=1)
    err = capsys.readouterr().err
    assert "invalid choice: 'random'" in err and err.startswith("error: ") and err.count("\n") == 1
