"""Shared test helpers: where the shared reference data is, how many hypothesis examples."""
from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# ../shared/data beside the project; BPE_SHARED_DATA points elsewhere when it lives elsewhere.
SHARED_DATA = Path(os.environ.get("BPE_SHARED_DATA", ROOT.parent / "shared" / "data"))
MAX_EXAMPLES = int(os.environ.get("BPE_MAX_EXAMPLES", "100"))


def shared_file(relative: str) -> Path:
    """A file of the shared data, or skip the test saying what is missing and how to point at it."""
    path = SHARED_DATA / relative
    if not path.is_file():
        pytest.skip(f"{relative} not found under {SHARED_DATA} (set BPE_SHARED_DATA to the shared data folder)")
    return path


# Pre-tokenizer patterns a hostile tokenizer file may carry (issue 15). EXPANDING is small
# enough to be harmless if compiled (4 million characters), big enough to be refused.
EXPANDING_PATTERN = r"(?:x{2000}){2000}|[\s\S]"
EXPONENTIAL_PATTERN = r"(?:a|aa)+$|[\s\S]"
CAPTURING_PATTERN = r"(a)|[\s\S]"


def tokenizer_file_with_pattern(pattern: str) -> bytes:
    """A character tokenizer file carrying ``pattern``, with a correct fingerprint (anyone can compute one)."""
    base, merges = ["a", "b", "x", " "], [["a", "b"]]
    payload = {"base_tokens": base, "merges": merges, "pretokenizer": pattern}
    fingerprint = hashlib.sha256(json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()).hexdigest()
    return json.dumps({"type": "character_bpe", "base_tokens": base, "merges": merges, "vocab_size": 5,
                       "pretokenizer": pattern, "fingerprint": fingerprint}).encode()


def on_own_thread(function, *args):
    """``function(*args)`` on a thread of its own, its result or error returned here. For
    ``asyncio.run`` (directly or inside the classroom script): the browser tests' Playwright
    keeps an event loop running on the main thread, where ``asyncio.run`` is refused."""
    result = {}

    def target():
        try:
            result["value"] = function(*args)
        except BaseException as error:  # re-raised below, on the test's thread
            result["error"] = error

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in result:
        raise result["error"]
    return result["value"]
