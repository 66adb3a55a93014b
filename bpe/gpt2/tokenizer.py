"""The real GPT-2 tokenizer from OpenAI's files, in pure Python, id for id like tiktoken.

Unlike `bpe.tokenizer.BPETokenizer`, which replays merges as pairs in learned order,
this encoder merges the way tiktoken does, so that ids equal
``tiktoken.get_encoding("gpt2")`` for any text:

1. the text is split with GPT-2's regex (`bpe.pretokenize.GPT2_PATTERN`); merges never
   cross a chunk;
2. a chunk whose bytes are already a token is that token (no merging at all);
3. otherwise, starting from single bytes, the adjacent pair whose *concatenation* has
   the lowest rank is merged (leftmost first on ties), until no concatenation is a token
   (tiktoken's rank rule, `bpe.ranks`, which `bpe.formats` uses for .tiktoken files too).

Rank and id are the same number in GPT-2's files (checked by `bpe.gpt2.files`), so the
ids come out directly. Text repeats itself, so each distinct chunk is encoded once and
remembered (a per-tokenizer cache), and the text is cut into space-led pieces with C
string methods so that the regex only runs on pieces not seen before: that is what makes
pure Python fast enough.

Special tokens follow tiktoken's ``allowed_special`` and ``disallowed_special``
(`bpe.specials.encode_with_specials`), with one difference: by default ``<|endoftext|>`` in
the text is encoded as the plain text it is (what tiktoken does with
``disallowed_special=()``) instead of raising. Only when allowed does it become id 50256.
``load_gpt2(..., special_tokens=[...])`` adds special tokens of any shape.

    >>> gpt2 = load_gpt2("data/cache/gpt2/encoder.json", "data/cache/gpt2/vocab.bpe")
    >>> gpt2.encode("hello world")
    [31373, 995]
    >>> gpt2.encode("<|endoftext|>", allowed_special="all")
    [50256]
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from itertools import chain, compress, filterfalse, islice, repeat
from operator import is_not, not_

from bpe.alphabet import BYTES, require_unicode
from bpe.errors import BpeError
from bpe.gpt2.files import (
    ENCODER_JSON,
    GPT2_SHA256,
    VOCAB_BPE,
    GPT2Vocabulary,
    download_gpt2_files,
    find_gpt2_files,
    missing_files_message,
    parse_gpt2_files,
)
from bpe.io.files import check_sha256
from bpe.pretokenize import GPT2_PATTERN, gpt2_segments, segment_text
from bpe.ranks import merge_by_rank, rank_merge
from bpe.specials import EncodesAroundSpecials
from bpe.storage import TokenizerData, fingerprint_of
from bpe.token_ids import token_pieces

__all__ = ["GPT2Tokenizer", "download_gpt2_files", "find_gpt2_files", "load_default_gpt2", "load_gpt2"]

CACHE_LIMIT = 500_000  # distinct pieces remembered per tokenizer; bounds memory on endless input


class GPT2Tokenizer(EncodesAroundSpecials):
    """A byte-level BPE tokenizer read from GPT-2's files (see the module docstring)."""

    alphabet = BYTES
    pretokenizer = "gpt2"

    def __init__(self, vocabulary: GPT2Vocabulary, *, name: str = "GPT-2") -> None:
        import regex  # GPT-2's pattern needs \p{L}, which `re` lacks

        self.name = name
        self.base_tokens: list[bytes] = vocabulary.tokens[:256]
        self.merges: list[tuple[bytes, bytes]] = list(vocabulary.merges)
        self.special_tokens: dict[str, int] = dict(vocabulary.special_tokens)
        # bytes -> rank; rank is the id (bytes first, then merge results in merge order)
        self._ranks: dict[bytes, int] = {token: i for i, token in enumerate(vocabulary.tokens)}
        self.itos: dict[int, bytes] = dict(enumerate(vocabulary.tokens))
        for special, token_id in self.special_tokens.items():
            self.itos[token_id] = special.encode("utf-8")
        self.stoi: dict[bytes, int] = {token: token_id for token_id, token in self.itos.items()}
        self.vocab_size = len(self.itos)
        self._findall = regex.compile(GPT2_PATTERN).findall
        self._cache: dict[str, list[int]] = {}
        self._whole: tuple[dict[str, int], list[list[int]]] | None = None  # see _whole_tokens
        self._fingerprint: str | None = None

    @property
    def tokens(self) -> list[bytes]:
        """Every token by id (special tokens as their UTF-8 text)."""
        return [self.itos[i] for i in range(self.vocab_size)]

    # ====================
    # Encoding

    def encode_ordinary(self, text: str) -> list[int]:
        """Text to ids with no special tokens at all (``<|endoftext|>`` is plain text).

        Fast path: cut the text into space-led pieces with C string methods (see `bpe.pretokenize.gpt2_segments`),
        look each distinct piece up once, and run the regex only on pieces not seen before.
        """
        require_unicode(text)
        segments = gpt2_segments(text)
        if segments is None:
            return self._encode_uncached(text)
        head = segments[0]
        ids = self._encode_piece(segment_text(head, first=True)) if head else []
        # each later segment stands for the piece " " + segment (islice: no copy of the list)
        pieces = self._pieces_for(islice(segments, 1, None))
        ids += chain.from_iterable(map(pieces.__getitem__, islice(segments, 1, None)))
        return ids

    def clear_cache(self) -> None:
        """Forget every piece encoded so far (the next encode starts cold, as in a benchmark)."""
        self._cache = {}

    def _pieces_for(self, segments: Iterable[str]) -> dict[str, list[int]]:
        """The cache, holding every segment's ids (encoding those it lacks)."""
        cache = self._cache
        distinct = set(segments)
        missing = distinct.difference(cache)
        if len(cache) + len(missing) > CACHE_LIMIT:  # bounded: forget rather than grow forever
            # A new dict, never clear(): another thread may be reading the old one.
            cache = {}
            missing = distinct
            if len(missing) <= CACHE_LIMIT:
                self._cache = cache  # else too many for the cache: a dict for this call only
        # A space and letters alone are one chunk (` ?\p{L}++`; str.isalpha is exactly the
        # categories of \p{L}), so most pieces skip the regex, and most of those are a
        # token already: looked up as text, in C, without encoding them first.
        words = list(filter(str.isalpha, missing))
        text_ids, single = self._whole_tokens()
        ranks = self._ranks
        tokens = list(map(text_ids.get, map(" ".__add__, words)))
        whole = list(map(is_not, tokens, repeat(None)))
        cache.update(zip(compress(words, whole), map(single.__getitem__, compress(tokens, whole))))
        for segment in compress(words, map(not_, whole)):
            cache[segment] = merge_by_rank(b" " + segment.encode("utf-8"), ranks)
        encode_piece = self._encode_piece
        for segment in filterfalse(str.isalpha, missing):
            cache[segment] = encode_piece(segment_text(segment))
        return cache

    def _whole_tokens(self) -> tuple[dict[str, int], list[list[int]]]:
        """(each token that is whole UTF-8 text -> its id, ``[[0], [1], ...]``): how a piece
        that is one token is found, and the ids the cache holds for it (shared, never
        changed). Built on first use, whole, then published: other threads may be encoding."""
        if self._whole is None:
            text_ids = {}
            for token, i in self._ranks.items():
                try:
                    text_ids[token.decode("utf-8")] = i
                except UnicodeDecodeError:
                    pass  # part of a character: never a whole piece of text
            self._whole = text_ids, [[i] for i in range(len(self._ranks))]
        return self._whole

    def _encode_piece(self, piece: str) -> list[int]:
        ids: list[int] = []
        for chunk in self._findall(piece):
            ids += self._encode_chunk(chunk)
        return ids

    def _encode_uncached(self, text: str) -> list[int]:
        """The plain way: the regex over the whole text, each distinct chunk encoded once."""
        seen: dict[str, list[int]] = {}
        ids: list[int] = []
        for chunk in self._findall(text):
            found = seen.get(chunk)
            if found is None:
                found = seen[chunk] = self._encode_chunk(chunk)
            ids += found
        return ids

    def encode_tokens(self, text: str) -> list[bytes]:
        """Text to the bytes of each token (no special tokens)."""
        itos = self.itos
        return [itos[i] for i in self.encode_ordinary(text)]

    def encode_with_chunks(self, text: str) -> list[list[int]]:
        """Ids grouped by pre-tokenizer chunk: the boundaries merges never cross."""
        return [self.encode_ordinary(chunk) for chunk in self._findall(text)]

    def _encode_chunk(self, chunk: str) -> list[int]:
        return rank_merge(chunk.encode("utf-8"), self._ranks)

    # ====================
    # Decoding

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """Ids to the exact bytes they stand for."""
        return b"".join(token_pieces(self.itos, ids, ids_run=f"{self.name}'s ids run from 0 to {self.vocab_size - 1}"))

    def decode(self, ids: Iterable[int]) -> str:
        """Ids to text; bytes that are not valid UTF-8 (a cut through a character) become U+FFFD,
        as in tiktoken. `decode_bytes` is exact. Ids are ints: a float, a bool or anything
        else is refused (`bpe.token_ids`)."""
        return self.decode_bytes(ids).decode("utf-8", errors="replace")

    # ====================
    # Identity and conversion

    def fingerprint(self) -> str:
        """The fingerprint a ``byte_bpe`` file of these merges would have (`bpe.storage`)."""
        if self._fingerprint is None:
            self._fingerprint = fingerprint_of(
                TokenizerData(BYTES, tuple(self.base_tokens), tuple(self.merges), self.pretokenizer)
            )
        return self._fingerprint

    def with_merges(self, count: int) -> GPT2Tokenizer:
        """GPT-2 with only its first ``count`` merges (and no special tokens): what a shorter
        training run would have kept, since ranks are merge order."""
        if not isinstance(count, int) or count < 0:
            raise BpeError(f"count={count!r} must be a whole number from 0 to {len(self.merges)}")
        kept = min(count, len(self.merges))
        tokens = [self.itos[i] for i in range(len(self.base_tokens) + kept)]
        return GPT2Tokenizer(GPT2Vocabulary(tokens, self.merges[:kept], {}), name=f"{self.name} [:{kept}]")

    def __repr__(self) -> str:
        return f"GPT2Tokenizer(name={self.name!r}, vocab_size={self.vocab_size}, merges={len(self.merges)})"


# ====================
# Loading


def load_gpt2(
    encoder_json_path: str | os.PathLike[str],
    vocab_bpe_path: str | os.PathLike[str],
    *,
    encoder_sha256: str | None = None,
    vocab_sha256: str | None = None,
    special_tokens: Sequence[str] = (),
) -> GPT2Tokenizer:
    """Load ``encoder.json`` and ``vocab.bpe`` (OpenAI's format) into a `GPT2Tokenizer`.

    With ``encoder_sha256`` / ``vocab_sha256`` the files must have those hashes first.
    ``special_tokens``: more special tokens, of any shape, overlapping ones included
    (``["<|endoftext|>", "<|endoftext|><|endoftext|>"]``, as CS336's tests load GPT-2): each
    keeps the id ``encoder.json`` gives it, one it lacks takes the next id (50257 for
    GPT-2), as a tiktoken ``Encoding`` given the same special tokens numbers them.
    Malformed files raise `BpeError` naming the file and the line.
    """
    if encoder_sha256 is not None:
        check_sha256(encoder_json_path, encoder_sha256)
    if vocab_sha256 is not None:
        check_sha256(vocab_bpe_path, vocab_sha256)
    return GPT2Tokenizer(parse_gpt2_files(encoder_json_path, vocab_bpe_path, special_tokens=special_tokens))


def load_default_gpt2(
    *, download: bool = False, cache_dir: str | os.PathLike[str] | None = None, progress=None
) -> GPT2Tokenizer:
    """OpenAI's GPT-2, from ``data/cache/gpt2/`` or the shared data folder, hashes checked.

    When neither has the files: downloads them into the cache if ``download`` is true,
    else raises `BpeError` saying what to download and where to put it.
    """
    found = find_gpt2_files(cache_dir)
    if found is None:
        if not download:
            raise BpeError(missing_files_message(cache_dir))
        found = (
            download_gpt2_files(cache_dir, progress=progress) if cache_dir else download_gpt2_files(progress=progress)
        )
    encoder, vocab = found
    return load_gpt2(encoder, vocab, encoder_sha256=GPT2_SHA256[ENCODER_JSON], vocab_sha256=GPT2_SHA256[VOCAB_BPE])
