"""Hugging Face ``tokenizer.json`` (BPE models): export, and a reader for pretrained files.

Export writes what ``tokenizers.Tokenizer.from_file`` loads:

- a ``BPE`` model with the lab's vocabulary (token -> id, the same ids) and merges, as
  ``[left, right]`` pairs (a token may hold a space, so not the old ``"left right"``);
- character alphabet: no byte-level step; the pre-tokenizer, if any, is a ``Split``
  with the lab's pattern (spelled for Oniguruma, `bpe.formats.patterns.to_oniguruma`),
  and a ``Fuse`` decoder (tokens are joined as they are);
- byte alphabet: tokens spelled with GPT-2's byte-to-unicode table (a space is ``Ġ``)
  and a ``ByteLevel`` pre-tokenizer without its own regex or prefix space, after the
  ``Split`` when there is a pattern; a ``ByteLevel`` decoder.

A pair learned twice is written once (``tokenizers`` would keep the later rank). Hugging
Face merges the lowest-ranked pair present, whenever it was formed; the lab replays
merges in order, so the two differ only where a merge re-creates a token that already
exists (`bpe.formats.merges_vs_ranks` lists those).

Import (`load_hf_file`, `hf_from_bytes`) reads BPE tokenizer.json files: ``ByteLevel``
(with or without its GPT-2 regex and prefix space), ``Split`` (Isolated) and
``Sequence`` of them as pre-tokenizer, Unicode normalizers (NFC, NFD, NFKC, NFKD), and
``ignore_merges``, ``unk_token``, ``fuse_unk``. Anything else (WordPiece, Unigram,
Metaspace, byte fallback, dropout, subword prefixes) is refused with a message naming
it. Added tokens become special tokens, matched in any text as `tokenizers` matches them
(``allowed_special`` says otherwise, as tiktoken's does);
post-processors and decoders are not applied. No ``tokenizers`` import is needed.
"""

from __future__ import annotations

import hashlib
import json
import os
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bpe.alphabet import BYTES, CHARACTERS, bytes_to_unicode, gpt2_spelling, unicode_to_bytes
from bpe.errors import PatternError, TokenizerFileError, UnknownSymbolsError
from bpe.formats.fileio import MAX_TOKENS, load_json, quoted, read_limited
from bpe.formats.patterns import GPT2_ORIGINAL_PATTERN, check_pattern, from_oniguruma, pretokenizer_for, to_oniguruma
from bpe.formats.pretrained import PretrainedTokenizer
from bpe.formats.rules import hf_merge, hf_merge_map
from bpe.io.budget import MAX_TOTAL_TOKEN_BYTES, check_token_lengths
from bpe.pretokenize import NAMED_PATTERNS, pattern_for
from bpe.text import shown_value
from bpe.wording import counted

FORMAT = "hf"
NORMALIZERS = {"NFC", "NFD", "NFKC", "NFKD"}
# Hugging Face's two whitespace pre-tokenizers, as the regexes they are (tokenizers'
# pre_tokenizers/whitespace.rs): the matches are kept, the whitespace between them removed.
WHITESPACE_PRE_TOKENIZERS = {"Whitespace": r"\w+|[^\w\s]+", "WhitespaceSplit": r"\S+"}


# ====================
# Export


def export_hf(tokenizer) -> tuple[str, list[int]]:
    """The tokenizer.json text for a lab tokenizer, and the numbers (1-based) of merges left
    out because the same pair was learned earlier. Special tokens are ``added_tokens``
    (``special: true``) with their ids, and in the vocabulary as their own text, as Hugging
    Face's trainer and GPT-2's file hold ``<|endoftext|>``: it finds an added token's id by
    its text."""
    byte_level = tokenizer.alphabet == BYTES
    spell = gpt2_spelling if byte_level else (lambda token: token)
    specials = getattr(tokenizer, "special_tokens", {})
    special_ids = set(specials.values())
    vocab = {spell(token): token_id for token_id, token in enumerate(tokenizer.tokens) if token_id not in special_ids}
    vocab.update(specials)
    merges = []
    seen = set()
    left_out = []
    for number, pair in enumerate(tokenizer.merges, start=1):
        if pair in seen:
            left_out.append(number)
            continue
        seen.add(pair)
        merges.append([spell(pair[0]), spell(pair[1])])
    pattern = pattern_for(tokenizer.pretokenizer)
    steps = []
    if pattern is not None:
        steps.append(
            {"type": "Split", "pattern": {"Regex": to_oniguruma(pattern)}, "behavior": "Isolated", "invert": False}
        )
    if byte_level:
        steps.append({"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False})
    pre_tokenizer = None if not steps else steps[0] if len(steps) == 1 else {"type": "Sequence", "pretokenizers": steps}
    decoder = (
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}
        if byte_level
        else {"type": "Fuse"}
    )
    data = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {
                "id": token_id,
                "content": special,
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
            for special, token_id in specials.items()
        ],
        "normalizer": None,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": None,
        "decoder": decoder,
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": False,
            "vocab": dict(sorted(vocab.items(), key=lambda item: item[1])),
            "merges": merges,
        },
    }
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n", left_out


# ====================
# Import


def load_hf_file(path: str | os.PathLike[str]) -> PretrainedTokenizer:
    """A Hugging Face tokenizer.json (BPE model) from disk."""
    return hf_from_bytes(read_limited(path, what="tokenizer.json"), name=str(path))


def hf_from_bytes(
    raw: bytes, *, name: str = "tokenizer.json", max_token_bytes: int = MAX_TOTAL_TOKEN_BYTES
) -> PretrainedTokenizer:
    """A tokenizer.json from its bytes (an upload)."""
    data = load_json(raw, name=name)
    digest = hashlib.sha256(b"hf\0" + bytes(raw)).hexdigest()
    return hf_from_dict(data, name=name, fingerprint=digest, max_token_bytes=max_token_bytes)


def hf_from_dict(
    data,
    *,
    name: str = "tokenizer.json",
    fingerprint: str | None = None,
    max_token_bytes: int = MAX_TOTAL_TOKEN_BYTES,
    max_merges: int = MAX_TOKENS,
) -> PretrainedTokenizer:
    """A `PretrainedTokenizer` from a parsed tokenizer.json; its vocabulary may hold at most
    ``max_token_bytes`` characters in all and `bpe.io.budget.MAX_TOKEN_LENGTH` a token, its
    merge list at most ``max_merges`` merges, checked before anything is built.

    The file is read in the order its parts depend on one another: the model (a BPE model,
    without options BPE Lab cannot honour), the normalizer and pre-tokenizer, the
    vocabulary and added tokens, the unknown token, the merges; then the encoder is built
    for a byte-level or a character-level vocabulary."""
    model = _bpe_model(data, name)
    normalize = _normalizer(data.get("normalizer"), name)
    pattern, byte_level, prefix_space, drop_whitespace = _pre_tokenizer(data.get("pre_tokenizer"), name)
    notes = []
    if drop_whitespace:
        notes.append("its Whitespace pre-tokenizer drops whitespace: decoding gives the text without it")
    if data.get("post_processor") is not None:
        notes.append("its post-processor (tokens it adds around the text, such as <s>) is not applied")
    vocab, itos, by_text, specials = _vocabulary(data, model, name, max_token_bytes)
    unk = model.get("unk_token")
    if unk is not None and (not isinstance(unk, str) or unk not in by_text):
        raise TokenizerFileError(f"{name}: unk_token {_shown(unk)} is not in the vocabulary")
    unk_id = None if unk is None else by_text[unk]
    merges_as_ids, merge_pairs = _merges(model.get("merges"), by_text, name, max_merges)
    build = _byte_level_encoder if byte_level else _character_encoder
    encoder = build(model, itos, by_text, unk_id, merges_as_ids, merge_pairs, name)
    if fingerprint is None:
        fingerprint = hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()

    def with_merges(count: int) -> PretrainedTokenizer:
        kept_merges = merge_pairs[:count]
        kept = {text for text in by_text if len(text) == 1 or text == unk}
        kept.update(left + right for left, right in kept_merges)
        shorter = dict(
            data,
            added_tokens=[],
            model=dict(
                model, merges=[list(pair) for pair in kept_merges], vocab={t: i for t, i in vocab.items() if t in kept}
            ),
        )
        digest = hashlib.sha256(f"{fingerprint}:{count}".encode()).hexdigest()
        return hf_from_dict(shorter, name=f"{name} [:{count}]", fingerprint=digest)

    return PretrainedTokenizer(
        name=_display_name(name),
        source_format=FORMAT,
        alphabet=encoder.alphabet,
        pretokenizer=pattern,
        itos=encoder.tokens,
        merge=encoder.merge,
        whole=encoder.whole,
        merges=encoder.pairs,
        special_tokens=specials,
        fingerprint=fingerprint,
        normalize=normalize,
        prefix_space=prefix_space,
        drop_whitespace=drop_whitespace,
        cut=not (unk_id is not None and model.get("fuse_unk")),
        notes=notes,
        with_merges=with_merges,
        # `tokenizers` cuts every added token out of any text before the rest is split, so
        # "hi<|endoftext|>" is [.., its id] there: the same here unless told otherwise.
        allowed_special_by_default="all",
    )


def _bpe_model(data, name: str) -> dict:
    """The file's ``model`` object, once it is a BPE model with options BPE Lab honours."""
    if not isinstance(data, dict):
        raise TokenizerFileError(f"{name} holds a JSON {type(data).__name__}, not a tokenizer object")
    model = data.get("model")
    if not isinstance(model, dict):
        if "type" in data:  # {"type": "foo", ...}: a BPE Lab file of a type it does not know, most likely
            raise TokenizerFileError(
                f"{name} has 'type' {shown_value(data['type'])} and no 'model' object: neither a BPE Lab "
                "tokenizer ('character_bpe' or 'byte_bpe') nor a Hugging Face tokenizer.json"
            )
        raise TokenizerFileError(f"{name} has no 'model' object: it is not a Hugging Face tokenizer.json")
    kind = model.get("type", "BPE" if "merges" in model else None)
    if kind != "BPE":
        raise TokenizerFileError(
            f"{name}: the model type is {_shown(kind)}; BPE Lab reads BPE models only "
            "(not WordPiece, Unigram or WordLevel)"
        )
    _check_model_options(model, name)
    return model


def _vocabulary(data: dict, model: dict, name: str, max_token_bytes: int) -> tuple[dict, dict, dict, dict]:
    """``(vocab, itos, by_text, specials)``: the model's vocabulary as the file gives it, id ->
    token and token -> id for the learned tokens, and the added (special) tokens; each token
    non-empty, each id given once, the lengths within the budget."""
    vocab = model.get("vocab")
    if not isinstance(vocab, dict):
        raise TokenizerFileError(f"{name}: model.vocab must be an object of token: id")
    if len(vocab) > MAX_TOKENS:
        raise TokenizerFileError(f"{name}: the vocabulary holds {len(vocab):,} tokens; the most is {MAX_TOKENS:,}")
    check_token_lengths(
        (len(text) for text in vocab),
        name=name,
        max_total=max_token_bytes,
        where=lambda index: f"vocabulary entry {index + 1:,}",
        unit="characters",
    )
    specials = _added_tokens(data.get("added_tokens"), vocab, name)
    itos: dict = {}
    by_text: dict[str, int] = {}
    for text, token_id in vocab.items():
        _check_id(token_id, f"token {quoted(text)}", name)
        if not text:
            raise TokenizerFileError(f"{name}: the vocabulary holds an empty token (id {token_id})")
        if token_id in itos:
            raise TokenizerFileError(
                f"{name}: id {token_id} is given to two tokens, {quoted(itos[token_id])} and {quoted(text)}"
            )
        itos[token_id] = text
        by_text[text] = token_id
    for special, token_id in specials.items():
        if itos.get(token_id) == special:
            del itos[token_id]  # an added token that is also in the vocabulary: special only
        elif token_id in itos:
            raise TokenizerFileError(
                f"{name}: added token {quoted(special)} has id {token_id}, which the vocabulary "
                f"gives to {quoted(itos[token_id])}"
            )
    return vocab, itos, by_text, specials


@dataclass(frozen=True)
class _Encoder:
    """What encoding needs of a vocabulary: id -> token, a piece's merged ids, the tokens
    looked up whole (``ignore_merges``), the merges as token pairs, and the alphabet."""

    tokens: dict
    merge: Callable
    whole: dict | None
    pairs: list
    alphabet: str


def _byte_level_encoder(model, itos, by_text, unk_id, merges_as_ids, merge_pairs, name) -> _Encoder:
    """A ByteLevel vocabulary: tokens are bytes spelled with GPT-2's byte-to-unicode table,
    and all 256 bytes must be tokens (a piece starts as its bytes)."""
    table = unicode_to_bytes()
    tokens: dict = {}
    for token_id, text in itos.items():
        if all(char in table for char in text):
            tokens[token_id] = bytes(table[char] for char in text)
        elif token_id != unk_id:
            raise TokenizerFileError(
                f"{name}: token {quoted(text)} (id {token_id}) is not spelled with GPT-2's "
                "byte-to-unicode table, which a ByteLevel tokenizer needs"
            )
    spelled = bytes_to_unicode()
    byte_ids = [by_text.get(spelled[value]) for value in range(256)]
    missing = [value for value, token_id in enumerate(byte_ids) if token_id is None]
    if missing:
        raise TokenizerFileError(
            f"{name}: a ByteLevel tokenizer needs all 256 bytes as tokens; "
            f"{len(missing)} are missing (first: {quoted(spelled[missing[0]])})"
        )
    merge_map = hf_merge_map(merges_as_ids)

    def merge(piece: bytes) -> list[int]:
        return hf_merge([byte_ids[value] for value in piece], merge_map)

    whole = {token: token_id for token_id, token in tokens.items()} if model.get("ignore_merges") else None
    pairs = [(_unspell(a, table), _unspell(b, table)) for a, b in merge_pairs]
    return _Encoder(tokens, merge, whole, pairs, BYTES)


def _character_encoder(model, itos, by_text, unk_id, merges_as_ids, merge_pairs, name) -> _Encoder:
    """A character vocabulary: a piece starts as its characters (unknown ones as the unknown
    token, fused into one when ``fuse_unk``)."""
    merge_map = hf_merge_map(merges_as_ids)
    fuse = bool(model.get("fuse_unk"))

    def merge(piece: str) -> list[int]:
        return hf_merge(_char_symbols(piece, by_text, unk_id, fuse), merge_map)

    whole = dict(by_text) if model.get("ignore_merges") else None
    return _Encoder(itos, merge, whole, merge_pairs, CHARACTERS)


def _check_model_options(model: dict, name: str) -> None:
    dropout = model.get("dropout")
    if dropout not in (None, 0, 0.0):
        raise TokenizerFileError(
            f"{name}: BPE dropout {_shown(dropout)} makes encoding random; BPE Lab reads tokenizers without dropout"
        )
    for key in ("continuing_subword_prefix", "end_of_word_suffix"):
        if model.get(key) not in (None, ""):
            raise TokenizerFileError(
                f"{name}: {key} {_shown(model.get(key))} is not supported (BPE Lab's tokens are plain pieces of text)"
            )
    if model.get("byte_fallback"):
        raise TokenizerFileError(f"{name}: byte_fallback (SentencePiece-style <0xNN> tokens) is not supported")
    for key in ("fuse_unk", "ignore_merges"):
        if model.get(key) not in (None, True, False):
            raise TokenizerFileError(f"{name}: model.{key} must be true or false, got {_shown(model.get(key))}")


def _normalizer(spec, name: str):
    if spec is None:
        return None
    forms = []
    for step in _steps(spec, "normalizers", name, "normalizer"):
        kind = step.get("type")
        if not isinstance(kind, str) or kind not in NORMALIZERS:
            raise TokenizerFileError(
                f"{name}: the normalizer {_shown(kind)} is not supported (only {', '.join(sorted(NORMALIZERS))})"
            )
        forms.append(kind)
    if not forms:
        return None

    def normalize(text: str) -> str:
        for form in forms:
            text = unicodedata.normalize(form, text)
        return text

    return normalize


def _pre_tokenizer(spec, name: str) -> tuple[str | None, bool, str | None, bool]:
    """(the lab pre-tokenizer: name or regex or None, byte-level?, prefix-space mode,
    whitespace dropped?)."""
    if spec is None:
        return None, False, None, False
    steps = _steps(spec, "pretokenizers", name, "pre-tokenizer")
    pattern = None
    byte_level = False
    prefix = None
    drop_whitespace = False
    for index, step in enumerate(steps):
        kind = step.get("type")
        if isinstance(kind, str) and kind in WHITESPACE_PRE_TOKENIZERS:
            if pattern is not None or byte_level:
                raise TokenizerFileError(f"{name}: a {kind} after another split step is not supported")
            # Matches are kept, the whitespace between them removed: the pattern gives the
            # whitespace runs chunks of their own, which the tokenizer drops. These two are
            # compiled by Rust's regex crate, not Oniguruma: its \w (letters, marks, digits,
            # connectors, U+200C/U+200D) is the `regex` module's, so the pattern is taken as it is.
            words = WHITESPACE_PRE_TOKENIZERS[kind]
            pattern = pretokenizer_for(check_pattern(f"(?:{words})|\\s+", name=name))
            drop_whitespace = True
        elif kind == "Split":
            if pattern is not None or byte_level:
                raise TokenizerFileError(f"{name}: a Split after another split step is not supported")
            if step.get("behavior") != "Isolated" or step.get("invert", False) is not False:
                raise TokenizerFileError(
                    f"{name}: Split with behavior {_shown(step.get('behavior'))} and invert "
                    f"{_shown(step.get('invert'))} is not supported (only Isolated, not inverted)"
                )
            pattern = _split_pattern(step.get("pattern"), name)
        elif kind == "ByteLevel":
            if byte_level:
                raise TokenizerFileError(f"{name}: two ByteLevel steps are not supported")
            byte_level = True
            add_prefix = step.get("add_prefix_space", True)
            use_regex = step.get("use_regex", True)
            if not isinstance(add_prefix, bool) or not isinstance(use_regex, bool):
                raise TokenizerFileError(f"{name}: ByteLevel's add_prefix_space and use_regex must be true or false")
            if use_regex:
                if pattern is not None:
                    raise TokenizerFileError(f"{name}: a ByteLevel with its own regex after a Split is not supported")
                pattern = "gpt2"  # Hugging Face runs GPT-2's original pattern, which chunks as r50k's does
            if add_prefix:
                prefix = "chunk" if index > 0 else "text"
        else:
            raise TokenizerFileError(
                f"{name}: the pre-tokenizer {_shown(kind)} is not supported (only ByteLevel, "
                "Split, Whitespace, WhitespaceSplit and Sequence of them)"
            )
    return pattern, byte_level, prefix, drop_whitespace


def _split_pattern(spec, name: str) -> str:
    import regex

    if not isinstance(spec, dict) or len(spec) != 1:
        raise TokenizerFileError(f'{name}: a Split pattern must be {{"Regex": ...}} or {{"String": ...}}')
    ((kind, value),) = spec.items()
    if not isinstance(value, str) or not value:
        raise TokenizerFileError(f"{name}: the Split pattern must be non-empty text")
    if kind == "String":
        body = regex.escape(value)
    elif kind == "Regex":
        for key, known in NAMED_PATTERNS.items():
            if value == known or value == to_oniguruma(known):
                return key
        if value == GPT2_ORIGINAL_PATTERN:
            return "gpt2"
        try:
            body = from_oniguruma(value)
        except PatternError as error:
            raise TokenizerFileError(f"{name}: {error}") from None
    else:
        raise TokenizerFileError(f"{name}: a Split pattern must be Regex or String, not {_shown(kind)}")
    # Isolated keeps the text between matches as chunks of its own: say so in the pattern.
    wrapped = f"(?:{body})|(?:(?!(?:{body}))[\\s\\S])+"
    check_pattern(wrapped, name=name)
    return pretokenizer_for(wrapped)


def _steps(spec, key: str, name: str, what: str, depth: int = 0) -> list[dict]:
    if not isinstance(spec, dict):
        raise TokenizerFileError(f"{name}: the {what} must be an object, got {type(spec).__name__}")
    if spec.get("type") != "Sequence":
        return [spec]
    if depth >= 4:
        raise TokenizerFileError(f"{name}: {what} Sequences are nested more than 4 deep")
    inner = spec.get(key)
    if not isinstance(inner, list) or len(inner) > 16 or not all(isinstance(step, dict) for step in inner):
        raise TokenizerFileError(f"{name}: a {what} Sequence must list at most 16 {what} objects")
    steps = []
    for step in inner:
        steps.extend(_steps(step, key, name, what, depth + 1))
    return steps


def _added_tokens(added, vocab: dict, name: str) -> dict[str, int]:
    if added is None:
        return {}
    if not isinstance(added, list) or len(added) > 100_000:
        raise TokenizerFileError(f"{name}: added_tokens must be a list of token objects")
    specials: dict[str, int] = {}
    used: dict[int, str] = {}
    for item in added:
        if not isinstance(item, dict) or not isinstance(item.get("content"), str) or not item["content"]:
            raise TokenizerFileError(f"{name}: each added token needs its text as 'content', got {_shown(item)}")
        content, token_id = item["content"], item.get("id")
        _check_id(token_id, f"added token {quoted(content)}", name)
        if content in specials or token_id in used:
            raise TokenizerFileError(f"{name}: added token {quoted(content)} (id {token_id}) is given twice")
        if content in vocab and vocab[content] != token_id:
            raise TokenizerFileError(
                f"{name}: added token {quoted(content)} has id {token_id}, but the vocabulary "
                f"gives it {vocab[content]!r}"
            )
        specials[content] = token_id
        used[token_id] = content
    return specials


def _merges(
    merges, by_text: dict[str, int], name: str, max_merges: int
) -> tuple[list[tuple[int, int, int]], list[tuple[str, str]]]:
    if not isinstance(merges, list):
        raise TokenizerFileError(f"{name}: model.merges must be a list")
    if len(merges) > max_merges:
        raise TokenizerFileError(f"{name} has {len(merges):,} merges; the most accepted is {max_merges:,}")
    as_ids = []
    pairs = []
    for number, merge in enumerate(merges, start=1):
        if isinstance(merge, str):
            parts = merge.split(" ")
            if len(parts) != 2 or not all(parts):
                raise TokenizerFileError(
                    f"{name}: merge {number} {quoted(merge)} is not two tokens separated by one space"
                )
        elif isinstance(merge, list) and len(merge) == 2 and all(isinstance(p, str) and p for p in merge):
            parts = merge
        else:
            raise TokenizerFileError(
                f'{name}: merge {number} is {_shown(merge)}; a merge is [left, right] or "left right"'
            )
        left, right = parts
        for part in (left, right, left + right):
            if part not in by_text:
                raise TokenizerFileError(
                    f"{name}: merge {number} ({quoted(left)}, {quoted(right)}) needs "
                    f"{quoted(part)}, which is not in the vocabulary"
                )
        as_ids.append((by_text[left], by_text[right], by_text[left + right]))
        pairs.append((left, right))
    return as_ids, pairs


def _char_symbols(piece: str, by_text: dict[str, int], unk_id: int | None, fuse: bool) -> list[int]:
    ids = []
    previous_unknown = False
    missing = []
    for char in piece:
        token_id = by_text.get(char)
        if token_id is not None:
            ids.append(token_id)
            previous_unknown = False
        elif unk_id is None:
            missing.append(char)
        elif not (fuse and previous_unknown):
            ids.append(unk_id)
            previous_unknown = True
    if missing:
        shown = ", ".join(quoted(char) for char in sorted(set(missing))[:20])
        raise UnknownSymbolsError(
            f"text has {counted(len(set(missing)), 'character')} outside the tokenizer's vocabulary "
            f"(and it has no unk_token): {shown}",
            sorted(set(missing)),
        )
    return ids


def _check_id(token_id, what: str, name: str) -> None:
    if not isinstance(token_id, int) or isinstance(token_id, bool) or not 0 <= token_id < 10**9:
        raise TokenizerFileError(f"{name}: {what} has id {_shown(token_id)}; ids are whole numbers from 0")


def _unspell(text: str, table: dict[str, int]) -> bytes:
    return bytes(table[char] for char in text)


def _shown(value) -> str:
    text = repr(value)
    return quoted(text[:80]) if len(text) > 80 else text


def _display_name(name: str) -> str:
    return Path(name).name if ("/" in name or os.sep in name) else name
