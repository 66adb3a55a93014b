"""Files a visitor can take away: the tokenizer JSON and encoded ids for torch (the merges
as CSV are `bpe.analysis.merge_log.log_csv`).

The JSON is the core's format (`bpe.storage`, fingerprint included). Torch is imported
only inside `ids_tensor_bytes`, so importing this module stays light.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from bpe.storage import to_json_text


def tokenizer_json(tokenizer) -> str:
    """The tokenizer file's text, exactly as `BPETokenizer.save` writes it."""
    return to_json_text(tokenizer.data())


def ids_tensor_bytes(ids: Sequence[int]) -> bytes:
    """``torch.save(torch.tensor(ids, dtype=torch.long))`` into bytes, for a download button."""
    import torch  # heavy: only when a download is prepared

    buffer = io.BytesIO()
    torch.save(torch.tensor(list(ids), dtype=torch.long), buffer)
    return buffer.getvalue()
