"""The errors BPE Lab raises on bad input.

Every error is a `BpeError`, which is a `ValueError`, so callers that already catch
`ValueError` keep working. Messages name the offending value and, where there is one,
the fix: pages show them verbatim with `st.error`, the command line prints them.
"""

from __future__ import annotations


class BpeError(ValueError):
    """Bad input to BPE Lab: empty text, impossible settings, unknown symbols."""


class UnknownSymbolsError(BpeError):
    """Text holds characters (or ids) that the tokenizer's alphabet does not cover."""

    def __init__(self, message: str, symbols: list) -> None:
        super().__init__(message)
        self.symbols = symbols


class TokenizerFileError(BpeError):
    """A tokenizer file is malformed, of the wrong type, or fails its fingerprint check."""


class CorpusError(BpeError):
    """A corpus cannot be read: not UTF-8, binary, empty or too large."""


class DownloadError(BpeError):
    """A download failed: no mirror answered, a checksum did not match, a transfer broke off."""


class PatternError(BpeError):
    """A pre-tokenizer pattern is refused: unsafe to compile or run, or it would lose text."""
