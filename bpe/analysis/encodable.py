"""Text a tokenizer can only partly encode: the characters outside its alphabet, marked.

A character-level tokenizer knows only the characters of its training text, so
"naïve 🙂" fails on a tokenizer trained on "low lower lowest". Refusing the whole text
teaches nothing; showing it with the unknown characters marked does. The text is cut
into *runs*: maximal stretches the tokenizer covers, and single characters it does not.
Each covered run is encoded on its own (no merge can span an unknown character anyway,
since no token contains it), so a text without unknown characters is encoded exactly
as `tokenizer.encode` would.

    >>> runs(tokenizer_of("low"), "low 🙂 lo")   # doctest: +SKIP
    [('low', True), (' ', False), ('🙂', False), (' ', False), ('lo', True)]
"""

from __future__ import annotations

from bpe.alphabet import CHARACTERS
from bpe.analysis.lineage import AppliedMerge, applied_merges
from bpe.analysis.segments import Segment, segments_of
from bpe.specials import pieces


def known_characters(tokenizer) -> set[str] | None:
    """The characters a tokenizer can encode, or None when it can encode any text (bytes)."""
    if getattr(tokenizer, "alphabet", None) != CHARACTERS:
        return None
    return set(tokenizer.base_tokens)


def runs(tokenizer, text: str) -> list[tuple[str, bool]]:
    """``text`` cut into (piece, encodable) runs: encodable stretches whole, each unknown
    character on its own; a special token of the tokenizer is encodable whatever its
    characters. Joined, the pieces give back ``text``."""
    known = known_characters(tokenizer)
    if known is None:
        return [(text, True)] if text else []
    specials = tuple(getattr(tokenizer, "special_tokens", {}))
    if specials:  # each piece between special tokens on its own: a special token is one token
        found = []
        for part in pieces(text, specials):
            found += [(part, True)] if part in specials else runs_of_characters(part, known)
        return _joined(found)
    return runs_of_characters(text, known)


def _joined(found: list[tuple[str, bool]]) -> list[tuple[str, bool]]:
    """Neighbouring encodable runs as one (a special token and the text around it)."""
    out: list[tuple[str, bool]] = []
    for piece, ok in found:
        if ok and out and out[-1][1]:
            out[-1] = (out[-1][0] + piece, True)
        else:
            out.append((piece, ok))
    return out


def runs_of_characters(text: str, known: set[str]) -> list[tuple[str, bool]]:
    """`runs` of text holding no special token: split at each character outside ``known``."""
    found: list[tuple[str, bool]] = []
    start = 0
    for i, char in enumerate(text):
        if char not in known:
            if start < i:
                found.append((text[start:i], True))
            found.append((char, False))
            start = i + 1
    if start < len(text):
        found.append((text[start:], True))
    return found


def unknown_characters(tokenizer, text: str) -> list[str]:
    """The distinct characters of ``text`` the tokenizer cannot encode, in order of appearance."""
    return list(dict.fromkeys(piece for piece, ok in runs(tokenizer, text) if not ok))


def segments_marking_unknown(tokenizer, text: str) -> list[Segment]:
    """``text`` as tokens, with each character outside the alphabet as a segment of its
    own: ``token_id`` None, mark "unknown"."""
    segments: list[Segment] = []
    for piece, ok in runs(tokenizer, text):
        if ok:
            segments.extend(segments_of(tokenizer, tokenizer.encode(piece)))
        else:
            segments.append(Segment(piece, None, "unknown"))
    return segments


def applied_merges_in_known(tokenizer, text: str) -> list[AppliedMerge]:
    """`bpe.analysis.lineage.applied_merges` over the encodable runs of ``text``, added up."""
    times: dict[int, AppliedMerge] = {}
    for piece, ok in runs(tokenizer, text):
        if not ok:
            continue
        for merge in applied_merges(tokenizer, piece):
            seen = times.get(merge.step)
            times[merge.step] = (
                merge if seen is None else AppliedMerge(merge.step, merge.pair, merge.token, seen.times + merge.times)
            )
    return [times[step] for step in sorted(times)]
