"""minbpe's ``.model`` files (Karpathy's minbpe; not a package): export and a reader.

The format, as ``minbpe.base.Tokenizer.save`` writes it and ``load`` reads it::

    minbpe v1
    <split pattern, empty for BasicTokenizer>
    <number of special tokens>
    <special> <id>          (one line each)
    <idx1> <idx2>           (one line per merge, in order: line k makes id 256 + k)

Ids 0..255 are the bytes by value; every merge makes a new id, so minbpe has no way to
say that a merge re-creates a token the vocabulary already has (the lab's vocabulary is
a set). An export therefore leaves such merges out, which keeps every id the same and
is listed as a difference (`bpe.formats.merges_vs_ranks`). minbpe reads each line with
``.strip()``, so a pattern with a line break or with spaces at either end cannot be
written; nor can a tokenizer whose 256 bytes are not ids 0..255 in byte order.

minbpe encodes a chunk by merging, again and again, the adjacent pair with the lowest
merge index, everywhere at once: on a file it can load, the same as replaying merges in
order, which `bpe.encoder.RankEncoder` does. Note that ``RegexTokenizer.load`` keeps the
pattern given to its constructor (it does not recompile the one it reads): load a file
into ``RegexTokenizer(pattern)`` with the pattern on its second line.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from bpe.alphabet import BYTES
from bpe.encoder import RankEncoder
from bpe.errors import BpeError, TokenizerFileError
from bpe.formats.fileio import MAX_TOKENS, decode_text, quoted, read_limited
from bpe.formats.patterns import check_pattern, pretokenizer_for
from bpe.formats.pretrained import PretrainedTokenizer
from bpe.formats.tiktoken_ranks import MAX_SPECIAL_TOKENS, require_byte_level
from bpe.io.budget import MAX_TOTAL_TOKEN_BYTES, check_line_count, check_token_lengths, merged_lengths
from bpe.pretokenize import pattern_for
from bpe.wording import counted

FORMAT = "minbpe"
VERSION_LINE = "minbpe v1"
SUFFIX = ".model"


def export_minbpe(tokenizer) -> tuple[str, list[int]]:
    """The ``.model`` text of a byte-level lab tokenizer, and the numbers (1-based) of the
    merges left out because they re-create a token (minbpe would give it a second id)."""
    require_byte_level(tokenizer, "minbpe")
    if list(tokenizer.base_tokens) != [bytes([value]) for value in range(256)]:
        raise BpeError(
            "minbpe numbers the 256 bytes by value (id 0 is byte 0x00); this tokenizer's base tokens "
            "are in another order, so its ids cannot be written as a minbpe file"
        )
    pattern = pattern_for(tokenizer.pretokenizer) or ""
    if "\n" in pattern or "\r" in pattern or pattern != pattern.strip():
        raise BpeError(
            "minbpe reads the pattern line with .strip(): a pattern with a line break or with spaces "
            f"at either end cannot be written ({quoted(pattern)})"
        )
    stoi = tokenizer.stoi
    file_id = minbpe_ids(tokenizer)
    specials = getattr(tokenizer, "special_tokens", {})
    for special in specials:
        if any(char.isspace() for char in special):
            raise BpeError(f"minbpe reads a special token's line split at spaces: {quoted(special)} cannot be written")
    lines = [VERSION_LINE, pattern, str(len(specials))]
    lines += [f"{special} {file_id(token_id)}" for special, token_id in specials.items()]
    made = set(tokenizer.base_tokens)
    left_out = []
    for number, (left, right) in enumerate(tokenizer.merges, start=1):
        token = left + right
        if token in made:
            left_out.append(number)
            continue
        made.add(token)
        lines.append(f"{file_id(stoi[left])} {file_id(stoi[right])}")
    return "\n".join(lines) + "\n", left_out


def minbpe_ids(tokenizer):
    """A lab tokenizer's id -> the id of the same token in its ``.model`` file. The same
    number, but where there are special tokens: minbpe numbers the bytes 0-255 and each merge
    after them, so the special tokens (the lab's first ids, `bpe.specials`) come after the
    merges there, and every other id moves down by their number. With one special token
    and 300 tokens in all: lab id 0 is file id 299, lab id 1 (byte 0x00) file id 0."""
    first = len(getattr(tokenizer, "special_tokens", {}))
    size = tokenizer.vocab_size
    return lambda token_id: (token_id - first) % size


def parse_minbpe(
    raw: bytes,
    *,
    name: str = "the .model file",
    max_token_bytes: int = MAX_TOTAL_TOKEN_BYTES,
    max_merges: int = MAX_TOKENS,
) -> tuple[str, dict[str, int], list[tuple[int, int]]]:
    """(pattern, special tokens, merges as id pairs), checked line by line as minbpe's
    ``load`` reads them, plus what minbpe does not check: ids that do not exist yet,
    pairs given twice, special ids that collide, and what the merges would build
    (`bpe.io.budget`: a line names its halves by id, so each may double a token's length):
    at most `bpe.io.budget.MAX_TOKEN_LENGTH` bytes a token, ``max_token_bytes`` in all, and
    at most ``max_merges`` merges.

    A file is its version line, its pattern, a count of special tokens, that many
    ``token id`` lines, then one ``left right`` line per merge::

        minbpe v1
        <pattern>
        0
        97 98        <- merge 1 makes id 256 from bytes 97 and 98 ("ab")
        256 99       <- merge 2 makes id 257 ("abc")
    """
    refuse_sentencepiece(raw, name=name)
    check_line_count(raw, name=name, max_lines=3 + MAX_SPECIAL_TOKENS + max_merges + 1, what="merge")
    text = decode_text(raw, name=name)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    pattern, count = _header(lines, name)
    specials = _special_tokens(lines, count, name)
    first_merge_line = 4 + count
    merges = _merges(lines, first_merge_line, name, max_merges)
    check_token_lengths(
        merged_lengths([1] * 256, merges),
        name=name,
        max_total=max_token_bytes,
        where=lambda index: f"line {first_merge_line + index:,} (id {256 + index:,})",
    )
    _check_special_ids(specials, 256 + len(merges), name)
    return pattern, specials, merges


def _header(lines: list[str], name: str) -> tuple[str, int]:
    """(pattern, number of special tokens) from the first three lines."""
    if not lines or lines[0].strip() != VERSION_LINE:
        first = quoted(lines[0]) if lines else "nothing"
        raise TokenizerFileError(f"{name} is not a minbpe model: its first line is {first}, not {VERSION_LINE!r}")
    if len(lines) < 3:
        raise TokenizerFileError(f"{name} is cut short: it needs a pattern line and a count of special tokens")
    count_text = lines[2].strip()
    if not count_text.isascii() or not count_text.isdigit() or int(count_text) > MAX_SPECIAL_TOKENS:
        raise TokenizerFileError(
            f"{name}, line 3: {quoted(count_text)} is not a number of special tokens (0 to {MAX_SPECIAL_TOKENS:,})"
        )
    return lines[1].strip(), int(count_text)


def _special_tokens(lines: list[str], count: int, name: str) -> dict[str, int]:
    """The ``count`` special tokens of lines 4 on, each named once."""
    if len(lines) < 3 + count:
        raise TokenizerFileError(f"{name} is cut short: it announces {count} special tokens and holds {len(lines) - 3}")
    specials: dict[str, int] = {}
    for number in range(4, 4 + count):
        fields = lines[number - 1].strip().split()
        if len(fields) != 2 or not _is_id(fields[1]):
            raise TokenizerFileError(
                f"{name}, line {number}: expected 'special-token id', got {quoted(lines[number - 1])}"
            )
        if fields[0] in specials:
            raise TokenizerFileError(f"{name}, line {number}: special token {quoted(fields[0])} is given twice")
        specials[fields[0]] = int(fields[1])
    return specials


def _merges(lines: list[str], first_line: int, name: str, max_merges: int) -> list[tuple[int, int]]:
    """The merges from line ``first_line`` on: two ids each, both made before this merge
    (merge k makes id 255 + k), no pair twice, at most ``max_merges``."""
    merges: list[tuple[int, int]] = []
    seen: dict[tuple[int, int], int] = {}
    for number in range(first_line, len(lines) + 1):
        fields = lines[number - 1].split()
        if len(fields) != 2 or not all(_is_id(f) for f in fields):
            raise TokenizerFileError(
                f"{name}, line {number}: expected two ids 'idx1 idx2', got {quoted(lines[number - 1])}"
            )
        pair = (int(fields[0]), int(fields[1]))
        new_id = 256 + len(merges)
        for part in pair:
            if part >= new_id:
                raise TokenizerFileError(
                    f"{name}, line {number}: id {part} does not exist yet (this merge makes "
                    f"id {new_id}; a merge may only use bytes and earlier merges)"
                )
        if pair in seen:
            raise TokenizerFileError(
                f"{name}, line {number}: the pair {pair[0]} {pair[1]} was already merged on "
                f"line {seen[pair]} (minbpe would lose id {256 + len(merges)})"
            )
        seen[pair] = number
        merges.append(pair)
        if len(merges) > max_merges:
            raise TokenizerFileError(f"{name} has more than {max_merges:,} merges; the most accepted is {max_merges:,}")
    return merges


def _check_special_ids(specials: dict[str, int], top: int, name: str) -> None:
    """Special ids come after every byte and merge (from ``top`` on), one token each."""
    ids_seen: dict[int, str] = {}
    for special, special_id in specials.items():
        if special_id < top:
            raise TokenizerFileError(
                f"{name}: special token {quoted(special)} has id {special_id}, which a byte "
                f"or a merge already has (those run to {top - 1})"
            )
        if special_id in ids_seen:
            raise TokenizerFileError(
                f"{name}: special tokens {quoted(ids_seen[special_id])} and {quoted(special)} share id {special_id}"
            )
        ids_seen[special_id] = special


def refuse_sentencepiece(raw: bytes, *, name: str) -> None:
    """SentencePiece models are ``.model`` files too: name one as such, and refuse it
    (rather than call it a minbpe file that is not UTF-8)."""
    if _is_sentencepiece(raw):
        raise TokenizerFileError(
            f"{name} is a SentencePiece model (a protobuf file, not text), which BPE Lab does not read: "
            "it reads minbpe .model files, Hugging Face tokenizer.json, .tiktoken ranks and its own files"
        )


def _is_sentencepiece(raw: bytes) -> bool:
    """Does ``raw`` open as SentencePiece's ``ModelProto``? Its first field is its first
    piece (field 1, length-delimited: byte 0x0A and a length), a ``SentencePiece`` message
    that opens with the piece's text (0x0A, a length, UTF-8) followed by its score (field
    2, a float: 0x15) or type (field 3: 0x18). Text files do not open with a line feed
    followed by a length and a second line feed."""
    head = bytes(raw[:64])
    if not head.startswith(b"\n"):
        return False
    outer, at = _varint(head, 1)
    if outer is None or at >= len(head) or head[at] != 0x0A:
        return False
    length, at = _varint(head, at + 1)
    if length is None or length > outer or at + length >= len(head):
        return False
    try:
        head[at : at + length].decode("utf-8")
    except UnicodeDecodeError:
        return False
    return head[at + length] in (0x15, 0x18)


def _varint(data: bytes, at: int) -> tuple[int | None, int]:
    """A protobuf varint at ``at`` (at most 4 bytes), and where it ends."""
    value = 0
    for shift in range(0, 28, 7):
        if at >= len(data):
            return None, at
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at += 1
        if byte < 0x80:
            return value, at
    return None, at


def minbpe_from_bytes(
    raw: bytes,
    *,
    name: str = "the .model file",
    max_token_bytes: int = MAX_TOTAL_TOKEN_BYTES,
    max_merges: int = MAX_TOKENS,
) -> PretrainedTokenizer:
    """A minbpe model from its bytes (an upload); ids are minbpe's. ``max_token_bytes``
    and ``max_merges`` bound what it may build (see `parse_minbpe`)."""
    pattern, specials, merges = parse_minbpe(raw, name=name, max_token_bytes=max_token_bytes, max_merges=max_merges)
    regex = check_pattern(pattern, name=name) if pattern else None
    digest = hashlib.sha256(b"minbpe\0" + bytes(raw)).hexdigest()
    return _tokenizer(regex, specials, merges, name=_display_name(name), fingerprint=digest)


def _tokenizer(
    regex: str | None, specials: dict[str, int], merges: list[tuple[int, int]], *, name: str, fingerprint: str
) -> PretrainedTokenizer:
    vocab = {value: bytes([value]) for value in range(256)}
    for index, (left, right) in enumerate(merges):
        vocab[256 + index] = vocab[left] + vocab[right]
    by_bytes: dict[bytes, int] = {}
    doubles = []
    for token_id, token in vocab.items():
        if token in by_bytes:
            doubles.append((token, by_bytes[token], token_id))
        by_bytes.setdefault(token, token_id)
    notes = []
    if doubles:
        token, first, second = doubles[0]
        notes.append(
            f"{counted(len(doubles), 'token')} {'has' if len(doubles) == 1 else 'have'} two ids (e.g. {quoted(token)} is {first} and {second}): "
            "minbpe gives every merge its own id; the lab's vocabulary is a set"
        )
    encoder = RankEncoder([(left, right, 256 + index) for index, (left, right) in enumerate(merges)])
    pair_tokens = [(vocab[left], vocab[right]) for left, right in merges]

    def with_merges(count: int) -> PretrainedTokenizer:
        digest = hashlib.sha256(f"{fingerprint}:{count}".encode()).hexdigest()
        return _tokenizer(regex, {}, merges[:count], name=f"{name} [:{count}]", fingerprint=digest)

    return PretrainedTokenizer(
        name=name,
        source_format=FORMAT,
        alphabet=BYTES,
        pretokenizer=pretokenizer_for(regex),
        itos=vocab,
        merge=lambda piece: encoder.encode(list(piece)),
        merges=pair_tokens,
        special_tokens=specials,
        fingerprint=fingerprint,
        notes=notes,
        with_merges=with_merges,
    )


def load_minbpe_file(path: str | os.PathLike[str]) -> PretrainedTokenizer:
    """A minbpe ``.model`` file from disk."""
    if not str(path).endswith(SUFFIX):
        raise TokenizerFileError(f"{str(path)!r} is not a minbpe model: minbpe's load() reads files named *.model")
    return minbpe_from_bytes(read_limited(path, what="minbpe model"), name=str(path))


def _is_id(text: str) -> bool:
    return text.isascii() and text.isdigit() and len(text) <= 9


def _display_name(name: str) -> str:
    return Path(name).name if ("/" in name or os.sep in name) else name
