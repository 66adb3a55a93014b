"""Token ids a caller hands to ``decode``: checked once, for every tokenizer alike.

`BPETokenizer`, `bpe.gpt2.GPT2Tokenizer` and the tokenizers imported from other
libraries (`bpe.formats.pretrained`) all look ids up in a dict, and a dict finds id 1 for
``1.0`` and for ``True`` (they hash and compare equal to 1). So a float or a bool decoded
silently, where the file readers and ``target_vocab_size`` refuse both. The rule here is
theirs: an id is an ``int`` (or has ``__index__``, as numpy's integers do), never a bool
though bool is an int subclass, never a float though ``1.0 == 1``.

Checking each id in Python would cost more than the lookup; `map(type, ids)` runs in C
(about 20 ns an id), and ids that are all plain ints, as they nearly always are, need
nothing more.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping

from bpe.errors import BpeError
from bpe.text import shown_value


def token_pieces(itos: Mapping, ids, *, ids_run: str) -> list:
    """The token of each id in ``ids``, in order, or `BpeError` in one line naming the first
    id that is not one of ``itos``'s; ``ids_run`` ends that message ("ids run from 0 to 499")."""
    ids = whole_number_ids(ids)
    try:
        return list(map(itos.__getitem__, ids))
    except KeyError:
        bad = next(i for i in ids if i not in itos)
        raise BpeError(f"unknown token id {shown_value(bad)}: {ids_run}") from None


def whole_number_ids(ids) -> list[int]:
    """``ids`` as a list of ints, or `BpeError` in one line naming what is not a token id."""
    if isinstance(ids, (str, bytes, bytearray)):  # a sequence, but of characters or bytes, not ids
        raise BpeError(
            f"token ids come as a list of whole numbers such as [5, 7], got the {type(ids).__name__} {shown_value(ids)}"
        )
    try:
        ids = list(ids)
    except TypeError:
        raise BpeError(
            f"token ids come as a list of whole numbers such as [5, 7], got {shown_value(ids)} (a {type(ids).__name__})"
        ) from None
    if set(map(type, ids)) <= {int}:
        return ids
    return [_whole_number(i, position) for position, i in enumerate(ids)]


def _whole_number(token_id, position: int) -> int:
    if type(token_id) is int:
        return token_id
    if not isinstance(token_id, bool):
        try:
            return operator.index(token_id)  # an int subclass, a numpy integer (numpy's bool_ refuses)
        except TypeError:
            pass
    raise BpeError(
        f"token id {shown_value(token_id)} (a {type(token_id).__name__}, at position {position:,}) is not a whole number; "
        "ids are ints, and neither a float nor a bool is one"
    )
