"""`python -m bpe train --rule parity`: parallel texts in, the rules' token counts out, the
shared tokenizer saved; what does not apply to the rule is refused in one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bpe.cli.main import main
from bpe.corpora.builtin import LIGHTHOUSE
from bpe.tokenizer import BPETokenizer
from bpe.variants.parity import PARITY, STANDARD, train_multilingual

ROOT = Path(__file__).resolve().parents[2]


def lighthouse_files(folder, codes=("en", "de", "el", "ru")):
    paths = []
    for code in codes:
        path = folder / f"{code}.txt"
        path.write_text(LIGHTHOUSE[code][1], encoding="utf-8")
        paths.append(path)
    return paths


def test_parity_prints_both_rules_and_saves_the_tokenizer_training_gave(tmp_path, capsys):
    paths = lighthouse_files(tmp_path)
    output = tmp_path / "parity.json"
    argv = ["train", *map(str, paths), "--rule", "parity", "--alphabet", "bytes", "--pretokenizer", "none"]
    assert main([*argv, "--vocab-size", str(256 + 120), "--compare", "--tokenizer-output", str(output)]) == 0
    printed = capsys.readouterr().out
    texts = {path.stem: path.read_text(encoding="utf-8") for path in paths}
    runs = {rule: train_multilingual(texts, merges=120, rule=rule) for rule in (PARITY, STANDARD)}
    rows = {line.split()[0]: line.split() for line in printed.splitlines() if line.split()[:1] in (["en"], ["el"])}
    assert set(rows) == {"en", "el"}
    for index, name in enumerate(texts):
        if name in rows:
            assert rows[name][2] == f"{runs[PARITY].tokens_after(120)[index]:,}"
            assert rows[name][4] == f"{runs[STANDARD].tokens_after(120)[index]:,}"
    assert BPETokenizer.from_file(output) == runs[PARITY].tokenizer()


def test_names_must_match_the_texts_in_one_line(tmp_path, capsys):
    paths = lighthouse_files(tmp_path, ("en", "de"))
    assert main(["train", *map(str, paths), "--rule", "parity", "--names", "English", "--vocab-size", "300"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "gives 1 names for 2 texts" in err


def test_an_empty_text_is_refused_before_training(tmp_path, capsys):
    (tmp_path / "en.txt").write_text("the sea", encoding="utf-8")
    (tmp_path / "de.txt").write_text("", encoding="utf-8")
    assert (
        main(["train", str(tmp_path / "en.txt"), str(tmp_path / "de.txt"), "--rule", "parity", "--vocab-size", "300"])
        == 1
    )
    assert "empty" in capsys.readouterr().err


# ==================== aimed at a vocab size, refusing what does not apply


def test_train_with_parity_writes_the_tokenizer_parity_training_gives(tmp_path, capsys):
    paths = lighthouse_files(tmp_path)
    output = tmp_path / "fair.json"
    argv = ["train", *map(str, paths), "--rule", "parity", "--alphabet", "bytes", "--pretokenizer", "none"]
    assert main([*argv, "--vocab-size", "330", "--tokenizer-output", str(output)]) == 0
    printed = capsys.readouterr().out
    texts = {path.stem: path.read_text(encoding="utf-8") for path in paths}
    run = train_multilingual(texts, merges=330 - 256, rule=PARITY, alphabet="bytes")  # 256 byte tokens
    assert len(run.steps) == 74
    written = BPETokenizer.from_file(output)  # BPE Lab's JSON, fingerprint checked on load
    assert written == run.tokenizer() and written.vocab_size == 330
    rows = {line.split()[0]: line.split() for line in printed.splitlines() if line.split()[:1] in (["en"], ["el"])}
    for index, name in enumerate(texts):
        if name in rows:
            assert rows[name][2] == f"{run.tokens_after(74)[index]:,}"
    assert f"wrote {output}" in printed and "vocab 330 (of 330 asked for)" in printed


def test_a_vocab_size_is_the_base_tokens_and_the_merges_of_parity_training(tmp_path, capsys):
    # The removed `parity` command counted merges; `train --rule parity` aims at a vocab size.
    # Both are one training: V = the texts' base tokens + the merges.
    paths = lighthouse_files(tmp_path, ("en", "el"))
    by_vocab = tmp_path / "vocab.json"
    common = ["--alphabet", "characters", "--pretokenizer", "gpt2", "--tie-rule", "lexicographic"]
    texts = {path.stem: path.read_text(encoding="utf-8") for path in paths}
    by_merges = train_multilingual(
        texts, merges=40, rule=PARITY, alphabet="characters", pretokenizer="gpt2", tie_rule="lexicographic"
    ).tokenizer()
    base = len(set("".join(path.read_text(encoding="utf-8") for path in paths)))
    vocab = str(base + 40)
    assert (
        main(
            ["train", *map(str, paths), "--rule", "parity", *common, "--vocab-size", vocab]
            + ["--tokenizer-output", str(by_vocab)]
        )
        == 0
    )
    assert by_merges == BPETokenizer.from_file(by_vocab)


@pytest.mark.parametrize(
    "extra, said",
    [
        (["--counts", "c.parquet"], "a counts file holds one table"),
        (["--run-output", "r.bperun"], "--run-output is for a run file"),
        (["--heldout-fraction", "0.1"], "--heldout-fraction does not apply to --rule parity"),
        (["--engine", "reference", "--top-k", "3"], "--engine, --top-k do not apply to --rule parity"),
        (["--vocab-size", "100"], "--vocab-size 100 leaves no merge: these texts have 256 base tokens"),
    ],
)
def test_train_parity_refuses_a_wrong_combination_in_one_line(tmp_path, capsys, extra, said):
    paths = lighthouse_files(tmp_path, ("en", "de"))
    output = tmp_path / "kept.json"
    output.write_text("as before", encoding="utf-8")
    inputs = [] if "--counts" in extra else list(map(str, paths))
    argv = ["train", *inputs, "--rule", "parity", "--alphabet", "bytes", "--vocab-size", "300", *extra]
    assert main([*argv, "--tokenizer-output", str(output)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and said in err and "Traceback" not in err
    assert output.read_text(encoding="utf-8") == "as before"


def test_train_parity_needs_two_texts(tmp_path, capsys):
    (path,) = lighthouse_files(tmp_path, ("en",))
    assert main(["train", str(path), "--rule", "parity", "--vocab-size", "300"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "two or more texts, one per language" in err and "got 1" in err


def test_train_parity_in_a_subprocess_as_a_user_runs_it(tmp_path):
    paths = lighthouse_files(tmp_path, ("en", "ru"))
    output = tmp_path / "fair.json"
    done = subprocess.run(
        [sys.executable, "-m", "bpe", "train", *map(str, paths), "--rule", "parity", "--alphabet", "bytes"]
        + ["--vocab-size", "290", "--tokenizer-output", str(output)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "parity: 34 merges" in done.stdout and BPETokenizer.from_file(output).vocab_size == 290
