"""`bpe.analysis.evaluation` and `python -m bpe evaluate`: every figure against an independent
computation from the ids (numpy, the definitions written out again), the worked example,
and the command's table and JSON."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import MAX_EXAMPLES, ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe import BPETokenizer
from bpe.analysis.evaluation import evaluate, evaluate_ids, gini
from bpe.cli.main import main
from bpe.errors import BpeError

LIGHTHOUSE = ROOT / "data" / "lighthouse"


def independent(ids: list[int], text: str, vocab_size: int, alpha: float = 2.5) -> dict:
    """The issue's definitions, computed with numpy from the ids."""
    ids_array = np.asarray(ids)
    _, counts = np.unique(ids_array, return_counts=True)
    p = counts / len(ids)
    h1 = float(-(p * np.log2(p)).sum())
    h_alpha = float(np.log2((p**alpha).sum()) / (1 - alpha))
    return {
        "tokens": len(ids),
        "bytes_per_token": len(text.encode("utf-8")) / len(ids),
        "chars_per_token": len(text) / len(ids),
        "fertility": len(ids) / len(text.split()),
        "shannon_efficiency": h1 / np.log2(vocab_size),
        "renyi_efficiency": h_alpha / np.log2(vocab_size),
        "utilisation": len(counts) / vocab_size,
    }


def independent_gini(counts: list[int]) -> float:
    c = np.asarray(counts, dtype=float)
    return float(np.abs(np.subtract.outer(c, c)).sum() / (2 * len(c) ** 2 * c.mean()))


def assert_figures(found, expected: dict) -> None:
    for key, value in expected.items():
        assert getattr(found, key) == pytest.approx(value, rel=1e-12), key


def test_the_worked_example_of_the_module():
    found = evaluate_ids([0, 0, 1], "aa ab", 4)
    assert found.fertility == 1.5
    assert round(found.shannon_efficiency, 3) == 0.459
    assert round(found.renyi_efficiency, 3) == 0.409
    assert found.utilisation == 0.5
    assert_figures(found, independent([0, 0, 1], "aa ab", 4))


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(
    ids=st.lists(st.integers(0, 40), min_size=1, max_size=200),
    alpha=st.sampled_from([0.5, 2.0, 2.5, 3.0]),
    extra=st.integers(0, 100),
)
def test_every_figure_equals_the_definition_computed_from_the_ids(ids, alpha, extra):
    text = " ".join("w" * (1 + i % 3) for i in ids)  # any text: its sizes only divide
    vocab = 41 + extra
    assert_figures(evaluate_ids(ids, text, vocab, alpha=alpha), independent(ids, text, vocab, alpha))


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=30))
def test_gini_equals_the_double_sum(counts):
    if not sum(counts):
        assert gini(counts) is None
    else:
        assert gini(counts) == pytest.approx(independent_gini(counts), rel=1e-12, abs=1e-15)


def test_a_trained_tokenizer_on_the_lighthouse_paragraphs():
    texts = {path.name: path.read_text(encoding="utf-8") for path in sorted(LIGHTHOUSE.glob("*.txt"))}
    assert len(texts) == 11
    tokenizer = BPETokenizer.train("\n".join(texts.values()), 400, alphabet="bytes")
    found = evaluate(tokenizer, texts)
    for name, text in texts.items():
        ids = tokenizer.encode(text)
        assert_figures(found.texts[name], independent(ids, text, tokenizer.vocab_size))
    assert found.gini == pytest.approx(independent_gini([len(tokenizer.encode(t)) for t in texts.values()]))
    assert 0 < found.gini < 1


def test_figures_without_a_value_are_none_not_zero():
    empty = evaluate_ids([], "", 10)
    assert empty.tokens == 0 and empty.bytes_per_token is None and empty.shannon_efficiency is None
    no_words = evaluate_ids([1], " ", 10)
    assert no_words.fertility is None and no_words.bytes_per_token == 1.0
    assert evaluate_ids([0], "a", 1).shannon_efficiency is None  # log2(1) = 0
    with pytest.raises(BpeError, match="alpha=1"):
        evaluate_ids([0], "a", 4, alpha=1)


@pytest.fixture
def tokenizer_file(tmp_path):
    path = tmp_path / "tok.json"
    BPETokenizer.train((LIGHTHOUSE / "en.txt").read_text(encoding="utf-8") * 3, 300, alphabet="bytes").save(path)
    return path


def test_the_command_prints_json_equal_to_the_independent_figures(tokenizer_file, capsys):
    paths = [LIGHTHOUSE / "en.txt", LIGHTHOUSE / "de.txt", LIGHTHOUSE / "zh.txt"]
    assert main(["evaluate", "--tokenizer", str(tokenizer_file), "--text", *map(str, paths), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    tokenizer = BPETokenizer.from_file(tokenizer_file)
    assert set(printed) == {"texts", "gini"}
    counts = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        ids = tokenizer.encode(text)
        counts.append(len(ids))
        for key, value in independent(ids, text, tokenizer.vocab_size).items():
            assert printed["texts"][path.name][key] == pytest.approx(value, rel=1e-12), key
    assert printed["gini"] == pytest.approx(independent_gini(counts))


def test_the_command_prints_one_table_per_tokenizer_and_json_by_tokenizer(tokenizer_file, capsys):
    text = str(LIGHTHOUSE / "en.txt")
    other = tokenizer_file.with_name("other.json")
    other.write_bytes(tokenizer_file.read_bytes())
    assert main(["evaluate", "--tokenizer", str(tokenizer_file), str(other), "--text", text]) == 0
    out = capsys.readouterr().out
    assert out.count("Gini of the token counts across 1 texts: 0.0000") == 2
    assert "en.txt" in out and "Shannon" in out
    assert main(["evaluate", "--tokenizer", str(tokenizer_file), str(other), "--text", text, "--json"]) == 0
    assert set(json.loads(capsys.readouterr().out)) == {str(tokenizer_file), str(other)}


def test_the_command_refuses_in_one_line(tokenizer_file, capsys):
    text = str(LIGHTHOUSE / "en.txt")
    assert main(["evaluate", "--tokenizer", str(tokenizer_file), "--text", text, "--alpha", "1"]) == 1
    assert main(["evaluate", "--tokenizer", "missing.json", "--text", text]) == 1
    assert main(["evaluate", "--tokenizer", str(tokenizer_file), str(tokenizer_file), "--text", text]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and "alpha=1.0" in err[0] and "missing.json" in err[1] and "given twice" in err[2]


def test_inspect_json_lists_every_merge_as_plain_strings(tokenizer_file, capsys):
    assert main(["inspect", "--tokenizer", str(tokenizer_file), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    tokenizer = BPETokenizer.from_file(tokenizer_file)
    assert printed["alphabet"] == "bytes" and printed["spelling"] == "gpt2 bytes"
    from bpe.alphabet import from_gpt2_spelling

    assert [tuple(map(from_gpt2_spelling, pair)) for pair in printed["merges"]] == tokenizer.merges
    assert printed["specials"] == {}
    characters = BPETokenizer.train("low lower lowest " * 5, 20)
    characters.save(tokenizer_file)
    main(["inspect", "--tokenizer", str(tokenizer_file), "--json"])
    printed = json.loads(capsys.readouterr().out)
    assert printed["spelling"] == "text" and [tuple(p) for p in printed["merges"]] == characters.merges


def test_a_special_token_is_one_id_in_every_figure_and_inspect_lists_it(tmp_path, capsys):
    """A tokenizer trained with <|endoftext|> (and a run file of one): evaluate counts the
    special token as the one id its own encode gives, V holds it, and inspect --json names it
    with its id; evaluate's figures still equal the independent computation from the ids."""
    special = "<|endoftext|>"
    english = (LIGHTHOUSE / "en.txt").read_text(encoding="utf-8")
    tokenizer = BPETokenizer.train(
        (english + special) * 3, 300, alphabet="bytes", pretokenizer="gpt2", special_tokens=[special]
    )
    path, text_path = tmp_path / "special.json", tmp_path / "docs.txt"
    tokenizer.save(path)
    text = english + special + english
    text_path.write_text(text, encoding="utf-8")
    assert main(["evaluate", "--tokenizer", str(path), "--text", str(text_path), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)["texts"]["docs.txt"]
    ids = tokenizer.encode(text)
    assert ids.count(tokenizer.special_tokens[special]) == 1 and tokenizer.vocab_size == 300
    for key, value in independent(ids, text, tokenizer.vocab_size).items():
        assert printed[key] == pytest.approx(value, rel=1e-12), key
    assert main(["inspect", "--tokenizer", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["specials"] == {special: tokenizer.special_tokens[special]}
