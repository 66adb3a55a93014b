"""Special tokens: boundaries in training, one token each with the first ids, recognized
in encoding as tiktoken's arguments say, streamed by encode_iterable, kept by the file."""

import json
import subprocess
import sys

import pytest
from helpers import MAX_EXAMPLES, ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe import BPETokenizer, train_steps
from bpe.errors import BpeError, TokenizerFileError
from bpe.run import train_run
from bpe.specials import (
    MAX_SPECIAL_TOKEN_CHARACTERS,
    MAX_SPECIAL_TOKENS,
    check_special_tokens,
    initial_length,
    pieces,
    streamed_pieces,
)
from bpe.steps import TIE_RULES
from bpe.storage import parse_tokenizer_json, to_json_text

EOT = "<|endoftext|>"
DOUBLE = EOT + EOT
STORIES = (
    "Once upon a time, a little cat sat on a mat.<|endoftext|>"
    "Tom had a red ball. He liked to play.<|endoftext|>"
    "The sun was hot. Lily went to the park with her mom.<|endoftext|>"
) * 12


# ==================== The list of special tokens


@pytest.mark.parametrize(
    "given,message",
    [
        ("<|endoftext|>", "is one string: give a list"),
        (["x"], "is one character"),
        ([""], "is empty"),
        ([EOT, EOT], "is given twice"),
        ([7], "is a int, not a string"),
        (["<" * (MAX_SPECIAL_TOKEN_CHARACTERS + 1)], f"at most {MAX_SPECIAL_TOKEN_CHARACTERS} are allowed"),
        ([f"<{i}>" for i in range(MAX_SPECIAL_TOKENS + 1)], f"at most {MAX_SPECIAL_TOKENS:,} are allowed"),
        (["<\ud800>"], "lone surrogate"),
    ],
)
def test_a_bad_list_of_special_tokens_is_one_line_naming_it(given, message):
    with pytest.raises(BpeError, match=message):
        check_special_tokens(given)
    with pytest.raises(BpeError, match=message):
        train_steps("some text", target_vocab_size=300, special_tokens=given)


def test_the_longest_special_token_wins_where_two_overlap():
    assert pieces(f"a{DOUBLE}{EOT}b", [EOT, DOUBLE]) == ["a", DOUBLE, EOT, "b"]
    assert pieces(f"a{DOUBLE}{EOT}b", [DOUBLE, EOT]) == ["a", DOUBLE, EOT, "b"]
    assert pieces("no marker", [EOT]) == ["no marker"]
    assert initial_length(f"ab{EOT}c", "characters", [EOT]) == 4
    assert initial_length(f"é{EOT}", "bytes", [EOT]) == 3


# ==================== Training: no merge touches a special token


@pytest.mark.parametrize("engine", ["reference", "fast"])
@pytest.mark.parametrize("alphabet,pretokenizer", [("bytes", "gpt2"), ("characters", None), ("characters", "gpt4")])
def test_no_merge_learns_from_or_crosses_a_special_token(engine, alphabet, pretokenizer):
    settings = dict(alphabet=alphabet, pretokenizer=pretokenizer, engine=engine, minimum_pair_frequency=1)
    base = 256 if alphabet == "bytes" else len(set(STORIES))
    stream = train_steps(STORIES, target_vocab_size=base + 1 + 150, special_tokens=[EOT], **settings)
    steps = list(stream)
    assert len(steps) > 50 and stream.stop_reason.value == "no_pairs_left"  # every story one token, or so
    stories = [story for story in STORIES.split(EOT) if story]
    for step in steps:
        token = step.token.decode() if isinstance(step.token, bytes) else step.token
        assert any(token in story for story in stories), f"{token!r} crosses a document boundary"
        assert "|>" not in token and "<|" not in token and "endoftext" not in token
    # without the special token the marker's pieces are learned
    plain = list(train_steps(STORIES, target_vocab_size=base + 150, **settings))
    assert any(b"|" in (s.token if isinstance(s.token, bytes) else s.token.encode()) for s in plain)


def test_nothing_but_special_tokens_is_no_text_to_train_on():
    with pytest.raises(BpeError, match="nothing but special tokens"):
        train_steps(EOT * 3, target_vocab_size=10, special_tokens=[EOT])
    # a character that only a special token holds is no base token
    assert BPETokenizer.train(f"ab{EOT}ab", 10, special_tokens=[EOT]).base_tokens == ["a", "b"]


def test_special_tokens_take_the_first_ids_and_count_in_the_vocab_size():
    steps = list(train_steps(STORIES, 260, alphabet="bytes", special_tokens=[EOT, DOUBLE]))
    assert steps[0].token_id == 258  # 2 special tokens, then 256 bytes
    assert steps[-1].vocab_size == 260 and len(steps) == 2
    tok = BPETokenizer.train(STORIES, 260, alphabet="bytes", special_tokens=[EOT, DOUBLE])
    assert tok.vocab_size == 260
    assert tok.special_tokens == {EOT: 0, DOUBLE: 1}
    assert tok.tokens[:3] == [EOT.encode(), DOUBLE.encode(), b"\x00"]
    with pytest.raises(BpeError, match=r"smaller than the alphabet and the special tokens \(256 base tokens and 2"):
        train_steps(STORIES, 257, alphabet="bytes", special_tokens=[EOT, DOUBLE])


def test_a_tokenizer_without_special_tokens_keeps_its_ids_and_file():
    tok = BPETokenizer.train("low lower lowest", 100)
    assert tok.special_tokens == {} and tok.tokens[0] == " "
    assert "special_tokens" not in to_json_text(tok.data())


def test_a_special_token_is_one_token_of_the_training_sequence():
    run = train_run(STORIES, 300, alphabet="bytes", special_tokens=[EOT], heldout_text=f"a{EOT}b")
    ordinary = sum(len(story.encode()) for story in STORIES.split(EOT))
    assert run.initial_length == ordinary + STORIES.count(EOT)
    assert run.heldout_lengths[0] == 3
    assert run.tokenizer().encode(f"a{EOT}b") == [98, 0, 99]


specials_texts = st.lists(st.sampled_from(["ab", "a b", "ba", " ", "<|x|>", "<|x|><|x|>", "aab", "\n"]), max_size=12)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(parts=specials_texts, extra=st.integers(0, 25), tie_rule=st.sampled_from(TIE_RULES))
def test_engines_agree_with_special_tokens_under_every_tie_rule(parts, extra, tie_rule):
    text = "".join(parts) or "ab"
    if not text.replace("<|x|>", ""):
        text += "ab"  # (nothing but special tokens is no text to train on: test_nothing_but_special_tokens)
    options = dict(special_tokens=["<|x|>", "<|x|><|x|>"], minimum_pair_frequency=1, top_k=4, tie_rule=tie_rule)
    base = len(set(text.replace("<|x|>", ""))) + 2
    fast = list(train_steps(text, base + extra, engine="fast", **options))
    reference = list(train_steps(text, base + extra, engine="reference", **options))
    assert fast == reference
    for step in fast:
        assert "<|x|>" not in step.token


# ==================== Encoding, tiktoken's way


@pytest.fixture(scope="module")
def stories_tokenizer():
    return BPETokenizer.train(STORIES, 300, alphabet="bytes", pretokenizer="gpt2", special_tokens=[EOT, DOUBLE])


def test_encode_recognizes_special_tokens_and_decode_gives_them_back(stories_tokenizer):
    tok = stories_tokenizer
    text = f"a cat{DOUBLE}{EOT}the end{EOT}"
    ids = tok.encode(text)
    assert ids.count(0) == 2 and ids.count(1) == 1
    assert ids[: len(tok.encode_ordinary("a cat"))] == tok.encode_ordinary("a cat")
    assert tok.decode(ids) == text
    assert 0 not in tok.encode_ordinary(text) and tok.decode(tok.encode_ordinary(text)) == text
    assert tok.encode_with_chunks(f"a{EOT}b") == [tok.encode("a"), [0], tok.encode("b")]


def test_allowed_and_disallowed_special_behave_as_tiktokens(stories_tokenizer):
    tok = stories_tokenizer
    text = f"x{EOT}y"
    assert tok.encode(text, allowed_special={EOT}) == tok.encode(text) == [*tok.encode("x"), 0, *tok.encode("y")]
    with pytest.raises(BpeError, match=r"special token '<\|endoftext\|>' at character 1, which is disallowed"):
        tok.encode(text, allowed_special=set())
    with pytest.raises(BpeError, match="disallowed"):
        tok.encode(text, allowed_special={DOUBLE}, disallowed_special={EOT})
    assert tok.encode(text, allowed_special=set(), disallowed_special=()) == tok.encode_ordinary(text)
    with pytest.raises(BpeError, match="which this tokenizer does not have"):
        tok.encode(text, allowed_special={"<|nope|>"})


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(
    parts=st.lists(st.sampled_from(["a", "b", " ", "ab", "<|", "|>", EOT, DOUBLE, "é", "\n"]), max_size=30),
    cuts=st.lists(st.integers(0, 400), max_size=6),
)
def test_decode_of_encode_is_the_text_and_the_stream_gives_encodes_ids(stories_tokenizer, parts, cuts):
    tok = stories_tokenizer
    text = "".join(parts)
    ids = tok.encode(text)
    assert tok.decode(ids) == text
    points = sorted({min(c, len(text)) for c in cuts})
    given = [text[a:b] for a, b in zip([0, *points], [*points, len(text)])]
    assert list(tok.encode_iterable(given)) == ids


@pytest.mark.parametrize("pretokenizer", [None, "whitespace", "gpt2", "gpt4"])
@pytest.mark.parametrize("alphabet", ["characters", "bytes"])
def test_encode_iterable_gives_encodes_ids_over_many_blocks(pretokenizer, alphabet):
    tok = BPETokenizer.train(STORIES, 400, alphabet=alphabet, pretokenizer=pretokenizer, special_tokens=[EOT])
    text = STORIES * 20  # past several of the stream's blocks
    lines = text.splitlines(keepends=True) or [text]
    lines = [text[i : i + 997] for i in range(0, len(text), 997)]
    assert list(tok.encode_iterable(lines)) == tok.encode(text)
    assert list(tok.encode_iterable(iter([text]))) == tok.encode(text)


def test_special_tokens_split_across_parts_are_still_found():
    assert list(streamed_pieces(["one<|endo", "ftext|>two"], [EOT])) == [
        ("one", False),
        (EOT, True),
        ("two", False),
    ]
    got = list(streamed_pieces(["a", EOT, EOT[:5], EOT[5:], "b"], [EOT, DOUBLE]))
    assert [piece for piece, special in got if special] == [DOUBLE]
    assert "".join(piece for piece, _ in got) == "a" + DOUBLE + "b"


MEMORY_SCRIPT = """
import os, sys
from bpe import BPETokenizer

def resident():  # this process's resident memory now, in bytes
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

stories = sys.argv[1] * 12
tok = BPETokenizer.train(stories, 350, alphabet="bytes", pretokenizer="gpt2", special_tokens=["<|endoftext|>"])
line = stories.split("<|endoftext|>")[0] + "<|endoftext|>"
lines = (line for _ in range(int(sys.argv[2])))  # never held: made as the stream reads them
tok.encode(line)  # what a tokenizer builds on its first encode, built
before = peak = resident()
count = 0
for _ in tok.encode_iterable(lines):
    count += 1
    if count % 4096 == 0:
        peak = max(peak, resident())
print(count, peak - before)
"""


def test_encode_iterable_streams_megabytes_in_bounded_memory():
    # CS336 bounds the stream to a 1 MB increment on a 5 MB file; here 3 MB of stories,
    # measured as the process's resident memory (encoding the joined text instead grows
    # it by about 15 MB).
    line = STORIES.split(EOT)[0] + EOT
    lines = 3_000_000 // len(line)
    result = subprocess.run(
        [sys.executable, "-c", MEMORY_SCRIPT, STORIES, str(lines)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    count, increment = map(int, result.stdout.split())
    assert count > 700_000  # the ids really came
    assert increment < 1_000_000, f"the stream took {increment:,} bytes more"


# ==================== The file


def test_the_file_keeps_special_tokens_and_their_ids(stories_tokenizer, tmp_path):
    path = tmp_path / "t.json"
    stories_tokenizer.save(path)
    data = json.loads(path.read_text())
    assert data["special_tokens"] == [EOT, DOUBLE] and data["vocab_size"] == stories_tokenizer.vocab_size
    loaded = BPETokenizer.from_file(path)
    assert loaded == stories_tokenizer and loaded.fingerprint() == stories_tokenizer.fingerprint()
    assert loaded.encode(EOT) == [0]
    without = BPETokenizer(
        stories_tokenizer.base_tokens, stories_tokenizer.merges, alphabet="bytes", pretokenizer="gpt2"
    )
    assert without.fingerprint() != stories_tokenizer.fingerprint()


@pytest.mark.parametrize(
    "specials,message",
    [
        ("<|endoftext|>", "special_tokens must be a list of strings"),
        (["x"], "is one character"),
        ([EOT, EOT], "is given twice"),
    ],
)
def test_a_file_with_bad_special_tokens_is_refused_in_one_line(specials, message):
    tok = BPETokenizer.train("low lower lowest", 100, special_tokens=["<|x|>"])
    data = json.loads(to_json_text(tok.data()))
    data["special_tokens"] = specials
    with pytest.raises(TokenizerFileError, match=message):
        parse_tokenizer_json(json.dumps(data).encode(), name="t.json")


def test_a_merge_that_makes_a_special_token_is_refused():
    with pytest.raises(BpeError, match="makes 'lo', which is a special token"):
        BPETokenizer(["l", "o"], [("l", "o")], special_tokens=["lo"])
