"""`python -m bpe train --variant ...`: each rule trained from text files to a run file that
reads back as the run `bpe.variants` trains in memory; what does not apply refused in one line."""

from __future__ import annotations

import json

import pytest

from bpe.cli.main import main
from bpe.corpora.corpus import split_train_heldout
from bpe.paths import DATA_DIR
from bpe.scale.run_file import read_run_file
from bpe.tokenizer import BPETokenizer
from bpe.training import TrainingSettings
from bpe.variants.rule_runs import VariantRun, train_variant_run
from bpe.variants.rules import Variant

TEXT = (DATA_DIR / "tinyshakespeare.txt").read_text(encoding="utf-8")[:30_000]


@pytest.fixture
def documents(tmp_path):
    paths = []
    for index, part in enumerate((TEXT[:15_000], TEXT[15_000:])):
        path = tmp_path / f"doc{index}.txt"
        path.write_text(part, encoding="utf-8")
        paths.append(path)
    return paths


@pytest.mark.parametrize(
    ("options", "variant"),
    [
        (["--variant", "superbpe", "--transition", "120"], Variant("superbpe", transition=120)),
        (["--variant", "picky", "--threshold", "0.8"], Variant("picky", threshold=0.8)),
        (["--variant", "length_weighted"], Variant("length_weighted")),
    ],
)
def test_each_rule_trains_to_a_run_file_that_replays_the_run(documents, tmp_path, capsys, options, variant):
    out = tmp_path / "run.bperun"
    argv = ["train", *map(str, documents), *options, "--vocab-size", "300", "--heldout-fraction", "0.1"]
    assert main([*argv, "--run-output", str(out), "--quiet"]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    loaded = read_run_file(out).run
    cut = [split_train_heldout(path.read_text(encoding="utf-8"), 0.1) for path in documents]
    expected = train_variant_run(
        [train for train, _ in cut],
        TrainingSettings(target_vocab_size=300, pretokenizer="gpt2"),
        variant,
        heldout_text=[held for _, held in cut],
    )
    assert isinstance(loaded, VariantRun) and loaded.variant == variant
    assert [s.pair for s in loaded.steps] == [s.pair for s in expected.steps]
    assert loaded.heldout_lengths == expected.heldout_lengths


def test_a_length_weighted_tokenizer_is_a_plain_file_and_inspect_and_evaluate_read_run_files(
    documents, tmp_path, capsys
):
    tokenizer, run = tmp_path / "lw.json", tmp_path / "picky.bperun"
    common = ["--vocab-size", "300", "--quiet"]
    assert (
        main(
            ["train", str(documents[0]), "--variant", "length_weighted", "--tokenizer-output", str(tokenizer), *common]
        )
        == 0
    )
    assert BPETokenizer.from_file(tokenizer).merges
    assert main(["train", str(documents[0]), "--variant", "picky", "--run-output", str(run), *common]) == 0
    capsys.readouterr()
    assert main(["inspect", "--tokenizer", str(run), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    loaded = read_run_file(run).run
    assert printed["rule"] == "picky" and printed["threshold"] == 0.9
    assert len(printed["removals"]) == sum(len(r) for r in loaded.removals.values())
    assert main(["evaluate", "--tokenizer", str(run), "--text", str(documents[1]), "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)["texts"]["doc1.txt"]
    assert figures["tokens"] == len(loaded.tokenizer().encode(documents[1].read_text(encoding="utf-8")))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--variant", "superbpe"], "SuperBPE needs its transition"),
        (["--variant", "picky", "--transition", "5"], "a transition is SuperBPE's setting"),
        (["--threshold", "0.5"], "a threshold is Picky BPE's setting; standard BPE takes none"),
        (["--variant", "picky", "--tokenizer-output", "t.json"], "write its run file with --run-output"),
        (["--variant", "picky", "--workers", "2"], "--workers does not apply to --variant picky"),
        (["--variant", "picky", "--rule", "parity"], "--rule parity trains one text per language"),
        (["--variant", "superbpe", "--transition", "3", "--pretokenizer", "none"], "choose a pre-tokenizer"),
    ],
)
def test_what_does_not_apply_is_one_line(documents, capsys, options, message):
    assert main(["train", str(documents[0]), "--vocab-size", "300", *options]) == 1
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err


def test_a_counts_file_is_refused_for_a_rule(tmp_path, capsys):
    assert main(["train", "--counts", str(tmp_path / "c.parquet"), "--variant", "picky", "--vocab-size", "300"]) == 1
    assert "a counts file keeps no documents" in capsys.readouterr().err


def test_compare_rules_prints_each_rules_figures(documents, capsys):
    from bpe.analysis.evaluation import gini
    from bpe.analysis.junk import residue_share, run_junk
    from bpe.corpora.builtin import LIGHTHOUSE

    assert main(["compare-rules", *map(str, documents), "--vocab-size", "400", "--transition", "60"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:3] == ["rule", "merges", "held-out"]
    cut = [split_train_heldout(path.read_text(encoding="utf-8"), 0.1) for path in documents]
    settings = TrainingSettings(target_vocab_size=400, alphabet="bytes", pretokenizer="gpt2", top_k=0)
    variants = [Variant(), Variant("superbpe", transition=60), Variant("picky"), Variant("length_weighted")]
    for line, variant in zip(lines[1:], variants):
        run = train_variant_run([t for t, _ in cut], settings, variant, heldout_text=[h for _, h in cut])
        tokenizer = run.tokenizer()
        spread = gini([len(tokenizer.encode(text)) for _, text in LIGHTHOUSE.values()])
        assert line.startswith(variant.label())
        cells = line[len(variant.label()) :].split()
        assert cells[0] == f"{len(run.steps):,}" and cells[1] == f"{run.heldout_lengths[-1]:,}"
        assert cells[3] == f"{spread:.3f}" and cells[4] == f"{residue_share(run_junk(run)):.1%}"


def test_a_rule_trains_under_cs336s_tie_rule_from_the_command_line(documents, tmp_path):
    """--tie-rule lexicographic_greatest reaches the rule's engines: the run file's merges
    are those of the rule trained in memory under it, and differ from the default rule's."""
    runs = {}
    for tie_rule in ("first_occurrence", "lexicographic_greatest"):
        out = tmp_path / f"{tie_rule}.bperun"
        argv = ["train", str(documents[0]), "--variant", "length_weighted", "--vocab-size", "300"]
        assert main([*argv, "--tie-rule", tie_rule, "--run-output", str(out), "--quiet"]) == 0
        runs[tie_rule] = read_run_file(out).run
    settings = TrainingSettings(target_vocab_size=300, pretokenizer="gpt2", tie_rule="lexicographic_greatest")
    expected = train_variant_run(documents[0].read_text(encoding="utf-8"), settings, Variant("length_weighted"))
    greatest = [s.pair for s in runs["lexicographic_greatest"].steps]
    assert greatest == [s.pair for s in expected.steps]
    assert runs["lexicographic_greatest"].settings.tie_rule == "lexicographic_greatest"
    assert greatest != [s.pair for s in runs["first_occurrence"].steps]


E = "<|endoftext|>"
MARKED = E.join(["the cat sat!", "the dog sat!", "a cat ran!"] * 20)


@pytest.fixture
def marked(tmp_path):
    path = tmp_path / "marked.txt"
    path.write_text(MARKED, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("variant", "options"),
    [
        (Variant("superbpe", transition=5), ["--variant", "superbpe", "--transition", "5"]),
        (Variant("picky"), ["--variant", "picky"]),
        (Variant("length_weighted"), ["--variant", "length_weighted"]),
    ],
    ids=["superbpe", "picky", "length_weighted"],
)
def test_a_rule_trains_with_special_tokens_from_the_command_line(marked, tmp_path, variant, options):
    """--special-token beside --variant: the run file records the rule and the special token,
    reads back as the run trained in memory (the marker id 0, no merge touching it), and its
    tokenizer encodes the marker as its id and decodes the text back."""
    out = tmp_path / "marked.bperun"
    argv = ["train", str(marked), *options, "--vocab-size", "30", "--special-token", E]
    assert main([*argv, "--run-output", str(out), "--quiet"]) == 0
    loaded = read_run_file(out).run
    assert isinstance(loaded, VariantRun) and loaded.variant == variant and loaded.special_tokens == (E,)
    settings = TrainingSettings(target_vocab_size=30, pretokenizer="gpt2", special_tokens=(E,))
    expected = train_variant_run([MARKED], settings, variant)  # `train` holds no text out by default
    assert [s.pair for s in loaded.steps] == [s.pair for s in expected.steps] and loaded.steps
    assert loaded.heldout_lengths == expected.heldout_lengths and loaded.removals == expected.removals
    assert not any(set("<|>") & set(step.token) for step in loaded.steps)
    tokenizer = loaded.tokenizer()
    assert tokenizer.stoi[E] == 0 and tokenizer.encode(E) == [0]
    assert tokenizer.decode(tokenizer.encode(MARKED)) == MARKED


def test_a_rule_takes_the_cs336_preset(marked, tmp_path, capsys):
    """--preset cs336 beside --variant: its bytes, GPT-2's pattern, its tie rule, every pair
    merged and its `<|endoftext|>`, as `train` without a rule takes them."""
    out = tmp_path / "cs336.bperun"
    argv = ["train", str(marked), "--variant", "length_weighted", "--preset", "cs336", "--vocab-size", "280"]
    assert main([*argv, "--run-output", str(out), "--quiet"]) == 0
    assert "cs336" in capsys.readouterr().err
    loaded = read_run_file(out).run
    settings = TrainingSettings(
        target_vocab_size=280,
        alphabet="bytes",
        pretokenizer="gpt2",
        tie_rule="lexicographic_greatest",
        minimum_pair_frequency=1,
        special_tokens=(E,),
    )
    assert loaded.settings.special_tokens == (E,) and loaded.settings.tie_rule == "lexicographic_greatest"
    expected = train_variant_run([MARKED], settings, Variant("length_weighted"))
    assert [s.pair for s in loaded.steps] == [s.pair for s in expected.steps] and loaded.steps
    assert loaded.tokenizer().encode(E) == [0]


def test_compare_rules_takes_the_tie_rule_and_special_tokens(documents, marked, capsys):
    argv = ["compare-rules", str(documents[0]), "--vocab-size", "300", "--transition", "20"]
    assert main([*argv, "--tie-rule", "lexicographic_greatest"]) == 0
    printed = capsys.readouterr().out.splitlines()
    cut = split_train_heldout(documents[0].read_text(encoding="utf-8"), 0.1)
    settings = TrainingSettings(
        target_vocab_size=300, alphabet="bytes", pretokenizer="gpt2", top_k=0, tie_rule="lexicographic_greatest"
    )
    run = train_variant_run([cut[0]], settings, Variant("picky"), heldout_text=[cut[1]])
    picky = next(line for line in printed if line.startswith("Picky BPE"))
    assert picky[len(Variant("picky").label()) :].split()[:2] == [f"{len(run.steps):,}", f"{run.heldout_lengths[-1]:,}"]
    argv = ["compare-rules", str(marked), "--vocab-size", "300", "--transition", "20", "--special-token", E]
    assert main(argv) == 0
    printed = capsys.readouterr().out.splitlines()
    cut = split_train_heldout(MARKED, 0.1)
    settings = TrainingSettings(
        target_vocab_size=300, alphabet="bytes", pretokenizer="gpt2", top_k=0, special_tokens=(E,)
    )
    run = train_variant_run([cut[0]], settings, Variant("superbpe", transition=20), heldout_text=[cut[1]])
    superbpe = next(line for line in printed if line.startswith("SuperBPE"))
    assert superbpe[len(run.variant.label()) :].split()[:2] == [f"{len(run.steps):,}", f"{run.heldout_lengths[-1]:,}"]
    assert run.tokenizer().stoi[E.encode()] == 0 and not any(b"|" in step.token for step in run.steps)
