"""Which kind of tokenizer file is this, and load it: the one door for ``inspect``,
``encode`` (`load_any`) and the app's upload (`load_upload`).

Formats are told apart by content first, name second: a JSON object with a ``model`` is
Hugging Face's tokenizer.json; one with ``"type": "character_bpe"``/``"byte_bpe"`` is the
lab's own file; text starting ``minbpe v1`` is a minbpe model; lines of
``base64 rank`` are a tiktoken ranks file (which needs a pattern: given, or from the
settings file beside it); a zip is the app's tiktoken download, ranks and settings
together (`bpe.formats.tiktoken_bundle`).
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from bpe.errors import TokenizerFileError
from bpe.formats.fileio import MAX_TOKENS, load_json, read_limited
from bpe.formats.huggingface import hf_from_dict
from bpe.formats.minbpe import VERSION_LINE, load_minbpe_file, minbpe_from_bytes, refuse_sentencepiece
from bpe.formats.pretrained import PretrainedTokenizer
from bpe.formats.tiktoken_bundle import is_zip, tiktoken_from_zip
from bpe.formats.tiktoken_ranks import load_tiktoken_file, tiktoken_from_bytes
from bpe.io.budget import JSON_VALUES_PER_MERGE, MAX_TOTAL_TOKEN_BYTES, check_json_values
from bpe.tokenizer import BPETokenizer

LAB = "lab"
LAB_TYPES = ("character_bpe", "byte_bpe")
_RANK_LINE = re.compile(rb"^[A-Za-z0-9+/=]+ [0-9]+\r?$")


def detect_format(raw: bytes, file_name: str = "") -> str:
    """ "lab", "hf", "tiktoken" or "minbpe" from the file's first bytes (and its name); a
    SentencePiece model (also a ``.model``) is named as such and refused."""
    if is_zip(raw):
        return "tiktoken"  # the ranks and their settings, zipped
    refuse_sentencepiece(raw, name=file_name or "the file")
    head = bytes(raw[:4096]).lstrip(b"\xef\xbb\xbf").lstrip()
    if head.startswith(VERSION_LINE.encode()):
        return "minbpe"
    if head.startswith(b"{"):
        if re.search(rb'"type"\s*:\s*"(character_bpe|byte_bpe)"', head):
            return LAB
        return "hf"
    first = head.split(b"\n", 1)[0]
    if _RANK_LINE.match(first):
        return "tiktoken"
    name = file_name.lower()
    for suffix, kind in ((".tiktoken", "tiktoken"), (".model", "minbpe"), (".json", "hf")):
        if name.endswith(suffix):
            return kind
    raise TokenizerFileError(
        f"{file_name or 'the file'} is not a tokenizer file BPE Lab knows: expected a Hugging "
        "Face tokenizer.json, a .tiktoken ranks file, a minbpe .model or a BPE Lab tokenizer"
    )


def pretrained_from_bytes(
    raw: bytes,
    file_name: str,
    *,
    pattern: str | None = None,
    special_tokens: dict[str, int] | None = None,
    max_token_bytes: int = MAX_TOTAL_TOKEN_BYTES,
    max_merges: int | None = None,
) -> PretrainedTokenizer:
    """An uploaded tokenizer.json, .tiktoken (``pattern`` required: gpt2, gpt4, cl100k,
    none or a regex) or minbpe .model. A lab file is refused with a pointer to the lab's
    own loader (`bpe.tokenizer.BPETokenizer`). ``max_token_bytes``: the most its tokens
    may hold in all (`bpe.io.budget`); ``max_merges``: the most merges (a server's bound);
    both checked before anything is built."""
    kind = detect_format(raw, file_name)
    merge_limit = MAX_TOKENS if max_merges is None else max_merges
    if kind == "minbpe":
        return minbpe_from_bytes(
            raw, name=file_name or "the .model file", max_token_bytes=max_token_bytes, max_merges=merge_limit
        )
    if kind == "tiktoken" and is_zip(raw):
        return tiktoken_from_zip(
            raw, name=file_name or "the zip file", max_token_bytes=max_token_bytes, max_merges=merge_limit
        )
    if kind == "tiktoken":
        if pattern is None:
            raise TokenizerFileError(
                f"{file_name or 'the ranks file'} is a tiktoken ranks file, which holds no "
                "split pattern: choose one (gpt2, gpt4/cl100k, none or a regex)"
            )
        return tiktoken_from_bytes(
            raw,
            pattern=pattern,
            special_tokens=special_tokens,
            name=file_name or "the .tiktoken file",
            max_token_bytes=max_token_bytes,
            max_merges=max_merges,
        )
    data = load_json(raw, name=file_name or "tokenizer.json")
    if kind == LAB or (isinstance(data, dict) and data.get("type") in LAB_TYPES):
        raise TokenizerFileError(
            f"{file_name or 'the file'} is a BPE Lab tokenizer: load it with BPETokenizer.from_file"
        )
    return hf_from_dict(
        data,
        name=file_name or "tokenizer.json",
        fingerprint=hashlib.sha256(b"hf\0" + bytes(raw)).hexdigest(),
        max_token_bytes=max_token_bytes,
        max_merges=merge_limit,
    )


def load_any(path: str | os.PathLike[str], *, pattern: str | None = None):
    """A tokenizer from any file the lab reads: a `BPETokenizer` for the lab's own files,
    a `PretrainedTokenizer` for the others (``pattern`` for a .tiktoken file without
    settings beside it)."""
    name = str(path)
    if name.endswith(".model"):
        return load_minbpe_file(path)
    if name.endswith(".tiktoken"):
        return load_tiktoken_file(path, pattern=pattern)
    raw = read_limited(path, what="tokenizer file")
    kind = detect_format(raw, Path(name).name)
    if kind == LAB:
        return BPETokenizer.from_file(path)
    if kind == "tiktoken":
        return load_tiktoken_file(path, pattern=pattern)
    return pretrained_from_bytes(raw, name, pattern=pattern)


def load_upload(
    raw: bytes, name: str, *, pattern: str | None = None, max_bytes: int | None = None, max_merges: int | None = None
):
    """A tokenizer from an uploaded file of any kind the lab reads: its own file (a
    `BPETokenizer`, checked by `BPETokenizer.from_json_bytes`), or a Hugging Face, tiktoken
    (``pattern`` needed) or minbpe file (a `PretrainedTokenizer`). ``max_bytes`` and
    ``max_merges`` are what a server accepts (`bpe.storage.UPLOAD_MAX_BYTES`,
    `UPLOAD_MAX_MERGES`), for every kind alike; the tokens a file describes may then hold
    no more than ``max_bytes`` bytes in all (`bpe.io.budget`), checked before they are built."""
    if max_bytes is not None and len(raw) > max_bytes:  # before anything is read, whatever the kind
        raise TokenizerFileError(f"{name} is {len(raw):,} bytes; the most this server accepts is {max_bytes:,} bytes")
    kind = detect_format(raw, name)
    if max_merges is not None and kind in (LAB, "hf"):  # 5 MB of {} would be 1.7 million dicts
        check_json_values(raw, name=name, max_values=JSON_VALUES_PER_MERGE * max_merges)
    if kind == LAB:
        return BPETokenizer.from_json_bytes(raw, name=name, max_bytes=max_bytes, max_merges=max_merges)
    max_token_bytes = MAX_TOTAL_TOKEN_BYTES if max_bytes is None else max_bytes
    tokenizer = pretrained_from_bytes(
        raw, name, pattern=pattern, max_token_bytes=max_token_bytes, max_merges=max_merges
    )
    merges = len(tokenizer.itos) - len(tokenizer.base_tokens) - len(tokenizer.special_tokens)
    if max_merges is not None and merges > max_merges:
        raise TokenizerFileError(f"{name} has {merges:,} merged tokens; the most this server accepts is {max_merges:,}")
    return tokenizer
