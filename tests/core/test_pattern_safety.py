"""A tokenizer file's pre-tokenizer pattern is a stranger's program: only safe ones run.

Issue 15, point 1: a 727-byte file whose pattern was ``(?:x{65535}){65535}|[\\s\\S]`` took
the server to 5.4 GB; ``(?:a|aa)+$|[\\s\\S]`` made encoding exponential; a capturing group
ended in ``KeyError: ''``. Each is refused here by `bpe.pattern_safety.check_safe_pattern`,
in the library, the command line and (tests/app/test_app_hostile.py) the app.
"""

from __future__ import annotations

import time

import pytest
from helpers import CAPTURING_PATTERN, EXPANDING_PATTERN, EXPONENTIAL_PATTERN, tokenizer_file_with_pattern

import bpe.pattern_safety as pattern_safety
from bpe import BPETokenizer
from bpe.cli.main import main
from bpe.errors import PatternError, TokenizerFileError
from bpe.pattern_safety import check_safe_pattern, pattern_cost
from bpe.pretokenize import NAMED_PATTERNS, split

EXPANDING, EXPONENTIAL, CAPTURING = EXPANDING_PATTERN, EXPONENTIAL_PATTERN, CAPTURING_PATTERN
tokenizer_file = tokenizer_file_with_pattern


@pytest.mark.parametrize(
    "pattern, reason",
    [
        (EXPANDING, "repeats too much to compile safely"),
        (r"(?:x{65535}){65535}|[\s\S]", "multiply to 4,294,836,226"),
        ("x{100000000}|[\\s\\S]", "repeats too much"),
        (EXPONENTIAL, "catastrophic backtracking"),
        (r"(?:a|a)*b|[\s\S]", "catastrophic backtracking"),
        (CAPTURING, "capturing group"),
        (r"(?P<word>\w+)|[\s\S]", "capturing group"),
        (r"a*|[\s\S]", "can match empty text"),
        (r"\w+", "does not cover the whole text"),
        ("(" * 100 + "a" + ")" * 100, "nests groups more than 32 deep"),
        ("[a-z]" * 700, "characters long"),
        ("(?x)x{ 100000000 }|.", "verbose mode"),  # spaces in a repeat count: the compiler reads them
        ("(?ix:x) {100000000}|.", "verbose mode"),
        ("(?:a|b))", "does not compile"),
        ("(?:a|b", r"does not compile: a group is left open \(missing '\)'\)"),
    ],
)
def test_unsafe_patterns_are_refused_with_the_reason(pattern, reason):
    started = time.perf_counter()
    with pytest.raises(PatternError, match=reason):
        check_safe_pattern(pattern)
    assert time.perf_counter() - started < 5


def test_the_compile_cost_is_read_without_compiling():
    assert pattern_cost(r"(?:x{300}){300}") == 90_000
    assert pattern_cost(r"\p{N}{1,3}") == 3 and pattern_cost(r"[a{9}]{4}") == 4  # a class is one atom
    assert pattern_cost(r"a{2,}|b*") == 3 and pattern_cost(r"\{5\}") == 3  # escaped braces are literals
    assert max(map(pattern_cost, NAMED_PATTERNS.values())) < 100


@pytest.mark.parametrize(
    "pattern",
    [
        *NAMED_PATTERNS.values(),
        r"\s+|\S+",
        r"(?i:[sdmt]|ll)|\w+|\s+|[^\w\s]+",
        r"\p{L}+|\p{N}{1,3}|\s+|[^\s\p{L}\p{N}]+",
    ],
)
def test_safe_patterns_pass_and_split_text_exactly(pattern):
    assert check_safe_pattern(pattern) == pattern
    text = "Hello world, it's 2024!\n  Ça va?"
    assert "".join(split(text, pattern)) == text


@pytest.mark.parametrize(
    "pattern, reason", [(EXPANDING, "repeats too much"), (EXPONENTIAL, "catastrophic"), (CAPTURING, "capturing group")]
)
def test_a_tokenizer_file_with_an_unsafe_pattern_is_refused_before_it_runs(pattern, reason):
    with pytest.raises(TokenizerFileError, match=reason):
        BPETokenizer.from_json_bytes(tokenizer_file(pattern), name="hostile.json")


def test_training_and_building_refuse_unsafe_patterns_too():
    with pytest.raises(PatternError, match="capturing group"):
        BPETokenizer.train("ab ab ab", 5, pretokenizer=CAPTURING)
    with pytest.raises(PatternError, match="catastrophic"):
        BPETokenizer(["a", "b"], [], pretokenizer=EXPONENTIAL)


def test_a_custom_pattern_runs_under_a_time_limit(monkeypatch):
    # Passes the probes (no run of 'q' among them), explodes on a long run of 'q'.
    sneaky = r"(?:q|qq)+$|[\s\S]"
    check_safe_pattern(sneaky)
    monkeypatch.setattr(pattern_safety, "PATTERN_SECONDS", 0.2)
    monkeypatch.setattr(pattern_safety, "PATTERN_SECONDS_PER_MILLION_CHARS", 0.0)
    started = time.perf_counter()
    with pytest.raises(PatternError, match=r"took over 0\.2 s on 61 characters and was stopped"):
        split("q" * 60 + "!", sneaky)
    assert time.perf_counter() - started < 3
    assert split("q q", sneaky) == ["q", " ", "q"]


@pytest.mark.parametrize(
    "pattern, reason", [(EXPANDING, "repeats too much"), (EXPONENTIAL, "catastrophic"), (CAPTURING, "capturing group")]
)
def test_the_command_line_refuses_them_in_one_line(tmp_path, capsys, pattern, reason):
    path = tmp_path / "hostile.json"
    path.write_bytes(tokenizer_file(pattern))
    for argv in (["encode", "--tokenizer", str(path), "--text", "ab ab"], ["inspect", "--tokenizer", str(path)]):
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert err.startswith("error: ") and reason in err and "Traceback" not in err


# ==================== Inline flags that change what or in which order text is matched

REVERSED = r"(?r)\w+|\s+|[\s\S]"  # passes every other check; chunks come out last first


@pytest.mark.parametrize(
    "pattern, reason",
    [
        (REVERSED, r"inline flag r \(reverse"),
        (r"\w+|(?r:\s+)|[\s\S]", "inline flag r"),
        (r"(?i-r:\w+)|[\s\S]", "inline flag r"),
        (r"(?V1)\w+|[\s\S]", "inline flag V1"),
        (r"(?p)\w+|[\s\S]", "inline flag p"),
        (r"(?a:\w+)|[\s\S]", "inline flag a"),
        (r"(?w)\b\w+|[\s\S]", "inline flag w"),
        (r"(?f)ss|[\s\S]", "inline flag f"),
        (r"\w+|(?i)\s+|[\s\S]", "after its start; put them first, or write \\(\\?i:...\\)"),
        (r"(?R)|[\s\S]", "recursion, a reference or a condition"),
        (r"(?:(?P<x>a)(?P=x))|[\s\S]", "recursion, a reference or a condition"),
    ],
)
def test_flags_that_change_the_chunks_or_their_order_are_refused(pattern, reason):
    with pytest.raises(PatternError, match=reason):
        check_safe_pattern(pattern)


def test_case_line_and_dot_flags_stay_allowed():
    for pattern in (r"(?i)\w+|[\s\S]", r"(?i:'s)|(?s:.)|(?m:^\w+)|[\s\S]", r"(?-i:a)|[\s\S]"):
        assert check_safe_pattern(pattern) == pattern


def test_the_probe_refuses_chunks_that_do_not_join_back_to_the_text(monkeypatch):
    # With the flag check out of the way, the round-trip probe alone catches (?r).
    monkeypatch.setattr(pattern_safety, "SAFE_FLAGS", (*pattern_safety.SAFE_FLAGS, "r"))
    pattern_safety._compiled_custom.cache_clear()
    try:
        with pytest.raises(PatternError, match=r"joined, are not the text .*reorders them"):
            check_safe_pattern(REVERSED)
    finally:
        pattern_safety._compiled_custom.cache_clear()


def test_every_door_refuses_the_reversing_flag(tmp_path):
    from bpe.formats import hf_from_bytes, minbpe_from_bytes
    from bpe.formats.patterns import resolve_pattern

    with pytest.raises(PatternError, match="inline flag r"):  # the API
        BPETokenizer.train("hello world " * 5, 20, pretokenizer=REVERSED)
    with pytest.raises(TokenizerFileError, match="inline flag r"):  # the lab's own file
        BPETokenizer.from_json_bytes(tokenizer_file(REVERSED), name="reversed.json")
    with pytest.raises(TokenizerFileError, match="inline flag r"):  # --pattern of a ranks file
        resolve_pattern(REVERSED, name="--pattern")
    model = "\n".join(["minbpe v1", REVERSED, "0", "104 101"]).encode()
    with pytest.raises(TokenizerFileError, match="inline flag r"):  # a minbpe pattern line
        minbpe_from_bytes(model, name="reversed.model")
    vocab = {chr(c): i for i, c in enumerate(range(32, 127))}
    hf = {
        "version": "1.0",
        "added_tokens": [],
        "normalizer": None,
        "pre_tokenizer": {
            "type": "Split",
            "pattern": {"Regex": r"(?r)\w+|\s+"},
            "behavior": "Isolated",
            "invert": False,
        },
        "post_processor": None,
        "decoder": None,
        "model": {"type": "BPE", "vocab": vocab, "merges": [], "dropout": None, "unk_token": None},
    }
    with pytest.raises(TokenizerFileError, match="inline flag r"):  # a Hugging Face Split
        hf_from_bytes(__import__("json").dumps(hf).encode(), name="reversed.json")


FUZZY = r"(?:abc){e<=2}|[\s\S]"  # `regex`: "abd" is one chunk; Oniguruma: "{e<=2}" is text


@pytest.mark.parametrize("pattern", [FUZZY, r"x{e}|[\s\S]", r"\w{1<=e<=2}|[\s\S]", r"x{2i+1d<=3}|[\s\S]"])
def test_fuzzy_matching_is_refused_at_every_door(pattern):
    """Found by probing: a Hugging Face file whose Split pattern held ``{e<=2}`` was read
    with fuzzy matching, which `tokenizers` does not have, so its ids differed from the
    library's on "the abc" (the lab joined " a" where tokenizers kept " ", "a")."""
    import json

    from bpe.formats import hf_from_bytes, minbpe_from_bytes

    with pytest.raises(PatternError, match="fuzzy-match constraint"):
        check_safe_pattern(pattern)
    with pytest.raises(TokenizerFileError, match="fuzzy-match constraint"):
        BPETokenizer.from_json_bytes(tokenizer_file(pattern), name="fuzzy.json")
    with pytest.raises(TokenizerFileError, match="fuzzy-match constraint"):
        minbpe_from_bytes("\n".join(["minbpe v1", pattern, "0", "104 101"]).encode(), name="fuzzy.model")
    vocab = {chr(c): i for i, c in enumerate(range(32, 127))}
    split = {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False}
    hf = {"version": "1.0", "added_tokens": [], "normalizer": None, "pre_tokenizer": split, "post_processor": None}
    hf["model"] = {"type": "BPE", "vocab": vocab, "merges": [], "dropout": None, "unk_token": None}
    with pytest.raises(TokenizerFileError, match="fuzzy-match constraint"):
        hf_from_bytes(json.dumps(hf).encode(), name="fuzzy.json")


def test_braces_that_are_text_stay_allowed():
    for pattern in (r"x{hello}|[\s\S]", r"\p{L}+|[\s\S]", r"a{2,3}|[\s\S]", r"\{e\}|[\s\S]"):
        assert check_safe_pattern(pattern) == pattern


@pytest.mark.parametrize(
    "pattern, reason",
    [
        (r"(?=☃)|[\s\S]", "can match empty text"),  # empty before every ☃, which no probe holds
        (r"\b|[\s\S]", "can match empty text"),
        (r"(?<!a)|[\s\S]", "can match empty text"),
        (r"x{0,3}|[\s\S]", "can match empty text"),
        (r"(?:a|b*)|[\s\S]", "can match empty text"),
        (r"xy\Kz|[\s\S]", r"uses \\K, which drops what was matched"),  # "xyz" would lose "xy"
    ],
)
def test_patterns_that_match_empty_or_drop_text_are_refused_from_their_syntax(pattern, reason):
    """Found by probing: these passed the probes and then refused to encode "a☃b" and
    "xyz", texts the alphabet covers; they are now read for what they can match."""
    with pytest.raises(PatternError, match=reason):
        check_safe_pattern(pattern)
    with pytest.raises(PatternError, match=reason):
        BPETokenizer.train("a☃b xyz " * 5, 20, alphabet="bytes", pretokenizer=pattern)


@pytest.mark.parametrize("pattern", [r"(?:a+)|[\s\S]", r"\s+(?!\S)|\s+|\S+", r"(?:a|b*)c|[\s\S]", r"\bx+|[\s\S]"])
def test_lookarounds_and_optional_parts_beside_a_character_stay_allowed(pattern):
    assert check_safe_pattern(pattern) == pattern


def test_a_pattern_that_is_not_text_is_refused_at_the_door(capsys, tmp_path):
    """Found by probing: a byte the command line could not decode (``$'\\xff'``) passed the
    check and failed later with a UnicodeEncodeError traceback, on saving the tokenizer."""
    with pytest.raises(PatternError, match=r"holds '\\ud800' at character 0, which is not text"):
        BPETokenizer.train("hello world", 30, pretokenizer="\ud800|[\\s\\S]")
    corpus = tmp_path / "c.txt"
    corpus.write_text("hello world " * 20)
    status = main(["count", str(corpus), "--pattern", "\udcff|[\\s\\S]", "--output", str(tmp_path / "c.parquet")])
    err = capsys.readouterr().err.strip()
    assert status == 1 and err.count("\n") == 0 and "which is not text" in err, err
    assert not (tmp_path / "c.parquet").exists()
