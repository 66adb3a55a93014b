"""tiktoken's ``.tiktoken`` ranks files: export, import, and the settings beside them.

The file is one line per token, ``base64(token bytes) rank``; the rank is the token's id
and its merge priority. It holds no split pattern and no special tokens, so an export
writes a small JSON beside it (``<file>.json``) with the other arguments of
``tiktoken.Encoding``::

    import json, tiktoken
    from tiktoken.load import load_tiktoken_bpe
    settings = json.load(open("lab.tiktoken.json"))
    enc = tiktoken.Encoding(settings["name"], pat_str=settings["pat_str"],
                            mergeable_ranks=load_tiktoken_bpe("lab.tiktoken"),
                            special_tokens=settings["special_tokens"])

tiktoken works on bytes: only byte-level tokenizers export. A tokenizer without a
pre-tokenizer gets the pattern ``[\\s\\S]+`` (the whole text is one chunk, as it was in
training). tiktoken merges by the rank of the *concatenated* bytes, not by the learned
pair, so a few texts may encode differently: `bpe.formats.merges_vs_ranks` finds them.

Import reads the file with our own strict parser (no network, no cache folder, one-line
errors); tests check it reads exactly what ``tiktoken.load.load_tiktoken_bpe`` reads.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from bpe.alphabet import BYTES
from bpe.errors import BpeError, TokenizerFileError
from bpe.formats.fileio import MAX_TOKENS, decode_text, load_json, quoted, read_limited
from bpe.formats.patterns import check_pattern, pretokenizer_for, resolve_pattern
from bpe.formats.pretrained import PretrainedTokenizer
from bpe.io.budget import MAX_TOTAL_TOKEN_BYTES, TokenTally, check_line_count
from bpe.pretokenize import pattern_for
from bpe.ranks import rank_merge, recover_merge
from bpe.text import shown_value

FORMAT = "tiktoken"
WHOLE_TEXT_PATTERN = r"[\s\S]+"  # no pre-tokenizer: the whole text is one chunk
SETTINGS_SUFFIX = ".json"
SETTINGS_VERSION = "bpe-lab tiktoken settings 1"
MAX_SPECIAL_TOKENS = 10_000
MAX_SETTINGS_BYTES = 1_000_000


class NotByteLevelError(BpeError):
    """A character-level tokenizer cannot become a byte-level file (tiktoken, minbpe)."""


def require_byte_level(tokenizer, library: str) -> None:
    """`NotByteLevelError` unless ``tokenizer`` is byte-level with all 256 bytes as tokens."""
    if tokenizer.alphabet != BYTES:
        raise NotByteLevelError(
            f"{library} works on bytes, and this tokenizer's alphabet is characters: its tokens are "
            f"Unicode characters and their merges, which {library} has no way to hold. Train with the "
            "byte alphabet to export it, or export it for Hugging Face (hf), which keeps characters"
        )
    missing = 256 - len({t for t in tokenizer.base_tokens if isinstance(t, bytes) and len(t) == 1})
    if missing:
        raise NotByteLevelError(f"{library} needs all 256 bytes as tokens; this tokenizer lacks {missing}")


# ====================
# Export


@dataclass(frozen=True)
class TiktokenExport:
    """The ranks file's bytes and the settings that go beside it."""

    ranks: bytes
    name: str
    pat_str: str
    special_tokens: dict = field(default_factory=dict)
    n_vocab: int = 0

    def settings(self, ranks_file_name: str) -> dict:
        return {
            "format": SETTINGS_VERSION,
            "name": self.name,
            "pat_str": self.pat_str,
            "special_tokens": dict(self.special_tokens),
            "explicit_n_vocab": self.n_vocab,
            "mergeable_ranks_file": ranks_file_name,
            "mergeable_ranks_sha256": hashlib.sha256(self.ranks).hexdigest(),
        }

    def settings_text(self, ranks_file_name: str) -> str:
        return json.dumps(self.settings(ranks_file_name), ensure_ascii=False, indent=2) + "\n"


def export_tiktoken(tokenizer, *, name: str = "bpe_lab") -> TiktokenExport:
    """The ranks file of a byte-level lab tokenizer: rank = id, in id order; its special
    tokens (the first ids) go to the settings, as ``tiktoken.Encoding`` takes them."""
    require_byte_level(tokenizer, "tiktoken")
    specials = dict(getattr(tokenizer, "special_tokens", {}))
    ranks = mergeable_ranks(tokenizer)
    lines = [base64.b64encode(token) + b" " + str(rank).encode() for token, rank in ranks.items()]
    pattern = pattern_for(tokenizer.pretokenizer) or WHOLE_TEXT_PATTERN
    return TiktokenExport(b"\n".join(lines) + b"\n", name, pattern, specials, tokenizer.vocab_size)


def mergeable_ranks(tokenizer) -> dict[bytes, int]:
    """A lab tokenizer's tokens as tiktoken's ``mergeable_ranks``: rank = id, the special
    tokens left out (tiktoken holds them apart)."""
    special_ids = set(getattr(tokenizer, "special_tokens", {}).values())
    return {token: token_id for token_id, token in enumerate(tokenizer.tokens) if token_id not in special_ids}


def settings_path(ranks_path: str | os.PathLike[str]) -> Path:
    """Where the settings of a ranks file live: ``lab.tiktoken`` -> ``lab.tiktoken.json``."""
    path = Path(ranks_path)
    return path.with_name(path.name + SETTINGS_SUFFIX)


# ====================
# Import


def parse_ranks(
    raw: bytes,
    *,
    name: str = "the ranks file",
    max_token_bytes: int = MAX_TOTAL_TOKEN_BYTES,
    max_tokens: int = MAX_TOKENS,
) -> dict[bytes, int]:
    """A ``.tiktoken`` file's bytes to {token bytes: rank}, strictly: every line two fields,
    valid base64, a whole-number rank; no token or rank twice; all 256 single bytes; at
    most `bpe.io.budget.MAX_TOKEN_LENGTH` bytes a token and ``max_token_bytes`` in all, and
    at most ``max_tokens`` tokens."""
    # Blank lines are skipped (as tiktoken does), so they are bounded before the split.
    check_line_count(raw, name=name, max_lines=2 * max_tokens, what="token")
    text = decode_text(raw, name=name)
    ranks: dict[bytes, int] = {}
    seen_ranks: dict[int, int] = {}
    tally = TokenTally(name=name, max_total=max_token_bytes)
    for number, line in enumerate(_lines(text), start=1):
        if not line:
            continue
        fields = line.split()
        if len(fields) != 2:
            raise TokenizerFileError(f"{name}, line {number}: expected 'base64-token rank', got {quoted(line)}")
        encoded, rank_text = fields
        try:
            token = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            raise TokenizerFileError(f"{name}, line {number}: {quoted(encoded)} is not base64") from None
        if not rank_text.isascii() or not rank_text.isdigit() or len(rank_text) > 9:
            raise TokenizerFileError(
                f"{name}, line {number}: the rank {quoted(rank_text)} is not a whole number from 0 to 999,999,999"
            )
        rank = int(rank_text)
        if not token:
            raise TokenizerFileError(f"{name}, line {number}: an empty token")
        tally.add(len(token), f"line {number:,}")
        if token in ranks:
            raise TokenizerFileError(
                f"{name}, line {number}: the token {quoted(token)} is listed twice (ranks {ranks[token]} and {rank})"
            )
        if rank in seen_ranks:
            raise TokenizerFileError(
                f"{name}, line {number}: rank {rank} is given twice (lines {seen_ranks[rank]} and {number})"
            )
        ranks[token] = rank
        seen_ranks[rank] = number
        if len(ranks) > max_tokens:
            raise TokenizerFileError(f"{name} has more than {max_tokens:,} tokens; the most accepted is {max_tokens:,}")
    if not ranks:
        raise TokenizerFileError(f"{name} holds no tokens")
    missing = [value for value in range(256) if bytes([value]) not in ranks]
    if missing:
        raise TokenizerFileError(
            f"{name} lacks {len(missing)} of the 256 single bytes (first: {missing[0]:#04x}); "
            "tiktoken needs every byte as a token"
        )
    return ranks


# The line breaks of bytes.splitlines (tiktoken reads the file as bytes): \r\n, \r, \n.
_LINE = re.compile(r"([^\r\n]*)(?:\r\n|\r|\n|\Z)")


def _lines(text: str):
    """The file's lines one at a time, never as a list: a file of blank lines costs no
    list of millions of empty strings (a last empty line may come out; it is skipped)."""
    for match in _LINE.finditer(text):
        yield match.group(1)


def check_special_tokens(special_tokens, ranks_or_ids, *, name: str) -> dict[str, int]:
    """{text: id}, with ids that no ordinary token uses and no text given twice."""
    if special_tokens is None:
        return {}
    if not isinstance(special_tokens, dict):
        raise TokenizerFileError(
            f"{name}: special_tokens must be an object of text: id, got {type(special_tokens).__name__}"
        )
    if len(special_tokens) > MAX_SPECIAL_TOKENS:
        raise TokenizerFileError(f"{name}: more than {MAX_SPECIAL_TOKENS:,} special tokens")
    used = set(ranks_or_ids)
    out: dict[str, int] = {}
    seen: dict[int, str] = {}
    for text, token_id in special_tokens.items():
        if not isinstance(text, str) or not text:
            raise TokenizerFileError(f"{name}: a special token must be non-empty text, got {text!r}")
        if not isinstance(token_id, int) or isinstance(token_id, bool) or not 0 <= token_id < 10**9:
            raise TokenizerFileError(
                f"{name}: special token {quoted(text)} has id {token_id!r}; ids are whole numbers from 0"
            )
        if token_id in used:
            raise TokenizerFileError(
                f"{name}: special token {quoted(text)} has id {token_id}, which an ordinary token already has"
            )
        if token_id in seen:
            raise TokenizerFileError(
                f"{name}: special tokens {quoted(seen[token_id])} and {quoted(text)} share id {token_id}"
            )
        seen[token_id] = text
        out[text] = token_id
    return out


def tokenizer_from_ranks(
    ranks: dict[bytes, int],
    *,
    pattern: str | None,
    special_tokens: dict[str, int] | None = None,
    name: str,
    fingerprint: str,
    notes=(),
) -> PretrainedTokenizer:
    """A `PretrainedTokenizer` that encodes as tiktoken does with these ranks and pattern."""
    itos = {rank: token for token, rank in ranks.items()}

    def merge(piece: bytes) -> list[int]:
        return rank_merge(piece, ranks, whole=False)

    def recovered() -> list[tuple[bytes, bytes]]:
        pairs = []
        for token, _rank in sorted(ranks.items(), key=lambda item: item[1]):
            if len(token) > 1:
                pair = recover_merge(token, ranks)
                if pair is not None:
                    pairs.append(pair)
        return pairs

    # The single bytes, and the longer tokens in rank order: found once, on the first cut. A
    # curve cuts the same tokenizer to a dozen sizes for every text it is drawn on, and the
    # sort of 100,000 ranks, not the cut, is what each cut would otherwise cost.
    split: list = []

    def with_merges(count: int) -> PretrainedTokenizer:
        if not split:  # one slice assignment: two threads' first cuts each put both parts, never four
            split[:] = [
                {token: rank for token, rank in ranks.items() if len(token) == 1},
                sorted((rank, token) for token, rank in ranks.items() if len(token) > 1),
            ]
        singles, by_rank = split
        kept = dict(singles)
        kept.update((token, rank) for rank, token in by_rank[:count])
        digest = hashlib.sha256(f"{fingerprint}:{count}".encode()).hexdigest()
        return tokenizer_from_ranks(kept, pattern=pattern, name=f"{name} [:{count}]", fingerprint=digest)

    return PretrainedTokenizer(
        name=name,
        source_format=FORMAT,
        alphabet=BYTES,
        pretokenizer=pretokenizer_for(pattern),
        itos=itos,
        merge=merge,
        whole=ranks,
        merges=recovered,
        special_tokens=special_tokens,
        fingerprint=fingerprint,
        notes=notes,
        with_merges=with_merges,
    )


def tiktoken_from_bytes(
    raw: bytes,
    *,
    pattern: str | None,
    special_tokens: dict[str, int] | None = None,
    name: str = "the .tiktoken file",
    max_token_bytes: int = MAX_TOTAL_TOKEN_BYTES,
    max_merges: int | None = None,
    explicit_n_vocab: int | None = None,
) -> PretrainedTokenizer:
    """An uploaded ranks file with the pattern the visitor chose (a name such as gpt2, gpt4,
    cl100k, or a regex, which is checked; None or "none" for no split); its tokens hold
    at most ``max_token_bytes`` bytes in all, and at most ``max_merges`` tokens beyond the
    256 single bytes. ``explicit_n_vocab`` (from the settings), when given, must count the
    tokens and be one above the highest id, as ``tiktoken.Encoding`` checks it."""
    max_tokens = MAX_TOKENS if max_merges is None else min(MAX_TOKENS, max_merges + 256)
    ranks = parse_ranks(raw, name=name, max_token_bytes=max_token_bytes, max_tokens=max_tokens)
    regex = resolve_pattern(pattern, name=name)
    specials = check_special_tokens(special_tokens, ranks.values(), name=name)
    if explicit_n_vocab is not None:
        held, highest = len(ranks) + len(specials), max([*ranks.values(), *specials.values()], default=-1)
        if explicit_n_vocab != held or highest != explicit_n_vocab - 1:
            raise TokenizerFileError(
                f"{name}: its settings give explicit_n_vocab {explicit_n_vocab:,}, but it holds {held:,} tokens "
                f"with ids up to {highest:,} (tiktoken.Encoding refuses that too)"
            )
    digest = hashlib.sha256(
        b"tiktoken\0"
        + (regex or "").encode()
        + b"\0"
        + json.dumps(specials, sort_keys=True).encode()
        + b"\0"
        + bytes(raw)
    ).hexdigest()
    return tokenizer_from_ranks(
        ranks, pattern=regex, special_tokens=specials, name=_display_name(name), fingerprint=digest
    )


def load_tiktoken_file(
    path: str | os.PathLike[str], *, pattern: str | None = None, special_tokens: dict[str, int] | None = None
) -> PretrainedTokenizer:
    """A ``.tiktoken`` file from disk. Without ``pattern``, the settings file beside it
    (``<file>.json``, as `export_tiktoken` writes) gives the pattern and special tokens;
    if there is none, `TokenizerFileError` asks for a pattern."""
    raw = read_limited(path, what="tiktoken ranks file")
    explicit_n_vocab = None
    if pattern is None:
        settings_file = settings_path(path)
        if not settings_file.is_file():
            raise TokenizerFileError(
                f"{str(path)!r} is a ranks file, which holds no split pattern, and there is no "
                f"{settings_file.name!r} beside it: give its split pattern (gpt2, gpt4, cl100k, none or a regex; --pattern on the command line)"
            )
        settings = read_settings(settings_file, raw)
        pattern = settings_pattern(settings, name=str(settings_file))
        if special_tokens is None:
            special_tokens = settings["special_tokens"]
            explicit_n_vocab = settings["explicit_n_vocab"]  # (it counts the settings' special tokens)
    return tiktoken_from_bytes(
        raw, pattern=pattern, special_tokens=special_tokens, name=str(path), explicit_n_vocab=explicit_n_vocab
    )


def settings_pattern(settings: dict, *, name: str) -> str:
    """The pattern to give `tiktoken_from_bytes` for checked settings: their regex, or
    "none" for the whole-text pattern an export without a pre-tokenizer writes."""
    regex = check_pattern(settings["pat_str"], name=name)
    return "none" if regex == WHOLE_TEXT_PATTERN else regex


def read_settings(path: str | os.PathLike[str], ranks_raw: bytes) -> dict:
    """The settings JSON beside a ranks file, checked (and its hash of the ranks file)."""
    raw = read_limited(path, what="tiktoken settings file", max_bytes=MAX_SETTINGS_BYTES)
    return settings_from_bytes(raw, ranks_raw, name=str(path))


def settings_from_bytes(raw: bytes, ranks_raw: bytes, *, name: str) -> dict:
    """`read_settings` for settings that arrive as bytes (from a zip)."""
    data = load_json(raw, name=name)
    if not isinstance(data, dict):
        raise TokenizerFileError(f"{name} holds a JSON {type(data).__name__}, not an object")
    pattern = data.get("pat_str")
    if not isinstance(pattern, str):
        raise TokenizerFileError(f"{name}: 'pat_str' must be the split pattern as text")
    expected = data.get("mergeable_ranks_sha256")
    if expected is not None and expected != hashlib.sha256(ranks_raw).hexdigest():
        raise TokenizerFileError(f"{name} belongs to another ranks file (its sha256 does not match)")
    specials = data.get("special_tokens", {})
    if not isinstance(specials, dict):
        raise TokenizerFileError(f"{name}: 'special_tokens' must be an object of text: id")
    version = data.get("format", SETTINGS_VERSION)  # (settings written by hand may leave it out)
    if version != SETTINGS_VERSION:
        raise TokenizerFileError(
            f"{name}: 'format' is {shown_value(version)}, not {SETTINGS_VERSION!r}: settings of another kind or version"
        )
    declared = data.get("explicit_n_vocab")
    if declared is not None and (type(declared) is not int or declared < 1):
        raise TokenizerFileError(
            f"{name}: 'explicit_n_vocab' must be a whole number of tokens, not {shown_value(declared)}"
        )
    return {"pat_str": pattern, "special_tokens": specials, "explicit_n_vocab": declared}


def _display_name(name: str) -> str:
    return Path(name).name if ("/" in name or os.sep in name) else name
