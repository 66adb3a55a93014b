"""Merge lineage trees and the training steps an encoding used, on hand-checked examples."""

from __future__ import annotations

import pytest

from bpe import BpeError, BPETokenizer, UnknownSymbolsError, train_run
from bpe.analysis.lineage import AppliedMerge, MergeNode, applied_merges, lineage_lines, lineage_of, merge_lineage

# Wikipedia's aaabdaaabac: ('a','a') count 4, ('aa','a') count 2, ('aaa','b') count 2
WIKI = train_run("aaabdaaabac", target_vocab_size=7, engine="reference")


def test_lineage_of_the_worked_example():
    aa = MergeNode("aa", 1, 4, MergeNode("a"), MergeNode("a"))
    assert lineage_of(WIKI, "aaab") == MergeNode(
        "aaab", 3, 2, MergeNode("aaa", 2, 2, aa, MergeNode("a")), MergeNode("b")
    )
    assert lineage_of(WIKI, "aaab").steps() == [1, 2, 3]


def test_a_base_token_is_a_leaf():
    node = lineage_of(WIKI, "d")
    assert node.is_leaf and node.step is None and node.steps() == []


def test_lineage_follows_the_merge_that_first_created_a_token():
    # merge 4 rebuilds 'abc' as 'a'+'bc'; the token's id, and its lineage, come from merge 3
    merges = [("a", "b"), ("b", "c"), ("ab", "c"), ("a", "bc")]
    node = merge_lineage("abc", ["a", "b", "c"], merges)
    assert (node.step, node.left.token, node.right.token, node.frequency) == (3, "ab", "c", None)


def test_a_token_outside_the_vocabulary_is_named():
    with pytest.raises(BpeError, match=r"'xyz' is not in this vocabulary.*3 merges"):
        lineage_of(WIKI, "xyz")


def test_lineage_of_a_shorter_prefix_does_not_know_later_tokens():
    with pytest.raises(BpeError, match="'aaab' is not in this vocabulary"):
        lineage_of(WIKI, "aaab", merges=2)


def test_lineage_lines_draw_the_tree_once_per_subtree():
    run = train_run("aaaa aaaa", target_vocab_size=10, engine="reference")  # ('a','a') then ('aa','aa')
    assert lineage_lines(lineage_of(run, "aaaa")) == [
        f"'aaaa'  step 2, pair count {run.steps[1].frequency}",
        f"├─ 'aa'  step 1, pair count {run.steps[0].frequency}",
        "│  ├─ 'a'  base",
        "│  └─ 'a'  base",
        f"└─ 'aa'  step 1, pair count {run.steps[0].frequency}  (as above)",
    ]


def test_lineage_lines_make_whitespace_visible():
    run = train_run("a a a a", target_vocab_size=10, engine="reference")
    assert lineage_lines(lineage_of(run, "a "))[0].startswith("'a·'  step 1")


# ==================== Applied merges


def test_applied_merges_of_the_worked_example():
    tok = WIKI.tokenizer()
    assert applied_merges(tok, "aaabac") == [
        AppliedMerge(1, ("a", "a"), "aa", 1),
        AppliedMerge(2, ("aa", "a"), "aaa", 1),
        AppliedMerge(3, ("aaa", "b"), "aaab", 1),
    ]
    assert applied_merges(tok, "aaaa") == [AppliedMerge(1, ("a", "a"), "aa", 2)]  # aa aa: no overlap
    assert applied_merges(tok, "bcd") == []


@pytest.mark.parametrize("pretokenizer", [None, "gpt2"])
@pytest.mark.parametrize("alphabet", ["characters", "bytes"])
def test_applied_merges_account_for_every_token_saved(alphabet, pretokenizer):
    text = "the cat in the hat sat on the mat; the hat was the cat's"
    tok = BPETokenizer.train(text, 300 if alphabet == "bytes" else 40, 2, alphabet=alphabet, pretokenizer=pretokenizer)
    sample = "the hat in the cat"
    fired = applied_merges(tok, sample)
    base_length = len(sample.encode()) if alphabet == "bytes" else len(sample)
    assert base_length - sum(m.times for m in fired) == len(tok.encode(sample))  # each application saves one
    assert [m.step for m in fired] == sorted(m.step for m in fired)


def test_applied_merges_name_characters_outside_the_alphabet():
    with pytest.raises(UnknownSymbolsError, match="'z'"):
        applied_merges(WIKI.tokenizer(), "zab")
