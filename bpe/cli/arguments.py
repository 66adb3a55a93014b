"""The command line's argument types, one home for all: an option's text in, its value out.

argparse calls an option's ``type`` with the text the user typed; an
`argparse.ArgumentTypeError` raised here becomes, through `bpe.cli.errors.parse_arguments`,
one line that names the option and the value, in the same words on every command::

    python -m bpe count corpus/ --output c.parquet --workers 0
    error: argument --workers: 0 must be at least 1

A value that is the wrong kind of thing ("lots") and a value out of range (0, -3, 10**6)
are told apart, so the message says which fix is needed.
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable

SIZE_UNITS = {"": 1, "K": 10**3, "M": 10**6, "G": 10**9}


def whole_number(value: str) -> int:
    """``"12"`` -> 12; ``"lots"`` is refused: "'lots' is not a whole number"."""
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None


def at_least_one(value: str) -> int:
    """A number of things that must be there at all: workers, characters (``"0"`` is refused)."""
    number = whole_number(value)
    if number < 1:
        raise argparse.ArgumentTypeError(f"{number} must be at least 1")
    return number


def zero_or_more(value: str) -> int:
    """How many things to list, 0 or more (a negative count would slice a list from its end)."""
    number = whole_number(value)
    if number < 0:
        raise argparse.ArgumentTypeError(f"{number} is negative; give 0 or more")
    return number


def between(low: int, high: int) -> Callable[[str], int]:
    """The type of a whole number from ``low`` to ``high``: ``between(0, 100)("101")`` says
    "101 is outside 0..100"."""

    def bounded(value: str) -> int:
        number = whole_number(value)
        if not low <= number <= high:
            raise argparse.ArgumentTypeError(f"{number} is outside {low}..{high}")
        return number

    return bounded


def port_number(value: str) -> int:
    """A TCP port, 1 to 65535: ``"70000"`` is "70000 is not a port number (1-65535)"."""
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a port number") from None
    if not 0 < number < 65536:
        raise argparse.ArgumentTypeError(f"{number} is not a port number (1-65535)")
    return number


def seconds(value: str) -> float:
    """A time to wait, 0 or more seconds (``"2.5"``); ``"nan"`` and ``"inf"`` are refused:
    a wait on them would be forever, or none at all."""
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of seconds") from None
    if not 0 <= number < math.inf:
        raise argparse.ArgumentTypeError(f"{value} is not a number of seconds; give 0 or more")
    return number


def bound_or_none(value: str) -> int | None:
    """A bound of 1 or more, or ``"none"`` for no bound (None); ``"1_000_000"`` and
    ``"1,000,000"`` read as 1000000."""
    if value.strip().lower() == "none":
        return None
    try:
        number = int(value.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number or 'none'") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"{number} is below 1 (give 'none' for no bound)")
    return number


def parse_size(text: str) -> int:
    """A size in characters, in the units people say them: ``"16M"`` -> 16,000,000;
    ``"1G"`` -> 1,000,000,000; ``"2.5k"`` -> 2,500; plain digits as they are."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([KMG]?)", text.strip().upper())
    if not match:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size such as 16M or 1G")
    return int(float(match.group(1)) * SIZE_UNITS[match.group(2)])


def add_allowed_special(parser, *, when_not_given: str, default: list[str] | None = None) -> None:
    """``--allowed-special TOKEN ...``, read with `allowed_special`; ``when_not_given`` says
    what the command does without it (``default`` is what it reads then)."""
    parser.add_argument(
        "--allowed-special",
        nargs="*",
        metavar="TOKEN",
        default=default,
        help="special tokens to encode as their id ('all' for every one; none named: all plain text); "
        f"by default {when_not_given}",
    )


def allowed_special(tokens: list[str]) -> str | set[str]:
    """``--allowed-special``'s tokens as ``encode`` takes them (tiktoken's ``allowed_special``):
    ``["all"]`` -> "all", ``["<|endoftext|>"]`` -> that one, ``[]`` -> none."""
    return "all" if tokens == ["all"] else set(tokens)
