"""Pre-tokenization: optional splitting of text into chunks that merges never cross.

The tutorial merges over the whole text (``pretokenizer=None``), so a token may span
words ("e t"). Production tokenizers split first with a regex: GPT-2's pattern keeps a
leading space with its word, GPT-4's (cl100k) also splits digits into groups of three.
Training then counts each distinct chunk once with its frequency, which is also what
makes pre-tokenized training fast.
"""
from __future__ import annotations

from collections import Counter
from functools import lru_cache

from .errors import BpeError

# The published split patterns, exactly as tiktoken runs them: r50k (GPT-2) and cl100k
# (GPT-4). GPT-2's original release spells its pattern
# 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+ ; this form is equivalent.
GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
GPT4_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
# A space stays with the word after it, as in GPT-2, so decoding is still concatenation.
WHITESPACE_PATTERN = r"""\s*\S+|\s+"""

NAMED_PATTERNS = {"whitespace": WHITESPACE_PATTERN, "gpt2": GPT2_PATTERN, "gpt4": GPT4_PATTERN}
PRETOKENIZER_CHOICES = ("none", *NAMED_PATTERNS)


def pattern_for(pretokenizer: str | None) -> str | None:
    """The regex for a pre-tokenizer name; a string that is not a name is a custom pattern."""
    if pretokenizer is None or pretokenizer == "none":
        return None
    return NAMED_PATTERNS.get(pretokenizer, pretokenizer)


def check_pretokenizer(pretokenizer: str | None) -> str | None:
    """The pre-tokenizer as stored (``None`` for none); a pattern that does not compile fails here."""
    pattern = pattern_for(pretokenizer)
    if pattern is None:
        return None
    _compiled(pattern)
    return pretokenizer


@lru_cache(maxsize=16)
def _compiled(pattern: str):
    import regex  # the \p{L} classes need the `regex` package, not `re`

    try:
        return regex.compile(pattern)
    except regex.error as error:
        raise BpeError(f"pre-tokenizer pattern {pattern!r} does not compile: {error}") from None


def split(text: str, pretokenizer: str | None) -> list[str]:
    """Split ``text`` into chunks; ``"".join(chunks) == text`` always holds.

    A custom pattern that skips characters would lose text, so it is refused.
    """
    pattern = pattern_for(pretokenizer)
    if pattern is None:
        return [text] if text else []
    chunks = _compiled(pattern).findall(text)
    if sum(map(len, chunks)) != len(text):
        raise BpeError(
            f"pre-tokenizer pattern {pattern!r} does not cover the whole text "
            "(it skips characters); add an alternative such as |\\s+|. that matches the rest"
        )
    return chunks


def chunk_counts(text: str, pretokenizer: str | None) -> Counter:
    """Each distinct chunk with its frequency, in order of first appearance."""
    if pretokenizer == "gpt2":
        from .gpt2 import count_gpt2_chunks  # the same counts, in the same order, ~3x faster

        return count_gpt2_chunks(text)
    return Counter(split(text, pretokenizer))
