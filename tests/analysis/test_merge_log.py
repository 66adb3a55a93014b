"""bpe.analysis.merge_log: log rows, CSV, count changes, why training stopped."""

import csv
import io

from bpe.analysis.merge_log import count_change_rows, log_csv, log_rows_around, overlap_note, why_stopped
from bpe.analysis.metrics import compression
from bpe.run import train_run

RUN = train_run("the cat in the hat\nthe hat", target_vocab_size=40, minimum_pair_frequency=1)


def test_rows_around_mark_the_current_step_and_keep_a_fixed_height():
    rows = log_rows_around(RUN, 1)
    assert [r["step"] for r in rows] == list(range(1, 12)) and rows[0][""] == "▶"
    rows = log_rows_around(RUN, 8)
    assert [r["step"] for r in rows] == list(range(3, 14)) and rows[5][""] == "▶"
    assert list(rows[0]) == [
        "",
        "step",
        "pair",
        "new token",
        "frequency",
        "merges applied",
        "sequence length",
        "vocab size",
    ]
    last = len(RUN.steps)
    rows = log_rows_around(RUN, last)
    assert len(rows) == 11 and rows[-1]["step"] == last and rows[-1][""] == "▶"


def test_csv_reads_back_exactly():
    rows = list(csv.DictReader(io.StringIO(log_csv(RUN))))
    assert len(rows) == len(RUN.steps)
    assert [(r["left"], r["right"], r["token"]) for r in rows] == [(*s.pair, s.token) for s in RUN.steps]
    assert rows[0]["vocab_size"] == str(RUN.steps[0].vocab_size)


def test_count_changes_name_what_happened():
    rows = count_change_rows(RUN.steps[0])  # ('t','h') -> 'th'
    kinds = {r["pair"]: (r["change"], r["what happened"]) for r in rows}
    assert kinds["t + h"] == (-3, "merged away")
    assert kinds["th + e"][1] == "created" and kinds["th + e"][0] > 0
    assert any(kind == "consumed" for _, kind in kinds.values())


def test_why_stopped_for_the_whole_run_and_for_a_prefix():
    assert why_stopped(RUN, len(RUN.steps)).startswith(f"Training stopped after {len(RUN.steps)} merges: ")
    assert "the first 3 of the run's" in why_stopped(RUN, 3)
    assert why_stopped(RUN, 0).startswith(f"This tokenizer uses none of the run's {len(RUN.steps)} merges: ")


def test_compression():
    assert compression(10, 4) == 2.5 and compression(5, 0) == 0.0


def test_csv_quotes_whitespace_and_commas_and_counts_overlapping_pairs():
    run = train_run("a, a, a, b", target_vocab_size=8, engine="reference")
    assert log_csv(run).splitlines() == [
        "step,left,right,token,token_id,frequency,merges_applied,sequence_length,vocab_size",
        '1,a,",","a,",4,3,3,7,5',  # merges ('a', ','), ('a,', ' '), ('a, ', 'a, ')
        '2,"a,", ,"a, ",5,3,3,4,6',
        '3,"a, ","a, ","a, a, ",6,2,1,3,7',  # overlapping pairs count twice, one merge happens
    ]


def test_csv_spells_partial_bytes_as_the_app_does():
    run = train_run("éé éé", target_vocab_size=259, minimum_pair_frequency=1, alphabet="bytes", top_k=0)
    rows = list(csv.DictReader(io.StringIO(log_csv(run))))
    assert rows[0]["left"] == "<0xC3>" and rows[0]["right"] == "<0xA9>" and rows[0]["token"] == "é"


# ==================== Overlap counting: pairs counted vs merges applied


def test_aaaaa_counts_four_pairs_but_merges_twice():
    run = train_run("aaaaa", target_vocab_size=2, minimum_pair_frequency=1)
    step = run.steps[0]
    assert step.pair == ("a", "a") and step.frequency == 4  # overlapping occurrences all counted
    assert run.merges_applied(1) == 2  # 'aa aa a': the sequence got two shorter
    assert [s.number for s in run.steps if run.merges_applied(s.number) != s.frequency] == [1]
    note = overlap_note(step, run.merges_applied(1))
    assert note.startswith("Training counted 4 'a + a' pairs, overlapping ones included")
    assert "only 2 merges happened" in note and "'aaa'" in note


def test_no_note_where_every_counted_pair_merges():
    assert overlap_note(RUN.steps[0], RUN.merges_applied(1)) is None
    assert [RUN.merges_applied(s.number) for s in RUN.steps] == [s.frequency for s in RUN.steps]


def test_merges_applied_sums_to_the_whole_shortening_in_both_engines():
    text = "aaaa bbbbbb aaaa abab aaaaaaa"
    for engine in ("fast", "reference"):
        run = train_run(text, target_vocab_size=20, minimum_pair_frequency=1, engine=engine, pretokenizer="whitespace")
        applied = [run.merges_applied(s.number) for s in run.steps]
        assert sum(applied) == run.initial_length - run.steps[-1].sequence_length
        assert all(0 < a <= s.frequency for a, s in zip(applied, run.steps))
        assert any(a < s.frequency for a, s in zip(applied, run.steps))  # the text has overlapping pairs


def test_log_rows_and_csv_carry_both_numbers():
    run = train_run("aaaaa", target_vocab_size=3, minimum_pair_frequency=1)
    row = log_rows_around(run, 1)[0]
    assert (row["frequency"], row["merges applied"]) == (4, 2)
    rows = list(csv.DictReader(io.StringIO(log_csv(run))))
    assert [(r["frequency"], r["merges_applied"]) for r in rows] == [("4", "2"), ("1", "1")]
    assert len(list(csv.DictReader(io.StringIO(log_csv(run, 1))))) == 1
