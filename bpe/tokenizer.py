"""`BPETokenizer`: a base alphabet plus an ordered list of merges. Encoding and decoding.

A drop-in for the tutorial's class: the same constructor (``base_tokens, merges``), the
same attributes (``base_tokens``, ``merges``, ``tokens``, ``stoi``, ``itos``,
``vocab_size``), the same JSON file and fingerprint. Training lives in `bpe.training`;
this class only calls it from `train`.

Token ids: the base tokens in the order given, then each merge's result in merge order,
skipping results that already exist (the vocabulary is a set of strings).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

from bpe.alphabet import BYTES, CHARACTERS, check_alphabet, check_base_tokens, require_covered, require_unicode
from bpe.encoder import CodePointEncoder
from bpe.errors import BpeError, TokenizerFileError
from bpe.pretokenize import check_pretokenizer, split
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
    ) -> None:
        """``merged``, when given, is each merge's result already spelled (a training run's
        tokens): the tokenizer keeps those strings instead of its own copies, so the
        tokenizers of one run's prefixes share its tokens rather than spell them out again."""
        self.alphabet = check_alphabet(alphabet)
        self.pretokenizer = check_pretokenizer(pretokenizer)
        # How training broke ties (`bpe.steps.TIE_RULES`). Encoding never needs it; the file
        # and the fingerprint keep it, so two runs that differ only in it stay apart.
        self.tie_rule = check_tie_rule(tie_rule)
        self.base_tokens = check_base_tokens(base_tokens, alphabet)
        self._base_set = set(self.base_tokens)
        self.merges: list[tuple] = []
        self.tokens: list = list(self.base_tokens)
        self.stoi: dict = {token: i for i, token in enumerate(self.tokens)}
        merge_ids = []
        for number, merge in enumerate(merges, start=1):
            left, right = _as_pair(merge, number)
            for part in (left, right):
                if part not in self.stoi:
                    raise BpeError(
                        f"merge {number} {(left, right)!r} uses {part!r}, which is neither a base "
                        "token nor the result of an earlier merge"
                    )
            token = left + right
            if merged is not None and merged[number - 1] == token:
                token = merged[number - 1]  # the run's string: this copy is freed at once
            if token not in self.stoi:
                self.stoi[token] = len(self.tokens)
                self.tokens.append(token)
            self.merges.append((left, right))
            merge_ids.append((self.stoi[left], self.stoi[right], self.stoi[token]))
        self.itos: dict = dict(enumerate(self.tokens))
        self.vocab_size = len(self.tokens)
        self._encoder = CodePointEncoder(merge_ids, len(self.tokens))
        # Text to the encoder's spelling, one code point per base-token id; for the byte
        # alphabet the text's UTF-8 bytes are first read as code points 0-255 (latin-1).
        self._spelling = {ord(token): chr(i) for i, token in enumerate(self.base_tokens)}
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
    ) -> BPETokenizer:
        """Train on ``text`` until the vocabulary has ``target_vocab_size`` tokens (or no pair
        occurs ``minimum_pair_frequency`` times). ``verbose`` prints the tutorial's log.
        ``tie_rule`` says which of equally frequent pairs wins (`bpe.steps.TIE_RULES`)."""
        settings = TrainingSettings(
            target_vocab_size=target_vocab_size,
            minimum_pair_frequency=minimum_pair_frequency,
            base_tokens=base_tokens,
            engine=engine,
            top_k=0,
            alphabet=alphabet,
            pretokenizer=pretokenizer,
            tie_rule=tie_rule,
        )
        stream = train_steps(text, settings)
        merges = []
        for step in stream:
            merges.append(step.pair)
            if verbose and should_log(step.number):
                print(log_line(step), file=sys.stdout)
        if verbose:
            print(f"Stopped after {len(merges)} merges: {stream.explain_stop()}", file=sys.stdout)
        return cls(stream.base_tokens, merges, alphabet=alphabet, pretokenizer=pretokenizer, tie_rule=tie_rule)

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
        )

    # ====================
    # Encoding

    def encode(self, text: str) -> list[int]:
        """Text to token ids. Raises `UnknownSymbolsError` listing characters outside the alphabet."""
        if not isinstance(text, str):
            raise BpeError(f"encode takes a str, got {type(text).__name__}")
        require_unicode(text)
        if self.alphabet == CHARACTERS:
            require_covered(text, self._base_set)
        chunks = [text] if self.pretokenizer is None else split(text, self.pretokenizer)
        if self.alphabet == BYTES:
            chunks = [chunk.encode("utf-8").decode("latin-1") for chunk in chunks]
            if len(self._spelling) < 256:
                _require_bytes_covered(chunks, self._spelling)
        spelling = self._spelling
        return self._encoder.encode_chunks([chunk.translate(spelling) for chunk in chunks])

    def encode_tokens(self, text: str) -> list:
        """Text to token strings (bytes for the byte alphabet)."""
        itos = self.itos
        return [itos[i] for i in self.encode(text)]

    def encode_with_chunks(self, text: str) -> list[list[int]]:
        """Token ids grouped by pre-tokenizer chunk (one group without a pre-tokenizer)."""
        return [self.encode(chunk) for chunk in split(text, self.pretokenizer)]

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
        """What the tokenizer file holds (`bpe.storage`): alphabet, base tokens, merges, pre-tokenizer, tie rule."""
        return TokenizerData(
            self.alphabet, tuple(self.base_tokens), tuple(self.merges), self.pretokenizer, self.tie_rule
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
        return (
            f"BPETokenizer(vocab_size={self.vocab_size}, merges={len(self.merges)}, "
            f"alphabet={self.alphabet!r}{pre}{rule})"
        )

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, BPETokenizer)
            and self.base_tokens == other.base_tokens
            and self.merges == other.merges
            and self.alphabet == other.alphabet
            and self.pretokenizer == other.pretokenizer
            and self.tie_rule == other.tie_rule
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
) -> BPETokenizer:
    """The tokenizer of the first ``count`` of ``merges`` (0: base tokens only): the one
    place a prefix becomes a tokenizer (`BPETokenizer.with_merges`,
    `bpe.run.TrainingRun.tokenizer`). ``name`` is what the caller calls the count."""
    if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= len(merges):
        raise BpeError(
            f"{name}={count!r} is out of range: there are {len(merges)} merges (give a whole number from 0 to {len(merges)})"
        )
    return BPETokenizer(
        base_tokens, merges[:count], alphabet=alphabet, pretokenizer=pretokenizer, tie_rule=tie_rule, merged=merged
    )


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
    return left, right
