"""The byte alphabet and pre-tokenization: round trips, engines agreeing, files, display.

A byte-level tokenizer trained on multilingual text has learned tokens that cut through
characters (two of the three bytes of '—'); encoding and decoding must still be exact for
any Unicode text, in every pre-tokenizer mode, and both engines must learn the very same
merges in every alphabet x pre-tokenizer combination.
"""

from __future__ import annotations

import hashlib
import json

import pytest
from helpers import MAX_EXAMPLES, assert_same_steps, shared_file
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe import BPETokenizer, train_steps
from bpe.alphabet import BYTES
from bpe.corpora.builtin import MULTILINGUAL_SAMPLE
from bpe.corpora.corpus import python_reference_text
from bpe.errors import BpeError
from bpe.pretokenize import split
from bpe.text import hex_bytes, is_complete_utf8, readable_token

PRETOKENIZERS = [None, "whitespace", "gpt2", "gpt4", r"\w+|\s+|[^\w\s]+"]
PRETOKENIZER_IDS = ["none", "whitespace", "gpt2", "gpt4", "custom"]
ALPHABETS = ["characters", "bytes"]
# What byte-level tokenizers meet in the wild: emoji (with joiners, skin tones, flags),
# combining marks, CJK, right-to-left scripts, Windows line ends, odd whitespace.
TRICKY = [
    "👩‍👩‍👧",
    "👍🏽",
    "🇫🇷",
    "😀",
    "e\u0301",
    "n\u0303",
    "中文",
    "日本語",
    "한국어",
    "مرحبا",
    "\r\n",
    "\t",
    "\u3000",
    "\xa0",
    " ",
    "  ",
    "\n\n",
    "a",
    "the",
    "'s",
    "1234",
    "—",
    "…",
    "\x00",
    "\U0010ffff",
]
tricky_text = st.lists(st.sampled_from(TRICKY), max_size=40).map("".join)
any_text = st.text(max_size=80) | tricky_text


@pytest.fixture(scope="module")
def byte_tokenizers():
    """Byte tokenizers trained on the multilingual sample (repeated so pairs recur), per pre-tokenizer."""
    text = (MULTILINGUAL_SAMPLE + "e\u0301 👩‍👩‍👧 —\r\n") * 3
    return {pre: BPETokenizer.train(text, 256 + 150, alphabet="bytes", pretokenizer=pre) for pre in PRETOKENIZERS}


# ==================== Round trips


def test_multilingual_training_learns_partial_characters(byte_tokenizers):
    partial = [t for t in byte_tokenizers[None].tokens[256:] if not is_complete_utf8(t)]
    assert partial, "expected at least one learned token that cuts through a character"


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(text=any_text, pretokenizer=st.sampled_from(PRETOKENIZERS))
def test_byte_round_trip_is_exact_on_any_unicode(byte_tokenizers, text, pretokenizer):
    tokenizer = byte_tokenizers[pretokenizer]
    ids = tokenizer.encode(text)
    assert tokenizer.decode_bytes(ids) == text.encode("utf-8")
    assert tokenizer.decode(ids) == text
    assert b"".join(tokenizer.encode_tokens(text)) == text.encode("utf-8")


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(text=any_text, pretokenizer=st.sampled_from(PRETOKENIZERS[1:]))
def test_tokens_never_cross_a_chunk(byte_tokenizers, text, pretokenizer):
    tokenizer = byte_tokenizers[pretokenizer]
    groups = tokenizer.encode_with_chunks(text)
    assert [tokenizer.decode_bytes(g) for g in groups] == [c.encode("utf-8") for c in split(text, pretokenizer)]
    assert [i for g in groups for i in g] == tokenizer.encode(text)


def test_windows_line_ends_round_trip(byte_tokenizers):
    text = "line one\r\nline two\r\n\r\n  indented\r\n"
    for tokenizer in byte_tokenizers.values():
        assert tokenizer.decode(tokenizer.encode(text)) == text


# ==================== Both engines, every combination


def assert_engines_agree(text: str, vocab: int, **options) -> list:
    reference = list(train_steps(text, target_vocab_size=vocab, engine="reference", top_k=5, **options))
    fast = list(train_steps(text, target_vocab_size=vocab, engine="fast", top_k=5, **options))
    assert_same_steps(reference, fast)
    return reference


SMALL_TEXTS = {
    "tricky": "".join(TRICKY) * 3,
    "multilingual": MULTILINGUAL_SAMPLE * 2,
    "repeats": "aaaa abab aaaa abab\r\n" * 4 + "😀😀😀 😀😀",
}


@pytest.mark.parametrize("alphabet", ALPHABETS)
@pytest.mark.parametrize("pretokenizer", PRETOKENIZERS, ids=PRETOKENIZER_IDS)
@pytest.mark.parametrize("name", list(SMALL_TEXTS))
def test_engines_agree_on_small_texts(name, alphabet, pretokenizer):
    text = SMALL_TEXTS[name]
    base = 256 if alphabet == "bytes" else len(set(text))
    steps = assert_engines_agree(
        text, base + 60, minimum_pair_frequency=1, alphabet=alphabet, pretokenizer=pretokenizer
    )
    assert steps


@pytest.fixture(scope="module")
def real_slice() -> str:
    """6,000 characters of the Python language reference, with its curly quotes and dashes."""
    text = python_reference_text()
    start = text.index("’") - 3_000  # around a multi-byte character
    return text[start : start + 6_000]


@pytest.mark.parametrize("alphabet", ALPHABETS)
@pytest.mark.parametrize("pretokenizer", PRETOKENIZERS, ids=PRETOKENIZER_IDS)
def test_engines_agree_on_real_text(real_slice, alphabet, pretokenizer):
    base = 256 if alphabet == "bytes" else len(set(real_slice))
    assert len(assert_engines_agree(real_slice, base + 80, alphabet=alphabet, pretokenizer=pretokenizer)) == 80


@pytest.mark.shared_data
@pytest.mark.parametrize("pretokenizer", ["gpt2", "gpt4"])
def test_engines_agree_on_wikitext_bytes(pretokenizer):
    text = shared_file("wikitext-2/test.txt").read_text(encoding="utf-8")[:8_000]
    assert_engines_agree(text, 256 + 60, alphabet="bytes", pretokenizer=pretokenizer)


@pytest.mark.parametrize("pretokenizer", ["whitespace", "gpt2", "gpt4"])
def test_each_distinct_chunk_counts_once_with_its_frequency(pretokenizer):
    # Repeating whole lines repeats every chunk: the same merges, each pair counted 3x as often.
    once = "low lower lowest, newer wider 2024!\n"
    single = list(
        train_steps(
            once,
            target_vocab_size=256 + 12,
            minimum_pair_frequency=1,
            alphabet="bytes",
            pretokenizer=pretokenizer,
            top_k=0,
        )
    )
    triple = list(
        train_steps(
            once * 3,
            target_vocab_size=256 + 12,
            minimum_pair_frequency=1,
            alphabet="bytes",
            pretokenizer=pretokenizer,
            top_k=0,
        )
    )
    assert [s.pair for s in triple] == [s.pair for s in single]
    assert [s.frequency for s in triple] == [3 * s.frequency for s in single]


# ==================== Files


def tutorial_fingerprint(base_tokens, merges) -> str:
    return hashlib.sha256(
        json.dumps({"base_tokens": base_tokens, "merges": merges}, ensure_ascii=False, separators=(",", ":")).encode(
            "utf-8"
        )
    ).hexdigest()


@pytest.mark.parametrize("alphabet", ALPHABETS)
@pytest.mark.parametrize("pretokenizer", PRETOKENIZERS, ids=PRETOKENIZER_IDS)
def test_json_round_trip_records_alphabet_and_pretokenizer(tmp_path, alphabet, pretokenizer):
    text = "naïve café 😀, naïve café 😀\r\n" * 3
    base = 256 if alphabet == "bytes" else len(set(text))
    tokenizer = BPETokenizer.train(text, base + 25, alphabet=alphabet, pretokenizer=pretokenizer)
    tokenizer.save(tmp_path / "t.json")
    data = json.loads((tmp_path / "t.json").read_text(encoding="utf-8"))
    assert data["type"] == ("byte_bpe" if alphabet == "bytes" else "character_bpe")
    assert data.get("pretokenizer") == pretokenizer
    payload = {"base_tokens": data["base_tokens"], "merges": data["merges"]}
    if pretokenizer is not None:
        payload["pretokenizer"] = pretokenizer
    assert (
        data["fingerprint"]
        == hashlib.sha256(json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")).hexdigest()
    )
    again = BPETokenizer.from_file(tmp_path / "t.json")
    assert again == tokenizer and again.fingerprint() == tokenizer.fingerprint()
    assert again.encode(text) == tokenizer.encode(text)


def test_tutorial_character_file_is_unchanged(tmp_path):
    # A file exactly as the tutorial's script writes it: no alphabet, no pre-tokenizer keys.
    base, merges = [" ", "l", "o", "w", "e", "r"], [["l", "o"], ["lo", "w"], ["low", "e"], ["lowe", "r"]]
    text = json.dumps(
        {
            "type": "character_bpe",
            "base_tokens": base,
            "merges": merges,
            "vocab_size": 10,
            "fingerprint": tutorial_fingerprint(base, merges),
        },
        indent=2,
    )
    (tmp_path / "tutorial.json").write_text(text, encoding="utf-8")
    tokenizer = BPETokenizer.from_file(tmp_path / "tutorial.json")
    assert (tokenizer.alphabet, tokenizer.pretokenizer) == ("characters", None)
    assert tokenizer.fingerprint() == tutorial_fingerprint(base, merges)
    tokenizer.save(tmp_path / "again.json")
    saved = json.loads((tmp_path / "again.json").read_text(encoding="utf-8"))
    assert sorted(saved) == ["base_tokens", "fingerprint", "merges", "type", "vocab_size"]
    assert saved["fingerprint"] == tutorial_fingerprint(base, merges)


# ==================== Showing byte tokens


@pytest.mark.parametrize(
    "token, shown",
    [
        pytest.param(b" caf\xc3\xa9", " café", id="whole-characters"),
        pytest.param(b"\xe2\x80", "<0xE2><0x80>", id="two-of-three-bytes"),
        pytest.param(b"\x94 the", "<0x94> the", id="tail-of-a-character"),
        pytest.param(b"\xf0\x9f\x98\x80\xf0\x9f", "😀<0xF0><0x9F>", id="emoji-then-a-cut"),
        pytest.param(b"\xed\xa0\x80", "<0xED><0xA0><0x80>", id="encoded-surrogate-is-not-utf8"),
        pytest.param(b"\n\t", "\n\t", id="whitespace-left-as-is"),
        pytest.param("already text", "already text", id="str-unchanged"),
    ],
)
def test_readable_token(token, shown):
    assert readable_token(token) == shown


def test_gpt2_spelling_and_helpers():
    assert readable_token(b" the\n", gpt2_spelling=True) == "ĠtheĊ"
    assert readable_token(b"\xe2\x80", gpt2_spelling=True) == "âĢ"
    assert is_complete_utf8(b"\xc3\xa9") and not is_complete_utf8(b"\xc3") and is_complete_utf8("é")
    assert hex_bytes(b" \xc3\xa9") == "20 C3 A9" and hex_bytes("é") == "C3 A9"
    with pytest.raises(TypeError, match="readable_token takes bytes or str, got int"):
        readable_token(5)


def test_a_byte_alphabet_without_every_byte_names_the_bytes_a_text_lacks():
    tok = BPETokenizer([b"a", b"b"], [(b"a", b"b")], alphabet=BYTES)
    assert tok.encode("abab") == [2, 2]
    with pytest.raises(BpeError, match=r"2 byte values outside the tokenizer's alphabet: 0xA9, 0xC3"):
        tok.encode("abé")
