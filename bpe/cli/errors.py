"""How every command ends: a `BpeError` is one line on stderr and exit status 1, Ctrl-C is
status 130, and neither ever shows a traceback."""
from __future__ import annotations

import sys
from typing import Callable

from bpe.errors import BpeError


def reporting_errors(action: Callable[[], int], *, interrupted: str = "interrupted") -> int:
    """Run ``action`` and return its exit status, turning errors into one clear line."""
    try:
        return action()
    except BpeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"\n{interrupted}", file=sys.stderr)
        return 130
