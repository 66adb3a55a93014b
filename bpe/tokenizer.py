"""`BPETokenizer`: a base alphabet plus an ordered list of merges. Encoding and decoding.

A drop-in for the tutorial's class: the same constructor (``base_tokens, merges``), the
same attributes (``base_tokens``, ``merges``, ``tokens``, ``stoi``, ``itos``,
``vocab_size``), the same JSON file and fingerprint. Training lives in `bpe.training`;
this class only calls it from `train`.

Token ids: the special tokens first, if any (`bpe.specials`), then the base tokens in the
order given, then each merge's result in merge order, skipping results that already exist
(the vocabulary is a set of strings). Without special tokens the ids are the tutorial's.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

from bpe.alphabet import BYTES, CHARACTERS, check_alphabet, check_base_tokens, require_covered, require_unicode
from bpe.encoder import CodePointEncoder, MergeTriples
from bpe.errors import BpeError, TokenizerFileError
from bpe.pretokenize import check_pretokenizer, split
from bpe.specials import (
    AllowedSpecial,
    allowed_specials,
    check_special_tokens,
    disallowed_specials,
    initial_tokens,
    pieces,
    refuse_disallowed,
    streamed_pieces,
)
from bpe.steps import DEFAULT_TIE_RULE, check_tie_rule, log_line, should_log
from bpe.storage import TokenizerData, fingerprint_of, parse_tokenizer_json, read_tokenizer_file, write_tokenizer_file
from bpe.token_ids import token_pieces
from bpe.training import DEFAULT_ENGINE, TrainingSettings, train_steps
from bpe.wording import counted


@runtime_checkable
class Tokenizer(Protocol):
    """What the pages, the analysis and the model experiment need from a tokenizer.

    The tokenizer trained here (`BPETokenizer`), OpenAI's GPT-2 (`bpe.gpt2.GPT2Tokenizer`)
    and tokenizers imported from other libraries all satisfy it, so every view can show
    them side by side. Tokens are str for a character alphabet, bytes for a byte alphabet.
    """

    alphabet: str  # "characters" or "bytes"
    pretokenizer: str | None
    vocab_size: int
    itos: Mapping[int, str | bytes]
    stoi: Mapping[str | bytes, int]

    def encode(self, text: str) -> list[int]: ...

    def decode(self, ids: Iterable[int]) -> str: ...

    def encode_tokens(self, text: str) -> list: ...

    def encode_with_chunks(self, text: str) -> list[list[int]]: ...

    def fingerprint(self) -> str: ...

    def with_merges(self, count: int) -> Tokenizer: ...


class BPETokenizer:
    def __init__(
        self,
        base_tokens: Sequence,
        merges: Iterable[Sequence],
        *,
        alphabet: str = CHARACTERS,
        pretokenizer: str | None = None,
        tie_rule: str = DEFAULT_TIE_RULE,
        merged: Sequence | None = None,
        special_tokens: Sequence[str] = (),
    ) -> None:
        """``merged``, when given, is each merge's result already spelled (a training run's
        tokens): the tokenizer keeps those strings instead of its own copies, so the
        tokenizers of one run's prefixes share its tokens rather than spell them out again.
        ``special_tokens``: strings that are one token each, ids 0, 1, ... (`bpe.specials`)."""
        self.alphabet = check_alphabet(alphabet)
        self.pretokenizer = check_pretokenizer(pretokenizer)
        # How training broke ties (`bpe.steps.TIE_RULES`). Encoding never needs it; the file
        # and the fingerprint keep it, so two runs that differ only in it stay apart.
        self.tie_rule = check_tie_rule(tie_rule)
        self.base_tokens = check_base_tokens(base_tokens, alphabet)
        # special token -> id, as GPT-2's and tiktoken's tokenizers hold them: numbered first
        self.special_tokens: dict[str, int] = {
            special: i for i, special in enumerate(check_special_tokens(special_tokens))
        }
        self._base_set = set(self.base_tokens)
        self.merges: list[tuple] = []
        self.tokens: list = initial_tokens(self.special_tokens, self.base_tokens, alphabet)
        self.stoi: dict = {token: i for i, token in enumerate(self.tokens)}
        if len(self.stoi) < len(self.tokens):
            clash = next(s for s in self.special_tokens if self.tokens.count(self.tokens[self.special_tokens[s]]) > 1)
            raise BpeError(f"special token {clash!r} is a base token too")
        merge_ids = MergeTriples()
        for number, merge in enumerate(merges, start=1):
            pair = _as_pair(merge, number)
            left, right = pair
            for part in (left, right):
                if part not in self.stoi or self.stoi[part] < len(self.special_tokens):
                    raise BpeError(
                        f"merge {number} {(left, right)!r} uses {part!r}, which is neither a base "
                        "token nor the result of an earlier merge"
                    )
            token = left + right
            if self.stoi.get(token, len(self.special_tokens)) < len(self.special_tokens):
                raise BpeError(
                    f"merge {number} {(left, right)!r} makes {token!r}, which is a special token: "
                    "no merge may make one (the text is cut at special tokens before training)"
                )
            if merged is not None and merged[number - 1] == token:
                token = merged[number - 1]  # the run's string: this copy is freed at once
            if token not in self.stoi:
                self.stoi[token] = len(self.tokens)
                self.tokens.append(token)
            self.merges.append(pair)
            merge_ids.append(self.stoi[left], self.stoi[right], self.stoi[token])
        self.itos: dict = dict(zip(self.stoi.values(), self.tokens))  # (the ids of `stoi`, not new ints)
        self.vocab_size = len(self.tokens)
        self._encoder = CodePointEncoder(merge_ids, len(self.tokens))
        # Text to the encoder's spelling, one code point per base-token id; for the byte
        # alphabet the text's UTF-8 bytes are first read as code points 0-255 (latin-1).
        first = len(self.special_tokens)
        self._spelling = {ord(token): chr(first + i) for i, token in enumerate(self.base_tokens)}
        self._fingerprint: str | None = None  # `fingerprint`, once asked for

    # ====================
    # Training

    @classmethod
    def train(
        cls,
        text: str,
        target_vocab_size: int = 500,
        minimum_pair_frequency: int = 2,
        base_tokens: Sequence | None = None,
        verbose: bool = False,
        engine: str = DEFAULT_ENGINE,
        *,
        alphabet: str = CHARACTERS,
        pretokenizer: str | None = None,
        tie_rule: str = DEFAULT_TIE_RULE,
        special_tokens: Sequence[str] = (),
    ) -> BPETokenizer:
        """Train on ``text`` until the vocabulary has ``target_vocab_size`` tokens (or no pair
        occurs ``minimum_pair_frequency`` times). ``verbose`` prints the tutorial's log.
        ``tie_rule`` says which of equally frequent pairs wins (`bpe.steps.TIE_RULES`).
        ``special_tokens`` cut the text before anything else and are one token each,
        counted in the vocab size (`bpe.specials`)."""
        settings = TrainingSettings(
            target_vocab_size=target_vocab_size,
            minimum_pair_frequency=minimum_pair_frequency,
            base_tokens=base_tokens,
            engine=engine,
            top_k=0,
            alphabet=alphabet,
            pretokenizer=pretokenizer,
            tie_rule=tie_rule,
            special_tokens=tuple(special_tokens or ()),
        )
        stream = train_steps(text, settings)
        merges, merged = [], []  # (the engine's own pairs and tokens: the tokenizer keeps them, not copies)
        for step in stream:
            merges.append(step.pair)
            merged.append(step.token)
            if verbose and should_log(step.number):
                print(log_line(step), file=sys.stdout)
        if verbose:
            print(f"Stopped after {len(merges)} merges: {stream.explain_stop()}", file=sys.stdout)
        return cls(
            stream.base_tokens,
            merges,
            alphabet=alphabet,
            pretokenizer=pretokenizer,
            tie_rule=tie_rule,
            merged=merged,
            special_tokens=settings.special_tokens,
        )

    def with_merges(self, count: int) -> BPETokenizer:
        """The tokenizer after its first ``count`` merges: what a shorter training run would
        have produced (token ids agree: base tokens first, then merge results in order).
        A run's `bpe.run.TrainingRun.merge_count` says which count a vocab size allows."""
        return prefix_tokenizer(
            self.base_tokens,
            self.merges,
            count,
            alphabet=self.alphabet,
            pretokenizer=self.pretokenizer,
            tie_rule=self.tie_rule,
            special_tokens=tuple(self.special_tokens),
        )

    # ====================
    # Encoding

    def encode(
        self, text: str, *, allowed_special: AllowedSpecial = "all", disallowed_special: AllowedSpecial = "all"
    ) -> list[int]:
        """Text to token ids. Raises `UnknownSymbolsError` listing characters outside the alphabet.

        Special tokens follow tiktoken's arguments: those in ``allowed_special`` become their
        id (the longest first where two overlap); one in ``disallowed_special`` ("all": every
        special token not allowed) is an error; any other is plain text. One difference from
        tiktoken, whose default allows none: a tokenizer trained with special tokens
        recognizes them all by default, as CS336's and Hugging Face's do (its text holds
        them). `encode_ordinary` never recognizes them.

            >>> tok.encode("a<|endoftext|>b")                          # [ids of a, 0, ids of b]
            >>> tok.encode("<|endoftext|>", allowed_special=set())    # BpeError: disallowed
            >>> tok.encode("<|endoftext|>", disallowed_special=(), allowed_special=set())  # plain text
        """
        if not isinstance(text, str):
            raise BpeError(f"encode takes a str, got {type(text).__name__}")
        if not self.special_tokens and allowed_special == "all":
            return self.encode_ordinary(text)
        allowed = allowed_specials(allowed_special, self.special_tokens.keys(), name="this tokenizer")
        refuse_disallowed(text, disallowed_specials(disallowed_special, allowed, self.special_tokens.keys()))
        present = tuple(special for special in allowed if special in text)
        if not present:
            return self.encode_ordinary(text)
        # One call to the encoder: each special token stands in the spelling as its own id,
        # a symbol no merge holds, so it encodes to itself (`_spelled_chunks`).
        return self._encoder.encode_chunks(self._spelled_chunks(text, present))

    def encode_ordinary(self, text: str) -> list[int]:
        """Text to token ids with no special tokens at all: ``<|endoftext|>`` in the text is
        plain text (tiktoken's ``encode_ordinary``)."""
        if not isinstance(text, str):
            raise BpeError(f"encode takes a str, got {type(text).__name__}")
        return self._encoder.encode_chunks(self._spelled_chunks(text))

    def _spelled_chunks(self, text: str, specials: Sequence[str] = ()) -> list[str]:
        """``text``'s chunks in the encoder's spelling (`bpe.encoder.CodePointEncoder`), each
        of ``specials`` in it as a chunk of one code point: its id. Raises
        `UnknownSymbolsError` for characters outside the alphabet (special tokens aside)."""
        require_unicode(text)
        spelled = []
        for piece in pieces(text, specials) if specials else [text]:
            if specials and piece in self.special_tokens:
                spelled.append(chr(self.special_tokens[piece]))
            else:
                spelled += self._spelled([piece] if self.pretokenizer is None else split(piece, self.pretokenizer))
        return spelled

    def _spelled(self, chunks: list[str]) -> list[str]:
        """Chunks of ordinary text in the encoder's spelling, every symbol checked to be a base token."""
        if self.alphabet == CHARACTERS:  # all chunks at once: the message names every character missing
            require_covered("".join(chunks), self._base_set)
        else:
            chunks = [chunk.encode("utf-8").decode("latin-1") for chunk in chunks]
            if len(self._spelling) < 256:
                _require_bytes_covered(chunks, self._spelling)
        return [chunk.translate(self._spelling) for chunk in chunks]

    def encode_iterable(
        self,
        texts: Iterable[str],
        *,
        allowed_special: AllowedSpecial = "all",
        disallowed_special: AllowedSpecial = "all",
    ) -> Iterator[int]:
        """The ids of the text that ``texts`` (lines of a file, say) make when joined, one at a
        time, without joining them: the same ids as ``encode("".join(texts))``, with the
        same special-token arguments, in memory that does not grow with the text.

        The text is held until no text that follows can change how it is cut: a special
        token that may still grow (`bpe.specials.streamed_pieces`); with a pre-tokenizer, its
        last chunks (`STREAM_MARGIN` characters: a chunk ends where its pattern says, from
        the text up to one character past it); without one, the text after the last place
        where no merge can join two symbols (`bpe.encoder.CodePointEncoder.last_cut`).
        Encoded pieces are cached apart, in at most `STREAM_CACHE_PIECES` entries.

            >>> with open("big.txt") as lines:
            ...     for token_id in tok.encode_iterable(lines): ...
        """
        allowed = allowed_specials(allowed_special, self.special_tokens.keys(), name="this tokenizer")
        disallowed = disallowed_specials(disallowed_special, allowed, self.special_tokens.keys())
        stream = _IdStream(self)
        for piece, special in streamed_pieces(texts, tuple(sorted(set(allowed) | disallowed))):
            if special:
                refuse_disallowed(piece, disallowed)
                yield from stream.flush()
                yield self.special_tokens[piece]
            else:
                yield from stream.add(piece)
        yield from stream.flush()

    def encode_tokens(self, text: str) -> list:
        """Text to token strings (bytes for the byte alphabet)."""
        itos = self.itos
        return [itos[i] for i in self.encode(text)]

    def encode_with_chunks(self, text: str) -> list[list[int]]:
        """Token ids grouped by pre-tokenizer chunk (one group without a pre-tokenizer); a
        special token is a group of its own."""
        groups = []
        for piece in pieces(text, tuple(self.special_tokens)):
            if piece in self.special_tokens:
                groups.append([self.special_tokens[piece]])
            else:
                groups += [self.encode_ordinary(chunk) for chunk in split(piece, self.pretokenizer)]
        return groups

    # ====================
    # Decoding

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """Byte-alphabet ids to the exact bytes they stand for."""
        if self.alphabet != BYTES:
            return self.decode(ids).encode("utf-8")
        return b"".join(self._tokens(ids))

    def decode(self, ids: Iterable[int]) -> str:
        """Token ids to text. For the byte alphabet, bytes that are not valid UTF-8 (a cut
        through a character) become U+FFFD; `decode_bytes` is exact. Ids are ints: a float,
        a bool or anything else is refused (`bpe.token_ids`)."""
        if self.alphabet == BYTES:
            return self.decode_bytes(ids).decode("utf-8", errors="replace")
        return "".join(self._tokens(ids))

    def _tokens(self, ids) -> list:
        return token_pieces(self.itos, ids, ids_run=f"ids run from 0 to {self.vocab_size - 1}")

    # ====================
    # Files

    def data(self) -> TokenizerData:
        """What the tokenizer file holds (`bpe.storage`): alphabet, base tokens, merges,
        pre-tokenizer, tie rule, special tokens."""
        return TokenizerData(
            self.alphabet,
            tuple(self.base_tokens),
            tuple(self.merges),
            self.pretokenizer,
            self.tie_rule,
            tuple(self.special_tokens),
        )

    @classmethod
    def from_data(cls, data: TokenizerData, *, name: str = "tokenizer file") -> BPETokenizer:
        """Build from checked file data; a merge list that does not build is a `TokenizerFileError`."""
        try:
            return cls(
                data.base_tokens,
                data.merges,
                alphabet=data.alphabet,
                pretokenizer=data.pretokenizer,
                tie_rule=data.tie_rule,
                special_tokens=data.special_tokens,
            )
        except BpeError as error:
            raise TokenizerFileError(f"{name}: {error}") from None

    def fingerprint(self) -> str:
        # A page asks for it several times a visit (cache keys, the downloads' caption), and
        # hashing every merge's spelling each time was a tenth of the Vocabulary page's
        # server time. A tokenizer does not change once built: it is hashed once.
        if self._fingerprint is None:
            self._fingerprint = fingerprint_of(self.data())
        return self._fingerprint

    def save(self, path: str | Path) -> None:
        write_tokenizer_file(path, self.data())

    @classmethod
    def from_file(cls, path: str | Path) -> BPETokenizer:
        return cls.from_data(read_tokenizer_file(path), name=str(path))

    @classmethod
    def from_json_bytes(
        cls, raw: bytes, *, name: str = "tokenizer file", max_bytes: int | None = None, max_merges: int | None = None
    ) -> BPETokenizer:
        """A tokenizer from a file's bytes (an upload), checked like `from_file`; an upload
        passes the server's bounds (`bpe.storage.UPLOAD_MAX_BYTES`, `UPLOAD_MAX_MERGES`)."""
        return cls.from_data(
            parse_tokenizer_json(raw, name=name, max_bytes=max_bytes, max_merges=max_merges), name=name
        )

    def __repr__(self) -> str:
        pre = f", pretokenizer={self.pretokenizer!r}" if self.pretokenizer else ""
        rule = f", tie_rule={self.tie_rule!r}" if self.tie_rule != DEFAULT_TIE_RULE else ""
        specials = f", special_tokens={list(self.special_tokens)!r}" if self.special_tokens else ""
        return (
            f"BPETokenizer(vocab_size={self.vocab_size}, merges={len(self.merges)}, "
            f"alphabet={self.alphabet!r}{pre}{rule}{specials})"
        )

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, BPETokenizer)
            and self.base_tokens == other.base_tokens
            and self.merges == other.merges
            and self.alphabet == other.alphabet
            and self.pretokenizer == other.pretokenizer
            and self.tie_rule == other.tie_rule
            and list(self.special_tokens) == list(other.special_tokens)
        )

    __hash__ = None  # type: ignore[assignment]


def prefix_tokenizer(
    base_tokens: Sequence,
    merges: Sequence[tuple],
    count: int,
    *,
    alphabet: str,
    pretokenizer: str | None,
    tie_rule: str,
    name: str = "count",
    merged: Sequence | None = None,
    special_tokens: Sequence[str] = (),
) -> BPETokenizer:
    """The tokenizer of the first ``count`` of ``merges`` (0: base tokens only): the one
    place a prefix becomes a tokenizer (`BPETokenizer.with_merges`,
    `bpe.run.TrainingRun.tokenizer`). ``name`` is what the caller calls the count."""
    if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= len(merges):
        raise BpeError(
            f"{name}={count!r} is out of range: there are {len(merges)} merges (give a whole number from 0 to {len(merges)})"
        )
    return BPETokenizer(
        base_tokens,
        merges[:count],
        alphabet=alphabet,
        pretokenizer=pretokenizer,
        tie_rule=tie_rule,
        merged=merged,
        special_tokens=special_tokens,
    )


# How much text `BPETokenizer.encode_iterable` gathers before it encodes what is settled,
# and how much of it stays held back with a pre-tokenizer: the chunks that end in its last
# STREAM_MARGIN characters (a named pattern decides a chunk from the text up to one
# character past it; a custom pattern that looks further ahead than this may cut a stream
# differently from the whole text).
STREAM_BLOCK = 8_192
STREAM_MARGIN = 64
STREAM_CACHE_PIECES = 4_096  # pieces a stream remembers (then forgets them all and starts again)


class _IdStream:
    """Ordinary text (no special token in it) added a part at a time, encoded as soon as
    what follows cannot change it (see `BPETokenizer.encode_iterable`); `flush` encodes the
    rest (a special token follows, or the end)."""

    def __init__(self, tokenizer: BPETokenizer) -> None:
        self.tokenizer = tokenizer
        self.held = ""  # text, with a pre-tokenizer; its spelling without one
        self.cache: dict = {}

    def add(self, text: str) -> list[int]:
        tok = self.tokenizer
        if tok.pretokenizer is None:
            self.held += tok._spelled([text])[0]
            if len(self.held) < STREAM_BLOCK:
                return []
            cut = tok._encoder.last_cut(self.held)
            done, self.held = self.held[:cut], self.held[cut:]
            return self._encode([done]) if done else []
        self.held += text
        if len(self.held) < STREAM_BLOCK:
            return []
        chunks = split(self.held, tok.pretokenizer)
        kept, size = len(chunks), 0
        while kept > 0 and size < STREAM_MARGIN:  # the chunks that end in the last STREAM_MARGIN characters
            kept -= 1
            size += len(chunks[kept])
        self.held = "".join(chunks[kept:])
        return self._encode(tok._spelled(chunks[:kept])) if kept else []

    def flush(self) -> list[int]:
        held, self.held = self.held, ""
        if not held:
            return []
        tok = self.tokenizer
        return self._encode([held] if tok.pretokenizer is None else tok._spelled_chunks(held))

    def _encode(self, spelled: list[str]) -> list[int]:
        if len(self.cache) > STREAM_CACHE_PIECES:
            self.cache = {}
        return self.tokenizer._encoder.encode_chunks(spelled, cache=self.cache)


def _require_bytes_covered(chunks: list[str], known: dict) -> None:
    """A byte alphabet without all 256 bytes must name the bytes of the text it lacks."""
    missing = sorted({ord(ch) for chunk in chunks for ch in set(chunk)} - known.keys())
    if missing:
        shown = ", ".join(f"0x{value:02X}" for value in missing[:20])
        raise BpeError(f"text has {counted(len(missing), 'byte value')} outside the tokenizer's alphabet: {shown}")


def _as_pair(merge, number: int) -> tuple:
    if isinstance(merge, (str, bytes)) or not isinstance(merge, Sequence) or len(merge) != 2:
        raise BpeError(f"merge {number} is {merge!r}: each merge must be a pair of two tokens")
    left, right = merge
    if type(left) is not type(right) or not isinstance(left, (str, bytes)) or not left or not right:
        raise BpeError(f"merge {number} is {merge!r}: both halves must be non-empty tokens of the same kind")
    return merge if type(merge) is tuple else (left, right)  # (a training's own pair is kept, not copied)
