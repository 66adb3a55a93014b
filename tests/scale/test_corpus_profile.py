"""The corpus profile: what a corpus is made of, from its chunk table, recorded in counts
files and run files so that a page measuring a run's sample can speak of the whole corpus."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe.errors import BpeError
from bpe.run import train_run
from bpe.scale.chunk_counts import count_text
from bpe.scale.corpus_profile import CorpusProfile, profile_from_json, profile_of_text
from bpe.scale.count_phase import count_corpus
from bpe.scale.counts_file import METADATA_KEY, read_counts, write_counts
from bpe.scale.run_file import RunSource, parse_run_file, run_file_bytes

MIXED = "naïve café, 中文 and 😀: def f(x): return x\n" * 3


def test_a_profile_counts_characters_bytes_and_the_largest_code_points():
    profile = profile_of_text("naïve café")
    assert profile == CorpusProfile(10, 12, 2, (0xEF, 0xE9, ord("v"), ord("n"), ord("f")))
    assert profile.multibyte_share == pytest.approx(0.2)
    ascii_only = profile_of_text("def f(x):\n    return x\n")
    assert ascii_only.multibyte_characters == 0 and ascii_only.utf8_bytes == ascii_only.characters
    assert ascii_only.largest_code_points[0] == ord("x")


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=200), st.sampled_from([None, "whitespace", "gpt2"]), st.sampled_from(["characters", "bytes"]))
def test_the_chunk_tables_profile_is_the_texts(text, pretokenizer, alphabet):
    """Each distinct chunk looked at once, times its count: the same numbers as the text's."""
    text = text.encode("utf-8", "replace").decode("utf-8")  # no lone surrogates: a text BPE Lab reads
    assert count_text(text, alphabet=alphabet, pretokenizer=pretokenizer).profile == profile_of_text(text)


def test_special_tokens_are_part_of_the_profiled_text(tmp_path):
    """A special token is counted apart from the chunks (`ChunkCounts.special_counts`), yet it
    is text of the corpus: the profile holds its characters, as `ChunkCounts.characters` does."""
    text = "naïve café<|endoftext|>中文 😀<|endoftext|>def f(x): return x"
    counts = count_text(text, alphabet="bytes", pretokenizer="gpt2", special_tokens=["<|endoftext|>"])
    assert list(counts.special_counts) == [2]
    assert counts.profile == profile_of_text(text) and counts.profile.characters == counts.characters
    write_counts(tmp_path / "c.parquet", counts)
    assert read_counts(tmp_path / "c.parquet").profile == profile_of_text(text)


def test_the_count_phase_profiles_the_training_part(tmp_path):
    (tmp_path / "a.txt").write_text(MIXED, encoding="utf-8")
    (tmp_path / "b.txt").write_text("plain ASCII text, twice. " * 40, encoding="utf-8")
    counts = count_corpus([tmp_path], alphabet="bytes", pretokenizer="gpt2")
    whole = profile_of_text(MIXED + "plain ASCII text, twice. " * 40)
    assert counts.profile == whole and counts.profile.multibyte_characters == 3 * 5  # ï é 中 文 😀, three times


def test_a_counts_file_records_the_profile_and_checks_it_against_its_chunks(tmp_path):
    import pyarrow.parquet as pq

    from bpe.scale.counts_file import _checksum

    counts = count_text(MIXED, alphabet="characters", pretokenizer="gpt2")
    write_counts(tmp_path / "c.parquet", counts)
    table = pq.read_table(tmp_path / "c.parquet")
    metadata = json.loads(table.schema.metadata[METADATA_KEY])
    assert profile_from_json(metadata["profile"]) == counts.profile
    assert read_counts(tmp_path / "c.parquet").profile == counts.profile
    metadata["profile"]["multibyte_characters"] -= 1  # edited, the checksum recomputed as anyone can
    metadata["profile"]["utf8_bytes"] -= 1
    metadata["checksum"] = _checksum(metadata, table)
    pq.write_table(table.replace_schema_metadata({METADATA_KEY: json.dumps(metadata).encode()}), tmp_path / "d.parquet")
    with pytest.raises(BpeError, match="describes its text otherwise than its chunks do"):
        read_counts(tmp_path / "d.parquet")


def test_a_run_file_carries_the_profile_and_an_older_one_has_none():
    counts = count_text(MIXED, alphabet="bytes", pretokenizer="gpt2")
    run = train_run(MIXED, target_vocab_size=280, alphabet="bytes", pretokenizer="gpt2")
    source = RunSource(name="mixed", characters=counts.characters, documents=1, profile=counts.profile)
    assert parse_run_file(run_file_bytes(run, source=source)).source.profile == counts.profile
    assert parse_run_file(run_file_bytes(run, source=RunSource(name="older"))).source.profile is None


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"characters": 10, "utf8_bytes": 12}, "must hold characters"),
        ({"characters": -1, "utf8_bytes": 12, "multibyte_characters": 2, "largest_code_points": []}, "at least 0"),
        (
            {"characters": 10, "utf8_bytes": 9, "multibyte_characters": 0, "largest_code_points": []},
            "no text is spelled",
        ),
        (
            {"characters": 10, "utf8_bytes": 50, "multibyte_characters": 2, "largest_code_points": []},
            "no text is spelled",
        ),
        (
            {"characters": 10, "utf8_bytes": 12, "multibyte_characters": 2, "largest_code_points": [5, 9]},
            "largest first",
        ),
        (
            {"characters": 1, "utf8_bytes": 4, "multibyte_characters": 1, "largest_code_points": [0x110000]},
            "largest first",
        ),
    ],
)
def test_a_profile_no_text_has_is_refused_in_one_line(fields, message):
    with pytest.raises(BpeError, match=message) as caught:
        profile_from_json(fields)
    assert "\n" not in str(caught.value)
