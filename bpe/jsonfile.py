"""Reading JSON that nobody vouches for: tokenizer files, uploads, encoder.json.

`json.loads` fails in several ways besides bad syntax, each a traceback if not caught:
bytes that are not UTF-8, nesting deep enough to exhaust the recursion limit (``[`` x
100,000), an integer with thousands of digits (``ValueError``). And it silently keeps the
last of two equal keys in one object, which in a vocabulary means two ids for one token.
`load_json` turns every one of them into a one-line error naming the file.
"""

from __future__ import annotations

import json

from bpe.errors import BpeError, TokenizerFileError


def decode_utf8(raw: bytes, *, name: str, error: type[BpeError] = TokenizerFileError) -> str:
    """UTF-8 text (a leading byte-order mark is dropped), or ``error`` naming the bad byte."""
    try:
        text = bytes(raw).decode("utf-8")
    except UnicodeDecodeError as bad:
        raise error(f"{name} is not UTF-8 text (bad byte at offset {bad.start:,})") from None
    return text[1:] if text.startswith("\ufeff") else text


def load_json(raw: bytes, *, name: str, what: str = "a tokenizer file", error: type[BpeError] = TokenizerFileError):
    """The JSON value in ``raw``, or ``error`` in one line: ``name`` is the file, ``what``
    what it should have been (for the message on nesting)."""
    text = decode_utf8(raw, name=name, error=error)
    try:
        return json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except _DuplicateKey as duplicate:
        shown = repr(duplicate.args[0][:60])  # a key may be long or hold anything: shown escaped, cut
        raise error(f"{name}: the key {shown} appears twice in one object") from None
    except json.JSONDecodeError as bad:
        raise error(f"{name} is not valid JSON: {bad.msg} at line {bad.lineno}, column {bad.colno}") from None
    except RecursionError:
        raise error(f"{name} is JSON nested too deeply to be {what}") from None
    except ValueError as bad:  # e.g. an integer with thousands of digits
        raise error(f"{name} is not valid JSON: {bad}") from None


class _DuplicateKey(Exception):
    pass


def _no_duplicate_keys(pairs: list) -> dict:
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set = set()
        for key, _value in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return found
