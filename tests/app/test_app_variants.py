"""AppTest: the training rules beyond the textbook (`bpe.variants`) in the app: each trains
from the sidebar, replays in the film with what makes it different, compares with standard
BPE on Compare runs, and replays from a run file; every number against `bpe` on the same text."""

from __future__ import annotations

from html import escape

import pytest
from app_helpers import metric, new_app, plotly_specs

from bpe.corpora.corpus import PYTHON_REFERENCE, load_corpus, split_train_heldout
from bpe.scale.run_file import RunSource, run_file_bytes
from bpe.variants.rule_runs import train_variant_run
from bpe.variants.rules import Variant
from pages._shared.state.settings import app_training

MERGES, COMPRESSION, VOCABULARY, COMPARE = (
    "pages/1_Merge_by_merge.py",
    "pages/3_Compression.py",
    "pages/5_Vocabulary.py",
    "pages/8_Compare_runs.py",
)
# 12,000 characters of the Python reference, pre-tokenized as GPT-2 does: 10,800 trained on
SIDEBAR = dict(
    settings_corpus=PYTHON_REFERENCE,
    settings_prefix_cap=12_000,
    settings_vocab=400,
    settings_train_up_to=400,
    settings_pretokenizer="gpt2",
)


def expected_run(variant: Variant):
    train, heldout = split_train_heldout(load_corpus(PYTHON_REFERENCE)[:12_000], 0.1)
    settings = app_training(target_vocab_size=400, pretokenizer="gpt2")
    return train_variant_run(train, settings, variant, heldout_text=heldout)


def at_step(page: str, step: int, **state):
    return new_app(page, **SIDEBAR, merges_step=step, **state)


def html(at) -> str:
    return "".join(h.value for h in at.html)


def test_picky_removes_tokens_in_the_film_and_the_vocabulary_keeps_the_step():
    run = expected_run(Variant("picky", threshold=0.9))
    step = next(s for s in run.steps if s.removed and s.removed[0].count)  # a removal that splits occurrences
    at = at_step(MERGES, step.number, settings_variant="picky")
    assert not at.exception and not at.error
    assert metric(at, "Vocab size") == f"{step.vocab_size:,}"  # live tokens only
    shown = html(at)
    removal = step.removed[0]
    assert "Removed from the vocabulary at this step" in shown and "bpe-fade" in shown
    assert f"{removal.pair_count:,} ÷ {removal.own_count:,} = {removal.ios:.2f} ≥ 0.9" in shown
    at = new_app(VOCABULARY, **SIDEBAR, settings_variant="picky")
    table = next(d.value for d in at.dataframe if "removed after step" in d.value.columns)
    removed = run.removed_at(len(run.steps))
    rows = table[table["removed after step"].notna()]
    assert {token.replace("·", " "): int(n) for token, n in zip(rows["token"], rows["removed after step"])} == {
        str(t): n for t, n in removed.items()
    }


def test_superbpe_marks_its_transition_and_its_superwords_in_the_film_and_on_the_curve():
    run = expected_run(Variant("superbpe", transition=150))
    assert run.joined_after == 150
    at = at_step(MERGES, 151, settings_variant="superbpe", settings_transition=150)
    assert not at.exception and not at.error
    assert "transition" in html(at) and "From this merge on the chunks join across whitespace" in html(at)
    superword = next(s for s in run.steps if run.superword(s))
    at = at_step(MERGES, superword.number, settings_variant="superbpe", settings_transition=150)
    assert ">superword<" in html(at)
    at = at_step(MERGES, 20, settings_variant="superbpe", settings_transition=150)
    assert "stage 1: inside the chunks" in html(at)
    at = new_app(COMPRESSION, **SIDEBAR, settings_variant="superbpe", settings_transition=150)
    curve = plotly_specs(at)[0]
    marks = [shape for shape in curve["layout"]["shapes"] if shape["line"].get("color") == "#7c3aed"]
    assert [m["x0"] for m in marks] == [run.vocab_size_after(150)]
    at = new_app(VOCABULARY, **SIDEBAR, settings_variant="superbpe", settings_transition=150)
    table = next(d.value for d in at.dataframe if "superword" in d.value.columns)
    assert table["superword"].sum() == sum(1 for s in run.steps if run.superword(s) and s.new_token)


def test_length_weighted_pair_chart_ranks_by_count_times_length():
    run = expected_run(Variant("length_weighted"))
    step = run.steps[4]
    at = at_step(MERGES, 5, settings_variant="length_weighted")
    assert not at.exception and not at.error
    chart = plotly_specs(at)[0]
    bars = chart["data"][0]
    assert bars["y"][0] == step.frequency * len(step.token)  # the winner's score
    assert [row[1] for row in bars["customdata"]] == [count for _, count in step.top_pairs[: len(bars["y"])]]
    assert chart["layout"]["yaxis"]["title"]["text"] == "count × length"
    assert any("not Length-MAX itself" in c.value for c in at.caption)


@pytest.mark.parametrize("rule", ["length_weighted", "picky", "superbpe"])
def test_compare_runs_compares_a_rule_with_standard_bpe(rule):
    at = new_app(COMPARE, **SIDEBAR)
    at.selectbox(key="compare_variant_rule").set_value("first_occurrence")
    at.selectbox(key="compare_variant_name").set_value(rule)
    at.number_input(key="compare_variant_transition").set_value(150)
    next(b for b in at.button if b.label == "Train and compare as run B").click().run()
    assert not at.exception and not at.error
    differences = next(d.value for d in at.dataframe if list(d.value.columns)[:1] == ["setting"])
    assert differences.values.tolist() == [["training rule", "standard BPE", expected_label(rule)]]
    why = next(m.value for m in at.markdown if "decided" in m.value)
    if rule == "length_weighted":
        assert why.startswith("**The training rule decided.**") and "count × length" in why
    else:
        assert why.startswith("**The counts decided.**") and "training rule" in why
    assert metric(at, "Only in B") != "0"


def expected_label(rule: str) -> str:
    return {"length_weighted": "length-weighted BPE", "picky": "Picky BPE (IoS threshold 0.9)"}.get(
        rule, "SuperBPE (chunks join after 150 merges)"
    )


def test_a_run_file_of_a_rule_replays_with_its_rule():
    run = expected_run(Variant("picky", threshold=0.8))
    raw = run_file_bytes(run, source=RunSource(name="picky-python"), sample="x = 1\n")
    name = "upload:picky-python (picky.bperun)"
    at = new_app(
        MERGES,
        settings_run_uploads={name: ("cafe", raw)},
        settings_corpus="run upload: picky-python (picky.bperun)",
        settings_vocab=400,
        merges_step=next(s.number for s in run.steps if s.removed),
    )
    assert not at.exception and not at.error
    assert "Picky BPE (IoS threshold 0.8)" in " ".join(c.value for c in at.caption)
    assert "Removed from the vocabulary at this step" in html(at)


def test_a_link_carries_the_rule_and_its_setting():
    at = new_app(
        MERGES,
        query={
            "corpus": PYTHON_REFERENCE,
            "prefix": "12000",
            "vocab": "400",
            "train_to": "400",
            "pretok": "gpt2",
            "rule": "superbpe",
            "transition": "150",
            "step": "151",
        },
    )
    assert not at.exception and not at.error
    assert at.selectbox(key="_w_settings_variant").value == "superbpe"
    assert at.number_input(key="_w_settings_transition").value == 150
    assert "From this merge on the chunks join across whitespace" in html(at)


def test_a_rule_trains_under_cs336s_tie_rule_and_takes_special_tokens():
    """The sidebar's tie rule reaches the rule's engines (the film shows the merge the rule
    makes under it), and its special tokens reach them too: the run counts the marker in its
    vocab size, as `bpe` trains the rule with it."""
    train, heldout = split_train_heldout(load_corpus(PYTHON_REFERENCE)[:12_000], 0.1)
    settings = app_training(target_vocab_size=400, pretokenizer="gpt2", tie_rule="lexicographic_greatest")
    run = train_variant_run(train, settings, Variant("length_weighted"), heldout_text=heldout)
    default = expected_run(Variant("length_weighted"))
    step = next(s for s, other in zip(run.steps, default.steps) if s.pair != other.pair)  # where the rules part
    at = at_step(MERGES, step.number, settings_variant="length_weighted", settings_tie_rule="lexicographic_greatest")
    assert not at.exception and not at.error
    left, right = (escape(part.replace(" ", "·")) for part in step.pair)
    assert f"Merge {step.number}: <code>{left}</code> + <code>{right}</code>" in html(at)
    at = at_step(MERGES, 1, settings_variant="picky", settings_special_tokens=["<|endoftext|>"])
    assert not at.exception and not at.error
    marked = app_training(target_vocab_size=400, pretokenizer="gpt2", special_tokens=("<|endoftext|>",))
    run = train_variant_run(train, marked, Variant("picky"), heldout_text=heldout)
    assert run.tokenizer().stoi["<|endoftext|>"] == 0
    assert metric(at, "Vocab size") == f"{run.steps[0].vocab_size:,}" == f"{len(run.base_tokens) + 2:,}"


def test_compare_runs_trains_a_rule_beside_special_tokens():
    at = new_app(COMPARE, **SIDEBAR, settings_special_tokens=["<|endoftext|>"])
    at.selectbox(key="compare_variant_rule").set_value("first_occurrence")
    at.selectbox(key="compare_variant_name").set_value("picky")
    next(b for b in at.button if b.label == "Train and compare as run B").click().run()
    assert not at.exception and not at.error
    differences = next(d.value for d in at.dataframe if list(d.value.columns)[:1] == ["setting"])
    assert differences.values.tolist() == [["training rule", "standard BPE", expected_label("picky")]]
