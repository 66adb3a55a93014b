"""Small helpers shared by the format tests."""

from __future__ import annotations

import pytest

from bpe.errors import BpeError


def one_line(error: BaseException) -> str:
    """The error's message, checked to be one line (no traceback, no embedded newlines)."""
    message = str(error)
    assert "\n" not in message and "Traceback" not in message, message
    return message


def refused(call, *args, match: str, error: type[BaseException] = BpeError, **kwargs) -> str:
    """Run ``call``; it must raise ``error`` with a one-line message matching ``match``."""
    with pytest.raises(error, match=match) as caught:
        call(*args, **kwargs)
    return one_line(caught.value)
