"""Counts read as English (issue 22): "occurs once", "1 pair ties", "the most frequent pair"."""

from __future__ import annotations

from bpe.analysis.algorithm import line_notes
from bpe.analysis.quiz import judge
from bpe.steps import MergeStep
from bpe.wording import counted, most_frequent_pairs, tie_with_winner, times


def step(frequency: int, top_pairs) -> MergeStep:
    return MergeStep(
        number=1,
        pair=("a", "b"),
        token="ab",
        token_id=3,
        frequency=frequency,
        top_pairs=tuple(top_pairs),
        count_changes=(),
        sequence_length=3,
        vocab_size=4,
        new_token=True,
    )


def test_counts_in_words():
    assert [times(n) for n in (1, 2, 12_345)] == ["once", "2 times", "12,345 times"]
    assert [counted(n, "pair") for n in (0, 1, 2)] == ["0 pairs", "1 pair", "2 pairs"]
    assert counted(1, "occurrence") == "1 occurrence" and counted(1_000, "match", "matches") == "1,000 matches"
    assert (
        most_frequent_pairs(1) == "the most frequent pair" and most_frequent_pairs(10) == "the 10 most frequent pairs"
    )
    assert tie_with_winner(1) == "1 pair ties with the winner" and tie_with_winner(2) == "2 pairs tie with the winner"


def test_the_quiz_says_once_not_1_times():
    single = step(1, [(("a", "b"), 1), (("b", "c"), 1)])
    said = judge(single, ("a", "b"), tie_rule="ties go to the first", recorded=20).explanation
    assert "occurs once" in said and "1 times" not in said
    wrong = step(5, [(("a", "b"), 5), (("b", "c"), 1)])
    said = judge(wrong, ("b", "c"), tie_rule="ties go to the first", recorded=20).explanation
    assert "b + c occurs once; a + b occurs 5 times" in said
    top = step(5, [(("a", "b"), 5)])
    said = judge(top, ("x", "y"), tie_rule="ties go to the first", recorded=1).explanation
    assert "is not the most frequent pair" in said and "among the 1 most" not in said


def test_the_algorithm_notes_count_in_words():
    one_tie = step(1, [(("a", "b"), 1), (("b", "c"), 1)])
    notes = " | ".join(line_notes(one_tie, "record", minimum=1, merged=1, stop=None))
    assert "a + b, once (1 other pair as often" in notes
    assert "1 occurrence merged" in notes
    assert "(s)" not in notes and "1 times" not in notes


def test_no_message_says_a_noun_with_s_in_brackets():
    # Every message and page says "1 character" / "3 characters" (`counted`), not
    # "character(s)": the string constants of the package and the app are read for it
    # (the text parts of f-strings included; docstrings, which may quote the rule, not).
    import ast
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    found = []
    for path in [*root.glob("bpe/**/*.py"), *root.glob("pages/**/*.py"), root / "app.py"]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                if re.search(r"[a-z]\(s\)(?!:)", node.value):
                    found.append(f"{path.relative_to(root)}:{node.lineno}: {node.value[:60]!r}")
    assert not found, "\n".join(found)
