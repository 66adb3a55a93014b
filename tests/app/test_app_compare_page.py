"""AppTest: Compare runs (pages/8_Compare_runs.py), the way in from Merge by merge's tie
inspector, the overlap counts on Merge by merge, and the special tokens on Tokenize."""

from __future__ import annotations

import pytest
from app_helpers import SMALL_CORPUS, metric, new_app

from bpe.gpt2.files import find_gpt2_files

COMPARE = "pages/8_Compare_runs.py"
MERGES = "pages/1_Merge_by_merge.py"
TIES = "the cat in the hat"  # step 1: t+h, h+e, e+space and a+t all occur twice


def frame(at, first_column: str):
    """The dataframe whose first column is ``first_column`` (AppTest finds dataframes by position only)."""
    found = [d.value for d in at.dataframe if list(d.value.columns)[:1] == [first_column]]
    assert found, f"no table starting with {first_column!r}"
    return found[0]


def submit_variant(at, **choices):
    for key, value in choices.items():
        at.selectbox(key=f"compare_variant_{key}").set_value(value)
    next(b for b in at.button if b.label == "Train and compare as run B").click().run()
    assert not at.exception
    return at


def test_with_one_run_the_page_offers_a_variant():
    at = new_app(COMPARE, settings_corpus=SMALL_CORPUS)
    assert not at.exception
    assert at.info[0].value.startswith("This session has trained one run so far.")
    assert [s.value for s in at.subheader] == ["Check your own BPE"]  # the homework check: always offered
    assert at.selectbox(key="compare_variant_rule").value == "lexicographic"  # another rule than run A's


def test_a_variant_with_another_pre_tokenizer_parts_ways_on_counts():
    at = submit_variant(new_app(COMPARE, settings_corpus=SMALL_CORPUS), pre="whitespace", rule="first_occurrence")
    assert [s.value for s in at.subheader] == [
        "What differs",
        "Where they part ways",
        "Vocabularies",
        "Text cut differently",
        "Check your own BPE",
    ]
    differences = frame(at, "setting")
    assert differences.values.tolist() == [["pre-tokenizer", "none", "whitespace"]]
    headline = next(h.value for h in at.html if "bpe-divergence" in h.value)
    assert "Step 3: run A merges <code>est</code> + <code>·</code>" in headline
    assert "run B merges <code>l</code> + <code>o</code>" in headline
    why = next(m.value for m in at.markdown if "decided" in m.value)
    assert why.startswith("**The counts decided.**") and "pre-tokenizer" in why
    competitors = frame(at, "pair")
    assert list(competitors.columns) == ["pair", "count in A", "count in B", "picked by"]
    assert set(competitors["picked by"]) >= {"A", "B"}
    assert metric(at, "Only in A") != "0" and metric(at, "Only in B") != "0"
    aligned = frame(at, "token")
    row = aligned[aligned["token"] == "lo"].iloc[0]
    assert (row["step in A"], row["step in B"], row["B − A"]) == ("4", "3", -1)  # one token, two steps
    samples = [h.value for h in at.html if "bpe-compare-" in h.value]
    assert len(samples) >= 2 and 'class="tok differs"' in samples[0]


def test_presenter_mode_shows_the_step_shift_as_a_whole_number():
    """In large type the aligned tokens are a static table of formatted cells: "B − A" is a
    whole number there too (a column of whole numbers with gaps once showed -1.00)."""
    at = submit_variant(
        new_app(COMPARE, settings_corpus=SMALL_CORPUS, presenter_large=True), pre="whitespace", rule="first_occurrence"
    )
    aligned = next(t.value for t in at.table if list(t.value.columns)[:1] == ["token"])
    row = aligned[aligned["token"] == "lo"].iloc[0]
    assert (row["step in A"], row["step in B"], row["B − A"]) == ("4", "3", "-1")
    assert not any("." in value for value in aligned["B − A"])


def test_what_if_the_other_rule_opens_the_comparison_at_the_current_step():
    at = new_app("app.py", settings_corpus=TIES)
    at.switch_page(MERGES).run()
    assert metric(at, "Step").startswith("1 of ")
    assert "tie with the winner" in " ".join(c.value for c in at.caption)
    at.button(key="compare_whatif_lexicographic").click().run()
    assert not at.exception
    assert at.title[0].value == "Compare runs"
    assert at.session_state["compare_b"].training.tie_rule == "lexicographic"
    assert at.session_state["compare_a"].training.tie_rule == "first_occurrence"
    assert at.caption[0].value.startswith("Opened from step 1 of Merge by merge")
    headline = next(h.value for h in at.html if "bpe-divergence" in h.value)
    assert "Step 1: run A merges <code>t</code> + <code>h</code>" in headline
    assert "run B merges <code>a</code> + <code>t</code>" in headline
    why = next(m.value for m in at.markdown if "decided" in m.value)
    assert why.startswith("**A tie rule decided.**")
    assert "first occurrence" in why and "lexicographic" in why
    at.switch_page(MERGES).run()  # back: the session remembers both runs, nothing is lost
    at.switch_page(COMPARE).run()
    assert at.session_state["compare_b"].training.tie_rule == "lexicographic"
    assert at.caption[0].value.startswith("Opened from step 1")


def test_a_new_current_run_starts_the_comparison_afresh():
    at = new_app("app.py", settings_corpus=TIES)
    at.switch_page(MERGES).run()
    at.button(key="compare_whatif_huggingface").click().run()
    assert at.session_state["compare_b"].training.tie_rule == "huggingface"
    at.switch_page(COMPARE)  # AppTest stays on the page it was given: follow the switch by hand
    at.sidebar.selectbox(key="_w_settings_corpus").set_value(SMALL_CORPUS).run()
    assert not at.exception and at.title[0].value == "Compare runs"
    a, b = at.session_state["compare_a"], at.session_state["compare_b"]
    assert a.corpus == SMALL_CORPUS  # run A follows the current run
    assert (b.corpus, b.training.tie_rule) == (TIES, "huggingface")  # B: the most recent other run
    assert not any(c.value.startswith("Opened from") for c in at.caption)  # no longer at that step


def test_runs_are_picked_from_every_run_of_the_session():
    at = new_app("app.py", settings_corpus=TIES)
    at.sidebar.number_input(key="_w_settings_min_freq").set_value(1).run()
    at.sidebar.selectbox(key="_w_settings_tie_rule").set_value("huggingface").run()
    at.switch_page(COMPARE).run()
    assert not at.exception
    a, b = at.selectbox(key="_w_compare_a"), at.selectbox(key="_w_compare_b")
    assert len(a.options) == 3  # min freq 2, min freq 1, then Hugging Face's rule
    assert sum("ties Hugging Face" in option for option in a.options) == 1
    assert (a.value.training.tie_rule, a.value.training.minimum_pair_frequency) == (
        "huggingface",
        1,
    )  # A: the current run
    assert (b.value.training.tie_rule, b.value.training.minimum_pair_frequency) == (
        "first_occurrence",
        1,
    )  # B: the one before it
    assert frame(at, "setting").values.tolist() == [["tie rule", "Hugging Face", "first occurrence"]]
    first = next(s for s in at.session_state["settings_seen_runs"].values() if s.training.minimum_pair_frequency == 2)
    at.selectbox(key="_w_compare_b").set_value(first).run()  # pick the first run as B instead
    assert [row[0] for row in frame(at, "setting").values.tolist()] == ["tie rule", "minimum pair frequency"]


def test_merge_by_merge_shows_pair_count_and_merges_applied():
    at = new_app(MERGES, settings_corpus="aaaaa", settings_min_freq=1)
    assert not at.exception
    counts = next(c.value for c in at.caption if c.value.startswith("Pair count"))
    assert "Pair count **4**" in counts and "merges applied **2**" in counts
    assert at.warning[0].value.startswith("Training counted 4 'a + a' pairs, overlapping ones included")
    log = at.dataframe[1].value
    assert list(log[["frequency", "merges applied"]].iloc[0]) == [4, 2]
    at.button(key="merges_forward").click().run()  # 'aa aa a': one 'aa + aa', one merge: no note
    assert not at.warning


def test_merge_by_merge_states_the_runs_tie_rule():
    at = new_app(MERGES, settings_corpus=TIES, settings_tie_rule="lexicographic")
    assert not at.exception
    tie_caption = next(c.value for c in at.caption if "Tie rule" in c.value)
    assert "ties go to the alphabetically smallest pair" in tie_caption
    assert [b.key for b in at.button if b.key and b.key.startswith("compare_whatif_")] == [
        "compare_whatif_first_occurrence",
        "compare_whatif_lexicographic_greatest",
        "compare_whatif_huggingface",
    ]
    assert "Merge 1: <code>a</code> + <code>t</code>" in at.html[0].value  # the alphabet's smallest tied pair


@pytest.mark.skipif(find_gpt2_files() is None, reason="GPT-2's files are not here (python -m bpe gpt2 download)")
def test_tokenize_shows_endoftext_as_text_and_as_the_special_token():
    at = new_app("pages/2_Tokenize.py", settings_corpus=SMALL_CORPUS)
    assert not at.exception
    assert "Special tokens: GPT-2's `<|endoftext|>`" in [s.value for s in at.subheader]
    as_text = next(h.value for h in at.html if "special-as-text" in h.value)
    as_special = next(h.value for h in at.html if "special-as-special" in h.value)
    assert ">50256<" in as_special and ">50256<" not in as_text
    assert ">5239<" in as_text and ">5239<" not in as_special  # 'text' of '<|endoftext|>', an ordinary token
    explained = next(m.value for m in at.markdown if "occurs once" in m.value)
    assert "7 ordinary tokens (ids 27 91 437 1659 5239 91 29)" in explained and "one id, 50256" in explained
    at.text_input(key="_w_tokenize_special_text").set_value("no special token here").run()
    assert any("does not contain" in m.value for m in at.markdown)
