"""Stanford CS336's files (assignment 1): ``merges.txt`` and ``vocab.json``, read.

A student's `train_bpe` returns ``vocab`` (id -> bytes) and ``merges`` (pairs of bytes);
the course's fixtures and most students' saved files spell them as GPT-2 does, one byte a
character (`bpe.alphabet.gpt2_spelling`, a space is ``Ġ``)::

    merges.txt:  Ġ t          vocab.json:  {"<|endoftext|>": 0, "!": 1, ..., "Ġt": 257, ...}
                 Ġ a
                 h e

Each line of ``merges.txt`` is one merge, in order, its two tokens separated by a space (a
spelled token holds none). ``vocab.json`` is optional here; its entries that are neither a
single byte nor a merge's token are the special tokens (``<|endoftext|>``). Nothing in
either file is executable (never a pickle), and what they may cost is bounded before they
are parsed (`bpe.io.budget`): the lines counted first, each token's length and all of them
together, the JSON's values.
"""

from __future__ import annotations

from dataclasses import dataclass

from bpe.alphabet import from_gpt2_spelling
from bpe.errors import BpeError, TokenizerFileError
from bpe.formats.fileio import MAX_TOKENS, decode_text, load_json, quoted
from bpe.io.budget import MAX_TOTAL_TOKEN_BYTES, TokenTally, check_line_count, check_token_lengths


@dataclass(frozen=True)
class Cs336Files:
    """What the two files say: the merges in order (pairs of bytes) and the special tokens
    ``vocab.json`` lists (none without it)."""

    merges: tuple[tuple[bytes, bytes], ...]
    special_tokens: tuple[str, ...] = ()


def parse_cs336(
    merges_raw: bytes,
    vocab_raw: bytes | None = None,
    *,
    name: str = "merges.txt",
    vocab_name: str = "vocab.json",
    max_token_bytes: int = MAX_TOTAL_TOKEN_BYTES,
    max_merges: int = MAX_TOKENS,
) -> Cs336Files:
    """The merges of a ``merges.txt`` (and the special tokens of a ``vocab.json``), checked
    line by line: two GPT-2-spelled tokens a line, each a single byte or an earlier merge's
    token. One-line `TokenizerFileError` naming the file and the line on any fault."""
    check_line_count(merges_raw, name=name, max_lines=max_merges + 1, what="merge")
    text = decode_text(merges_raw, name=name)
    tally = TokenTally(name=name, max_total=max_token_bytes)
    known = {bytes([value]) for value in range(256)}
    merges = []
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.rstrip("\r")
        if not line.strip() or line.startswith("#version"):
            continue
        parts = line.split(" ")
        if len(parts) != 2 or not all(parts):
            raise TokenizerFileError(
                f"{name}, line {number}: expected two tokens separated by one space, got {quoted(line)}"
            )
        try:
            left, right = (from_gpt2_spelling(part) for part in parts)
        except BpeError as error:
            raise TokenizerFileError(f"{name}, line {number}: {error} (is it spelled as GPT-2 spells bytes?)") from None
        tally.add(len(left) + len(right), f"line {number:,}")
        for part in (left, right):
            if part not in known:
                raise TokenizerFileError(
                    f"{name}, line {number}: {quoted(part)} is neither a single byte nor made by an earlier line"
                )
        known.add(left + right)
        merges.append((left, right))
    if not merges:
        raise TokenizerFileError(f"{name} holds no merges: one line per merge, such as 'Ġ t'")
    specials = () if vocab_raw is None else _special_tokens(vocab_raw, known, vocab_name, max_token_bytes)
    return Cs336Files(tuple(merges), specials)


def _special_tokens(raw: bytes, known: set[bytes], name: str, max_token_bytes: int) -> tuple[str, ...]:
    """The entries of ``vocab.json`` that are neither a byte nor a merge's token, in id order."""
    vocab = load_json(raw, name=name)
    if not isinstance(vocab, dict):
        raise TokenizerFileError(f"{name} holds a JSON {type(vocab).__name__}, not an object of token: id")
    check_token_lengths(
        (len(token) for token in vocab),
        name=name,
        max_total=max_token_bytes,
        where=lambda index: f"entry {index + 1:,}",
        unit="characters",
    )
    seen: dict[int, str] = {}
    specials = []
    for token, token_id in vocab.items():
        if type(token_id) is not int or token_id < 0:
            raise TokenizerFileError(f"{name}: {quoted(token)} has id {str(token_id)[:20]}; ids are whole numbers")
        if token_id in seen:
            raise TokenizerFileError(f"{name}: {quoted(seen[token_id])} and {quoted(token)} share id {token_id}")
        seen[token_id] = token
        try:
            spelled = from_gpt2_spelling(token)
        except BpeError:
            spelled = None  # not GPT-2's spelling: a special token written as itself
        if spelled is None or spelled not in known:
            specials.append((token_id, spelled.decode("utf-8", errors="replace") if spelled else token))
    return tuple(special for _, special in sorted(specials))
