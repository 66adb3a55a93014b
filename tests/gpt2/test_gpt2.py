"""The GPT-2 tokenizer: OpenAI's file format, downloading, and parity with tiktoken.

Most tests use a tiny hand-made vocabulary in GPT-2's format, written by the test (the
256 bytes, 21 merges, ``<|endoftext|>``), so they run anywhere. The parity tests use
OpenAI's real files from the shared data (``../shared/data/gpt2``) and tiktoken, loaded
offline from those files; they skip, saying why, when either is missing. Downloads go
to a server on 127.0.0.1, never the internet.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
from collections import Counter

import pytest
import regex
from helpers import MAX_EXAMPLES, free_ports, loopback_server, shared_file
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe.alphabet import bytes_to_unicode
from bpe.cli.gpt2 import add_gpt2_command, run_gpt2
from bpe.corpora.corpus import python_reference_text
from bpe.errors import BpeError, DownloadError
from bpe.gpt2 import files as gpt2_files
from bpe.gpt2.files import GPT2_SHA256, download_gpt2_files, find_gpt2_files, missing_files_message
from bpe.gpt2.tiktoken_check import tiktoken_gpt2 as build_tiktoken_gpt2
from bpe.gpt2.tokenizer import load_default_gpt2, load_gpt2
from bpe.pretokenize import GPT2_PATTERN, GPT2_WHITESPACE, chunk_counts, gpt2_chunker, split
from bpe.ranks import merge_by_rank, merge_by_rank_heap
from bpe.tokenizer import BPETokenizer

# ==================== A tiny GPT-2-format vocabulary

TINY_MERGES = [
    "Ġ t",
    "h e",
    "Ġt he",
    "l l",
    "e ll",
    "h ell",
    "hell o",
    "Ġ w",
    "o r",
    "Ġw or",
    "Ġwor l",
    "Ġworl d",
    "Ã ©",
    "c a",
    "ca f",
    "caf Ã©",
    "' s",
    "e r",
    "h er",
    "Ġ Ġ",
    "Ċ Ċ",
]
# Ids: 0-255 the bytes, 256 + i merge i: 'hello' is 262, ' world' 267, 'café' 271.
HELLO, WORLD, CAFE, THE, ENDOFTEXT = 262, 267, 271, 258, 277
TINY_ALPHABET = "helowrdtscaf é'\n!1"


def tiny_encoder(merges: list[str] = TINY_MERGES) -> dict[str, int]:
    encoder = {spelled: i for i, spelled in enumerate(bytes_to_unicode().values())}
    for line in merges:
        encoder[line.replace(" ", "")] = len(encoder)
    encoder["<|endoftext|>"] = len(encoder)
    return encoder


def write_files(folder, encoder=None, merges=None, *, header="#version: 0.2\n", encoder_text=None, vocab_bytes=None):
    folder.mkdir(parents=True, exist_ok=True)
    encoder_path, vocab_path = folder / "encoder.json", folder / "vocab.bpe"
    encoder_path.write_text(
        encoder_text if encoder_text is not None else json.dumps(encoder or tiny_encoder()), encoding="utf-8"
    )
    if vocab_bytes is None:
        vocab_bytes = (header + "".join(f"{line}\n" for line in (TINY_MERGES if merges is None else merges))).encode()
    vocab_path.write_bytes(vocab_bytes)
    return encoder_path, vocab_path


@pytest.fixture
def tiny_files(tmp_path):
    return write_files(tmp_path / "tiny")


@pytest.fixture
def tiny(tiny_files):
    return load_gpt2(*tiny_files)


def sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ==================== Loading and encoding (tiny files)


def test_tiny_files_load_with_ids_in_merge_order(tiny):
    assert (tiny.name, tiny.vocab_size, len(tiny.merges)) == ("GPT-2", 278, 21)
    assert tiny.special_tokens == {"<|endoftext|>": ENDOFTEXT}
    assert tiny.base_tokens[:3] == [b"!", b'"', b"#"]  # GPT-2's byte order: printable bytes first
    assert tiny.merges[2] == (b" t", b"he")


def test_tiny_encodes_worked_example(tiny):
    assert tiny.encode("hello world") == [HELLO, WORLD]
    assert tiny.encode_tokens("hello world café") == [b"hello", b" world", b" ", b"caf\xc3\xa9"]
    assert tiny.encode(" the") == [THE]
    assert tiny.decode([HELLO, WORLD]) == "hello world"


def as_lab_tokenizer(gpt2) -> BPETokenizer:
    """The same merges as a lab `BPETokenizer`: it replays merges as pairs, so on rare chunks
    its ids may differ from GPT-2's tiktoken-exact ones."""
    return BPETokenizer(gpt2.base_tokens, gpt2.merges, alphabet="bytes", pretokenizer=gpt2.pretokenizer)


def test_merges_by_rank_of_the_concatenation_like_tiktoken(tiny):
    # 'her' is merge 19 (h + er), but 'he' (merge 2) forms first; tiktoken then merges
    # he + r because their concatenation 'her' has a rank. A pair-replay would not.
    assert tiny.encode("her") == [274]
    assert as_lab_tokenizer(tiny).encode("her") == [257, ord("r") - ord("!")]


def test_endoftext_is_plain_text_unless_allowed(tiny):
    text = "hello<|endoftext|> world"
    plain = tiny.encode(text)
    assert ENDOFTEXT not in plain and tiny.decode(plain) == text
    assert plain == tiny.encode_ordinary(text)
    assert tiny.encode(text, allowed_special="all") == [HELLO, ENDOFTEXT, WORLD]
    assert tiny.encode(text, allowed_special={"<|endoftext|>"}) == [HELLO, ENDOFTEXT, WORLD]
    assert tiny.decode([HELLO, ENDOFTEXT, WORLD]) == text


def test_allowed_special_misuse_is_explained(tiny):
    with pytest.raises(BpeError, match=r"give a set of special tokens, e.g. \{'<\|endoftext\|>'\}"):
        tiny.encode("x", allowed_special="<|endoftext|>")
    with pytest.raises(BpeError, match=r"\['<\|fim\|>'\], which GPT-2 does not have"):
        tiny.encode("x", allowed_special={"<|fim|>"})


def test_decode_is_exact_on_bytes_and_lossy_only_in_text(tiny):
    cut = tiny.encode("ñ")[:1]  # the first byte of a two-byte character (no merge makes 'ñ')
    assert tiny.decode_bytes(cut) == b"\xc3" and tiny.decode(cut) == "\ufffd"
    with pytest.raises(BpeError, match="unknown token id 9999: GPT-2's ids run from 0 to 277"):
        tiny.decode([HELLO, 9999])
    with pytest.raises(BpeError, match="unknown token id -1"):
        tiny.decode(iter([-1]))


@pytest.mark.parametrize(
    "ids, message",
    [
        (None, r"got None \(a NoneType\)"),
        ("262", r"got the str '262'"),
        ([float(HELLO)], r"^token id 262.0 \(a float, at position 0\) is not a whole number"),
        ([HELLO, True], r"^token id True \(a bool, at position 1\) is not a whole number"),
    ],
)
def test_decode_refuses_floats_bools_and_non_lists(tiny, ids, message):
    # ids are looked up in a dict, where 262.0 finds 262 and True finds 1
    with pytest.raises(BpeError, match=message):
        tiny.decode(ids)
    with pytest.raises(BpeError, match=message):
        tiny.decode_bytes(ids)


def test_header_line_is_optional(tmp_path, tiny):
    without = load_gpt2(*write_files(tmp_path / "plain", header=""))
    assert without.merges == tiny.merges


def test_fingerprint_is_that_of_the_same_merges_as_a_lab_tokenizer(tiny, tmp_path):
    lab = as_lab_tokenizer(tiny)
    assert lab.alphabet == "bytes" and lab.pretokenizer == "gpt2"
    assert [lab.itos[i] for i in range(256 + 21)] == [tiny.itos[i] for i in range(256 + 21)]
    assert tiny.fingerprint() == lab.fingerprint()
    lab.save(tmp_path / "gpt2-tiny.json")
    assert BPETokenizer.from_file(tmp_path / "gpt2-tiny.json") == lab


def test_with_merges_keeps_the_first_merges(tiny):
    short = tiny.with_merges(7)
    assert short.vocab_size == 256 + 7 and short.special_tokens == {}
    assert short.encode("hello world") == [HELLO] + [short.stoi[bytes([b])] for b in b" world"]
    with pytest.raises(BpeError, match="count=-1 must be a whole number"):
        tiny.with_merges(-1)


# ==================== Parsing errors name the file and the line


def _swap_ids(encoder):
    encoder["he"], encoder["Ġthe"] = encoder["Ġthe"], encoder["he"]
    return encoder


def _drop(encoder, key):
    del encoder[key]
    return encoder


BAD_FILES = [
    pytest.param(
        dict(merges=TINY_MERGES[:3] + ["Ġt"] + TINY_MERGES[4:]),
        r"vocab.bpe line 5: expected two tokens separated by a space, got 'Ġt'",
        id="one-token-line",
    ),
    pytest.param(
        dict(merges=["zz q"] + TINY_MERGES),
        r"vocab.bpe line 2: the merge zz q uses 'zz', which is neither a single byte nor made by an earlier",
        id="unknown-token",
    ),
    pytest.param(
        dict(merges=["中 t"] + TINY_MERGES),
        r"vocab.bpe line 2: '中' holds '中', which is not in GPT-2's byte-to-unicode table",
        id="not-spelled",
    ),
    pytest.param(
        dict(merges=TINY_MERGES + ["h e"], encoder=tiny_encoder(TINY_MERGES)),
        r"vocab.bpe line 23 makes 'he' again \(line 3 made it already\)",
        id="repeated-merge",
    ),
    pytest.param(
        dict(encoder=_swap_ids(tiny_encoder())),
        r"vocab.bpe line 3 makes 'he', which .*encoder.json gives id 258; merge 2 must have id 257",
        id="ids-not-in-merge-order",
    ),
    pytest.param(
        dict(encoder=_drop(tiny_encoder(), "Ġworld")),
        r"vocab.bpe line 13 makes 'Ġworld', which .*encoder.json does not list",
        id="result-not-listed",
    ),
    pytest.param(
        dict(encoder=_drop(tiny_encoder(), "A")),
        r"encoder.json has no entry for byte 0x41 \(spelled 'A'\)",
        id="byte-missing",
    ),
    pytest.param(
        dict(encoder={**tiny_encoder(), "A": 300}),
        r"gives byte 0x41 \(spelled 'A'\) id 300; the 256 bytes must have the ids 0 to 255",
        id="byte-id",
    ),
    pytest.param(
        dict(encoder_text='{"a": 1,}'), r"encoder.json is not valid JSON: .* at line 1, column 9", id="not-json"
    ),
    pytest.param(
        dict(encoder_text="[1, 2]"), r"encoder.json holds a JSON list; encoder.json is an object", id="not-an-object"
    ),
    pytest.param(
        dict(encoder_text='{"a": ' + "9" * 5_000 + "}"),
        r"encoder.json holds a number 5,000 digits long; the numbers in encoder.json have at most 4,300$",
        id="huge-integer",
    ),
    pytest.param(
        dict(encoder={**tiny_encoder(), "x": "5"}), r"token 'x' has id '5'; ids are whole numbers", id="id-not-a-number"
    ),
    pytest.param(
        dict(encoder={**tiny_encoder(), "zz": 278}),
        r"lists 'zz' \(id 278\), which is neither a byte, nor made by a line of .*vocab.bpe",
        id="stray-entry",
    ),
    pytest.param(
        dict(encoder={**tiny_encoder(), "<|pad|>": 5}),
        r"gives '<\|pad\|>' id 5, which a byte or a merge of .*vocab.bpe already has",
        id="id-taken",
    ),
    pytest.param(
        dict(encoder={**tiny_encoder(), "<|pad|>": 290}),
        r"ids must run from 0 to 278 without gaps; id 278",
        id="id-gap",
    ),
    pytest.param(
        dict(vocab_bytes=b"#version: 0.2\n\xff\xfe\n"),
        r"vocab.bpe is not valid UTF-8: byte 0x.. at byte offset 14 ",
        id="not-utf8",
    ),
]


@pytest.mark.parametrize("broken, message", BAD_FILES)
def test_malformed_files_name_file_and_line(tmp_path, broken, message):
    with pytest.raises(BpeError, match=message):
        load_gpt2(*write_files(tmp_path / "bad", **broken))


def test_missing_file_is_named(tmp_path):
    with pytest.raises(BpeError, match=r"cannot read .*nowhere.json"):
        load_gpt2(tmp_path / "nowhere.json", tmp_path / "vocab.bpe")


def test_hash_check_on_load(tiny_files):
    encoder, vocab = tiny_files
    assert load_gpt2(encoder, vocab, encoder_sha256=sha256(encoder), vocab_sha256=sha256(vocab)).vocab_size == 278
    with pytest.raises(BpeError, match=rf"vocab.bpe has sha256 {sha256(vocab)}, expected 0000"):
        load_gpt2(encoder, vocab, vocab_sha256="0" * 64)


# ==================== Merging one chunk; the fast path equals the plain one


def plain_encode(tokenizer, text: str) -> list[int]:
    """The definition: GPT-2's regex over the whole text, then each chunk on its own."""
    ranks = {token: i for i, token in enumerate(tokenizer.itos[i] for i in range(256 + len(tokenizer.merges)))}
    ids = []
    for chunk in regex.findall(GPT2_PATTERN, text):
        piece = chunk.encode("utf-8")
        ids += [ranks[piece]] if piece in ranks else merge_by_rank(piece, ranks)
    return ids


@settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(piece=st.binary(min_size=1, max_size=80) | st.text(TINY_ALPHABET, min_size=1, max_size=300).map(str.encode))
def test_heap_merge_equals_list_merge(tiny, piece):
    ranks = tiny._ranks
    assert merge_by_rank_heap(piece, ranks) == merge_by_rank(piece, ranks)


SPACEY = st.lists(
    st.sampled_from(
        [
            " ",
            "  ",
            "\n",
            " \n",
            "\t",
            "\r\n",
            "\u3000",
            "\xa0",
            "\x00",
            "\x1c",
            "hello",
            "é",
            "1",
            "'s",
            "!",
            "😀",
            "e\u0301",
        ]
    ),
    max_size=30,
).map("".join)


@settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=60) | SPACEY | st.lists(SPACEY, max_size=5).map("".join))
def test_space_led_pieces_cut_exactly_where_the_regex_does(tiny, text):
    tiny.clear_cache()
    assert tiny.encode(text) == plain_encode(tiny, text)
    assert tiny.encode(text) == plain_encode(tiny, text)  # warm cache, same answer


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(text=st.text(max_size=60) | SPACEY | st.lists(SPACEY, max_size=5).map("".join))
def test_chunk_counts_for_training_equal_the_regex_in_order(text):
    # Against the regex itself: chunk_counts takes the segments' path, and `re` for ASCII.
    expected = Counter(split(text, "gpt2"))
    counted = chunk_counts(text, "gpt2")
    assert counted == expected and list(counted) == list(expected)
    assert gpt2_chunker()(text) == split(text, "gpt2")


def test_chunk_counts_on_real_text():
    text = python_reference_text()[:150_000]
    assert list(chunk_counts(text, "gpt2").items()) == list(Counter(split(text, "gpt2")).items())


EVERY_CHARACTER = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)


def test_whitespace_table_covers_the_regex_whitespace():
    assert set(regex.findall(r"\s", EVERY_CHARACTER)) <= set(GPT2_WHITESPACE)


@settings(max_examples=MAX_EXAMPLES * 4, deadline=None)
@given(st.text(st.characters(max_codepoint=0x7F), max_size=40))
def test_gpt2_in_re_is_the_regex_on_ascii(text):
    # `re` runs ASCII text with the classes spelled out as the regex reads them: every
    # character of ASCII, "\x1c" (whitespace to str.isspace(), not to the regex) among them.
    assert gpt2_chunker()(text) == split(text, "gpt2")


def test_isalpha_is_the_regex_letters():
    # The runs and the encoder's cache take a str.isalpha() run as one `` ?\p{L}++`` chunk:
    # that needs every isalpha() character to be a letter to the regex. (Not the converse:
    # the regex may know letters of a newer Unicode, which then take the regex's path.)
    letters = set(regex.findall(r"\p{L}", EVERY_CHARACTER))
    assert {c for c in EVERY_CHARACTER if c.isalpha()} <= letters


def test_long_chunks_take_the_heap_path(tiny):
    text = "hell" * 200 + " " * 700 + "x"
    assert tiny.encode(text) == plain_encode(tiny, text)
    assert tiny.decode(tiny.encode(text)) == text


# ==================== tiktoken on the tiny files (no shared data needed)


@pytest.fixture
def tiktoken_tiny(tiny_files, tmp_path, monkeypatch):
    tiktoken = pytest.importorskip("tiktoken", reason="tiktoken is not installed")
    import tiktoken.load

    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "tiktoken-cache"))
    encoder, vocab = tiny_files
    ranks = tiktoken.load.data_gym_to_mergeable_bpe_ranks(vocab_bpe_file=str(vocab), encoder_json_file=str(encoder))
    return tiktoken.Encoding(
        "tiny-gpt2", pat_str=GPT2_PATTERN, mergeable_ranks=ranks, special_tokens={"<|endoftext|>": ENDOFTEXT}
    )


@settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(TINY_ALPHABET, max_size=80) | st.text(max_size=30))
def test_tiny_ids_equal_tiktoken_on_the_same_files(tiny, tiktoken_tiny, text):
    assert tiny.encode(text) == tiktoken_tiny.encode_ordinary(text)


# ==================== Finding and downloading the files


@pytest.fixture
def no_files(tmp_path, monkeypatch):
    """Neither the project cache nor the shared data has GPT-2's files."""
    monkeypatch.setattr(gpt2_files, "CACHE_DIR", tmp_path / "cache")
    monkeypatch.setenv("BPE_SHARED_DATA", str(tmp_path / "shared"))
    return tmp_path


def test_find_prefers_the_cache_then_the_shared_data(no_files):
    assert find_gpt2_files() is None
    shared = write_files(no_files / "shared" / "gpt2")
    assert find_gpt2_files() == shared
    cached = write_files(no_files / "cache" / "gpt2")
    assert find_gpt2_files() == cached


def test_offline_without_files_says_what_to_download_and_where(no_files):
    message = missing_files_message()
    for part in [
        "python -m bpe gpt2 download",
        f"{no_files / 'cache' / 'gpt2'}/",
        f"{no_files / 'shared' / 'gpt2'}",
        "https://openaipublic.blob.core.windows.net/gpt-2/encodings/main/encoder.json",
        "https://openaipublic.blob.core.windows.net/gpt-2/encodings/main/vocab.bpe",
        GPT2_SHA256["vocab.bpe"],
    ]:
        assert part in message
    with pytest.raises(BpeError) as raised:
        load_default_gpt2()
    assert str(raised.value) == message


@pytest.fixture
def server(monkeypatch):
    with loopback_server(monkeypatch) as loopback:
        yield loopback


@pytest.fixture
def served(server, tiny_files):
    """The tiny files on the loopback server, and their hashes."""
    hashes = {}
    for path in tiny_files:
        server.serve(f"/gpt-2/{path.name}", path.read_bytes())
        hashes[path.name] = sha256(path)
    return server, hashes


def files_under(folder) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def test_download_writes_both_files_once(served, tmp_path, tiny_files):
    server, hashes = served
    paths = download_gpt2_files(tmp_path / "cache", base_url=server.url("/gpt-2"), sha256=hashes)
    assert paths == (tmp_path / "cache" / "gpt2" / "encoder.json", tmp_path / "cache" / "gpt2" / "vocab.bpe")
    assert [p.read_bytes() for p in paths] == [p.read_bytes() for p in tiny_files]
    assert files_under(tmp_path / "cache") == ["gpt2/encoder.json", "gpt2/vocab.bpe"]
    assert len(server.requests) == 2
    download_gpt2_files(tmp_path / "cache", base_url=server.url("/gpt-2"), sha256=hashes)
    assert len(server.requests) == 2  # verified files in the cache: no request


def test_download_with_wrong_hash_keeps_nothing(served, tmp_path):
    server, hashes = served
    with pytest.raises(DownloadError) as raised:
        download_gpt2_files(tmp_path / "cache", base_url=server.url("/gpt-2"), sha256={**hashes, "vocab.bpe": "0" * 64})
    message = str(raised.value)
    assert "could not download GPT-2's vocab.bpe" in message and "sha256 mismatch: expected 0000" in message
    assert f"If this machine is offline, download {server.url('/gpt-2')}/encoder.json" in message
    assert files_under(tmp_path / "cache") == ["gpt2/encoder.json"]  # the good one stays; no partial vocab.bpe


def test_interrupted_transfer_leaves_no_partial_file(served, tmp_path):
    server, hashes = served
    body = server.routes["/gpt-2/encoder.json"].body
    server.serve("/gpt-2/encoder.json", body[: len(body) // 2], declared_length=len(body))
    with pytest.raises(DownloadError, match="encoder.json"):
        download_gpt2_files(tmp_path / "cache", base_url=server.url("/gpt-2"), sha256=hashes, timeout=5)
    assert files_under(tmp_path / "cache") == []


def test_http_error_and_refused_connection_explain_the_offline_route(served, tmp_path):
    server, hashes = served
    del server.routes["/gpt-2/vocab.bpe"]
    with pytest.raises(DownloadError, match=r"vocab.bpe from .*: HTTP 404"):
        download_gpt2_files(tmp_path / "cache", base_url=server.url("/gpt-2"), sha256=hashes)
    port = free_ports()  # a port nobody listens on: the connection is refused at once
    with pytest.raises(DownloadError) as raised:
        download_gpt2_files(tmp_path / "other", base_url=f"http://127.0.0.1:{port}/gpt-2", sha256=hashes, timeout=5)
    message = str(raised.value)
    assert "cannot connect" in message and f"put both in {tmp_path / 'other' / 'gpt2'}/" in message


def test_cached_file_with_wrong_hash_is_not_replaced_silently(served, tmp_path):
    server, hashes = served
    folder = tmp_path / "cache" / "gpt2"
    folder.mkdir(parents=True)
    (folder / "encoder.json").write_text("{}")
    with pytest.raises(DownloadError, match="is already there, but its sha256 is .* Delete it"):
        download_gpt2_files(tmp_path / "cache", base_url=server.url("/gpt-2"), sha256=hashes)
    assert server.requests == []


# ==================== Command line


def run_cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    add_gpt2_command(parser.add_subparsers(dest="command", required=True))
    return run_gpt2(parser.parse_args(argv))


def test_cli_encode_prints_ids_and_a_summary(tiny_files, capsys):
    encoder, vocab = map(str, tiny_files)
    assert run_cli(["gpt2", "encode", "--text", "hello world", "--encoder", encoder, "--vocab", vocab]) == 0
    out, err = capsys.readouterr()
    assert out == f"{HELLO} {WORLD}\n" and "GPT-2: 2 tokens from 11 bytes" in err
    assert (
        run_cli(
            [
                "gpt2",
                "encode",
                "--text",
                "hello<|endoftext|>",
                "--encoder",
                encoder,
                "--vocab",
                vocab,
                "--allowed-special",
                "all",
            ]
        )
        == 0
    )
    assert capsys.readouterr().out == f"{HELLO} {ENDOFTEXT}\n"


def test_cli_errors_are_one_line(tiny_files, no_files, capsys):
    assert run_cli(["gpt2", "encode", "--text", "x", "--encoder", str(tiny_files[0])]) == 1
    assert "error: give both --encoder and --vocab" in capsys.readouterr().err
    assert run_cli(["gpt2", "encode", "--text", "x"]) == 1
    assert "error: GPT-2's files (encoder.json, vocab.bpe) are not in" in capsys.readouterr().err


def test_cli_compare_needs_openai_files(tiny_files, capsys):
    pytest.importorskip("tiktoken", reason="tiktoken is not installed")
    encoder, vocab = map(str, tiny_files)
    assert (
        run_cli(["gpt2", "encode", "--text", "hello", "--encoder", encoder, "--vocab", vocab, "--compare-tiktoken"])
        == 0
    )
    assert "tiktoken: not compared: " in capsys.readouterr().err


def test_cli_download_refuses_files_that_are_not_openai(served, tmp_path, capsys):
    server, _ = served  # the tiny files do not have OpenAI's hashes
    assert run_cli(["gpt2", "download", "--cache-dir", str(tmp_path / "c"), "--base-url", server.url("/gpt-2")]) == 1
    assert "sha256 mismatch" in capsys.readouterr().err
    assert files_under(tmp_path / "c") == []


# ==================== OpenAI's files: parity with tiktoken

VARIED_TEXTS = {
    "english": "Hello world! It's a test, isn't it? We'll see: they've said I'm done.",
    "wikitext": " = Robert Boulter = \n \n Robert Boulter is an English film , television and theatre actor .\n",
    "code": "def f(x):\n\treturn x ** 2  # square\n\n\nif __name__ == '__main__':\n    print(f(3))\r\n",
    "numbers": "In 1999, 12345678 people paid $3.14 (or 3,141.59€) at 10:30pm on 2024-01-01.",
    "emoji": "I ❤️ tokenizers 👩‍👩‍👧‍👦 🇫🇷 😀😀😀 ok",
    "cjk": "中文分词很难。日本語のテキスト、한국어 텍스트。",
    "combining": "e\u0301 vs é, n\u0303o, a\u030a\u0301, Ω and ǅ",
    "whitespace": "a  b   c\t\td \u3000e\xa0f\u2028g\x85h \n \n\n   \r\n  ",
    "trailing-spaces": "ends with spaces   ",
    "endoftext": "first document<|endoftext|>second one <|endoftext|>",
    "nul": "a\x00b \x00 c\x00\x00d",
    "long-run": " " * 3000 + "x" + "ab" * 2000 + "9" * 700,
    "controls": "\x1c\x1d\x1e\x1f \x1c a\x0b\x0cb",
    "empty": "",
}


@pytest.fixture(scope="module")
def real_gpt2():
    encoder, vocab = shared_file("gpt2/encoder.json"), shared_file("gpt2/vocab.bpe")
    return load_gpt2(encoder, vocab, encoder_sha256=GPT2_SHA256["encoder.json"], vocab_sha256=GPT2_SHA256["vocab.bpe"])


@pytest.fixture(scope="module")
def tiktoken_gpt2():
    """tiktoken's GPT-2 encoding built from the shared files by `bpe.gpt2.tiktoken_check`,
    with downloads forbidden and the environment left as it was."""
    tiktoken = pytest.importorskip("tiktoken", reason="tiktoken is not installed")
    import tiktoken.load

    encoder, vocab = shared_file("gpt2/encoder.json"), shared_file("gpt2/vocab.bpe")

    def no_network(blobpath: str) -> bytes:
        raise AssertionError(f"tiktoken tried to read {blobpath}: the ranks should have been handed to it")

    environment = dict(os.environ)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tiktoken.load, "read_file", no_network)
        encoding = build_tiktoken_gpt2(encoder, vocab)
    assert dict(os.environ) == environment, "building tiktoken's GPT-2 changed the process environment"
    return encoding


@pytest.mark.shared_data
@pytest.mark.parametrize("name", list(VARIED_TEXTS))
def test_ids_equal_tiktoken_on_varied_text(real_gpt2, tiktoken_gpt2, name):
    text = VARIED_TEXTS[name]
    ids = real_gpt2.encode(text)
    assert ids == tiktoken_gpt2.encode(text, disallowed_special=())
    assert real_gpt2.decode(ids) == text


@pytest.mark.shared_data
def test_special_tokens_like_tiktoken(real_gpt2, tiktoken_gpt2):
    text = VARIED_TEXTS["endoftext"]
    assert real_gpt2.encode(text, allowed_special="all") == tiktoken_gpt2.encode(text, allowed_special="all")
    assert real_gpt2.encode(text, allowed_special={"<|endoftext|>"}).count(50256) == 2
    assert real_gpt2.encode("<|endoftext|>", allowed_special="all") == [50256]
    # tiktoken refuses the special text by default; ours encodes it as plain text instead.
    with pytest.raises(ValueError):
        tiktoken_gpt2.encode(text)
    assert real_gpt2.encode(text) == tiktoken_gpt2.encode(text, disallowed_special=())
    assert 50256 not in real_gpt2.encode(text)


DOUBLE = "<|endoftext|><|endoftext|>"
OVERLAPPING_TEXT = "Hello, how <|endoftext|><|endoftext|> are you?<|endoftext|>" + "x<|endoftext|>" * 3 + DOUBLE * 2


@pytest.mark.shared_data
def test_overlapping_special_tokens_match_tiktoken_with_the_extra_special(tiktoken_gpt2):
    """CS336 loads GPT-2 with <|endoftext|><|endoftext|> as a second special token: it takes
    the next id, 50257, and the longer one wins where both match, as tiktoken given the
    same special tokens encodes."""
    tiktoken = pytest.importorskip("tiktoken", reason="tiktoken is not installed")
    encoder, vocab = shared_file("gpt2/encoder.json"), shared_file("gpt2/vocab.bpe")
    ours = load_gpt2(encoder, vocab, special_tokens=["<|endoftext|>", DOUBLE])
    assert ours.special_tokens == {"<|endoftext|>": 50256, DOUBLE: 50257} and ours.vocab_size == 50258
    theirs = tiktoken.Encoding(
        "gpt2_double",
        pat_str=tiktoken_gpt2._pat_str,
        mergeable_ranks=tiktoken_gpt2._mergeable_ranks,
        special_tokens={"<|endoftext|>": 50256, DOUBLE: 50257},
    )
    ids = ours.encode(OVERLAPPING_TEXT, allowed_special="all")
    assert ids == theirs.encode(OVERLAPPING_TEXT, allowed_special="all")
    assert (ids.count(50256), ids.count(50257)) == (4, 3)
    assert ours.decode(ids) == OVERLAPPING_TEXT
    with pytest.raises(BpeError, match="which is disallowed"):
        ours.encode(OVERLAPPING_TEXT, disallowed_special="all")
    with pytest.raises(ValueError):
        theirs.encode(OVERLAPPING_TEXT)


def test_special_tokens_of_any_shape_join_the_files_own(tiny_files):
    tiny = load_gpt2(*tiny_files, special_tokens=["<|endoftext|>", DOUBLE, "[SEP]"])
    assert tiny.special_tokens == {"<|endoftext|>": ENDOFTEXT, DOUBLE: ENDOFTEXT + 1, "[SEP]": ENDOFTEXT + 2}
    text = f"hello{DOUBLE}[SEP]<|endoftext|> world"
    assert tiny.encode(text, allowed_special="all") == [HELLO, ENDOFTEXT + 1, ENDOFTEXT + 2, ENDOFTEXT, WORLD]
    with pytest.raises(BpeError, match="'hello' is an ordinary token"):
        load_gpt2(*tiny_files, special_tokens=["hello"])


def test_an_entry_named_as_a_special_token_may_have_any_shape(tmp_path):
    encoder = tiny_encoder()
    encoder["[SEP]"] = len(encoder)
    files = write_files(tmp_path / "sep", encoder=encoder)
    with pytest.raises(BpeError, match="nor a special token like"):
        load_gpt2(*files)
    assert load_gpt2(*files, special_tokens=["[SEP]"]).special_tokens == {"<|endoftext|>": ENDOFTEXT, "[SEP]": 278}


@pytest.mark.shared_data
def test_real_files_load_as_published(real_gpt2):
    assert (real_gpt2.vocab_size, len(real_gpt2.merges)) == (50257, 50000)
    assert real_gpt2.encode("hello world") == [31373, 995]
    assert real_gpt2.itos[50256] == b"<|endoftext|>"


@pytest.mark.shared_data
@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(text=st.text(max_size=200))
def test_ids_equal_tiktoken_on_any_unicode(real_gpt2, tiktoken_gpt2, text):
    assert real_gpt2.encode(text) == tiktoken_gpt2.encode_ordinary(text)


@pytest.mark.shared_data
def test_ids_equal_tiktoken_on_wikitext_test(real_gpt2, tiktoken_gpt2):
    text = shared_file("wikitext-2/test.txt").read_text(encoding="utf-8")
    assert real_gpt2.encode(text) == tiktoken_gpt2.encode_ordinary(text)


@pytest.mark.shared_data
def test_cli_compare_with_tiktoken_says_identical(tiktoken_gpt2, capsys):
    encoder, vocab = shared_file("gpt2/encoder.json"), shared_file("gpt2/vocab.bpe")
    assert (
        run_cli(
            [
                "gpt2",
                "encode",
                "--text",
                VARIED_TEXTS["emoji"],
                "--encoder",
                str(encoder),
                "--vocab",
                str(vocab),
                "--compare-tiktoken",
                "--no-ids",
            ]
        )
        == 0
    )
    out, err = capsys.readouterr()
    assert out == "" and "tiktoken gpt2: identical ids" in err


@pytest.mark.shared_data
def test_download_of_openai_files_over_loopback(server, tmp_path):
    for name in ("encoder.json", "vocab.bpe"):
        server.serve(f"/gpt-2/{name}", shared_file(f"gpt2/{name}").read_bytes())
    encoder, vocab = download_gpt2_files(tmp_path, base_url=server.url("/gpt-2"))  # the published hashes
    assert sha256(encoder) == GPT2_SHA256["encoder.json"] and sha256(vocab) == GPT2_SHA256["vocab.bpe"]


@pytest.mark.shared_data
def test_the_special_token_as_plain_text_is_tiktokens_encode_ordinary(real_gpt2, tiktoken_gpt2):
    """What the README says, call for call: plain `encode` here is tiktoken's `encode_ordinary`
    (and `encode(..., disallowed_special=())`); tiktoken's own plain `encode` raises."""
    text = "a<|endoftext|>b <|endoftext|>"
    plain = real_gpt2.encode(text)
    assert plain == tiktoken_gpt2.encode_ordinary(text) == tiktoken_gpt2.encode(text, disallowed_special=())
    assert len(plain) > 2 and 50256 not in plain
    with pytest.raises(ValueError, match="disallowed special token"):
        tiktoken_gpt2.encode(text)
    allowed = {"<|endoftext|>"}
    assert real_gpt2.encode(text, allowed_special=allowed) == tiktoken_gpt2.encode(
        text, allowed_special=allowed, disallowed_special=()
    )
    assert real_gpt2.encode(text, allowed_special=allowed).count(50256) == 2


def test_the_page_note_for_missing_files_is_short_and_names_no_server_path():
    from bpe.gpt2.files import gpt2_folders, missing_files_details, missing_files_note

    note, details = missing_files_note(), " ".join(missing_files_details())
    assert len(note) < 300 and "python -m bpe gpt2 download" in note
    assert "sha" not in note.lower() and "http" not in note
    assert "encoder.json" in details and GPT2_SHA256["vocab.bpe"] in details
    for folder in gpt2_folders():
        assert str(folder) not in note + details and str(folder.parent) not in note + details
