"""bpe.analysis.run_diff: where two runs part ways and why, vocabularies aligned by token,
and text whose segmentation changes."""

import pytest

from bpe.analysis.run_diff import (
    COUNTS,
    STOPPED,
    TIE,
    aligned_rows,
    compare_vocabularies,
    differing_samples,
    first_divergence,
    sample_lines,
    setting_differences,
    token_key,
)
from bpe.run import train_run
from bpe.tokenizer import BPETokenizer

SMALL = "low lower newest widest\nlow lower newest widest\nnewest newest widest low"


def run(text=SMALL, **settings):
    settings.setdefault("target_vocab_size", 60)
    settings.setdefault("minimum_pair_frequency", 1)
    settings.setdefault("top_k", 50)  # every pair recorded: a missing pair then counts 0
    return train_run(text, **settings)


def test_the_same_settings_never_part_ways():
    a, b = run(), run(engine="reference")
    assert first_divergence(a, b) is None
    assert setting_differences(a, b) == []


def test_a_tie_broken_by_different_rules():
    # (x, y), (y, a) and (a, b) are all counted twice; first occurrence takes (x, y), the
    # alphabet takes (a, b)
    a, b = run("xyab xyab", tie_rule="first_occurrence"), run("xyab xyab", tie_rule="lexicographic")
    found = first_divergence(a, b)
    assert (found.step, found.pair_a, found.pair_b, found.decided_by) == (1, ("x", "y"), ("a", "b"), TIE)
    assert found.explanation == (
        "A tie: 'x + y' and 'a + b' are both counted 2 times. Run A's tie rule "
        "(first occurrence) picks 'x + y'; run B's (lexicographic) picks 'a + b'."
    )
    rows = {row["pair"]: row for row in found.competitors}
    assert rows["x + y"]["count in A"] == rows["x + y"]["count in B"] == "2" and rows["x + y"]["picked by"] == "A"
    assert rows["a + b"]["picked by"] == "B" and found.competitors[0]["picked by"] in ("A", "B")
    assert ("tie rule", "first occurrence", "lexicographic") in setting_differences(a, b)


def test_counts_decide_when_the_pre_tokenizer_differs():
    a, b = run(), run(pretokenizer="whitespace")
    found = first_divergence(a, b)
    assert found.decided_by == COUNTS and found.step > 1
    assert found.pair_a[1] == " " or found.pair_a[0].endswith(" ") or " " in "".join(found.pair_a)
    assert "not at all" in found.explanation  # a pair across a space does not exist in whitespace chunks
    assert found.explanation.endswith("The counts differ because the runs differ in: pre-tokenizer.")
    assert setting_differences(a, b) == [("pre-tokenizer", "none", "whitespace")]


def test_a_run_that_stopped_early():
    a, b = run(minimum_pair_frequency=3), run(minimum_pair_frequency=1)
    found = first_divergence(a, b)
    assert found.decided_by == STOPPED and found.step == len(a.steps) + 1
    assert found.pair_a is None and found.pair_b == b.steps[len(a.steps)].pair
    assert found.explanation.startswith(
        f"Run A stopped after {len(a.steps)} merges (the most frequent pair occurs "
        "fewer than 3 times (the minimum pair frequency)); run B went on with "
    )
    assert first_divergence(b, a).pair_b is None  # and the other way round


def test_characters_and_bytes_learn_the_same_tokens_on_ascii_text():
    chars, raw = run(alphabet="characters"), run(alphabet="bytes", target_vocab_size=300)
    assert token_key("low") == token_key(b"low") == b"low"
    assert chars.stop_reason == raw.stop_reason == "no_pairs_left"
    assert first_divergence(chars, raw) is None  # the same merges, one spelled in str, the other in bytes
    vocab = compare_vocabularies(chars, len(chars.steps), raw, len(chars.steps))
    assert all(t.where == "shared" for t in vocab.learned())
    assert vocab.count("only A") == 0 and vocab.count("only B") == 256 - len(chars.base_tokens)  # unused bytes


def test_vocabularies_aligned_by_token_not_by_step():
    a, b = run(), run(pretokenizer="whitespace")
    vocab = compare_vocabularies(a, 12, b, 12)
    rows = {row["token"]: row for row in aligned_rows(vocab)}
    shifted = [row for row in rows.values() if row["B − A"] not in (None, 0)]
    assert shifted, "some token is learned at different steps by the two runs"
    row = shifted[0]
    assert int(row["step in B"]) - int(row["step in A"]) == row["B − A"] and row["where"] == "shared"
    assert {row["where"] for row in rows.values()} == {"shared", "only A", "only B"}
    only_a = [t for t in vocab.tokens if t.where == "only A"]
    assert all(" " in t.token for t in only_a if t.token.strip())  # A's extra tokens cross spaces
    learned = vocab.count("shared") + vocab.count("only A") - len(a.base_tokens)
    assert learned == len({s.token for s in a.steps[:12]})
    assert [t.first_step for t in vocab.learned()] == sorted(t.first_step for t in vocab.learned())


def test_samples_show_the_lines_cut_differently_with_the_differences_marked():
    a, b = run(), run(pretokenizer="whitespace")
    samples = differing_samples(a.tokenizer(merges=12), b.tokenizer(merges=12), SMALL, count=2)
    assert len(samples) == 2 and samples[0].text == "low lower newest widest"
    first = samples[0]
    assert "".join(s.token for s in first.segments_a) == "".join(s.token for s in first.segments_b) == first.text
    assert any(s.mark == "differs" for s in first.segments_a) and any(s.mark == "differs" for s in first.segments_b)
    unmarked_a = {s.token for s in first.segments_a if s.mark is None}
    unmarked_b = {s.token for s in first.segments_b if s.mark is None}
    assert unmarked_a & unmarked_b  # tokens cut alike are left alone
    same = a.tokenizer(merges=12)
    assert differing_samples(same, same, SMALL) == []


def test_samples_skip_lines_a_tokenizer_cannot_encode():
    a = BPETokenizer.train("aa bb aa bb", 6, minimum_pair_frequency=1)
    b = BPETokenizer.train("aa bb aa bb cc", 8, minimum_pair_frequency=1)
    found = differing_samples(a, b, "cc cc\naa bb")  # 'c' is outside A's alphabet
    assert [s.text for s in found] in ([], ["aa bb"])


def test_sample_lines_are_the_distinct_non_blank_lines_cut_at_a_space():
    text = "first line\n\n   \n" + "word " * 60 + "\nMENENIUS:\nfirst line\nMENENIUS:"
    lines = sample_lines(text, max_chars=40)
    assert lines[0] == "first line" and lines[2] == "MENENIUS:" and len(lines) == 3
    assert len(lines[1]) <= 40 and lines[1].endswith("word")


@pytest.mark.parametrize("rule", ["lexicographic", "huggingface"])
def test_every_rule_agrees_with_the_default_when_no_tie_is_broken(rule):
    text = "ab" * 5 + "c"  # a+b 5 times (b+a 4), then ab+ab 4 times (ab+c once): no tie at the top
    assert first_divergence(run(text, target_vocab_size=5), run(text, target_vocab_size=5, tie_rule=rule)) is None
