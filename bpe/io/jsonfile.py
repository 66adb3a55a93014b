"""Reading JSON that nobody vouches for: tokenizer files, uploads, encoder.json.

`json.loads` fails in several ways besides bad syntax, each a traceback if not caught:
bytes that are not UTF-8, nesting deep enough to exhaust the recursion limit (``[`` x
100,000), an integer with thousands of digits (``ValueError``). And it silently keeps the
last of two equal keys in one object, which in a vocabulary means two ids for one token,
and parses an escaped lone surrogate (``"\\ud800"``) into text nothing can encode.
`load_json` turns every one of them into a one-line error naming the file; the bytes are
read as every stranger's bytes are (`bpe.io.untrusted`).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from bpe.errors import BpeError, TokenizerFileError
from bpe.io.untrusted import decode_utf8


def load_json(raw: bytes, *, name: str, what: str = "a tokenizer file", error: type[BpeError] = TokenizerFileError):
    """The JSON value in ``raw``, or ``error`` in one line: ``name`` is the file, ``what``
    what it should have been (for the message on nesting)."""
    return load_json_text(decode_utf8(raw, name=name, error=error), name=name, what=what, error=error)


def load_json_text(
    text: str,
    *,
    name: str | Callable[[], str],
    what: str = "a tokenizer file",
    error: type[BpeError] = TokenizerFileError,
):
    """`load_json` of text already decoded (a JSON line of a corpus, say). ``name`` may be a
    function that gives it, called only for a message: where a line is in a corpus of
    gigabytes costs a pass over the file."""
    with _one_line(name, what, error):
        value = json.loads(text, object_pairs_hook=_no_duplicate_keys)
    if _ESCAPED_SURROGATE.search(text):
        _refuse_lone_surrogates(value, name=name() if callable(name) else name, error=error)
    return value


def decode_value(text: str, position: int, *, name: str, what: str, error: type[BpeError] = TokenizerFileError):
    """The one JSON value that starts at ``position`` of ``text`` and where it ends, with
    `load_json`'s refusals: for a reader that walks a document a member at a time
    (`bpe.scale.run_file` reads its long lists of numbers apart)."""
    with _one_line(name, what, error):
        value, end = _DECODER.raw_decode(text, position)
    if _ESCAPED_SURROGATE.search(text, position, end):
        _refuse_lone_surrogates(value, name=name, error=error)
    return value, end


@contextmanager
def _one_line(name: str | Callable[[], str], what: str, error: type[BpeError]) -> Iterator[None]:
    """Every way `json` fails, as one ``error`` line naming the file."""
    try:
        yield
    except (_DuplicateKey, ValueError, RecursionError) as failure:
        raise error(_failure_message(failure, name() if callable(name) else name, what)) from None


def _failure_message(failure: Exception, name: str, what: str) -> str:
    if isinstance(failure, _DuplicateKey):
        shown = repr(failure.args[0][:60])  # a key may be long or hold anything: shown escaped, cut
        return f"{name}: the key {shown} appears twice in one object"
    if isinstance(failure, json.JSONDecodeError):
        return f"{name} is not valid JSON: {failure.msg} at line {failure.lineno}, column {failure.colno}"
    if isinstance(failure, RecursionError):
        return f"{name} is JSON nested too deeply to be {what}"
    # e.g. an integer with thousands of digits. Python's own message on a long integer
    # advises `sys.set_int_max_str_digits()`: advice for a programmer, not for whoever
    # opened the file. Its digit count is kept.
    digits = _TOO_MANY_DIGITS.search(str(failure))
    if digits is None:
        return f"{name} is not valid JSON: {failure}"
    return (
        f"{name} holds a number {int(digits.group(1)):,} digits long; the numbers in {what} "
        f"have at most {sys.get_int_max_str_digits():,}"
    )


_TOO_MANY_DIGITS = re.compile(r"value has (\d+) digits")

# UTF-8 bytes cannot hold a surrogate, but JSON can spell one: "\ud800" parses to a str
# that no file, no byte-level tokenizer and no page can encode (UnicodeEncodeError later,
# far from here). A pair (\ud83d\ude00) parses to one character and is fine.
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _refuse_lone_surrogates(value, *, name: str, error: type[BpeError]) -> None:
    pending = [value]
    while pending:  # by hand, not recursively: the nesting is the file's choice
        item = pending.pop()
        if isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
        elif isinstance(item, str) and (found := _LONE_SURROGATE.search(item)):
            raise error(
                f"{name} holds the text {item[:40]!r}, whose {found.group()!r} at character {found.start():,} "
                "is a lone surrogate, not a Unicode character (it has no UTF-8 form)"
            )


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


_DECODER = json.JSONDecoder(object_pairs_hook=_no_duplicate_keys)
