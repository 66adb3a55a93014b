"""`PretrainedTokenizer`: a tokenizer read from another library's file, encoding by that
library's rule.

It answers the same calls as the lab's GPT-2 tokenizer (``encode`` with
``allowed_special``, ``encode_ordinary``, ``encode_tokens``, ``encode_with_chunks``,
``decode``, ``decode_bytes``, ``tokens``, ``itos``, ``stoi``, ``vocab_size``,
``base_tokens``, ``merges``, ``special_tokens``, ``fingerprint()``), so pages can show
it beside a tokenizer trained here. Its ids are the file's ids.

Encoding: normalize (Hugging Face files may ask for NFC and the like), split with the
file's pattern (`bpe.pretokenize.split`), then each chunk: if the library looks the
whole chunk up first (tiktoken; Hugging Face with ``ignore_merges``) and finds it, that
id; otherwise the library's merge rule (`bpe.formats.rules`). A long chunk is first cut
where no token could ever span the cut (between two symbols whose bigram is inside no
token), which changes nothing and keeps the cost linear; chunks are cached.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import regex

from bpe.alphabet import BYTES, CHARACTERS
from bpe.errors import BpeError
from bpe.pretokenize import split
from bpe.specials import AllowedSpecial, EncodesAroundSpecials
from bpe.token_ids import token_pieces

_WHITESPACE = regex.compile(r"\s")  # the White_Space property, as Rust's char::is_whitespace
CACHE_LIMIT = 200_000  # distinct chunks remembered per tokenizer
CUT_FROM = 64  # chunks at least this long are cut into independent pieces first


class PretrainedTokenizer(EncodesAroundSpecials):
    """A tokenizer from a Hugging Face, tiktoken or minbpe file (see the module docstring)."""

    def __init__(
        self,
        *,
        name: str,
        source_format: str,
        alphabet: str,
        pretokenizer: str | None,
        itos: dict,
        merge: Callable[[object], list[int]],
        whole: dict | None = None,
        merges: Sequence[tuple] | Callable[[], list[tuple]] = (),
        special_tokens: dict[str, int] | None = None,
        fingerprint: str,
        normalize: Callable[[str], str] | None = None,
        prefix_space: str | None = None,
        drop_whitespace: bool = False,
        cut: bool = True,
        notes: Sequence[str] = (),
        with_merges: Callable[[int], PretrainedTokenizer] | None = None,
        allowed_special_by_default: AllowedSpecial = frozenset(),
    ) -> None:
        """``itos``: id -> token (bytes for the byte alphabet, str for characters), special
        tokens excluded. ``merge``: one piece (bytes or str) to ids by the library's rule.
        ``whole``: token -> id, when the library looks a chunk up whole before merging.
        ``merges``: token pairs in rank order, or a function that recovers them on demand.
        ``prefix_space``: "text" or "chunk" when a space is put in front (Hugging Face's
        ``add_prefix_space``) of the whole text or of each chunk. ``drop_whitespace``: the
        chunks of whitespace are removed, not encoded (Hugging Face's ``Whitespace`` and
        ``WhitespaceSplit`` pre-tokenizers), so decoding loses it. ``with_merges``: builds
        the tokenizer cut to its first merges (see `with_merges`). ``allowed_special_by_default``:
        the special tokens ``encode`` matches in the text when not told (the library's rule)."""
        if alphabet not in (BYTES, CHARACTERS):
            raise BpeError(f"unknown alphabet {alphabet!r}")
        self.name = name
        self.source_format = source_format
        self.alphabet = alphabet
        self.pretokenizer = pretokenizer
        self.special_tokens: dict[str, int] = dict(special_tokens or {})
        self.allowed_special_by_default = allowed_special_by_default
        self.notes: tuple[str, ...] = tuple(notes)
        self._fingerprint = fingerprint
        self._merge = merge
        self._whole = whole
        self._normalize = normalize
        self._prefix_space = prefix_space
        self._drop_whitespace = drop_whitespace
        self._ordinary_itos = dict(itos)
        self.itos: dict = dict(itos)
        for special, token_id in self.special_tokens.items():
            self.itos[token_id] = special.encode("utf-8") if alphabet == BYTES else special
        self.stoi: dict = {token: token_id for token_id, token in self.itos.items()}
        self.vocab_size = len(self.itos)
        self.base_tokens: list = [token for _, token in sorted(self._ordinary_itos.items()) if len(token) == 1]
        self._merges = merges
        self._joinable = _bigrams_inside(self._ordinary_itos.values()) if cut else None
        self._cache: dict[str, list[int]] = {}
        self._with_merges = with_merges

    # ====================
    # What it holds

    @property
    def tokens(self) -> list:
        """Every token in id order (special tokens as their text). Ids may have gaps
        (cl100k's special tokens start at 100257, with 100261..100275 unused): use ``itos``
        for the id of each."""
        return [self.itos[i] for i in sorted(self.itos)]

    @property
    def max_id(self) -> int:
        return max(self.itos, default=-1)

    @property
    def merges(self) -> list[tuple]:
        """The merges as token pairs, in rank order (recovered from ranks for tiktoken files)."""
        if callable(self._merges):
            self._merges = self._merges()
        return list(self._merges)

    def fingerprint(self) -> str:
        """SHA-256 of the file's bytes and the settings it was loaded with."""
        return self._fingerprint

    # ====================
    # Encoding

    def encode_ordinary(self, text: str) -> list[int]:
        """Text to ids, with no special tokens."""
        ids: list[int] = []
        for chunk in self._chunks(text):
            ids += self._encode_chunk(chunk)
        return ids

    def encode_with_chunks(self, text: str) -> list[list[int]]:
        """Ids grouped by pre-tokenizer chunk: the boundaries merges never cross."""
        return [self._encode_chunk(chunk) for chunk in self._chunks(text)]

    def encode_tokens(self, text: str) -> list:
        """Text to its tokens (bytes for the byte alphabet)."""
        itos = self.itos
        return [itos[i] for i in self.encode_ordinary(text)]

    def clear_cache(self) -> None:
        self._cache = {}

    def _chunks(self, text: str) -> list[str]:
        if not isinstance(text, str):
            raise BpeError(f"encode takes a str, got {type(text).__name__}")
        if self._normalize is not None:
            text = self._normalize(text)
        if self._prefix_space == "text" and text and not text.startswith(" "):
            text = " " + text
        chunks = split(text, self.pretokenizer)
        if self._drop_whitespace:  # the pattern gives whitespace chunks of their own: \s as Rust's is_whitespace
            chunks = [chunk for chunk in chunks if not _WHITESPACE.match(chunk)]
        if self._prefix_space == "chunk":
            chunks = [chunk if chunk.startswith(" ") else " " + chunk for chunk in chunks]
        return chunks

    def _encode_chunk(self, chunk: str) -> list[int]:
        found = self._cache.get(chunk)
        if found is not None:
            return found
        if self.alphabet == BYTES:
            try:
                piece = chunk.encode("utf-8")
            except UnicodeEncodeError as error:
                raise BpeError(
                    f"the text holds {error.object[error.start]!r}, a lone surrogate, which is not "
                    "a character and has no UTF-8 bytes"
                ) from None
        else:
            piece = chunk
        ids = None
        if self._whole is not None:
            token_id = self._whole.get(piece)
            if token_id is not None:
                ids = [token_id]
        if ids is None:
            ids = []
            for part in self._independent_pieces(piece):
                ids += self._merge(part)
        if len(self._cache) >= CACHE_LIMIT:
            self._cache = {}
        if len(chunk) < 1000:
            self._cache[chunk] = ids
        return ids

    def _independent_pieces(self, piece) -> list:
        if self._joinable is None or len(piece) < CUT_FROM:
            return [piece]
        return independent_pieces(piece, self._joinable)

    # ====================
    # Decoding

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """Ids to the exact bytes they stand for."""
        parts = self._tokens(ids)
        if self.alphabet == BYTES:
            return b"".join(parts)
        return "".join(parts).encode("utf-8")

    def decode(self, ids: Iterable[int]) -> str:
        """Ids to text; bytes that are not valid UTF-8 become U+FFFD (`decode_bytes` is exact).
        Ids are ints: a float, a bool or anything else is refused (`bpe.token_ids`)."""
        if self.alphabet == CHARACTERS:
            return "".join(self._tokens(ids))
        return self.decode_bytes(ids).decode("utf-8", errors="replace")

    def _tokens(self, ids) -> list:
        return token_pieces(self.itos, ids, ids_run=f"{self.name}'s ids run from 0 to {self.max_id}")

    # ====================
    # Conversion

    def with_merges(self, count: int) -> PretrainedTokenizer:
        """The tokenizer with only its first ``count`` merges (by rank) and no special
        tokens: what a shorter training run would have kept. Ids stay the file's ids; a
        count past the last merge keeps them all (as GPT-2's ``with_merges``)."""
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise BpeError(f"count={count!r} must be a whole number of merges, at least 0")
        if self._with_merges is None:
            raise BpeError(f"{self.name} cannot be cut to its first merges")
        return self._with_merges(count)

    def __repr__(self) -> str:
        pre = f", pretokenizer={self.pretokenizer!r}" if self.pretokenizer else ""
        return (
            f"PretrainedTokenizer(name={self.name!r}, format={self.source_format!r}, "
            f"vocab_size={self.vocab_size}, alphabet={self.alphabet!r}{pre})"
        )


def independent_pieces(symbols: str | bytes, joinable: set) -> list:
    """Cut where no merge can ever join: between two symbols whose bigram occurs in no
    token (``joinable`` holds the bigrams inside tokens). Every token an encoder makes is
    in the vocabulary, so none spans such a cut, and encoding the pieces one by one equals
    encoding the whole (exactly). Pieces repeat (words, mostly), so a per-piece cache then
    does most of the work."""
    if len(symbols) < 2:
        return [symbols]
    pairs = map(str.__add__, symbols, symbols[1:]) if isinstance(symbols, str) else zip(symbols, symbols[1:])
    cuts = [i for i, pair in enumerate(pairs, start=1) if pair not in joinable]
    if not cuts:
        return [symbols]
    starts = [0, *cuts]
    ends = [*cuts, len(symbols)]
    return [symbols[start:end] for start, end in zip(starts, ends)]


def _bigrams_inside(tokens: Iterable) -> set:
    """Every pair of adjacent symbols inside some token: 'the' -> {'th', 'he'}; for byte
    tokens, pairs of byte values (as `zip` over bytes yields them)."""
    found: set = set()
    for token in tokens:
        if isinstance(token, bytes):
            found.update(zip(token, token[1:]))
        else:
            found.update(token[i : i + 2] for i in range(len(token) - 1))
    return found
