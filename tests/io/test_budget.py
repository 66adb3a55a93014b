"""What a tokenizer file from a stranger may cost (`bpe.io.budget`), in every format.

A small file can describe huge tokens (minbpe names a merge's halves by id, so each line
may double a token's length) or huge parsed structures (60 MB of ``{}``). Each reader
refuses such a file in one line naming the bound, before it builds anything: these tests
time and trace the refusals, so a reader that builds first fails them.
"""

from __future__ import annotations

import base64
import json
import time
import tracemalloc

import pytest

from bpe.errors import BpeError, TokenizerFileError
from bpe.formats import load_any, load_upload, minbpe_from_bytes, tiktoken_from_bytes
from bpe.formats.huggingface import hf_from_dict
from bpe.gpt2.files import parse_gpt2_files
from bpe.io.budget import MAX_JSON_VALUES, MAX_TOKEN_LENGTH, MAX_TOTAL_TOKEN_BYTES, check_token_lengths, merged_lengths
from bpe.storage import UPLOAD_MAX_BYTES, UPLOAD_MAX_MERGES, parse_tokenizer_json, tokenizer_data_from_dict

LONGEST = f"the longest BPE Lab accepts is {MAX_TOKEN_LENGTH:,} bytes"


def model(merge_lines: list[str], *, pattern: str = "") -> bytes:
    return ("\n".join(["minbpe v1", pattern, "0", *merge_lines]) + "\n").encode()


def doubling(lines: int) -> bytes:
    """Each merge joins the newest token with itself: 2 ** (lines + 1) bytes, in ~9 bytes a line."""
    return model(["97 97"] + [f"{256 + k} {256 + k}" for k in range(lines - 1)])


def chain(lines: int) -> bytes:
    """Each merge adds one byte to the newest token: lines ** 2 / 2 bytes in all."""
    return model(["97 97"] + [f"{256 + k} 97" for k in range(lines - 1)])


def wide(chains: int = 256, length: int = 2048) -> bytes:
    """256 tokens of 2,048 bytes (doubled from each byte), then their pairs: 65,536 tokens of
    4,096 bytes, each within the length bound; 268 MB in all, from an 800 KB file."""
    lines, ids, next_id = [], [], 256
    for byte in range(chains):
        current, size = byte, 1
        while size < length:
            lines.append(f"{current} {current}")
            current, next_id, size = next_id, next_id + 1, size * 2
        ids.append(current)
    for left in ids:
        for right in ids:
            lines.append(f"{left} {right}")
    return model(lines)


def refused_quickly(load, match: str, *, seconds: float = 5.0, peak_bytes: int | None = 64 * 1024 * 1024) -> None:
    """``load()`` raises `TokenizerFileError` matching ``match``, in one line, within ``seconds``
    (generous: the machine is shared; building first took 36 s and more); run again under
    tracemalloc, it allocates at most ``peak_bytes`` on the way (None: not traced, for
    files whose parse alone is slow under tracemalloc)."""
    started = time.perf_counter()
    with pytest.raises(TokenizerFileError, match=match) as refused:
        load()
    elapsed = time.perf_counter() - started
    assert "\n" not in str(refused.value)
    assert elapsed < seconds, f"refused after {elapsed:.1f} s"
    if peak_bytes is None:
        return
    tracemalloc.start()
    try:
        with pytest.raises(TokenizerFileError):
            load()
        _size, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < peak_bytes, f"peak {peak / 1e6:.0f} MB before the refusal"


# ==================== minbpe: merges that name their halves by id


@pytest.mark.parametrize("lines", [13, 40, 400])
def test_a_minbpe_model_that_doubles_a_token_is_refused_at_the_line_that_goes_too_far(lines):
    raw = doubling(lines)
    assert len(raw) < 4000
    # line 4 makes 2 bytes; line 4 + k makes 2 ** (k + 1): 8,192 on line 16
    refused_quickly(lambda: minbpe_from_bytes(raw, name="double.model"), rf"line 16 \(id 268\).*{LONGEST}")


def test_a_chain_of_50000_merges_is_refused_before_anything_is_built():
    raw = chain(50_000)
    assert len(raw) < 500_000  # inside every file limit
    refused_quickly(
        lambda: minbpe_from_bytes(raw, name="chain.model"), f"line 4,099 .*4,097 bytes; {LONGEST}", peak_bytes=None
    )


def test_tokens_within_the_length_bound_are_still_bounded_in_all():
    raw = wide()
    refused_quickly(
        lambda: minbpe_from_bytes(raw, name="wide.model"),
        f"its tokens hold .* bytes in all; the most BPE Lab accepts is {MAX_TOTAL_TOKEN_BYTES:,} bytes of tokens",
        peak_bytes=None,
    )


@pytest.mark.parametrize("make", [doubling, chain, wide], ids=["doubling", "chain", "wide"])
def test_the_upload_refuses_them_in_one_line_within_its_own_bound(make):
    raw = make(40) if make is doubling else make(50_000) if make is chain else make()
    refused_quickly(
        lambda: load_upload(raw, "evil.model", max_bytes=UPLOAD_MAX_BYTES, max_merges=UPLOAD_MAX_MERGES),
        "evil.model",
        peak_bytes=None if make is not doubling else 64 * 1024 * 1024,
    )


def test_the_upload_holds_its_tokens_to_the_upload_limit(tmp_path):
    # 3,000 chained tokens hold 4.5 MB: within the length bound and the file bound, over an upload's
    raw = chain(3_200)
    with pytest.raises(TokenizerFileError, match=f"the most BPE Lab accepts is {UPLOAD_MAX_BYTES:,} bytes of tokens"):
        load_upload(raw, "chain.model", max_bytes=UPLOAD_MAX_BYTES, max_merges=UPLOAD_MAX_MERGES)
    path = tmp_path / "chain.model"
    path.write_bytes(raw)
    assert load_any(path).vocab_size == 256 + 3_200  # from disk the bound is the file bound


def test_the_command_line_says_the_bound_in_one_line(tmp_path, capsys):
    from bpe.cli.main import main

    path = tmp_path / "double.model"
    path.write_bytes(doubling(40))
    assert main(["inspect", "--tokenizer", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and LONGEST in err


# ==================== The other formats, which spell their tokens out


def test_hugging_face_tokens_are_bounded_one_by_one_and_in_all():
    vocab = {chr(0x4E00 + i): i for i in range(300)}
    long_token = "".join(chr(0x4E00 + i % 300) for i in range(MAX_TOKEN_LENGTH + 1))
    data = {"model": {"type": "BPE", "vocab": {**vocab, long_token: 300}, "merges": []}}
    with pytest.raises(TokenizerFileError, match="vocabulary entry 301 makes a token of 4,097 characters"):
        hf_from_dict(data, name="t.json")
    data = {"model": {"type": "BPE", "vocab": vocab, "merges": []}}
    with pytest.raises(TokenizerFileError, match="by vocabulary entry 101 its tokens hold 101 characters in all"):
        hf_from_dict(data, name="t.json", max_token_bytes=100)
    assert hf_from_dict(data, name="t.json", max_token_bytes=300).vocab_size == 300


def ranks_file(extra: list[bytes]) -> bytes:
    tokens = [bytes([value]) for value in range(256)] + extra
    return b"".join(base64.b64encode(token) + b" %d\n" % rank for rank, token in enumerate(tokens))


def test_tiktoken_tokens_are_bounded_one_by_one_and_in_all():
    with pytest.raises(TokenizerFileError, match=f"line 257 makes a token of 4,097 bytes; {LONGEST}"):
        tiktoken_from_bytes(ranks_file([b"a" * (MAX_TOKEN_LENGTH + 1)]), pattern="none", name="r.tiktoken")
    raw = ranks_file([b"a" * 4000, b"b" * 4000])
    with pytest.raises(TokenizerFileError, match="by line 258 its tokens hold 8,256 bytes in all"):
        tiktoken_from_bytes(raw, pattern="none", name="r.tiktoken", max_token_bytes=8_000)
    assert tiktoken_from_bytes(raw, pattern="none", name="r.tiktoken").vocab_size == 258


def lab_file(merges: list[list[str]]) -> dict:
    from bpe.storage import _fingerprint_of_spelled

    base = ["a"]
    return {
        "type": "character_bpe",
        "base_tokens": base,
        "merges": merges,
        "vocab_size": 1 + len(merges),
        "fingerprint": _fingerprint_of_spelled(base, merges, None),
    }


def test_lab_files_are_bounded_by_what_their_merges_spell():
    merges, token = [], "a"
    for _ in range(12):  # a token of 4,096 characters: long tokens are the lab's own right
        merges.append([token, token])
        token += token
    data = lab_file(merges)
    assert tokenizer_data_from_dict(data).vocab_size() == 13
    with pytest.raises(TokenizerFileError, match="by merge 12 its tokens hold 8,190 characters in all"):
        tokenizer_data_from_dict(data, name="lab.json", max_token_bytes=8_000)
    raw = json.dumps(data).encode()
    assert parse_tokenizer_json(raw, max_bytes=len(raw)).vocab_size() == 13


def test_gpt2_files_are_bounded(tmp_path):
    from bpe.alphabet import bytes_to_unicode

    spelled = list(bytes_to_unicode().values())
    encoder = {token: i for i, token in enumerate(spelled)}
    encoder["a" * (MAX_TOKEN_LENGTH + 1)] = 256
    (tmp_path / "encoder.json").write_text(json.dumps(encoder))
    (tmp_path / "vocab.bpe").write_text("#version: 0.2\n")
    with pytest.raises(BpeError, match=f"entry 257 makes a token of 4,097 bytes; {LONGEST}"):
        parse_gpt2_files(tmp_path / "encoder.json", tmp_path / "vocab.bpe")
    (tmp_path / "encoder.json").write_text(json.dumps({token: i for i, token in enumerate(spelled)}))
    (tmp_path / "vocab.bpe").write_bytes(b"#version: 0.2\n" + b"\n" * 4_000_000)
    refused_quickly(
        lambda: parse_gpt2_files(tmp_path / "encoder.json", tmp_path / "vocab.bpe"),
        "has 4,000,001 lines; it holds one merge per line",
    )


# ==================== Parsed structures: counted before they are built


def test_json_of_empty_objects_is_refused_before_it_is_parsed(tmp_path):
    raw = b"[" + b"{}," * (MAX_JSON_VALUES // 2) + b"{}]"
    path = tmp_path / "braces.json"
    path.write_bytes(raw)
    # parsed, these would be 3 million dicts (about 200 MB)
    refused_quickly(lambda: load_any(path), "braces.json holds about .* JSON values", peak_bytes=len(raw) * 3)
    refused_quickly(lambda: load_upload(raw, "braces.json"), "refused before it is parsed", peak_bytes=len(raw) * 3)
    lab = b'{"type": "character_bpe", "merges": [' + b"[]," * (MAX_JSON_VALUES // 2) + b"[]]}"
    refused_quickly(lambda: parse_tokenizer_json(lab), "JSON values", peak_bytes=len(lab) * 3)


def test_an_upload_of_json_is_held_to_what_its_merge_bound_allows():
    raw = b"[" + b"{}," * 1_600_000 + b"{}]"  # under the upload's 5 MB: 1.6 million dicts once parsed
    assert len(raw) < UPLOAD_MAX_BYTES
    refused_quickly(
        lambda: load_upload(raw, "braces.json", max_bytes=UPLOAD_MAX_BYTES, max_merges=UPLOAD_MAX_MERGES),
        "braces.json holds about 3,200,002 JSON values; a tokenizer file holds at most 600,000",
        peak_bytes=len(raw) * 3,
    )


@pytest.mark.parametrize("name, head", [("blank.tiktoken", b""), ("blank.model", b"minbpe v1\n\n0\n")])
@pytest.mark.parametrize("newline", [b"\n", b"\r", b"\r\n"], ids=["LF", "CR", "CRLF"])
def test_files_of_blank_lines_are_refused_before_they_are_split(tmp_path, name, head, newline):
    path = tmp_path / name
    path.write_bytes(head + newline * 2_100_000)
    refused_quickly(lambda: load_any(path, pattern="none"), f"{name} has .* lines", peak_bytes=40 * 1024 * 1024)


def test_separators_str_splitlines_knows_cost_no_list_of_lines(tmp_path):
    # \x1c is a line break to str.splitlines, not to tiktoken (bytes.splitlines): one long line
    path = tmp_path / "fs.tiktoken"
    path.write_bytes(b"\x1c" * 5_000_000)
    refused_quickly(lambda: load_any(path, pattern="none"), "line 1", peak_bytes=40 * 1024 * 1024)


def test_the_checks_are_linear():
    started = time.perf_counter()
    assert check_token_lengths(merged_lengths([1] * 256, [(97, 98)] * 1_000_000), name="x") == 2_000_000
    assert time.perf_counter() - started < 2.0
