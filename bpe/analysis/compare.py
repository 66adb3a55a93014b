"""Two worlds side by side: characters vs bytes, and no pre-tokenization vs GPT-2 vs GPT-4.

`compare_tokenizers` trains the same text once per configuration (alphabet, pre-tokenizer)
for the same number of merges and records what differs: the base vocabulary, the merge
list, which merges cross character classes, and the compression each one reaches. The
page draws these records; nothing here draws or prints.

Character classes, precisely. Each character is a *letter* (Unicode category L or M, so a
combining accent belongs with its letter), a *digit* (category N), a *space* (``isspace``)
or *other* (punctuation, symbols, controls). Bytes that are only part of a character have
no class and are ignored. A token **spans classes** when, after dropping one leading space
(GPT-2's convention of keeping a word's space in front of it: ' the' does not span), its
characters belong to more than one class: 'e t', 'the ', 's,', '.\\n', "'s", '(the' do.
A merge **crosses classes** when the token it makes spans classes. Without
pre-tokenization many merges do; GPT-2's split allows only its contractions ("'s");
GPT-4's also lets one punctuation mark lead a word ('(the', '.com').
"""

from __future__ import annotations

import time
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bpe.alphabet import BYTES, CHARACTERS, default_base_tokens
from bpe.errors import BpeError
from bpe.pretokenize import pretokenizer_name, split
from bpe.run import train_run
from bpe.text import hex_bytes, is_complete_utf8, printable, readable_token
from bpe.training import DEFAULT_ENGINE, MAX_VOCAB_CHARACTERS

DEFAULT_CONFIGURATIONS: tuple[tuple[str, str | None], ...] = (
    (CHARACTERS, None),
    (BYTES, None),
    (BYTES, "gpt2"),
    (BYTES, "gpt4"),
)
LETTER, DIGIT, SPACE, OTHER = "letter", "digit", "space", "other"
CLASS_RULE = (
    "A merge *crosses classes* when the token it makes, less one leading space, mixes letters, "
    "digits, spaces and other characters (punctuation, symbols)."
)


@dataclass(frozen=True)
class Variant:
    """One configuration trained on the comparison text."""

    alphabet: str
    pretokenizer: str | None
    base_vocab_size: int
    merges: tuple[tuple, ...]  # (left, right) in learned order
    crosses: tuple[bool, ...]  # per merge: does the token it makes span classes?
    vocab_size: int  # after the merges (a merge that re-creates a token adds none)
    chunks: int  # pre-tokenizer chunks in the training text (1 without one)
    distinct_chunks: int
    evaluated_characters: int
    evaluated_bytes: int
    evaluated_tokens: int  # the evaluation text's length in tokens after the merges
    seconds: float
    name: str = ""  # shown instead of "alphabet · pre-tokenizer" (e.g. "GPT-2")

    @property
    def label(self) -> str:
        """Plain words for a table heading: "characters, no split", "bytes, GPT-2 split"."""
        split = f"{pretokenizer_name(self.pretokenizer)} split" if self.pretokenizer else "no split"
        return self.name or f"{self.alphabet}, {split}"

    @property
    def tokens(self) -> list:
        return [left + right for left, right in self.merges]

    @property
    def characters_per_token(self) -> float:
        return self.evaluated_characters / max(self.evaluated_tokens, 1)

    @property
    def bytes_per_token(self) -> float:
        return self.evaluated_bytes / max(self.evaluated_tokens, 1)

    @property
    def crossing_count(self) -> int:
        return sum(self.crosses)


@dataclass(frozen=True)
class Comparison:
    variants: tuple[Variant, ...]
    merges: int  # merges asked for (a variant may stop earlier: no pair left)
    evaluated_on: str  # "held-out text" or "training text"

    def first_divergence(self, index: int, reference: int = 0) -> int | None:
        """First merge number where variant ``index`` differs from variant ``reference``."""
        return first_divergence(self.variants[reference].merges, self.variants[index].merges)


# ==================== Training the variants


def compare_tokenizers(
    text: str,
    *,
    merges: int = 200,
    configurations: Iterable[tuple[str, str | None]] = DEFAULT_CONFIGURATIONS,
    heldout_text: str = "",
    minimum_pair_frequency: int = 2,
    engine: str = DEFAULT_ENGINE,
) -> Comparison:
    """Train ``text`` once per (alphabet, pre-tokenizer) for ``merges`` merges each.

    Compression is measured on ``heldout_text`` when given, else on the training text.
    Raises `BpeError` on empty text or a non-positive number of merges.
    """
    if not isinstance(merges, int) or merges < 1:
        raise BpeError(f"merges={merges!r} must be a whole number of at least 1")
    variants = tuple(
        train_variant(
            text,
            alphabet,
            pretokenizer,
            merges=merges,
            heldout_text=heldout_text,
            minimum_pair_frequency=minimum_pair_frequency,
            engine=engine,
        )
        for alphabet, pretokenizer in configurations
    )
    return Comparison(variants, merges, "held-out text" if heldout_text else "training text")


def train_variant(
    text: str,
    alphabet: str,
    pretokenizer: str | None,
    *,
    merges: int,
    heldout_text: str = "",
    minimum_pair_frequency: int = 2,
    engine: str = DEFAULT_ENGINE,
) -> Variant:
    """Train one configuration for ``merges`` merges and measure it."""
    base = default_base_tokens(text + heldout_text, alphabet)
    started = time.perf_counter()
    # The vocabulary is a set, so `merges` merges reach at most base + merges tokens:
    # train to that size and keep the first `merges` steps.
    run = train_run(
        text,
        target_vocab_size=len(base) + merges,
        minimum_pair_frequency=minimum_pair_frequency,
        engine=engine,
        top_k=0,
        alphabet=alphabet,
        pretokenizer=pretokenizer,
        heldout_text=heldout_text,
        base_tokens=base,
        max_vocab_characters=MAX_VOCAB_CHARACTERS,  # the app's bound: a pasted text repeated is trained too
    )
    seconds = time.perf_counter() - started
    steps = run.steps[:merges]
    kept = len(steps)
    chunks = split(text, pretokenizer)
    evaluated = heldout_text or text
    evaluated_tokens = run.heldout_lengths[kept] if heldout_text else run.sequence_length(kept)
    return Variant(
        alphabet=alphabet,
        pretokenizer=pretokenizer,
        base_vocab_size=len(base),
        merges=tuple(step.pair for step in steps),
        crosses=tuple(spans_classes(step.token) for step in steps),
        vocab_size=steps[-1].vocab_size if steps else len(base),
        chunks=len(chunks),
        distinct_chunks=len(set(chunks)),
        evaluated_characters=len(evaluated),
        evaluated_bytes=len(evaluated.encode("utf-8")),
        evaluated_tokens=evaluated_tokens,
        seconds=seconds,
    )


def gpt2_variant(gpt2, text: str, *, merges: int, heldout_text: str = "") -> Variant:
    """OpenAI's GPT-2 cut to its first ``merges`` merges, measured like a trained variant.

    Its merges were learned on WebText, not on ``text``: the column shows what a large,
    GPT-2-pre-tokenized training run learned first, at the same number of merges.
    """
    started = time.perf_counter()
    prefix = gpt2.with_merges(merges)
    evaluated = heldout_text or text
    chunks = split(text, "gpt2")
    tokens = len(prefix.encode(evaluated))
    return Variant(
        alphabet=BYTES,
        pretokenizer="gpt2",
        base_vocab_size=len(prefix.base_tokens),
        merges=tuple(prefix.merges),
        crosses=tuple(spans_classes(a + b) for a, b in prefix.merges),
        vocab_size=prefix.vocab_size,
        chunks=len(chunks),
        distinct_chunks=len(set(chunks)),
        evaluated_characters=len(evaluated),
        evaluated_bytes=len(evaluated.encode("utf-8")),
        evaluated_tokens=tokens,
        seconds=time.perf_counter() - started,
        name=f"{gpt2.name} (OpenAI)",
    )


def with_variant(comparison: Comparison, variant: Variant) -> Comparison:
    """The comparison with one more column (e.g. `gpt2_variant`)."""
    return Comparison(comparison.variants + (variant,), comparison.merges, comparison.evaluated_on)


# ==================== Merge lists side by side


def as_bytes(token) -> bytes:
    """A token as UTF-8 bytes, so that character and byte merges can be compared."""
    return token.encode("utf-8") if isinstance(token, str) else bytes(token)


def first_divergence(a: Sequence[tuple], b: Sequence[tuple]) -> int | None:
    """The first merge number (1-based) where two merge lists differ, comparing tokens as
    UTF-8 bytes; a list that stops early differs where it stops. None when identical.

    Example: [('t','h'), ('th','e')] vs [(b't',b'h'), (b'e',b' ')] -> 2
    """
    for number, (left, right) in enumerate(zip(a, b), start=1):
        if tuple(map(as_bytes, left)) != tuple(map(as_bytes, right)):
            return number
    return None if len(a) == len(b) else min(len(a), len(b)) + 1


def merge_rows(
    comparison: Comparison,
    count: int | None = None,
    *,
    gpt2_spelling: bool = False,
    mark_first_divergence: bool = False,
) -> list[dict]:
    """One row per merge number: each variant's token (readable) and whether it crosses classes.

    Columns: ``merge``, then per variant ``<label>`` (the token made, whitespace made
    visible: 'e·t'), ``<label> crosses`` (bool) and ``<label> differs`` (bool: this merge
    differs from the first variant's). ``mark_first_divergence`` prefixes each variant's
    first differing token with '▶ '.
    """
    if count is None:
        count = max((len(variant.merges) for variant in comparison.variants), default=0)
    first = comparison.variants[0].merges
    rows = []
    for index in range(count):
        row: dict = {"merge": index + 1}
        for variant in comparison.variants:
            label = variant.label
            if index < len(variant.merges):
                left, right = variant.merges[index]
                row[label] = printable(readable_token(left + right, gpt2_spelling=gpt2_spelling))
                row[f"{label} crosses"] = variant.crosses[index]
                row[f"{label} differs"] = index >= len(first) or tuple(map(as_bytes, first[index])) != tuple(
                    map(as_bytes, (left, right))
                )
            else:
                row[label], row[f"{label} crosses"], row[f"{label} differs"] = "", False, index < len(first)
        rows.append(row)
    if mark_first_divergence:
        for index, variant in enumerate(comparison.variants[1:], start=1):
            first = comparison.first_divergence(index)
            if first is not None and first <= len(rows) and rows[first - 1][variant.label]:
                rows[first - 1][variant.label] = f"▶ {rows[first - 1][variant.label]}"
    return rows


def summary_rows(comparison: Comparison) -> list[dict]:
    """One row per variant: base vocab, vocab after the merges, crossings, compression."""
    rows = []
    for index, variant in enumerate(comparison.variants):
        rows.append(
            {  # what a class compares first, then how each got there
                "tokenizer": variant.label,
                "characters per token": variant.characters_per_token,
                "bytes per token": variant.bytes_per_token,
                "base vocab": variant.base_vocab_size,
                "merges": len(variant.merges),
                "vocab": variant.vocab_size,
                "merges crossing classes": variant.crossing_count,
                "first divergent merge": comparison.first_divergence(index) if index else None,
                "chunks": variant.chunks,
                "distinct chunks": variant.distinct_chunks,
                "seconds": variant.seconds,
            }
        )
    return rows


# ==================== Character classes


def char_class(char: str) -> str:
    """letter (L, M), digit (N), space or other; see the module docstring."""
    if char.isspace():
        return SPACE
    kind = unicodedata.category(char)[0]
    if kind in "LM":
        return LETTER
    if kind == "N":
        return DIGIT
    return OTHER


def token_classes(token) -> set[str]:
    """The classes of a token's characters; bytes of a partial character are skipped."""
    text = token if isinstance(token, str) else bytes(token).decode("utf-8", errors="surrogateescape")
    return {char_class(ch) for ch in text if not 0xDC80 <= ord(ch) <= 0xDCFF}


def spans_classes(token) -> bool:
    """True when the token, less one leading space, mixes classes: 'e t' yes, ' the' no."""
    if isinstance(token, str):
        body = token[1:] if token.startswith(" ") else token
    else:
        body = bytes(token)[1:] if bytes(token).startswith(b" ") else bytes(token)
    return len(token_classes(body)) > 1


# ==================== Multi-byte characters under the byte alphabet


@dataclass(frozen=True)
class MultiByteCharacter:
    """When a character of 2 to 4 UTF-8 bytes first holds together in a learned token."""

    char: str
    utf8: bytes
    count: int  # occurrences in the text
    whole_at: int | None  # first merge whose token holds all its bytes (alone or with more)
    own_token_at: int | None  # first merge whose token is exactly this character

    @property
    def name(self) -> str:
        return unicodedata.name(self.char, f"U+{ord(self.char):04X}")


def multibyte_characters(text: str, merges: Sequence[tuple[bytes, bytes]]) -> list[MultiByteCharacter]:
    """Each distinct multi-byte character of ``text``, most frequent first, with the first
    merge (1-based) that keeps it whole and the first that makes it a token of its own.

    UTF-8 is self-synchronising, so a character's bytes inside a token are that character.
    """
    counts: dict[str, int] = {}
    for char in text:
        if ord(char) > 0x7F:
            counts[char] = counts.get(char, 0) + 1
    found = {char: [None, None] for char in counts}
    pending = {char.encode("utf-8"): char for char in counts}
    for number, (left, right) in enumerate(merges, start=1):
        if not pending:
            break
        token = bytes(left) + bytes(right)
        if len(token) < 2 or token.isascii():
            continue
        for utf8, char in list(pending.items()):
            if utf8 in token:
                slot = found[char]
                if slot[0] is None:
                    slot[0] = number
                if token == utf8:
                    slot[1] = number
                    del pending[utf8]
    return sorted(
        (MultiByteCharacter(char, char.encode("utf-8"), counts[char], *found[char]) for char in counts),
        key=lambda c: (-c.count, c.char),
    )


def multibyte_rows(text: str, merges: Sequence[tuple[bytes, bytes]]) -> list[dict]:
    """`multibyte_characters` as table rows."""
    return [
        {
            "character": c.char,
            "name": c.name,
            "UTF-8 bytes": hex_bytes(c.utf8),
            "occurrences": c.count,
            "first held whole at merge": c.whole_at,
            "own token at merge": c.own_token_at,
        }
        for c in multibyte_characters(text, merges)
    ]


def incomplete_rows(merges: Sequence[tuple]) -> list[dict]:
    """`incomplete_tokens` as table rows: merge number, token ('<0xE2><0x80>'), its bytes."""
    return [
        {"merge": number, "token": readable_token(token), "bytes": hex_bytes(token)}
        for number, token in incomplete_tokens(merges)
    ]


def incomplete_tokens(merges: Sequence[tuple]) -> list[tuple[int, bytes]]:
    """(merge number, token) for each learned byte token that is not whole UTF-8 characters."""
    return [
        (number, left + right)
        for number, (left, right) in enumerate(merges, start=1)
        if isinstance(left, bytes) and not is_complete_utf8(left + right)
    ]
