"""Hugging Face tokenizer.json: export -> `tokenizers` loads it -> identical ids; files made by
`tokenizers` -> BPE Lab reads them -> identical ids; bad files -> one-line errors."""

from __future__ import annotations

import json

import pytest
from format_helpers import one_line, refused
from format_texts import MULTILINGUAL_HELD_OUT, MULTILINGUAL_TRAIN

from bpe.errors import TokenizerFileError, UnknownSymbolsError
from bpe.formats import export_and_prove, hf_from_bytes, load_hf_file, prove_import
from bpe.formats.export import export_files

tokenizers = pytest.importorskip("tokenizers")

PRETOKENIZERS = [None, "gpt2", "gpt4", "whitespace"]


# ==================== Export, then load with tokenizers


@pytest.mark.parametrize("alphabet", ["characters", "bytes"])
@pytest.mark.parametrize("pretokenizer", PRETOKENIZERS)
def test_export_loads_in_tokenizers_with_identical_ids_multilingual(tmp_path, trained, alphabet, pretokenizer):
    tokenizer = trained(alphabet, pretokenizer)
    report = export_and_prove(tokenizer, "hf", tmp_path / "tokenizer.json", check_text=MULTILINGUAL_HELD_OUT)
    assert report.proof.identical, report.proof.line
    assert report.proof.line.startswith("identical ids on ")
    assert report.lesson.exact  # no merge re-creates a token
    loaded = tokenizers.Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    assert loaded.get_vocab_size() == tokenizer.vocab_size
    text = MULTILINGUAL_TRAIN if alphabet == "bytes" else MULTILINGUAL_TRAIN.replace("\u200d", "")
    ids = tokenizer.encode(text)
    assert loaded.encode(text, add_special_tokens=False).ids == ids
    assert loaded.decode(ids) == text  # the decoder joins tokens back into the text


@pytest.mark.shared_data
@pytest.mark.parametrize("alphabet", ["characters", "bytes"])
@pytest.mark.parametrize("pretokenizer", [None, "gpt2"])
def test_export_is_identical_on_wikitext(tmp_path, wiki_trained, wikitext, alphabet, pretokenizer):
    tokenizer = wiki_trained(alphabet, pretokenizer)
    report = export_and_prove(tokenizer, "hf", tmp_path / "tokenizer.json", check_text=wikitext[1])
    assert report.proof.identical, report.proof.line
    assert report.proof.characters >= len(wikitext[1]) - report.proof.left_out_characters


def test_byte_level_export_spells_tokens_like_gpt2(trained):
    data = json.loads(export_files(trained("bytes", "gpt2"), "hf").main_bytes)
    assert data["model"]["vocab"]["Ġ"] == 32  # the space byte, spelled as GPT-2 does
    assert data["pre_tokenizer"]["type"] == "Sequence"
    assert [step["type"] for step in data["pre_tokenizer"]["pretokenizers"]] == ["Split", "ByteLevel"]
    assert data["pre_tokenizer"]["pretokenizers"][1]["use_regex"] is False


def test_character_export_has_no_byte_level_step(trained):
    data = json.loads(export_files(trained("characters", None), "hf").main_bytes)
    assert data["pre_tokenizer"] is None and data["decoder"] == {"type": "Fuse"}
    assert all(isinstance(pair, list) for pair in data["model"]["merges"])  # tokens may hold spaces


def test_gpt4_pattern_is_spelled_for_oniguruma(trained):
    data = json.loads(export_files(trained("bytes", "gpt4"), "hf").main_bytes)
    regex = data["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"]
    assert "(?>\\p{N}{1,3})" in regex  # Ruby reads \p{N}{1,3}+ as "one or more groups of 1-3 digits"
    loaded = tokenizers.Tokenizer.from_str(json.dumps(data))
    assert [piece for piece, _ in loaded.pre_tokenizer.pre_tokenize_str("1234567")] == ["123", "456", "7"]


# ==================== Files made by tokenizers, read by BPE Lab


def _hf_trained(
    tmp_path,
    *,
    pre_tokenizer,
    decoder=None,
    normalizer=None,
    byte_level=True,
    unk=None,
    ignore_merges=False,
    text=MULTILINGUAL_TRAIN * 3,
    vocab_size=700,
):
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    model = models.BPE(unk_token=unk, ignore_merges=ignore_merges) if unk else models.BPE(ignore_merges=ignore_merges)
    tokenizer = Tokenizer(model)
    tokenizer.pre_tokenizer = pre_tokenizer
    if decoder is not None:
        tokenizer.decoder = decoder
    if normalizer is not None:
        tokenizer.normalizer = normalizer
    specials = ["<|endoftext|>"] + ([unk] if unk else [])
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=specials,
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet() if byte_level else [],
    )
    tokenizer.train_from_iterator([text], trainer)
    path = tmp_path / "tokenizer.json"
    tokenizer.save(str(path))
    return path


def _library_cases():
    from tokenizers import Regex, decoders, normalizers, pre_tokenizers

    gpt4 = r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+"""
    return {
        "byte-level, GPT-2 regex": dict(
            pre_tokenizer=pre_tokenizers.ByteLevel(add_prefix_space=False), decoder=decoders.ByteLevel()
        ),
        "byte-level, prefix space": dict(pre_tokenizer=pre_tokenizers.ByteLevel(add_prefix_space=True)),
        "Split (Llama-3 style) + ByteLevel": dict(
            pre_tokenizer=pre_tokenizers.Sequence(
                [
                    pre_tokenizers.Split(Regex(gpt4), behavior="isolated"),
                    pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
                ]
            ),
            ignore_merges=True,
        ),
        "characters, Split on words": dict(
            pre_tokenizer=pre_tokenizers.Split(Regex(r"\s*\S+|\s+"), behavior="isolated"), byte_level=False
        ),
        "characters, NFC and unk": dict(
            pre_tokenizer=pre_tokenizers.Split(Regex(r"[^ ]+| +"), behavior="isolated"),
            normalizer=normalizers.NFC(),
            byte_level=False,
            unk="[UNK]",
        ),
        "characters, String split": dict(
            pre_tokenizer=pre_tokenizers.Split(" ", behavior="isolated"), byte_level=False
        ),
    }


@pytest.mark.parametrize("case", list(_library_cases()))
def test_files_made_by_tokenizers_encode_identically(tmp_path, case):
    path = _hf_trained(tmp_path, **_library_cases()[case])
    imported = load_hf_file(path)
    proof = prove_import(imported, "hf", path, MULTILINGUAL_HELD_OUT + MULTILINGUAL_TRAIN)
    assert proof.identical, proof.line
    assert imported.special_tokens["<|endoftext|>"] == 0  # tokenizers put its special token first
    loaded = tokenizers.Tokenizer.from_file(str(path))
    text = "hello <|endoftext|> world"
    if imported.alphabet == "bytes":
        assert imported.encode(text, allowed_special="all") == loaded.encode(text, add_special_tokens=False).ids


@pytest.mark.shared_data
def test_gpt2_as_a_tokenizers_file_encodes_identically(tmp_path, wikitext):
    from helpers import shared_file
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    model = models.BPE.from_file(str(shared_file("gpt2/encoder.json")), str(shared_file("gpt2/vocab.bpe")))
    gpt2 = Tokenizer(model)
    gpt2.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    gpt2.decoder = decoders.ByteLevel()
    path = tmp_path / "gpt2-tokenizer.json"
    gpt2.save(str(path))
    imported = load_hf_file(path)
    assert imported.vocab_size == 50257 and imported.pretokenizer == "gpt2"
    proof = prove_import(imported, "hf", path, wikitext[1])
    assert proof.identical, proof.line
    assert imported.encode("hello world") == [31373, 995]


def test_unknown_characters_without_unk_token_are_named(tmp_path):
    from tokenizers import Regex, pre_tokenizers

    path = _hf_trained(
        tmp_path,
        pre_tokenizer=pre_tokenizers.Split(Regex(r"\S+|\s+"), behavior="isolated"),
        byte_level=False,
        text="abc abc abd " * 20,
    )
    imported = load_hf_file(path)
    refused(imported.encode, "abcz", match="outside the tokenizer's vocabulary.*'z'", error=UnknownSymbolsError)


# ==================== Bad files


def _valid_hf(**model_changes) -> dict:
    data = {
        "version": "1.0",
        "added_tokens": [],
        "normalizer": None,
        "pre_tokenizer": None,
        "post_processor": None,
        "decoder": None,
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "vocab": {"a": 0, "b": 1, "ab": 2},
            "merges": [["a", "b"]],
        },
    }
    data["model"].update(model_changes)
    return data


def _nested_sequences(depth: int) -> dict:
    step: dict = {"type": "ByteLevel"}
    for _ in range(depth):
        step = {"type": "Sequence", "pretokenizers": [step]}
    return step


def _bytes(data) -> bytes:
    return json.dumps(data).encode()


def test_a_valid_minimal_file_loads():
    tokenizer = hf_from_bytes(_bytes(_valid_hf()), name="mini.json")
    assert tokenizer.encode("abba") == [2, 1, 0]
    assert tokenizer.alphabet == "characters" and tokenizer.merges == [("a", "b")]


BAD_FILES = {
    "not json": (b"{not json", "is not valid JSON"),
    "not utf-8": (b"\xff\xfe{}", "is not valid UTF-8"),
    "nested": (b"[" * 200_000 + b"]" * 200_000, "nested too deeply"),
    "a list": (b"[1, 2]", "holds a JSON list"),
    "no model": (b'{"version": "1.0"}', "has no 'model' object: it is not a Hugging Face tokenizer.json"),
    "a lab file's unknown type": (
        b'{"type": "foo", "base_tokens": ["a"], "merges": []}',
        "has 'type' 'foo' and no 'model' object: neither a BPE Lab tokenizer",
    ),
    "wordpiece": (_bytes({"model": {"type": "WordPiece", "vocab": {}}}), "model type is 'WordPiece'"),
    "vocab a list": (_bytes(_valid_hf(vocab=["a", "b"])), "model.vocab must be an object"),
    "negative id": (_bytes(_valid_hf(vocab={"a": -1, "b": 1, "ab": 2})), "has id -1"),
    "float id": (_bytes(_valid_hf(vocab={"a": 0.5, "b": 1, "ab": 2})), "has id 0.5"),
    "bool id": (_bytes(_valid_hf(vocab={"a": True, "b": 1, "ab": 2})), "has id True"),
    "huge id": (_bytes(_valid_hf(vocab={"a": 10**15, "b": 1, "ab": 2})), "has id 1000000000000000"),
    "shared id": (_bytes(_valid_hf(vocab={"a": 0, "b": 0, "ab": 2})), "id 0 is given to two tokens"),
    "duplicate token": (
        b'{"model": {"type": "BPE", "vocab": {"a": 0, "a": 1}, "merges": []}}',
        "the key 'a' appears twice",
    ),
    "merge of unknown": (_bytes(_valid_hf(merges=[["a", "c"]])), "needs 'c', which is not in the vocabulary"),
    "merge result unknown": (_bytes(_valid_hf(merges=[["b", "a"]])), "needs 'ba'"),
    "merge string": (_bytes(_valid_hf(merges=["ab"])), "not two tokens separated by one space"),
    "merge number": (_bytes(_valid_hf(merges=[5])), "a merge is \\[left, right\\]"),
    "merges not a list": (_bytes(_valid_hf(merges={"a": "b"})), "model.merges must be a list"),
    "dropout": (_bytes(_valid_hf(dropout=0.1)), "makes encoding random"),
    "byte fallback": (_bytes(_valid_hf(byte_fallback=True)), "byte_fallback"),
    "suffix": (_bytes(_valid_hf(end_of_word_suffix="</w>")), "end_of_word_suffix"),
    "unk missing": (_bytes(_valid_hf(unk_token="<unk>")), "unk_token '<unk>' is not in the vocabulary"),
    "metaspace": (_bytes({**_valid_hf(), "pre_tokenizer": {"type": "Metaspace"}}), "'Metaspace' is not supported"),
    "normalizer": (_bytes({**_valid_hf(), "normalizer": {"type": "Lowercase"}}), "'Lowercase' is not supported"),
    "normalizer type": (_bytes({**_valid_hf(), "normalizer": {"type": ["NFC"]}}), "\\['NFC'\\] is not supported"),
    "evil regex": (
        _bytes(
            {
                **_valid_hf(),
                "pre_tokenizer": {
                    "type": "Split",
                    "pattern": {"Regex": "(?:a|aa)+$"},
                    "behavior": "Isolated",
                    "invert": False,
                },
            }
        ),
        "catastrophic backtracking",
    ),
    "capturing regex": (
        _bytes(
            {
                **_valid_hf(),
                "pre_tokenizer": {
                    "type": "Split",
                    "pattern": {"Regex": "(a)"},
                    "behavior": "Isolated",
                    "invert": False,
                },
            }
        ),
        "capturing group",
    ),
    "removed split": (
        _bytes(
            {
                **_valid_hf(),
                "pre_tokenizer": {"type": "Split", "pattern": {"String": " "}, "behavior": "Removed", "invert": False},
            }
        ),
        "behavior 'Removed'",
    ),
    "byte level without bytes": (
        _bytes({**_valid_hf(), "pre_tokenizer": {"type": "ByteLevel"}}),
        "needs all 256 bytes",
    ),
    "added token clash": (
        _bytes({**_valid_hf(), "added_tokens": [{"id": 1, "content": "<s>"}]}),
        "added token '<s>' has id 1, which the vocabulary gives to 'b'",
    ),
    "nested sequences": (_bytes({**_valid_hf(), "pre_tokenizer": _nested_sequences(400)}), "nested more than 4 deep"),
    "escape in token": (_bytes(_valid_hf(merges=[["a", "\x1b[31m"]])), r"needs '\\x1b\[31m'"),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_bad_files_get_one_line_errors(case):
    raw, match = BAD_FILES[case]
    message = refused(hf_from_bytes, raw, name="upload.json", match=match, error=TokenizerFileError)
    assert message.startswith("upload.json")
    assert "\x1b" not in message


def test_files_too_large_or_not_files_are_refused_before_reading(tmp_path):
    huge = tmp_path / "huge.json"
    with open(huge, "wb") as handle:
        handle.truncate(65 * 1024 * 1024)  # sparse: nothing is written
    refused(
        load_hf_file,
        huge,
        match=r"is 68,157,440 bytes \(68.2 MB\), over the limit of 67,108,864 bytes",
        error=TokenizerFileError,
    )
    refused(load_hf_file, tmp_path, match="is a folder", error=TokenizerFileError)
    refused(load_hf_file, tmp_path / "missing.json", match="does not exist", error=TokenizerFileError)


def test_errors_name_the_file_in_one_line(tmp_path):
    path = tmp_path / "tok.json"
    path.write_bytes(b"{")
    with pytest.raises(TokenizerFileError) as caught:
        load_hf_file(path)
    assert str(path) in one_line(caught.value)
