"""Special tokens: strings such as ``<|endoftext|>`` that are one token each and a boundary
for everything else.

Real corpora separate documents with a marker (TinyStories, OpenWebText dumps and CS336's
fixtures use ``<|endoftext|>``). Trained straight through, BPE learns pieces of the
marker (``<|``, ``endoftext``, ``|>``) and merges across document boundaries. Hugging
Face (``special_tokens``), tiktoken (``allowed_special``), minbpe
(``register_special_tokens``) and CS336 all do the same instead, and so does BPE Lab:

- the text is cut at every occurrence of a special token *before* pre-tokenization, the
  longest first where two overlap (``<|endoftext|><|endoftext|>`` before
  ``<|endoftext|>``), scanning left to right, so no merge learns from or crosses one::

      pieces("a b<|endoftext|>c", ["<|endoftext|>"]) == ["a b", "<|endoftext|>", "c"]

- each special token is one token with its own id, counted in the vocabulary size (as
  Hugging Face and CS336 count it);
- the ids: special tokens first, in the order given, then the base alphabet, then each
  merge's token (CS336's reference vocabulary has ``<|endoftext|>`` at id 0; Hugging
  Face's trainer numbers its special tokens first too). A tokenizer without special tokens
  keeps the ids it always had. See `initial_tokens`.

Encoding follows tiktoken's arguments (`encode_with_specials`): ``allowed_special`` names
the special tokens recognized in the text, ``disallowed_special`` those that are an error
when they occur in it (the rest are plain text).

This module is the one home of the idea: training (`bpe.training`), the count phase
(`bpe.pretokenize.ChunkTally`, `bpe.scale`), the tokenizers, the files and the exports
all call it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from functools import lru_cache
from typing import Literal

from bpe.alphabet import BYTES, default_base_tokens
from bpe.errors import BpeError
from bpe.text import shown_value

# How many special tokens a training or a tokenizer file may name: tokenizers name a few
# (GPT-2 one, cl100k five, Llama 3 256); a reader of another library's file allows more
# (`bpe.formats.tiktoken_ranks.MAX_SPECIAL_TOKENS`).
MAX_SPECIAL_TOKENS = 1_000
# The longest special token, in characters. Real ones are short (``<|endoftext|>`` is 13);
# the count phase looks this far (in UTF-8 bytes, four a character) around each place
# it may cut a text file, so that no cut falls inside one (`bpe.scale.safe_cuts`).
MAX_SPECIAL_TOKEN_CHARACTERS = 200
ENDOFTEXT = "<|endoftext|>"

AllowedSpecial = AbstractSet[str] | Literal["all"]


def check_special_tokens(special_tokens, *, what: str = "special_tokens") -> tuple[str, ...]:
    """The special tokens as a tuple of distinct strings, in the order given, or `BpeError`
    naming the first that is not one. A special token is at least two characters (a single
    character is a base token already), at most `MAX_SPECIAL_TOKEN_CHARACTERS`, and UTF-8
    text. ``None`` is none.

    >>> check_special_tokens(["<|endoftext|>"])
    ('<|endoftext|>',)
    """
    if special_tokens is None:
        return ()
    if isinstance(special_tokens, (str, bytes)):
        raise BpeError(
            f"{what}={shown_value(special_tokens)} is one string: give a list of special tokens, "
            f"such as [{special_tokens!r:.40}]"
        )
    try:
        tokens = tuple(special_tokens)
    except TypeError:
        raise BpeError(f"{what} must be a list of strings, got {type(special_tokens).__name__}") from None
    if len(tokens) > MAX_SPECIAL_TOKENS:
        raise BpeError(f"{what} names {len(tokens):,} special tokens; at most {MAX_SPECIAL_TOKENS:,} are allowed")
    seen: set[str] = set()
    for token in tokens:
        if not isinstance(token, str):
            raise BpeError(f"special token {shown_value(token)} is a {type(token).__name__}, not a string")
        if len(token) < 2:
            raise BpeError(
                f"special token {token!r} is {'empty' if not token else 'one character'}: a special token is at "
                "least two characters (a single character is a base token already)"
            )
        if len(token) > MAX_SPECIAL_TOKEN_CHARACTERS:
            raise BpeError(
                f"special token {token[:40]!r}... is {len(token):,} characters; at most "
                f"{MAX_SPECIAL_TOKEN_CHARACTERS} are allowed"
            )
        try:
            token.encode("utf-8")
        except UnicodeEncodeError:
            raise BpeError(f"special token {token!r} holds a lone surrogate, which has no UTF-8 form") from None
        if token in seen:
            raise BpeError(f"special token {token!r} is given twice")
        seen.add(token)
    return tokens


# ==================== Cutting text at special tokens


@lru_cache(maxsize=32)
def special_pattern(special_tokens: tuple[str, ...]) -> re.Pattern:
    """One regex that finds any of the special tokens, the longest first: an alternation
    tries its branches in order, so ``<|a|><|a|>`` must come before ``<|a|>``."""
    ordered = sorted(special_tokens, key=len, reverse=True)
    return re.compile("|".join(map(re.escape, ordered)))


def pieces(text: str, special_tokens: Sequence[str]) -> list[str]:
    """``text`` cut at its special tokens, the special tokens kept as pieces of their own
    (``"".join(pieces(...)) == text``); no special tokens: ``[text]``.

    >>> pieces("one<|endoftext|>two", ["<|endoftext|>"])
    ['one', '<|endoftext|>', 'two']
    """
    if not special_tokens or not text:
        return [text] if text else []
    out: list[str] = []
    start = 0
    for found in special_pattern(tuple(special_tokens)).finditer(text):
        if found.start() > start:
            out.append(text[start : found.start()])
        out.append(found.group())
        start = found.end()
    if start < len(text):
        out.append(text[start:])
    return out


def ordinary_pieces(text: str, special_tokens: Sequence[str]) -> list[str]:
    """The text between the special tokens, each piece on its own, special tokens left out:
    what training learns from. ``"a<|endoftext|>b"`` -> ``["a", "b"]``."""
    if not special_tokens:
        return [text] if text else []
    return [part for part in special_pattern(tuple(special_tokens)).split(text) if part]


def base_tokens_of_texts(texts: Iterable[str], alphabet: str, special_tokens: Sequence[str]) -> list:
    """The alphabet's default base tokens (`bpe.alphabet.default_base_tokens`) for the text
    outside the special tokens of each of ``texts``: a special token is not text, so a
    character only it holds (the ``|`` of ``<|endoftext|>``) is no base token, as the count
    phase, which never sees it in a chunk, has none. A text of nothing but special tokens
    has no characters to learn from: `BpeError`, saying so."""
    base = default_base_tokens("", alphabet)  # all 256 bytes whatever the text, or none yet
    if not base:  # the characters of each piece, without joining the texts (64 M characters: 256 MB)
        base = sorted(set().union(*(part for text in texts for part in ordinary_pieces(text, special_tokens))))
    if not base:
        raise BpeError(NOTHING_BUT_SPECIALS)
    return base


NOTHING_BUT_SPECIALS = "the text holds nothing but special tokens: there is no text between them to learn merges from"


# ==================== Ids: special tokens first


def as_token(special: str, alphabet: str):
    """A special token as the tokenizer's tokens are: its UTF-8 bytes for the byte alphabet."""
    return special.encode("utf-8") if alphabet == BYTES else special


def initial_tokens(special_tokens: Sequence[str], base_tokens: Sequence, alphabet: str) -> list:
    """The vocabulary before any merge, in id order: the special tokens first, then the base
    tokens. With ``["<|endoftext|>"]`` and the 256 bytes, ``<|endoftext|>`` is id 0 and the
    byte 0x00 id 1, as CS336's reference vocabulary numbers them (which bytes come first
    differs there, which the course's tests do not look at)."""
    return [*(as_token(special, alphabet) for special in special_tokens), *base_tokens]


def special_words(counts, alphabet: str) -> list:
    """Each special token that occurs, as the engines take a chunk: ``([token], count)``,
    one symbol that forms no pair. So no merge touches it, and the sequence length counts it
    as the one token it is (``<|endoftext|>`` twice in a text adds 2, not 26)."""
    return [([as_token(special, alphabet)], count) for special, count in counts.items() if count]


def initial_length(text: str, alphabet: str, special_tokens: Sequence[str]) -> int:
    """How many tokens ``text`` is before any merge: one a character (or UTF-8 byte), one a
    special token. ``initial_length("ab<|endoftext|>", "characters", ["<|endoftext|>"]) == 3``."""
    total = 0
    for piece in pieces(text, special_tokens):
        if piece in special_tokens:
            total += 1
        else:
            total += len(piece.encode("utf-8")) if alphabet == BYTES else len(piece)
    return total


# ==================== Encoding around special tokens (tiktoken's arguments)


def allowed_specials(allowed_special, special_tokens: AbstractSet[str], *, name: str) -> AbstractSet[str]:
    """The set ``allowed_special`` names: ``"all"`` (every special token), or a set of
    special tokens the tokenizer ``name`` has; anything else is `BpeError` in one line."""
    if allowed_special == "all":
        return special_tokens
    if isinstance(allowed_special, str):
        raise BpeError(
            f"allowed_special={allowed_special!r}: give a set of special tokens, e.g. {{{allowed_special!r}}}, or 'all'"
        )
    allowed = set(allowed_special)
    unknown = allowed - set(special_tokens)
    if unknown:
        raise BpeError(
            f"allowed_special names {sorted(unknown)!r}, which {name} does not have; "
            f"its special tokens are {sorted(special_tokens)!r}"
        )
    return allowed


def disallowed_specials(disallowed_special, allowed: AbstractSet[str], special_tokens: AbstractSet[str]) -> set[str]:
    """tiktoken's ``disallowed_special``: ``"all"`` is every special token not allowed."""
    if disallowed_special == "all":
        return set(special_tokens) - set(allowed)
    if isinstance(disallowed_special, str):
        raise BpeError(f"disallowed_special={disallowed_special!r}: give a set of special tokens, (), or 'all'")
    return set(disallowed_special)


def refuse_disallowed(text: str, disallowed: AbstractSet[str]) -> None:
    """`BpeError` when ``text`` holds a disallowed special token, saying how to allow it or
    encode it as plain text (tiktoken raises for the same text, in its words)."""
    if not disallowed:
        return
    found = special_pattern(tuple(sorted(disallowed))).search(text)
    if found is not None:
        token = found.group()
        raise BpeError(
            f"the text holds the special token {token!r} at character {found.start():,}, which is disallowed: "
            f"pass allowed_special={{{token!r}}} (or 'all') to encode it as one token, or "
            f"disallowed_special=() to encode it as plain text"
        )


def encode_with_specials(
    text: str,
    special_tokens: dict[str, int],
    encode_ordinary: Callable[[str], list[int]],
    *,
    allowed_special: AllowedSpecial = frozenset(),
    disallowed_special=(),
    name: str = "this tokenizer",
) -> list[int]:
    """``text`` to ids as tiktoken's ``encode(text, allowed_special=..., disallowed_special=...)``
    does: a disallowed special token in the text is an error; each allowed one, the longest
    first where they overlap, becomes its id; the text between them (special tokens that are
    neither, included) goes through ``encode_ordinary``."""
    allowed = allowed_specials(allowed_special, special_tokens.keys(), name=name)
    refuse_disallowed(text, disallowed_specials(disallowed_special, allowed, special_tokens.keys()))
    present = tuple(sorted(special for special in allowed if special in text))
    if not present:
        return encode_ordinary(text)
    ids: list[int] = []
    for piece in pieces(text, present):
        special_id = special_tokens.get(piece) if piece in present else None
        if special_id is None:
            ids += encode_ordinary(piece)
        else:
            ids.append(special_id)
    return ids


class EncodesAroundSpecials:
    """``encode`` as tiktoken's, for a tokenizer read from a file (GPT-2's, another
    library's) that has ``special_tokens`` (text -> id), ``encode_ordinary`` and ``name``:
    special tokens become their id only when allowed; by default the rest are plain text
    (tiktoken's default, ``disallowed_special="all"``, raises instead). A library that
    matches its special tokens in any text (Hugging Face) sets
    ``allowed_special_by_default`` to "all"."""

    special_tokens: dict[str, int]
    name: str
    allowed_special_by_default: AllowedSpecial = frozenset()

    def encode_ordinary(self, text: str) -> list[int]:
        raise NotImplementedError

    def encode(
        self, text: str, allowed_special: AllowedSpecial | None = None, disallowed_special: AllowedSpecial = ()
    ) -> list[int]:
        """Text to ids, as ``encode(text, allowed_special=..., disallowed_special=...)`` of a
        tiktoken ``Encoding`` with these special tokens (see `encode_with_specials`); None:
        ``allowed_special_by_default``."""
        if not isinstance(text, str):
            raise BpeError(f"encode takes a str, got {type(text).__name__}")
        return encode_with_specials(
            text,
            self.special_tokens,
            self.encode_ordinary,
            allowed_special=self.allowed_special_by_default if allowed_special is None else allowed_special,
            disallowed_special=disallowed_special,
            name=self.name,
        )


# ==================== Streaming: text that comes in parts


def streamed_pieces(texts: Iterable[str], special_tokens: Sequence[str]) -> Iterator[tuple[str, bool]]:
    """The pieces of the text ``texts`` make when joined, as ``(text, is_special)``, without
    joining them: the text between two special tokens may come in several parts (each
    ``(part, False)``), and a part is given out only once no text that follows can change
    where it is cut. A special token that may still grow into a longer one
    (``<|a|>`` before ``<|a|><|a|>``) or be completed by the next part waits for it; so the
    text held at any time is at most one part plus the longest special token.

    >>> list(streamed_pieces(["one<|endo", "ftext|>two"], ["<|endoftext|>"]))
    [('one', False), ('<|endoftext|>', True), ('two', False)]
    """
    if not special_tokens:
        for text in texts:
            if text:
                yield text, False
        return
    pattern = special_pattern(tuple(special_tokens))
    longest = max(map(len, special_tokens))
    held = ""
    for text in texts:
        held += text
        # A match that starts before `settled` ends for sure: its whole window (the longest
        # special token) is in the text held. Every match after it may change.
        settled = len(held) - longest + 1
        start = 0
        for found in pattern.finditer(held):
            if found.start() >= settled:
                break
            if found.start() > start:
                yield held[start : found.start()], False
            yield found.group(), True
            start = found.end()
        cut = max(start, min(settled, len(held)))
        if cut > start:
            yield held[start:cut], False
        held = held[cut:]
    for piece in pieces(held, special_tokens):
        yield piece, piece in special_tokens
