"""`python -m bpe parity`: parallel texts in, the rules' token counts out, the shared tokenizer saved."""

from __future__ import annotations

from bpe.cli.main import main
from bpe.corpora.builtin import LIGHTHOUSE
from bpe.parity import PARITY, STANDARD, train_multilingual
from bpe.tokenizer import BPETokenizer


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
    assert main(["parity", *map(str, paths), "--merges", "120", "--compare", "--tokenizer-output", str(output)]) == 0
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
    assert main(["parity", *map(str, paths), "--names", "English"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "gives 1 names for 2 texts" in err


def test_an_empty_text_is_refused_before_training(tmp_path, capsys):
    (tmp_path / "en.txt").write_text("the sea", encoding="utf-8")
    (tmp_path / "de.txt").write_text("", encoding="utf-8")
    assert main(["parity", str(tmp_path / "en.txt"), str(tmp_path / "de.txt")]) == 1
    assert "empty" in capsys.readouterr().err
