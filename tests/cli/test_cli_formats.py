"""`python -m bpe export` (write another library's file, then prove it) and `encode`,
`decode`, `inspect` reading Hugging Face, tiktoken and minbpe files."""

from __future__ import annotations

import json

import pytest

from bpe import BPETokenizer
from bpe.cli.main import main
from bpe.formats import load_any

TRAIN = (
    "the cat sat on the mat; the dog ate the hat. Émile's café is naïve 🙂 — 12,345 tokens!\n"
    "Les chats dorment. Кошки спят. 猫が寝ている。\n"
) * 30
HELD_OUT = "the hat sat on the cat; the café is naïve 🙂. Кошки! 猫。\n" * 20
AND_TEXT = "and band sand hand and\n"


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """``saved(alphabet, pretokenizer)``: a trained tokenizer's file (trained once per module)."""
    folder = tmp_path_factory.mktemp("tokenizers")
    made = {}

    def make(alphabet: str, pretokenizer: str | None = None):
        key = (alphabet, pretokenizer)
        if key not in made:
            tok = BPETokenizer.train(TRAIN, target_vocab_size=400, alphabet=alphabet, pretokenizer=pretokenizer)
            path = folder / f"{alphabet}-{pretokenizer}.json"
            tok.save(path)
            made[key] = path, tok
        return made[key]

    return make


@pytest.fixture
def held_out(tmp_path):
    path = tmp_path / "held_out.txt"
    path.write_text(HELD_OUT, encoding="utf-8")
    return path


def run(capsys, *argv):
    status = main([str(arg) for arg in argv])
    out, err = capsys.readouterr()
    return status, out, err


# ==================== export


@pytest.mark.parametrize(
    "alphabet, fmt, name",
    [
        ("characters", "hf", "tokenizer.json"),
        ("bytes", "hf", "tokenizer.json"),
        ("bytes", "tiktoken", "lab.tiktoken"),
        ("bytes", "minbpe", "lab.model"),
    ],
)
def test_export_writes_the_file_and_proves_identical_ids(capsys, tmp_path, saved, held_out, alphabet, fmt, name):
    path, tok = saved(alphabet, "gpt2")
    status, out, err = run(
        capsys, "export", "--tokenizer", path, "--format", fmt, "--output", tmp_path / name, "--check-text", held_out
    )
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0] == f"wrote {tmp_path / name}"
    assert lines[-1].startswith("identical ids on ")
    checked = int(lines[-1].split()[3].replace(",", ""))
    assert checked >= len(HELD_OUT) if alphabet == "bytes" else checked > 0
    assert (tmp_path / name).is_file()
    if fmt == "tiktoken":
        assert json.loads((tmp_path / "lab.tiktoken.json").read_text())["pat_str"]
    back = load_any(tmp_path / name)  # and BPE Lab reads its own export back, id for id
    assert back.encode(HELD_OUT) == tok.encode(HELD_OUT)


def test_the_tiktoken_proof_writes_nothing_into_tiktokens_cache(capsys, tmp_path, saved, monkeypatch):
    cache = tmp_path / "tiktoken-cache"
    cache.mkdir()
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(cache))  # where load_tiktoken_bpe would put its copy
    path, _ = saved("bytes", "gpt2")
    status, out, _ = run(
        capsys, "export", "--tokenizer", path, "--format", "tiktoken", "--output", tmp_path / "out" / "lab.tiktoken"
    )
    assert status == 0 and "identical ids" in out
    assert list(cache.iterdir()) == []
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["lab.tiktoken", "lab.tiktoken.json"]


@pytest.mark.parametrize("fmt", ["tiktoken", "minbpe"])
def test_a_character_tokenizer_is_refused_for_byte_formats_saying_why(capsys, tmp_path, saved, fmt):
    path, _ = saved("characters")
    status, out, err = run(capsys, "export", "--tokenizer", path, "--format", fmt, "--output", tmp_path / "x.model")
    assert status == 1 and out == ""
    assert err.startswith(f"error: {fmt} works on bytes, and this tokenizer's alphabet is characters")
    assert "Traceback" not in err and not list(tmp_path.iterdir())


def test_a_difference_is_reported_with_the_text_around_it(capsys, tmp_path, held_out):
    # 'and' learned as 'a' + 'nd', after 'a' + 'n': the lab leaves 'an' 'd'; tiktoken joins them.
    tok = BPETokenizer([bytes([b]) for b in range(256)], [(b"a", b"n"), (b"n", b"d"), (b"a", b"nd")], alphabet="bytes")
    tok.save(tmp_path / "and.json")
    check = tmp_path / "and.txt"
    check.write_text(AND_TEXT, encoding="utf-8")
    status, out, _ = run(
        capsys,
        "export",
        "--tokenizer",
        tmp_path / "and.json",
        "--format",
        "tiktoken",
        "--output",
        tmp_path / "and.tiktoken",
        "--check-text",
        check,
    )
    assert status == 1
    assert "1 token can also be made from another pair of tokens" in out
    assert "'and', a token's own text: lab 'an' 'd'  vs  library 'and'" in out
    assert "1 distinct chunk of the sample (1 differ" in out  # no pre-tokenizer: the line is one chunk
    last = out.splitlines()[-1]
    assert last.startswith("first difference in 'held-out text' at character 0 (token 0): …▸and band")
    assert "BPE Lab: 256:'an' 100:'d'" in last and "tiktoken 0." in last


def test_minbpe_output_must_end_in_model(capsys, tmp_path, saved):
    path, _ = saved("bytes")
    status, _, err = run(capsys, "export", "--tokenizer", path, "--format", "minbpe", "--output", tmp_path / "x.txt")
    assert status == 1 and "must be named *.model" in err


def test_no_proof_writes_only(capsys, tmp_path, saved):
    path, _ = saved("bytes")
    status, out, _ = run(
        capsys, "export", "--tokenizer", path, "--format", "hf", "--output", tmp_path / "t.json", "--no-proof"
    )
    assert status == 0 and "identical" not in out and (tmp_path / "t.json").is_file()


@pytest.mark.parametrize(
    "fmt, output, written",
    [
        ("hf", "lab.json", "--output"),
        ("tiktoken", "lab.json", "--output"),
        ("tiktoken", "lab", "the settings file beside --output"),  # lab + .json
        ("minbpe", "text.model", "--output"),
    ],
)
def test_export_never_writes_over_a_file_it_reads(capsys, tmp_path, saved, fmt, output, written):
    path, _ = saved("bytes")
    (tmp_path / "lab.json").write_bytes(path.read_bytes())
    (tmp_path / "text.model").write_text(HELD_OUT, encoding="utf-8")  # a check text with a model's name
    before = {file.name: file.read_bytes() for file in tmp_path.iterdir()}
    status, out, err = run(
        capsys,
        "export",
        "--tokenizer",
        tmp_path / "lab.json",
        "--format",
        fmt,
        "--output",
        tmp_path / output,
        "--check-text",
        tmp_path / "text.model",
    )
    read = "--check-text" if output == "text.model" else "--tokenizer"
    assert status == 1 and out == ""
    assert err.startswith(f"error: {written} '{tmp_path}{'/'}") and f"is {read} '{tmp_path}" in err
    assert err.endswith("the file it reads: writing it would replace that; choose another path\n")
    assert {file.name: file.read_bytes() for file in tmp_path.iterdir()} == before


# ==================== encode, decode, inspect on other libraries' files


@pytest.fixture(scope="module")
def exported(saved, tmp_path_factory):
    """The byte-level GPT-2-split tokenizer exported to all three formats (no proof)."""
    folder = tmp_path_factory.mktemp("exported")
    path, tok = saved("bytes", "gpt2")
    for fmt, name in (("hf", "tokenizer.json"), ("tiktoken", "lab.tiktoken"), ("minbpe", "lab.model")):
        assert (
            main(["export", "--tokenizer", str(path), "--format", fmt, "--output", str(folder / name), "--no-proof"])
            == 0
        )
    return folder, tok


@pytest.mark.parametrize("name", ["tokenizer.json", "lab.tiktoken", "lab.model"])
def test_encode_and_decode_read_other_formats(capsys, exported, name):
    folder, tok = exported
    capsys.readouterr()
    status, out, _ = run(capsys, "encode", "--tokenizer", folder / name, "--text", HELD_OUT)
    assert status == 0
    ids = [int(word) for word in out.split()]
    assert ids == tok.encode(HELD_OUT)
    status, out, _ = run(capsys, "decode", "--tokenizer", folder / name, "--ids", *ids)
    assert status == 0 and out == HELD_OUT + "\n"


@pytest.mark.parametrize(
    "name, kind", [("tokenizer.json", "'hf'"), ("lab.tiktoken", "'tiktoken'"), ("lab.model", "'minbpe'")]
)
def test_inspect_reads_other_formats(capsys, exported, name, kind):
    folder, tok = exported
    capsys.readouterr()
    status, out, _ = run(capsys, "inspect", "--tokenizer", folder / name, "--first", 3, "--longest", 2)
    assert status == 0
    assert f"format={kind}" in out and f"vocab_size={tok.vocab_size}" in out
    first = tok.merges[0]
    assert f"Merge 1: {first[0].decode()!r} + {first[1].decode()!r}" in out


def test_a_ranks_file_without_settings_needs_a_pattern(capsys, exported, tmp_path):
    folder, tok = exported
    bare = tmp_path / "bare.tiktoken"
    bare.write_bytes((folder / "lab.tiktoken").read_bytes())
    status, _, err = run(capsys, "encode", "--tokenizer", bare, "--text", "the cat")
    assert (
        status == 1
        and "give its split pattern (gpt2, gpt4, cl100k, none or a regex; --pattern on the command line)" in err
    )
    status, out, _ = run(capsys, "encode", "--tokenizer", bare, "--pattern", "gpt2", "--text", HELD_OUT)
    assert status == 0 and [int(w) for w in out.split()] == tok.encode(HELD_OUT)
    status, _, err = run(capsys, "encode", "--tokenizer", bare, "--pattern", "(a", "--text", "x")
    assert status == 1 and err.startswith("error: ") and "Traceback" not in err


@pytest.mark.parametrize(
    "name, data, message",
    [
        ("cut.json", b'{"model": {"type": "BPE", "vocab": {"a": 0', "is not valid JSON"),
        ("deep.json", b"[" * 100_000, "is JSON nested too deeply"),
        ("bad.tiktoken", b"!!!! 0\n", "is not base64"),
        ("bad.model", b"minbpe v1\n\n1\n", "bad.model"),
        ("noise.bin", b"\x00\x01\x02", "is not a tokenizer file BPE Lab knows"),
    ],
)
def test_bad_files_get_one_clear_line(capsys, tmp_path, name, data, message):
    path = tmp_path / name
    path.write_bytes(data)
    status, out, err = run(capsys, "inspect", "--tokenizer", path, "--pattern", "gpt2")
    assert status == 1 and out == ""
    assert err.startswith("error: ") and message in err and len(err.strip().splitlines()) == 1
