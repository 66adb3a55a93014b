"""Files a visitor can take away: the tokenizer JSON, its merges as CSV, encoded ids for torch.

The JSON is the core's format (`bpe.storage`, fingerprint included). Torch is imported
only inside `ids_tensor_bytes`, so importing this module stays light.
"""
from __future__ import annotations

import csv
import io
from typing import Sequence

from bpe.storage import to_json_text


def tokenizer_json(tokenizer) -> str:
    """The tokenizer file's text, exactly as `BPETokenizer.save` writes it."""
    return to_json_text(tokenizer.data())


def merges_csv(tokenizer, frequencies: Sequence[int] | None = None) -> str:
    """One row per merge: step, left, right, token, token id (and the pair count when known).

    Tokens are written as they are (a space stays a space; CSV quoting keeps commas and
    newlines safe); byte tokens as UTF-8 text, with partial characters as ``\\xNN``.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    header = ["step", "left", "right", "token", "token_id"]
    writer.writerow(header + (["pair_count"] if frequencies is not None else []))
    for index, (left, right) in enumerate(tokenizer.merges):
        row = [index + 1, _text(left), _text(right), _text(left + right), tokenizer.stoi[left + right]]
        writer.writerow(row + ([frequencies[index]] if frequencies is not None else []))
    return buffer.getvalue()


def _text(token) -> str:
    # a byte token may hold part of a character: keep those bytes visible as \xNN
    return token.decode("utf-8", errors="backslashreplace") if isinstance(token, bytes) else token


def ids_tensor_bytes(ids: Sequence[int]) -> bytes:
    """``torch.save(torch.tensor(ids, dtype=torch.long))`` into bytes, for a download button."""
    import torch  # heavy: only when a download is prepared

    buffer = io.BytesIO()
    torch.save(torch.tensor(list(ids), dtype=torch.long), buffer)
    return buffer.getvalue()
