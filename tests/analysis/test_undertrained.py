"""Under-trained and unreachable tokens: absorbed, rare, unreachable and partial, exactly."""

from __future__ import annotations

import pytest
from helpers import MAX_EXAMPLES, shared_file
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe.analysis.metrics import token_usage
from bpe.analysis.undertrained import (
    ABSORBED,
    PARTIAL,
    RARE,
    UNREACHABLE,
    flag_counts,
    glitch_tokens,
    reach,
    run_token_health,
    tokenizer_token_health,
    uses,
    with_usage,
)
from bpe.run import train_run
from bpe.tokenizer import BPETokenizer


def reachable(row) -> bool | None:
    """Does the token's own text encode to it? None for a partial byte token (it has no text)."""
    if PARTIAL in row.flags:
        return None
    return UNREACHABLE not in row.flags


WORKED = "low lower lowest"


def health(text: str, heldout: str = "", *, vocab: int = 40, rare_below: int = 2, **fields):
    run = train_run(text, target_vocab_size=vocab, heldout_text=heldout, **fields)
    merges = len(run.steps)
    tokenizer = run.tokenizer()
    held = uses(tokenizer, heldout) if heldout else None
    return run, {
        r.token: r for r in run_token_health(run, merges, token_usage(run, text, merges), held, rare_below=rare_below)
    }


def test_low_lower_lowest_absorbs_the_short_tokens():
    run, rows = health(WORKED)
    # 'lo' (step 1, count 3) is taken into 'low' by step 2 and never used again
    assert rows["lo"].step == 1 and rows["lo"].created_count == 3 and rows["lo"].train_uses == 0
    assert rows["lo"].flags == (ABSORBED,)
    # 'low' survives once (the first word); ' low' is absorbed into ' lowe' by the last merge
    assert rows["low"].train_uses == 1 and rows["low"].flags == (RARE,)
    assert rows[" low"].flags == (ABSORBED,) and rows[" lowe"].train_uses == 2
    final = run.tokenizer().encode_tokens(WORKED)
    for token, row in rows.items():  # uses are the final encoding's counts, exactly
        assert row.train_uses == final.count(token)
        assert (ABSORBED in row.flags) == (final.count(token) == 0)
    assert all(reachable(row) for row in rows.values())  # every token's own text encodes to it


def test_held_out_uses_and_rare_tokens():
    run, rows = health("the cat the hat the mat " * 3 + "zebra", "the cat zebra", rare_below=2)
    used_once = [row for row in rows.values() if row.train_uses == 1]
    assert used_once and all(RARE in row.flags for row in used_once)
    assert all(RARE not in row.flags for row in rows.values() if row.train_uses != 1)
    held = run.tokenizer().encode_tokens("the cat zebra")
    for token, row in rows.items():
        assert row.heldout_uses == held.count(token)
    assert any(row.heldout_uses for row in rows.values())


def test_a_token_its_own_text_never_encodes_to_is_unreachable():
    # 'abc' was learned as 'a' + 'bc', but merge 1 ('a' + 'b') cuts 'abc' into 'ab' 'c' first
    tokenizer = BPETokenizer(list("abc"), [("a", "b"), ("b", "c"), ("a", "bc")])
    assert reach(tokenizer, tokenizer.stoi["abc"]) == (UNREACHABLE, ("ab", "c"))
    assert reach(tokenizer, tokenizer.stoi["bc"]) == (None, None)
    rows = {r.token: r for r in tokenizer_token_health(tokenizer)}
    assert rows["abc"].flags == (UNREACHABLE,) and reachable(rows["abc"]) is False
    assert rows["ab"].flags == () and reachable(rows["ab"])


def test_a_byte_token_inside_a_character_is_partial():
    tokenizer = BPETokenizer([bytes([v]) for v in range(256)], [(b"\xc3", b"\xa9"), (b"a", b"\xc3")], alphabet="bytes")
    assert reach(tokenizer, tokenizer.stoi[b"a\xc3"]) == (PARTIAL, None)
    row = {r.token: r for r in tokenizer_token_health(tokenizer)}[b"a\xc3"]
    assert reachable(row) is None and flag_counts([row]) == {ABSORBED: 0, RARE: 0, UNREACHABLE: 0, PARTIAL: 1}


@settings(max_examples=MAX_EXAMPLES // 2, deadline=None)
@given(text=st.text(alphabet="aab c", min_size=2, max_size=80))
def test_flags_agree_with_encoding_each_token_and_the_text(text):
    run = train_run(text, target_vocab_size=30, minimum_pair_frequency=1)
    tokenizer = run.tokenizer()
    final = tokenizer.encode(text)
    rows = run_token_health(run, len(run.steps), token_usage(run, text), uses(tokenizer, text), rare_below=3)
    for row in rows:
        assert row.train_uses == final.count(row.id) == row.heldout_uses
        assert (ABSORBED in row.flags) == (row.train_uses == 0)
        assert (RARE in row.flags) == (0 < row.train_uses < 3)
        assert (UNREACHABLE in row.flags) == (tokenizer.encode(row.token) != [row.id])


@pytest.fixture(scope="module")
def gpt2():
    from bpe.gpt2.tokenizer import load_gpt2

    return load_gpt2(shared_file("gpt2/encoder.json"), shared_file("gpt2/vocab.bpe"))


def test_a_tokenizer_checked_once_takes_each_corpus_uses_as_if_checked_with_them():
    """The app checks a pretrained tokenizer once and counts each corpus apart (issue 25):
    the rows must be the ones a check with that corpus's counts gives."""
    tokenizer = BPETokenizer(list("abc "), [("a", "b"), ("b", "c"), ("a", "bc"), ("ab", " ")])
    unmeasured = tokenizer_token_health(tokenizer)
    assert all(r.train_uses is None and r.heldout_uses is None for r in unmeasured)
    for train, heldout in (("ab abc cab ", "bc ab "), ("abcabc", ""), ("", "ab ab ")):
        usage = dict(
            train_usage=uses(tokenizer, train) if train else None,
            heldout_usage=uses(tokenizer, heldout) if heldout else None,
        )
        assert with_usage(unmeasured, **usage) == tokenizer_token_health(tokenizer, **usage)
    assert with_usage(unmeasured, train_usage=uses(tokenizer, "ab ab "), heldout_usage=None)[-1].train_uses == 2


def test_gpt2_glitch_tokens_are_single_reachable_tokens(gpt2):
    found = dict((text, token_id) for token_id, text in glitch_tokens(gpt2))
    assert found[" SolidGoldMagikarp"] == 43453 and len(found) == 24
    rows = tokenizer_token_health(gpt2, ids=found.values())
    assert all(reachable(row) for row in rows)  # reachable: the trouble was the model's data, not the merges


def test_gpt2_has_no_unreachable_text_token_but_many_partial_ones(gpt2):
    rows = tokenizer_token_health(gpt2, train_usage=uses(gpt2, "the cat sat"))
    counts = flag_counts(rows)
    assert counts[UNREACHABLE] == 0 and counts[PARTIAL] > 100
    assert {row.token for row in rows if row.train_uses} == {b"the", b" cat", b" sat"}
    assert all(row.id != 50256 for row in rows)  # <|endoftext|> is special, not checked
