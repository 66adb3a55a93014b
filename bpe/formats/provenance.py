"""Does an uploaded tokenizer encode as the run it came from?

A tokenizer exported from a run and uploaded back should give that run's tokens. It does
not when something was lost on the way (a ranks file uploaded without its split pattern,
and another one chosen) or when the format encodes by its own rule (see
`bpe.formats.merges_vs_ranks`). `came_from` recognises the source by its tokens, id for
id; `encoding_difference` says in one sentence how the tokens differ on a text, or None.
"""

from __future__ import annotations

from bpe.errors import BpeError
from bpe.pretokenize import pretokenizer_name

LONGEST_PATTERN_SHOWN = 40


def came_from(uploaded, tokenizer) -> bool:
    """``uploaded`` holds exactly ``tokenizer``'s tokens under the same ids (special tokens
    aside): it is an export of that tokenizer."""
    if getattr(uploaded, "alphabet", None) != getattr(tokenizer, "alphabet", None):
        return False
    specials = set(getattr(uploaded, "special_tokens", {}).values())
    ordinary = {token_id: token for token_id, token in uploaded.itos.items() if token_id not in specials}
    return len(ordinary) == len(tokenizer.itos) and ordinary == dict(tokenizer.itos)


def encoding_difference(uploaded, source, text: str, *, source_name: str = "the run it came from") -> str | None:
    """None when ``uploaded`` encodes ``text`` as ``source`` does; else one sentence: both
    token counts, and the split rules when they differ (the usual cause)."""
    try:
        ours = source.encode(text)
    except BpeError:
        return None  # the source cannot encode this text: nothing to compare with
    try:
        theirs = uploaded.encode(text)
    except BpeError as error:
        return f"This file cannot encode the text {source_name} encodes: {error}."
    if ours == theirs:
        return None
    counted = (
        f"This file gives {len(theirs):,} tokens where {source_name} gives {len(ours):,} on the same text"
        if len(theirs) != len(ours)
        else f"This file cuts the text differently from {source_name} (both give {len(ours):,} tokens)"
    )
    if uploaded.pretokenizer != source.pretokenizer:
        return (
            f"{counted}: its split pattern is {_rule(uploaded.pretokenizer)}, the run's is "
            f"{_rule(source.pretokenizer)}."
        )
    return f"{counted}: the file's format encodes by its own rule (see Merges vs ranks)."


def _rule(pretokenizer: str | None) -> str:
    name = pretokenizer_name(pretokenizer)
    return name if len(name) <= LONGEST_PATTERN_SHOWN else name[:LONGEST_PATTERN_SHOWN] + "…"
