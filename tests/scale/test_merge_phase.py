"""The merge phase: training from a counts table (and through its file) gives the same run,
merge for merge, as training the text in memory: every tie rule, both alphabets, every
pre-tokenizer, held-out curve included."""

from __future__ import annotations

import dataclasses

import pytest
from helpers import MAX_EXAMPLES, assert_same_steps, shared_file
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe.errors import BpeError
from bpe.paths import DATA_DIR
from bpe.recorded import RecordedSteps
from bpe.run import train_run
from bpe.scale.chunk_counts import count_text
from bpe.scale.counts_file import read_counts, write_counts
from bpe.scale.merge_phase import train_run_from_counts, train_run_from_words
from bpe.steps import TIE_RULES
from bpe.training import TrainingSettings, prepare_words

PRETOKENIZERS = (None, "whitespace", "gpt2", "gpt4", r"\s*\w+|\s+|[^\s\w]+")


def counts_of(text: str, heldout: str, alphabet: str, pretokenizer, special_tokens=()):
    """The table `bpe count` would write for a training part and a held-out part."""
    table = count_text(text, alphabet=alphabet, pretokenizer=pretokenizer, special_tokens=special_tokens)
    if not heldout:
        return table
    held = count_text(heldout, alphabet=alphabet, pretokenizer=pretokenizer, special_tokens=special_tokens)
    return dataclasses.replace(
        table,
        heldout_chunks=held.chunks,
        heldout_counts=held.counts,
        heldout_characters=held.characters,
        heldout_documents=1,
        heldout_text=heldout[:4000],
        heldout_special_counts=held.special_counts,
    )


def assert_same_run(text, heldout, *, alphabet, pretokenizer, tie_rule, vocab, min_freq=2, top_k=5, special_tokens=()):
    expected = train_run(
        text,
        target_vocab_size=vocab,
        minimum_pair_frequency=min_freq,
        alphabet=alphabet,
        pretokenizer=pretokenizer,
        tie_rule=tie_rule,
        top_k=top_k,
        heldout_text=heldout,
        special_tokens=special_tokens,
    )
    got = train_run_from_counts(
        counts_of(text, heldout, alphabet, pretokenizer, special_tokens),
        target_vocab_size=vocab,
        minimum_pair_frequency=min_freq,
        tie_rule=tie_rule,
        top_k=top_k,
    )
    assert isinstance(got.steps, RecordedSteps)
    assert_same_steps(expected.steps, got.steps)
    assert got.merges == expected.merges
    assert got.stop_reason == expected.stop_reason
    assert got.settings == expected.settings
    assert got.initial_length == expected.initial_length
    assert got.heldout_lengths == expected.heldout_lengths
    assert (got.training_characters, got.heldout_characters) == (len(text), len(heldout))
    return got


texts = st.text(alphabet=st.sampled_from("ab c\né'1"), min_size=1, max_size=80)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(
    text=texts,
    heldout=st.text(alphabet=st.sampled_from("abcd \n"), max_size=30),
    alphabet=st.sampled_from(["characters", "bytes"]),
    pretokenizer=st.sampled_from(PRETOKENIZERS),
    tie_rule=st.sampled_from(TIE_RULES),
    extra=st.integers(0, 30),
    min_freq=st.integers(1, 3),
)
def test_counts_train_as_the_text_does(text, heldout, alphabet, pretokenizer, tie_rule, extra, min_freq):
    base = 256 if alphabet == "bytes" else len(set(text + heldout))
    assert_same_run(
        text,
        heldout,
        alphabet=alphabet,
        pretokenizer=pretokenizer,
        tie_rule=tie_rule,
        vocab=base + extra,
        min_freq=min_freq,
    )


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(
    parts=st.lists(st.sampled_from(["ab", " a", "b ", "<s>", "<s><s>", "\n", "é", "<", "s>"]), min_size=1, max_size=30),
    heldout=st.lists(st.sampled_from(["ab", "<s>", " "]), max_size=6),
    alphabet=st.sampled_from(["characters", "bytes"]),
    pretokenizer=st.sampled_from(PRETOKENIZERS[1:4]),
    tie_rule=st.sampled_from(TIE_RULES),
    extra=st.integers(0, 20),
)
def test_counts_with_special_tokens_train_as_the_text_does(parts, heldout, alphabet, pretokenizer, tie_rule, extra):
    text, held = "".join(parts), "".join(heldout)
    ordinary = (text + held).replace("<s>", "")
    if alphabet == "characters" and not ordinary:
        with pytest.raises(BpeError, match="nothing but special tokens"):
            train_run(text, 10, special_tokens=["<s>"], heldout_text=held)
        with pytest.raises(BpeError, match="nothing but special tokens"):
            train_run_from_counts(counts_of(text, held, alphabet, pretokenizer, ["<s>"]), target_vocab_size=10)
        return
    base = 256 if alphabet == "bytes" else len(set(ordinary))
    got = assert_same_run(
        text,
        held,
        alphabet=alphabet,
        pretokenizer=pretokenizer,
        tie_rule=tie_rule,
        vocab=base + 2 + extra,
        min_freq=1,
        special_tokens=["<s>", "<s><s>"],
    )
    assert got.settings.special_tokens == ("<s>", "<s><s>")
    assert sum(got.base_counts) == got.initial_length


def test_a_tinystories_like_text_through_the_counts_file_and_the_run_file(tmp_path):
    from bpe.analysis.metrics import token_usage
    from bpe.scale.run_file import RunSource, parse_run_file, run_file_bytes

    stories = "".join(f"Story {i}: the cat saw {i % 9} dogs.<|endoftext|>" for i in range(300))
    path = tmp_path / "stories.parquet"
    write_counts(path, counts_of(stories, "", "bytes", "gpt2", ["<|endoftext|>"]))
    counted = read_counts(path)
    assert counted.special_tokens == ("<|endoftext|>",) and list(counted.special_counts) == [300]
    got = train_run_from_counts(counted, target_vocab_size=320, minimum_pair_frequency=1)
    expected = train_run(
        stories, 320, alphabet="bytes", pretokenizer="gpt2", minimum_pair_frequency=1, special_tokens=["<|endoftext|>"]
    )
    assert got.merges == expected.merges
    assert not any(b"<|" in left + right or b"|>" in left + right for left, right in got.merges)
    assert token_usage(got, None)[b"<|endoftext|>"] == 300 == token_usage(expected, stories)[b"<|endoftext|>"]
    replayed = parse_run_file(run_file_bytes(got, source=RunSource(name="stories"), sample="")).run
    assert replayed.special_tokens == ("<|endoftext|>",) and replayed.merges == got.merges
    assert replayed.tokenizer().encode("cat<|endoftext|>") == got.tokenizer().encode("cat<|endoftext|>")


@pytest.mark.parametrize("tie_rule", TIE_RULES)
@pytest.mark.parametrize(("alphabet", "pretokenizer"), [("bytes", "gpt2"), ("characters", "gpt4"), ("bytes", None)])
def test_a_real_text_through_the_counts_file(tmp_path, tie_rule, alphabet, pretokenizer):
    """Tiny Shakespeare (shipped), counted, written, read back, trained: the in-memory run."""
    text = (DATA_DIR / "tinyshakespeare.txt").read_text(encoding="utf-8")
    train, heldout = (text[:60_000], text[-8_000:]) if pretokenizer is None else (text[:400_000], text[-20_000:])
    path = tmp_path / "counts.parquet"
    write_counts(path, counts_of(train, heldout, alphabet, pretokenizer))
    expected = train_run(
        train,
        target_vocab_size=600,
        alphabet=alphabet,
        pretokenizer=pretokenizer,
        tie_rule=tie_rule,
        heldout_text=heldout,
    )
    got = train_run_from_counts(read_counts(path), target_vocab_size=600, tie_rule=tie_rule)
    assert got.merges == expected.merges
    assert list(got.steps) == expected.steps
    assert got.heldout_lengths == expected.heldout_lengths


def test_wikitext_gpt2_bytes_to_2000():
    """Real text nobody here wrote (the shared WikiText-2 splits), GPT-2 split, bytes."""
    text = shared_file("wikitext-2/valid.txt").read_text(encoding="utf-8")
    run = assert_same_run(
        text, "", alphabet="bytes", pretokenizer="gpt2", tie_rule="first_occurrence", vocab=2_000, top_k=10
    )
    assert len(run.steps) == 2_000 - 256


def test_words_may_come_from_a_generator():
    text = "low lower lowest " * 20
    settings_ = TrainingSettings(target_vocab_size=40, pretokenizer="whitespace", base_tokens=tuple(sorted(set(text))))
    words = prepare_words(text, "characters", "whitespace")
    from_list = train_run_from_words(words, settings_, training_characters=len(text))
    from_generator = train_run_from_words(iter(words), settings_, training_characters=len(text))
    assert from_list.steps == from_generator.steps
    assert from_list.initial_length == len(text)


def test_training_from_words_needs_base_tokens_and_room_for_them():
    words = prepare_words("abab", "characters", None)
    with pytest.raises(BpeError, match="needs the base tokens"):
        train_run_from_words(words, TrainingSettings(target_vocab_size=5), training_characters=4)
    with pytest.raises(BpeError, match="smaller than the alphabet"):
        train_run_from_words(
            words, TrainingSettings(target_vocab_size=1, base_tokens=("a", "b")), training_characters=4
        )


def test_recorded_steps_behave_as_a_list():
    run = train_run("the cat in the hat sat on the mat " * 5, target_vocab_size=30, top_k=3)
    recorded = RecordedSteps(run.base_tokens)
    for step in run.steps:
        recorded.append(step)
    assert len(recorded) == len(run.steps)
    assert recorded[0] == run.steps[0] and recorded[-1] == run.steps[-1]
    assert recorded[2:5] == run.steps[2:5]
    assert recorded == run.steps
    assert recorded.pairs() == run.merges
    assert recorded.prefix(7) == run.steps[:7] and recorded.prefix(0) == []
    with pytest.raises(IndexError):
        recorded[len(run.steps)]


def test_recorded_counts_past_four_bytes_are_kept_exactly():
    """Counts past 4 bytes (a corpus of billions of characters) read back: recorded, they
    are packed in 8 bytes from the start; loaded from columns (a run file), they are held
    in 4 until one does not fit, then the column widens."""
    run = train_run("the cat in the hat sat on the mat " * 5, target_vocab_size=30, top_k=3)
    huge = [2**31 - 1, 2**31, 2**40]
    steps = [
        dataclasses.replace(
            step,
            top_pairs=tuple((pair, count + huge[min(i, 2)]) for pair, count in step.top_pairs),
            count_changes=tuple((pair, delta - huge[min(i, 2)]) for pair, delta in step.count_changes),
        )
        for i, step in enumerate(run.steps)
    ]
    recorded = RecordedSteps(run.base_tokens)
    for step in steps:
        recorded.append(step)
    assert list(recorded) == steps
    assert recorded.top_counts.typecode == recorded.change_deltas.typecode == "q"
    loaded = RecordedSteps.from_columns(run.base_tokens, **columns_of(recorded))
    assert list(loaded) == steps and loaded.top_counts.itemsize == loaded.change_deltas.itemsize == 8


def columns_of(recorded: RecordedSteps) -> dict:
    """A record's columns as a run file keeps them (`RecordedSteps.from_columns`)."""
    names = ("lefts", "rights", "frequencies", "sequence_lengths", "top_sizes", "top_values", "change_sizes")
    return {**{name: getattr(recorded, name) for name in names}, "change_values": recorded.change_values}


@pytest.mark.parametrize(("alphabet", "pretokenizer"), [("bytes", "gpt2"), ("characters", "whitespace")])
def test_a_run_from_counts_knows_its_token_usage_without_the_text(alphabet, pretokenizer):
    from bpe.analysis.metrics import token_usage

    text = (DATA_DIR / "tinyshakespeare.txt").read_text(encoding="utf-8")[:100_000]
    expected = train_run(text, target_vocab_size=400, alphabet=alphabet, pretokenizer=pretokenizer)
    got = train_run_from_counts(counts_of(text, "", alphabet, pretokenizer), target_vocab_size=400)
    assert sum(got.base_counts) == got.initial_length
    for merges in (0, 10, len(got.steps)):
        assert token_usage(got, None, merges) == token_usage(expected, text, merges)


# ==================== A record that keeps its steps' details on disk or packed


@pytest.mark.parametrize("kind", ["SpilledColumn", "PackedColumn"])
@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(
    values=st.lists(st.integers(-(2**63), 2**63 - 1), max_size=60),
    block=st.integers(1, 7),
    cut=st.integers(0, 70),
    span=st.integers(0, 70),
)
def test_a_spilled_or_packed_column_reads_back_what_was_appended(kind, values, block, cut, span):
    import pickle
    from array import array

    from bpe import recorded

    column = getattr(recorded, kind)("q")
    column.BLOCK_ITEMS = block  # most of it in the file or packed, the last few items as they are
    for start in range(0, len(values), 3):
        column.extend(values[start : start + 3])
    assert len(column) == len(values) and list(column) == values
    assert column[cut : cut + span] == array("q", values[cut : cut + span])
    assert column[::2] == array("q", values[::2])
    if values:
        assert column[cut % len(values)] == values[cut % len(values)] and column[-1] == values[-1]
    with pytest.raises(IndexError):
        column[len(values)]
    assert pickle.loads(pickle.dumps(column)) == array("q", values)
    if kind == "PackedColumn":  # the first items, sharing the packed blocks; the column grows on alone
        head = column.head(cut)
        column.append(7)
        assert list(head) == values[:cut] and list(column) == [*values, 7]


def test_a_live_trainings_runners_up_and_count_changes_are_packed():
    """Recorded in memory, a run's runners-up and count changes take a fraction of the 12
    bytes a pair they take as plain arrays, and read back as they were recorded."""
    text = (DATA_DIR / "tinyshakespeare.txt").read_text(encoding="utf-8")[:300_000]
    run = train_run(text, target_vocab_size=3_000, top_k=10, pretokenizer="whitespace")
    recorded = run.steps
    pairs = len(recorded.top_counts) + len(recorded.change_deltas)
    assert len(recorded.top_counts) > 4 * recorded.top_counts.BLOCK_ITEMS  # (most of it packed)
    held = sum(
        column.nbytes for column in (recorded.top_ids, recorded.top_counts, recorded.change_ids, recorded.change_deltas)
    )
    assert held < 4 * pairs, f"{held / pairs:.1f} bytes a pair"
    assert list(recorded) == list(RecordedSteps.from_columns(run.base_tokens, **columns_of(recorded)))


def test_a_merge_phase_keeps_its_runners_up_on_disk_and_writes_the_same_run_file():
    """Spilled, the runners-up and count changes of a run trained from counts cost a block
    of memory each; the run file it writes is the one its steps held in memory write."""
    from bpe.recorded import SpilledColumn
    from bpe.scale.run_file import RunSource, run_file_bytes

    text = (DATA_DIR / "tinyshakespeare.txt").read_text(encoding="utf-8")[:200_000]
    run = train_run_from_counts(counts_of(text, "", "bytes", "gpt2"), target_vocab_size=1_256, top_k=10)
    recorded = run.steps
    assert isinstance(recorded.top_ids, SpilledColumn) and isinstance(recorded.change_deltas, SpilledColumn)
    assert len(recorded.top_counts) > 2 * SpilledColumn.BLOCK_ITEMS > 2 * len(recorded.top_counts._tail)
    in_memory = dataclasses.replace(run, steps=list(recorded), step_seconds=list(run.step_seconds))
    assert in_memory.steps == recorded and in_memory.merges == run.merges
    source = RunSource(name="tiny")
    assert run_file_bytes(run, source=source) == run_file_bytes(in_memory, source=source)


def test_a_merge_phase_given_no_choice_runs_compiled_from_the_threshold_up(monkeypatch):
    """`compiled=None` asks `compiled_by_default`: the same run either way, from the loop it names."""
    pytest.importorskip("numba", reason="the compiled engine needs numba (requirements.txt installs it)")
    from bpe.scale import compiled_merges

    text = (DATA_DIR / "tinyshakespeare.txt").read_text(encoding="utf-8")[:100_000]
    counts = counts_of(text, "", "bytes", "gpt2")
    called = []
    compiled_steps = compiled_merges.compiled_steps
    monkeypatch.setattr(compiled_merges, "compiled_steps", lambda *a, **k: called.append(1) or compiled_steps(*a, **k))
    in_python = train_run_from_counts(counts, target_vocab_size=600)
    assert not called  # 100,000 characters: under the threshold
    monkeypatch.setattr(compiled_merges, "COMPILED_FROM_CHARACTERS", len(text))
    compiled = train_run_from_counts(counts, target_vocab_size=600)
    assert called == [1]
    assert list(compiled.steps) == list(in_python.steps) and compiled.settings.top_k == 10
    assert compiled.heldout_lengths == in_python.heldout_lengths


@pytest.mark.parametrize(("alphabet", "pretokenizer"), [("bytes", "gpt2"), ("characters", "whitespace")])
def test_compiled_merges_train_the_counts_as_the_text_trains(tmp_path, alphabet, pretokenizer):
    """The merge phase with the compiled loop (`bpe.scale.compiled_merges`), through the counts file:
    the fast engine's run on the text in memory, runners-up and held-out curve included."""
    pytest.importorskip("numba", reason="the compiled engine needs numba (requirements.txt installs it)")
    text = (DATA_DIR / "tinyshakespeare.txt").read_text(encoding="utf-8")
    train, heldout = text[:400_000], text[-20_000:]
    path = tmp_path / "counts.parquet"
    write_counts(path, counts_of(train, heldout, alphabet, pretokenizer))
    base = 256 if alphabet == "bytes" else len(set(train + heldout))
    options = dict(target_vocab_size=base + 1_500, top_k=10)
    expected = train_run(train, alphabet=alphabet, pretokenizer=pretokenizer, heldout_text=heldout, **options)
    got = train_run_from_counts(read_counts(path), compiled=True, **options)
    assert list(got.steps) == expected.steps
    assert len(got.steps) == 1_500
    assert got.heldout_lengths == expected.heldout_lengths
    assert got.stop_reason == expected.stop_reason
