"""Run files: a run written and read back is the same run (steps, held-out curve, tokenizer
at any size); a file that is tampered with, cut short, too big, of another version or not
a run file at all is one `RunFileError` line, never a traceback."""

from __future__ import annotations

import gzip
import hashlib
import json
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe.errors import BpeError
from bpe.io.files import atomic_write_bytes
from bpe.paths import DATA_DIR
from bpe.recorded import RecordedSteps
from bpe.run import train_run
from bpe.scale.run_file import (
    MAX_MERGES,
    RunFileError,
    RunSource,
    parse_run_file,
    read_run_file,
    run_file_bytes,
)
from bpe.scale.run_listing import RUNS_DIR, labelled_runs, list_runs, run_folders
from bpe.steps import TIE_RULES


@pytest.fixture(autouse=True)
def crafted_bodies_inflate_freely(monkeypatch):
    """The bodies these tests craft are repetitive (a list of one number), so gzip shrinks them
    hundreds of times, past the inflation bound (`bpe.io.budget.MAX_INFLATION`), which would
    refuse them before the checks they are made for. The tests of that bound put it back."""
    monkeypatch.setattr("bpe.scale.run_file.MAX_INFLATION", 10**9, raising=False)


def inflation_bound_in_force(monkeypatch) -> None:
    from bpe.io.budget import MAX_INFLATION

    monkeypatch.setattr("bpe.scale.run_file.MAX_INFLATION", MAX_INFLATION, raising=False)


def write_run_file(path, run, *, source, sample: str = "") -> None:
    """Write the run file whole through a temporary name, as the command line's staging does."""
    atomic_write_bytes(path, run_file_bytes(run, source=source, sample=sample))


SOURCE = RunSource(name="shakespeare", inputs=("tinyshakespeare.txt",), characters=100_000, documents=1)


@pytest.fixture(scope="module")
def run():
    text = (DATA_DIR / "tinyshakespeare.txt").read_text(encoding="utf-8")
    return train_run(
        text[:100_000], target_vocab_size=500, alphabet="bytes", pretokenizer="gpt2", heldout_text=text[-10_000:]
    )


@pytest.fixture(scope="module")
def raw(run):
    return run_file_bytes(run, source=SOURCE, sample="First Citizen:\nBefore we proceed")


def parts(raw: bytes) -> tuple[dict, dict]:
    header, body = gzip.decompress(raw).split(b"\n", 1)
    return json.loads(header), json.loads(body)


def rebuilt(header: dict, body, *, fix_checksum: bool = True) -> bytes:
    """A run file with this header and body; the checksum recomputed, as anyone can."""
    body_bytes = body if isinstance(body, bytes) else json.dumps(body, ensure_ascii=False).encode("utf-8")
    if fix_checksum:
        header = {**header, "body_bytes": len(body_bytes), "body_sha256": hashlib.sha256(body_bytes).hexdigest()}
    return gzip.compress(json.dumps(header).encode("utf-8") + b"\n" + body_bytes + b"\n")


def edited(raw: bytes, **changes) -> bytes:
    header, body = parts(raw)
    if "settings" in changes:  # settings are changed one field at a time
        changes["settings"] = {**body["settings"], **changes["settings"]}
    return rebuilt(header, {**body, **changes})


def test_a_run_survives_its_file(tmp_path, run):
    path = tmp_path / "shakespeare.bperun"
    write_run_file(path, run, source=SOURCE, sample="First Citizen:")
    loaded = read_run_file(path)
    assert isinstance(loaded.run.steps, RecordedSteps)
    assert list(loaded.run.steps) == run.steps
    assert loaded.run.merges == run.merges
    assert loaded.run.heldout_lengths == run.heldout_lengths
    assert loaded.run.settings == run.settings
    assert (loaded.run.initial_length, loaded.run.training_characters) == (run.initial_length, run.training_characters)
    assert loaded.run.stop_explanation == run.stop_explanation
    assert loaded.source == SOURCE and loaded.sample == "First Citizen:"
    for size in (256, 300, 500):
        assert loaded.run.tokenizer(size) == run.tokenizer(size)
    assert loaded.label == "run: shakespeare — tinyshakespeare.txt, 100,000 characters, 244 merges"


def test_the_same_run_writes_the_same_bytes(run, raw):
    assert run_file_bytes(run, source=SOURCE, sample="First Citizen:\nBefore we proceed") == raw


def test_paths_are_kept_as_names_only(run, tmp_path):
    source = RunSource(name="x", inputs=(str(tmp_path / "corpus" / "part-1.txt"),))  # a full path of this machine
    loaded = parse_run_file(run_file_bytes(run, source=source))
    assert loaded.source.inputs == ("part-1.txt",)


def test_a_tampered_body_fails_its_checksum(raw):
    header, body = gzip.decompress(raw).split(b"\n", 1)
    tampered = body.replace(b'"sample":"First', b'"sample":"Worst')  # same length, other content
    assert tampered != body
    with pytest.raises(RunFileError, match="fails its checksum"):
        parse_run_file(gzip.compress(header + b"\n" + tampered), name="edited.bperun")


def test_flipped_bytes_on_disk_are_refused(raw):
    damaged = bytearray(raw)
    damaged[len(raw) // 2] ^= 0xFF
    with pytest.raises(RunFileError, match="damaged"):
        parse_run_file(bytes(damaged))


@pytest.mark.parametrize("keep", [0, 5, 40, 0.5, -9, -1])
def test_a_file_cut_short_is_refused(raw, keep):
    cut = raw[: int(len(raw) * keep) if isinstance(keep, float) else keep if keep >= 0 else len(raw) + keep]
    with pytest.raises(RunFileError, match="cut short|not a BPE Lab run file|damaged"):
        parse_run_file(cut, name="cut.bperun")


def test_data_after_the_end_is_refused(raw):
    with pytest.raises(RunFileError, match="more than its header says"):
        parse_run_file(raw + gzip.compress(b"more"))


def test_another_version_or_format_is_named(raw):
    header, body = parts(raw)
    with pytest.raises(RunFileError, match="version 2; this BPE Lab reads version 1"):
        parse_run_file(rebuilt({**header, "version": 2}, body))
    with pytest.raises(RunFileError, match="not a BPE Lab run file"):
        parse_run_file(rebuilt({**header, "format": "something"}, body))
    with pytest.raises(RunFileError, match="not a BPE Lab run file"):
        parse_run_file(b"plain text, not gzip", name="notes.txt")
    with pytest.raises(RunFileError, match="not a BPE Lab run file"):
        parse_run_file(gzip.compress(b"[1, 2, 3]\n"))


def test_sizes_are_bounded_before_the_work(tmp_path, raw):
    with pytest.raises(RunFileError, match="at most 1,000"):
        parse_run_file(raw, max_bytes=1_000)
    path = tmp_path / "big.bperun"
    path.write_bytes(raw)
    with pytest.raises(
        RunFileError, match=r"big.bperun. is [0-9,]+ bytes, over the limit of 1,000 bytes"
    ):  # bpe.io.untrusted's words
        read_run_file(path, max_bytes=1_000)
    # a header claiming a huge body is refused before it is inflated (a gzip bomb)
    header, body = parts(raw)
    bomb = gzip.compress(json.dumps({**header, "body_bytes": 10**12}).encode() + b"\n" + b"0" * 1_000_000)
    with pytest.raises(RunFileError, match="may hold at most"):
        parse_run_file(bomb)
    too_many = gzip.compress(json.dumps({**header, "body_bytes": 5}).encode() + b"\n" + b"0" * 100_000)
    with pytest.raises(RunFileError, match="more than its header says"):
        parse_run_file(too_many)


def test_too_many_merges_are_refused_before_building(raw):
    header, body = parts(raw)
    n = MAX_MERGES + 1
    huge = {**body, **{key: [1] * n for key in ("lefts", "rights", "frequencies", "sequence_lengths")}}
    huge.update(top_sizes=[0] * n, change_sizes=[0] * n, top_values=[], change_values=[])
    with pytest.raises(RunFileError, match="at most 200,000"):
        parse_run_file(rebuilt(header, huge))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"lefts": None}, "lefts is missing"),
        ({"lefts": [10**6]}, "entries for|names token ids"),
        ({"top_sizes": [101] * 244}, "more than 100 pairs"),
        ({"top_values": [1, 2]}, "top_values has 2 numbers"),
        ({"frequencies": [0] * 244}, "count below 1"),
        ({"heldout_lengths": [1, 2]}, "heldout_lengths has 2 entries"),
        ({"stop_reason": "tired"}, "stop_reason 'tired'"),
        ({"settings": {"target_vocab_size": -1}}, "target_vocab_size=-1"),
        ({"settings": {"tie_rule": ["x"]}}, "wrong kind|unknown tie_rule"),
        ({"settings": {"alphabet": "klingon"}}, "unknown alphabet"),
        ({"base_tokens": ["a", "b"]}, "all 256|names token ids|not one of"),
        ({"source": {"name": ""}}, "no name"),
        ({"sample": "x" * 100_001}, "at most 100,000"),
        ({"training_characters": True}, "training_characters must be"),
        ({"step_seconds": ["soon"] * 244}, "step_seconds"),
        ({"lefts": ["1"] * 244}, "whole numbers only"),
    ],
)
def test_malformed_runs_are_named_in_one_line(raw, changes, message):
    with pytest.raises(RunFileError, match=message) as error:
        parse_run_file(edited(raw, **changes), name="bad.bperun")
    assert "\n" not in str(error.value)
    assert str(error.value).startswith("bad.bperun")


def _with_column(raw: bytes, key: str, change) -> bytes:
    """The run file with one column of its body changed by ``change(list) -> list``."""
    _, body = parts(raw)
    return edited(raw, **{key: change(list(body[key]))})


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda raw: _with_column(raw, "sequence_lengths", lambda c: [0] * len(c)), "merge 1 takes the training text"),
        (lambda raw: _with_column(raw, "frequencies", lambda c: [999_999] + c[1:]), "merge 1 takes the training text"),
        (lambda raw: edited(raw, settings={"target_vocab_size": 300}), "past its target vocabulary of 300"),
        (lambda raw: edited(raw, settings={"top_k": 0}), "records 10 competing pairs; its settings keep 0"),
        (lambda raw: _with_column(raw, "heldout_lengths", lambda c: [0] * len(c)), "held-out token counts"),
        (lambda raw: _with_column(raw, "heldout_lengths", lambda c: c[:-1] + [c[-1] + 10**6]), "held-out token counts"),
        (lambda raw: edited(raw, heldout_characters=0), "held-out token counts"),
    ],
    ids=[
        "no-tokens-left",
        "count-past-its-merges",
        "past-the-target",
        "more-runners-up",
        "held-out-zero",
        "held-out-grows",
        "held-out-empty",
    ],
)
def test_numbers_no_training_makes_are_refused_even_with_a_fresh_checksum(raw, change, message):
    """A hand's edits that keep the file well-formed (checksum recomputed) but break the
    arithmetic every training obeys: refused in one line, never shown to a class."""
    with pytest.raises(RunFileError, match=message) as error:
        parse_run_file(change(raw), name="edited.bperun")
    assert "\n" not in str(error.value)


@settings(max_examples=60, deadline=None)
@given(
    text=st.text(alphabet="ab ca\nβ", min_size=1, max_size=60),
    alphabet=st.sampled_from(["characters", "bytes"]),
    pretokenizer=st.sampled_from([None, "whitespace", "gpt2"]),
    tie_rule=st.sampled_from(TIE_RULES),
    minimum=st.sampled_from([1, 2]),
    top_k=st.sampled_from([0, 1, 10]),
    heldout=st.booleans(),
)
def test_every_real_run_passes_the_arithmetic_checks(text, alphabet, pretokenizer, tie_rule, minimum, top_k, heldout):
    """The checks above refuse no run a training made, whatever its settings (overlapping
    pairs, a set vocabulary re-forming a token, held-out text the merges never touch)."""
    run = train_run(
        text,
        target_vocab_size=300 if alphabet == "bytes" else 40,
        alphabet=alphabet,
        pretokenizer=pretokenizer,
        tie_rule=tie_rule,
        minimum_pair_frequency=minimum,
        top_k=top_k,
        heldout_text=text[::-1][:20] if heldout else "",
    )
    loaded = parse_run_file(run_file_bytes(run, source=SOURCE))
    assert loaded.run.steps == run.steps


def test_token_ids_must_exist_at_their_step(raw):
    _, body = parts(raw)
    lefts = list(body["lefts"])
    lefts[0] = 256 + 5  # a token made only by a later merge
    with pytest.raises(RunFileError, match="merge 1 names token ids"):
        parse_run_file(edited(raw, lefts=lefts))


def test_a_hostile_pattern_in_a_run_file_is_refused(raw):
    with pytest.raises(RunFileError, match="too slow|backtracking"):
        parse_run_file(edited(raw, settings={"pretokenizer": r"(?:a|aa)+$|[\s\S]"}))


def test_json_that_is_not_a_run(raw):
    header, _ = parts(raw)
    with pytest.raises(RunFileError, match="not an object"):
        parse_run_file(rebuilt(header, b"[1]"))
    with pytest.raises(RunFileError, match="not valid JSON"):
        parse_run_file(rebuilt(header, b"{oops"))
    with pytest.raises(RunFileError, match="nested too deeply"):
        parse_run_file(rebuilt(header, b'{"settings":' + b"[" * 100_000))


def test_unreadable_paths_are_one_line(tmp_path):
    with pytest.raises(RunFileError, match="cannot read run file 'missing.bperun'"):
        read_run_file(tmp_path / "missing.bperun")


def test_compression_uses_no_file_name_or_time(raw):
    # gzip header: no name flag, mtime 0, so the file says nothing of where it was made
    assert raw[:2] == b"\x1f\x8b" and raw[3] & 0x08 == 0 and raw[4:8] == b"\0\0\0\0"
    assert zlib.decompress(raw, 31).startswith(b'{"format": "bpe-lab-run"')


def test_runs_are_listed_from_their_headers(tmp_path, monkeypatch, run):
    write_run_file(tmp_path / "b.bperun", run, source=SOURCE)
    write_run_file(tmp_path / "a.bperun", run, source=RunSource(name="other", inputs=("x.txt", "y.txt")))
    (tmp_path / "junk.bperun").write_bytes(b"not a run")
    (tmp_path / "notes.txt").write_text("not listed")
    monkeypatch.setenv("BPE_RUNS", str(tmp_path))
    assert run_folders()[-1] == tmp_path
    listed = list_runs([tmp_path])
    assert [entry.path.name for entry in listed] == ["a.bperun", "b.bperun"]
    assert listed[0].label == "run: other — x.txt, y.txt, 100,000 characters, 244 merges"
    assert listed[1].label == read_run_file(tmp_path / "b.bperun").label


def test_runs_that_read_alike_each_get_a_label_of_their_own(tmp_path, run):
    """Three runs of one text with other settings, and one file copied into a second folder:
    every file can be picked, the first under its plain label."""
    first, second = tmp_path / "one", tmp_path / "two"
    for name in ("first_occurrence", "lexicographic", "huggingface"):
        write_run_file(first / f"{name}.bperun", run, source=SOURCE)
    second.mkdir()
    (second / "first_occurrence.bperun").write_bytes((first / "first_occurrence.bperun").read_bytes())
    picked = labelled_runs([first, second])
    plain = read_run_file(first / "first_occurrence.bperun").label
    assert sorted(map(str, (listing.path for listing in picked.values()))) == sorted(
        str(path) for folder in (first, second) for path in folder.glob("*.bperun")
    )
    assert picked[plain].path == first / "first_occurrence.bperun"
    assert picked[f"{plain} (huggingface.bperun)"].path == first / "huggingface.bperun"
    assert picked[f"{plain} (two/first_occurrence.bperun)"].path == second / "first_occurrence.bperun"


def test_the_shipped_runs_load():
    listed = list_runs([RUNS_DIR])
    assert listed, "data/runs/ ships at least one run file"
    for entry in listed:
        loaded = read_run_file(entry.path)
        assert len(loaded.run.steps) == entry.merges and loaded.label == entry.label
        assert loaded.sample and loaded.run.heldout_lengths and loaded.run.base_counts


def test_a_loaded_run_answers_as_the_trained_one(run, raw):
    """What the pages ask of a run, asked of a loaded one: the same answers, no retraining."""
    from bpe.analysis.film import film_data
    from bpe.analysis.metrics import compression_curve, token_usage
    from bpe.analysis.run_diff import first_divergence
    from bpe.analysis.vocab_sizes import reached_vocab_size, spread_sizes

    loaded = parse_run_file(raw).run
    assert compression_curve(loaded) == compression_curve(run)
    assert [reached_vocab_size(loaded, size) for size in (256, 300, 499, 500, 900)] == [
        reached_vocab_size(run, size) for size in (256, 300, 499, 500, 900)
    ]
    assert spread_sizes(loaded) == spread_sizes(run)
    assert loaded.vocab_sizes() == [step.vocab_size for step in run.steps]
    assert [loaded.sequence_length(k) for k in (0, 1, 100, 244)] == [run.sequence_length(k) for k in (0, 1, 100, 244)]
    passage = "First Citizen:\nBefore we proceed any further, hear me speak."
    assert film_data(loaded, passage, 40, top_k=5, title="t") == film_data(run, passage, 40, top_k=5, title="t")
    assert token_usage(loaded, "First Citizen", 50) == token_usage(run, "First Citizen", 50)
    assert first_divergence(loaded, run) is None


def test_a_pipe_or_device_named_as_a_run_file_is_refused_instead_of_blocking(tmp_path):
    """The sidebar lists data/runs/*.bperun: a FIFO there blocked the listing's open() for
    good (and with it every page); each reader refuses it in one line instead. Run in a
    subprocess with a timeout, so a reader that blocks fails the test instead of hanging it."""
    import os
    import subprocess
    import sys

    from helpers import ROOT

    os.mkfifo(tmp_path / "pipe.bperun")
    (tmp_path / "zero.bperun").symlink_to("/dev/zero")
    probe = (
        "import sys; from pathlib import Path; from bpe.scale.run_file import RunFileError, read_run_file\n"
        "from bpe.scale.run_listing import list_runs\n"
        "assert list_runs([Path(sys.argv[1])]) == []\n"
        "for name in ('pipe.bperun', 'zero.bperun'):\n"
        "    try: read_run_file(Path(sys.argv[1]) / name)\n"
        "    except RunFileError as error: print(error)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        f"cannot read run file {name!r}: it is not a regular file (a device, pipe or socket)"
        for name in ("pipe.bperun", "zero.bperun")
    ]


def test_a_body_of_empty_objects_is_refused_before_it_is_parsed(raw):
    """Found by probing: 60 MB of "{}," as a run's body (with a recomputed checksum) was
    parsed into 20 million dicts, 1.5 GB and 11 s, before it was found not to be a run."""
    import resource

    header, _ = parts(raw)
    flood = rebuilt(header, b"[" + b"{}," * 2_000_000 + b"{}]")  # 6 MB here; the same refusal at any size
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(RunFileError, match=r"holds 2,000,002 JSON objects and lists; .* refused before it is parsed"):
        parse_run_file(flood)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100_000  # KB: the 2M dicts are never built


def test_a_header_promising_a_huge_body_is_refused_before_it_is_inflated(raw):
    """Found by probing: a 486 KB file whose header promised 500 MB (gzip shrinks a body of
    zeros ~1000 times) was inflated and parsed for 49 s into 2.9 GB, then found to hold no
    settings. A real run of 200,000 merges is about 40 MB: the header is refused at once."""
    import resource

    header, _ = parts(raw)
    bomb = gzip.compress(json.dumps({**header, "body_bytes": 500_000_011}).encode() + b"\n" + b"0," * 1_000_000)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(
        RunFileError, match=r"says its run is 500,000,011 bytes; a run file may hold at most 134,217,728"
    ):
        parse_run_file(bomb)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 50_000  # KB: nothing was inflated


def test_a_flood_of_numbers_is_refused_before_it_is_parsed(raw):
    """Counting only objects and lists let a flat list of zeros through: every JSON value
    (a comma, or the first of a list) is counted while the body is inflated."""
    header, _ = parts(raw)
    flood = rebuilt(header, b'{"lefts":[' + b"0," * 20_000_000 + b"0]}")  # 40 MB, well under the byte bound
    with pytest.raises(RunFileError, match=r"holds more than 20,000,000 JSON values; .* refused before it is parsed"):
        parse_run_file(flood)


def test_a_run_too_big_to_read_back_is_not_written(run, monkeypatch):
    """The writer refuses what the reader would: a run with many runners-up a step."""
    monkeypatch.setattr("bpe.scale.run_file.MAX_BODY_VALUES", 1_000)
    with pytest.raises(BpeError, match=r"this run is [0-9,]+ bytes and [0-9,]+ values .* record fewer runners-up"):
        run_file_bytes(run, source=SOURCE)


def test_a_real_run_is_far_below_the_body_bounds(raw):
    """The bounds are set from a real run (202 bytes and 52 values a merge with 10 runners-up):
    this one, scaled to the most merges a run file holds, still fits."""
    from bpe.scale.run_file import MAX_BODY_BYTES, MAX_BODY_VALUES, _values_in

    header, body = parts(raw)
    body_raw = gzip.decompress(raw).split(b"\n", 1)[1]
    per_merge = len(body_raw) / len(body["lefts"]), _values_in(body_raw) / len(body["lefts"])
    assert per_merge[0] * MAX_MERGES < MAX_BODY_BYTES and per_merge[1] * MAX_MERGES < MAX_BODY_VALUES


def test_the_body_is_the_compact_json_of_the_run_spelled_a_piece_at_a_time():
    # The body is spelled slice by slice (no Python object per number); it must still be
    # exactly the compact JSON one json.dumps of the whole body gives.
    run = train_run("low lower lowest newer wider " * 40, target_vocab_size=60, top_k=5)
    lines = gzip.decompress(run_file_bytes(run, source=RunSource(name="low"))).split(b"\n")
    header, body = json.loads(lines[0]), lines[1]
    assert header["body_bytes"] == len(body) and lines[2:] == [b""]
    assert json.dumps(json.loads(body), ensure_ascii=False, separators=(",", ":")).encode() == body


# ==================== Runs under a rule beyond the textbook (bpe.variants)


@pytest.fixture(scope="module")
def variant_runs():
    from bpe.training import TrainingSettings
    from bpe.variants.rule_runs import train_variant_run
    from bpe.variants.rules import Variant

    text = (DATA_DIR / "tinyshakespeare.txt").read_text(encoding="utf-8")[:40_000]
    settings_ = TrainingSettings(target_vocab_size=400, pretokenizer="gpt2")
    return {
        name: train_variant_run(text[:36_000], settings_, variant, heldout_text=text[36_000:])
        for name, variant in (
            ("superbpe", Variant("superbpe", transition=150)),
            ("picky", Variant("picky", threshold=0.9)),
            ("length_weighted", Variant("length_weighted")),
        )
    }


@pytest.mark.parametrize("name", ["superbpe", "picky", "length_weighted"])
def test_a_run_under_each_rule_survives_its_file(variant_runs, name):
    run = variant_runs[name]
    loaded = parse_run_file(run_file_bytes(run, source=SOURCE)).run
    assert (loaded.variant, loaded.joined_after) == (run.variant, run.joined_after)
    assert list(loaded.steps) == list(run.steps) and loaded.vocab_sizes() == run.vocab_sizes()
    assert loaded.heldout_lengths == run.heldout_lengths
    for merges in (len(run.steps) // 3, len(run.steps)):
        assert loaded.tokenizer(merges=merges) == run.tokenizer(merges=merges)
    if name == "picky":
        assert loaded.removals == run.removals and loaded.removals  # 'ab'-like parts went
        assert loaded.merge_count(300) == run.merge_count(300)


@pytest.mark.parametrize(("rule", "setting"), [("superbpe", 5), ("picky", None), ("length_weighted", None)])
def test_a_run_under_each_rule_with_special_tokens_survives_its_file(rule, setting):
    """A rule's run with a special token: the file keeps it (id 0, before the base tokens)
    and reads back as the run, its tokenizer encoding the marker as its one id."""
    from bpe.training import TrainingSettings
    from bpe.variants.rule_runs import train_variant_run
    from bpe.variants.rules import Variant

    marker = "<|endoftext|>"
    text = marker.join(["the cat sat!", "the dog sat!", "a cat ran!"] * 10)
    variant = Variant(rule, transition=setting)
    settings_ = TrainingSettings(target_vocab_size=30, pretokenizer="gpt2", special_tokens=(marker,))
    run = train_variant_run(text, settings_, variant, heldout_text=f"the cat{marker}a dog")
    loaded = parse_run_file(run_file_bytes(run, source=SOURCE)).run
    assert loaded.special_tokens == (marker,) and (loaded.variant, loaded.joined_after) == (
        run.variant,
        run.joined_after,
    )
    assert list(loaded.steps) == list(run.steps) and loaded.heldout_lengths == run.heldout_lengths and run.steps
    assert loaded.removals == run.removals and loaded.vocab_sizes() == run.vocab_sizes()
    tokenizer = loaded.tokenizer()
    assert tokenizer == run.tokenizer() and tokenizer.stoi[marker] == 0
    assert tokenizer.encode(text) == run.tokenizer().encode(text) and tokenizer.decode(tokenizer.encode(text)) == text


@pytest.mark.parametrize(
    ("name", "change", "message"),
    [
        (
            "picky",
            lambda v: {**v, "removals": [[1, 0, 1, 1, 1, [0, 1]]]},
            "names a part that does not exist then, or a base token",
        ),
        ("picky", lambda v: {**v, "removals": [[10**6, 300, 1, 1, 1, [0, 1]]]}, "outside the"),
        (
            "picky",
            lambda v: {**v, "removals": [[r[0], r[1], r[2], r[4] + 1, r[4], r[5]] for r in v["removals"]]},
            "counts no training gives",
        ),
        ("picky", lambda v: {**v, "threshold": 7}, "threshold=7"),
        ("superbpe", lambda v: {**v, "joined_after": 10**5}, "joined_after=100000"),
        ("superbpe", lambda v: {**v, "rule": "magic"}, "unknown training rule 'magic'"),
        ("length_weighted", lambda v: {**v, "removals": []}, "removals belong to Picky BPE"),
    ],
)
def test_a_rule_edited_by_hand_is_refused_in_one_line(variant_runs, name, change, message):
    raw = run_file_bytes(variant_runs[name], source=SOURCE)
    _, body = parts(raw)
    with pytest.raises(RunFileError, match=message) as error:
        parse_run_file(edited(raw, variant=change(body["variant"])), name="edited.bperun")
    assert "\n" not in str(error.value)


@settings(max_examples=60, deadline=None)
@given(
    text=st.text(alphabet="ab ca\nβ", min_size=1, max_size=60),
    rule=st.sampled_from(["picky", "length_weighted", "superbpe"]),
    threshold=st.sampled_from([0.5, 0.9, 1.0]),
    minimum=st.sampled_from([1, 2]),
    transition=st.integers(0, 10),
)
def test_every_real_run_of_a_rule_passes_the_checks(text, rule, threshold, minimum, transition):
    from bpe.training import TrainingSettings
    from bpe.variants.rule_runs import train_variant_run
    from bpe.variants.rules import Variant

    variant = {
        "picky": Variant("picky", threshold=threshold),
        "length_weighted": Variant("length_weighted"),
        "superbpe": Variant("superbpe", transition=transition),
    }[rule]
    settings_ = TrainingSettings(
        target_vocab_size=40, pretokenizer="whitespace", minimum_pair_frequency=minimum, top_k=3
    )
    run = train_variant_run(text, settings_, variant, heldout_text=text[::-1][:20])
    loaded = parse_run_file(run_file_bytes(run, source=SOURCE)).run
    assert list(loaded.steps) == list(run.steps)


# ==================== What a run file may cost (issue 41): the one cost model, bpe.io.budget


def crafted_run(lefts: list[int], rights: list[int]) -> bytes:
    """A byte-level run file whose merges are ``zip(lefts, rights)``, every other figure as a
    real training's would be, checksummed: the file the load script uploads to a real server
    (pages/_shared/lecture_hall/load/hostile_uploads.py)."""
    from pages._shared.lecture_hall.load.hostile_uploads import run_file

    return run_file(lefts, rights)


def refused_within(parse, match: str, *, seconds: float = 5.0, peak_bytes: int = 64 << 20) -> str:
    """``parse()`` raises one `RunFileError` line matching ``match`` within ``seconds``, and
    allocates at most ``peak_bytes`` on the way (traced by tracemalloc, run a second time)."""
    import time
    import tracemalloc

    started = time.perf_counter()
    with pytest.raises(RunFileError, match=match) as refused:
        parse()
    assert time.perf_counter() - started < seconds
    assert "\n" not in str(refused.value)
    tracemalloc.start()
    try:
        with pytest.raises(RunFileError):
            parse()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < peak_bytes, f"peak {peak / 1e6:.0f} MB before the refusal"
    return str(refused.value)


def test_doubling_merges_in_a_run_file_are_refused_before_the_token_is_made(monkeypatch):
    """Failure 1: 30 merges that each join the newest token with itself, a 619-byte upload,
    were built into a token of a gigabyte (server 1.5 -> 3.6 GB, 18 s). Merge 12 makes 4,096
    bytes, merge 13 would make 8,192: refused there, before it is made."""
    inflation_bound_in_force(monkeypatch)
    raw = crafted_run([0] + [255 + k for k in range(1, 30)], [0] + [255 + k for k in range(1, 30)])
    assert len(raw) < 1_500  # the 256 base tokens spelled out are most of it
    refused_within(
        lambda: parse_run_file(raw, name="double.bperun"),
        r"double.bperun: merge 13 makes a token of 8,192 bytes; the longest BPE Lab accepts is 4,096 bytes",
    )


def test_a_long_chain_in_a_run_file_is_refused_at_the_token_bound(monkeypatch):
    """Failure 2: 50,000 merges (k, 0), each one byte longer than the last, were accepted
    after 8.8 s and held 1.25 GB (the lengths add up quadratically)."""
    inflation_bound_in_force(monkeypatch)
    merges = 50_000
    raw = crafted_run([0] + [255 + k for k in range(1, merges)], [0] * merges)
    refused_within(
        lambda: parse_run_file(raw, name="chain.bperun"),
        r"merge 4,096 makes a token of 4,097 bytes; the longest BPE Lab accepts is 4,096",
        peak_bytes=200 << 20,  # the columns of 50,000 merges, as arrays
    )


def test_an_uploaded_run_holds_its_tokens_to_the_upload_budget():
    # 2,000 chained merges: each token within 4,096 bytes, 2 MB in all: from disk that fits,
    # an upload held to 1 MB of tokens does not
    raw = crafted_run([0] + [255 + k for k in range(1, 2_000)], [0] * 2_000)
    assert len(parse_run_file(raw).run.steps) == 2_000
    with pytest.raises(RunFileError, match=r"its tokens hold 1,000,\d+ bytes in all; the most .* 1,000,000 bytes"):
        parse_run_file(raw, max_token_bytes=1_000_000)


def test_a_run_with_a_token_too_long_for_a_run_file_is_not_written():
    """The writer holds a run to the reader's bound: training on repetitive text learns one."""
    run = train_run("a" * 20_000, target_vocab_size=30, alphabet="characters")
    assert max(len(token) for token in run.tokenizer().tokens) > 4_096
    with pytest.raises(BpeError, match="this run: its new token 13 makes a token of 8,192 characters"):
        run_file_bytes(run, source=SOURCE)


def test_a_flood_of_values_under_an_unknown_key_is_refused_before_it_is_parsed(monkeypatch, raw):
    """Failure 5: a 281 KB run file whose body carried one unknown key of 15 M numbers was
    accepted, the server at 979 MB for 7.8 s. A body inflates at most MAX_INFLATION times its
    file (a real one: 4), and holds only the keys a run file has."""
    inflation_bound_in_force(monkeypatch)
    header, body = parts(raw)
    flood = rebuilt(header, {**body, "x": [1] * 3_000_000})
    refused_within(lambda: parse_run_file(flood, name="flood.bperun"), r"flood.bperun says it holds .* times as many")
    monkeypatch.setattr("bpe.scale.run_file.MAX_INFLATION", 10**9, raising=False)
    refused_within(
        lambda: parse_run_file(flood, name="flood.bperun"), r"its run holds 'x', which no run file of version 1 has"
    )


def test_a_real_run_inflates_far_less_than_the_bound(raw):
    from bpe.io.budget import MAX_INFLATION

    shipped = (RUNS_DIR / "tinyshakespeare.bperun").read_bytes()
    for data in (raw, shipped):
        assert len(zlib.decompress(data, 31)) < MAX_INFLATION / 4 * len(data)


def test_numbers_are_read_into_arrays_and_past_2_63_refused(raw):
    loaded = parse_run_file(raw)
    assert loaded.run.steps.lefts.typecode in "IQ" and loaded.run.merges
    with pytest.raises(RunFileError, match="frequencies holds a number of 2\\*\\*63 or more"):
        parse_run_file(_with_column(raw, "frequencies", lambda column: [2**63, *column[1:]]))
    with pytest.raises(RunFileError, match="lefts must hold whole numbers only"):
        parse_run_file(_with_column(raw, "lefts", lambda column: [1.5, *column[1:]]))


@pytest.mark.parametrize("version", [True, 1.0, "1", None, [1]])
def test_a_version_that_is_not_a_whole_number_is_refused(raw, version):
    """Failure 12: true and 1.0 passed as 1 (Python's True == 1 == 1.0), and "1" was read as
    "a run file of version 1; this BPE Lab reads version 1"."""
    header, body = parts(raw)
    with pytest.raises(RunFileError, match="its version is .*, not a whole number") as refused:
        parse_run_file(rebuilt({**header, "version": version}, body), name="v.bperun")
    assert "reads version 1" not in str(refused.value)


def test_a_header_whose_summary_lies_is_refused_when_listed_or_opened(tmp_path, raw):
    """Failure 12: the listing took the header's summary on trust (10**9 merges listed for a
    run of 1,744). Listed, a summary must fit its body's size; opened, equal its body."""
    from bpe.scale.run_listing import read_listing

    header, body = parts(raw)
    lying = rebuilt({**header, "summary": {**header["summary"], "merges": 10**9}}, body)
    (tmp_path / "lying.bperun").write_bytes(lying)
    with pytest.raises(RunFileError, match="lists 1,000,000,000 merges; a body of [0-9,]+ bytes holds at most"):
        read_listing(tmp_path / "lying.bperun")
    off_by_one = rebuilt({**header, "summary": {**header["summary"], "merges": len(body["lefts"]) + 1}}, body)
    with pytest.raises(RunFileError, match="its header's summary does not match its run"):
        parse_run_file(off_by_one, name="lying.bperun")


def test_the_listing_reads_its_summary_from_the_checked_body_or_says_it_is_unchecked(tmp_path, raw, monkeypatch):
    """A lie that fits the body's size (one merge more) is left out of a listing that read the
    body; a file too big to read whole is listed from its header and its label says so; a
    listing reads each file's body once, however often the sidebar asks."""
    import bpe.scale.run_listing as run_listing

    header, body = parts(raw)
    (tmp_path / "honest.bperun").write_bytes(raw)
    lie = rebuilt({**header, "summary": {**header["summary"], "merges": len(body["lefts"]) + 1}}, body)
    (tmp_path / "lying.bperun").write_bytes(lie)
    reads = []
    monkeypatch.setattr(
        run_listing, "read_run_file", lambda path, **kw: reads.append(path) or read_run_file(path, **kw)
    )
    run_listing._body_agrees.cache_clear()
    for _ in range(3):
        listed = list_runs([tmp_path])
        assert [(entry.path.name, entry.checked) for entry in listed] == [("honest.bperun", True)]
        assert not listed[0].label.endswith("(summary unchecked)")
    assert sorted(path.name for path in reads) == ["honest.bperun", "lying.bperun"]
    monkeypatch.setattr(run_listing, "MAX_CHECKED_BYTES", len(raw) - 1)
    listed = list_runs([tmp_path])
    assert [(entry.path.name, entry.checked) for entry in listed] == [("honest.bperun", False), ("lying.bperun", False)]
    assert listed[1].label.endswith(f"{len(body['lefts']) + 1:,} merges (summary unchecked)")
