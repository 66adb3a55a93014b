"""Junk tokens: F₁, F₂, the residue ratio and IoS, from a run's record and from a tokenizer's
encoding of a text, which must agree on the run's own training text."""

from __future__ import annotations

import pytest
from helpers import MAX_EXAMPLES, shared_file
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe.analysis.junk import RESIDUE_BELOW, residue_share, run_junk, text_junk
from bpe.analysis.metrics import token_usage
from bpe.run import train_run


def test_the_worked_example():
    run = train_run("low lower lowest", target_vocab_size=12)
    rows = {row.token: row for row in run_junk(run)}
    assert [(r.final, r.absorbed, r.ios) for r in (rows["lo"], rows["low"])] == [(0, 3, 1.0), (1, 2, 2 / 3)]
    assert rows["lo"].residue_ratio == 0 and rows["lo"].residue
    assert rows["low"].residue_ratio == pytest.approx(1 / 3) and not rows["low"].residue
    assert rows[" lowe"].ios is None and rows[" lowe"].residue_ratio == 1
    assert residue_share(list(rows.values())) == 0.5


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(
    text=st.text(alphabet="ab c", min_size=1, max_size=80),
    vocab=st.integers(5, 30),
    pretokenizer=st.sampled_from([None, "whitespace"]),
    alphabet=st.sampled_from(["characters", "bytes"]),
)
def test_the_record_and_the_encoding_agree_on_the_training_text(text, vocab, pretokenizer, alphabet):
    size = vocab + (256 if alphabet == "bytes" else 0)
    run = train_run(text, target_vocab_size=size, pretokenizer=pretokenizer, alphabet=alphabet)
    recorded = {row.token: row for row in run_junk(run)}
    encoded = {row.token: row for row in text_junk(run.tokenizer(), text)}
    usage = token_usage(run, text, len(run.steps))
    for token, row in recorded.items():
        assert row.final == usage.get(token, 0)  # F₁ is the final encoding's count
        found = encoded.get(token)
        if found is None:  # made, then every occurrence absorbed by a merge of the same string made otherwise
            assert row.final == 0
            continue
        assert (found.final, found.absorbed) == (row.final, row.absorbed)
        # training counts a pair that overlaps itself ('aaa') twice, the encoding merges it once
        if found.ios is not None:
            assert row.ios >= found.ios - 1e-12
    overlapping = any(run.merges_applied(step.number) != step.frequency for step in run.steps)
    if not overlapping:
        assert {t: r.ios for t, r in recorded.items() if t in encoded} == {
            t: r.ios for t, r in encoded.items() if t in recorded
        }


@pytest.mark.shared_data
def test_gpt2_on_a_text():
    from bpe.gpt2.tokenizer import load_gpt2

    gpt2 = load_gpt2(shared_file("gpt2/encoder.json"), shared_file("gpt2/vocab.bpe"))
    text = shared_file("the-verdict.txt").read_text(encoding="utf-8")[:20_000]
    rows = text_junk(gpt2, text)
    ids = gpt2.encode(text)
    by_id = {row.id: row for row in rows}
    for token_id in set(ids):
        if len(gpt2.itos[token_id]) > 1:
            assert by_id[token_id].final == ids.count(token_id)
    # a token of L bytes took L - 1 merges, each making one merged token that is then used or absorbed
    assert sum(row.final + row.absorbed for row in rows) == sum(len(gpt2.itos[i]) - 1 for i in ids)
    share = residue_share(rows)
    assert 0 < share < 0.5
    residues = [row for row in rows if row.residue]
    assert all(row.residue_ratio < RESIDUE_BELOW for row in residues)
    assert all(0 < row.ios <= 1 for row in rows if row.ios is not None)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(
    text=st.text(alphabet="ab c=", min_size=1, max_size=80),
    extra=st.integers(1, 30),
    threshold=st.sampled_from([0.5, 0.8, 1.0]),
)
def test_a_picky_run_counts_its_removals_and_leaves_out_what_it_removed(text, extra, threshold):
    from collections import Counter

    from bpe.training import TrainingSettings
    from bpe.variants.rule_runs import train_variant_run
    from bpe.variants.rules import Variant

    settings_ = TrainingSettings(
        target_vocab_size=len(set(text)) + extra, pretokenizer="whitespace", minimum_pair_frequency=1
    )
    run = train_variant_run(text, settings_, Variant("picky", threshold=threshold))
    tokenizer = run.tokenizer()
    used = Counter(tokenizer.encode_tokens(text))
    rows = run_junk(run)
    assert {row.token for row in rows} <= tokenizer.live_tokens
    for row in rows:
        assert row.final == used.get(row.token, 0) and row.absorbed >= 0
    assert token_usage(run, text) == +used


def test_a_text_holding_a_special_token_is_measured_around_it():
    """A tokenizer trained with ``<|endoftext|>`` has no ``|`` among its base tokens (only the
    special token holds it), so encoding the whole text as ordinary text could not be done:
    the flows are those of the pieces between the special tokens."""
    from bpe import BPETokenizer

    eot = "<|endoftext|>"
    tokenizer = BPETokenizer.train(f"low lower{eot}lowest low{eot}newer", 40, special_tokens=[eot])
    text = f"low lower{eot}lowest"
    rows = text_junk(tokenizer, text)
    merged = [i for i in tokenizer.encode(text) if i not in tokenizer.special_tokens.values()]
    merged = [i for i in merged if tokenizer.itos[i] not in tokenizer.base_tokens]
    assert sorted(row.id for row in rows if row.final for _ in range(row.final)) == sorted(merged)
    assert {row.token for row in rows} >= {"lo", "low"} and all("|" not in row.token for row in rows)
