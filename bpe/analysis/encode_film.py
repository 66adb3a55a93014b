"""The encode film: a trained tokenizer applied to a text, one merge per frame.

Unlike `bpe.analysis.film` (the merges of *training*, as they were learned), this plays
*encoding*: the text starts as base tokens (characters or bytes, cut into pre-tokenizer
chunks that merges never cross), and each frame applies the next merge that occurs in the
text, in the order the tokenizer applies them:

- **merge replay** (a tokenizer trained here, `BPETokenizer`): the merges in learned
  order; a frame merges every occurrence of its pair, left to right without overlap.
  Merges whose pair the text never holds are skipped, so frames are the merges that fire.
- **rank order** (GPT-2, GPT-4 and imported tokenizers): within each chunk, the adjacent
  pair with the lowest rank is merged, leftmost first, again and again. tiktoken's rank
  is the rank of the pair's *concatenation* (GPT-2, cl100k, tiktoken files); Hugging Face
  and minbpe rank the *pair* in their merge list. A frame applies one rank in every chunk
  where it is the lowest there. Chunks are independent, so this is exactly each chunk's
  own order, and the frames together are the library's encoding.

tiktoken also looks a chunk up whole before merging (a chunk that is a token is that
token). Merging by rank almost always builds the same token; where it does not, a last
*lookup* frame replaces those chunks, so the last frame always equals ``encode()``.

Each film also applies the *other* rule to the same chunks (rank order for a run, merge
replay for a pretrained tokenizer) and lists the chunks where the two would cut
differently (`RuleDifference`; see `bpe.formats.merges_vs_ranks` for why they can).

    >>> film = encode_film(BPETokenizer.train("low lower lowest", 12), "lowest")  # doctest: +SKIP
    >>> [f.pair for f in film.frames]                                             # doctest: +SKIP
    [('l', 'o'), ('lo', 'w'), ('low', 'e'), ...]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bpe.alphabet import BYTES
from bpe.analysis.segments import Segment, special_ids
from bpe.errors import BpeError
from bpe.pairs import merge_pair, merge_positions
from bpe.tokenizer import BPETokenizer

# Frames cost a pass over the text each; a film is for a passage, not a book.
MAX_FILM_CHARACTERS = 2_000
REPLAY, RANK = "merge replay", "rank order"
MERGE, LOOKUP = "merge", "lookup"
# How a rank is read: of the pair's concatenation (tiktoken), or of the pair itself (Hugging Face, minbpe).
CONCATENATION, PAIR = "concatenation", "pair"

Chunks = tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class EncodeFrame:
    """One frame: the merge applied and the text after it.

    ``merge`` is the merge's number, 1-based: the training step that learned it for a run
    here, the rank counted from the first merge for a pretrained tokenizer (GPT-2's token
    256 is merge 1). ``count`` is the pair's count at that training step (runs only).
    ``places`` are (chunk, index) of each merged pair's left half in the frame *before*
    this one; for a lookup frame, (chunk, 0) of each chunk looked up whole.
    """

    number: int
    kind: str  # MERGE or LOOKUP
    merge: int | None
    pair: tuple | None
    token: object
    token_id: int | None
    places: tuple[tuple[int, int], ...]
    chunks: Chunks
    count: int | None = None

    @property
    def occurrences(self) -> int:
        return len(self.places)


@dataclass(frozen=True)
class RuleDifference:
    """A chunk that the other rule would cut differently: its text and both cuts."""

    chunk: int
    text: str
    tokens: tuple  # this film's tokens (what ``encode()`` gives)
    other_tokens: tuple  # the other rule's


@dataclass(frozen=True)
class EncodeFilm:
    rule: str  # REPLAY or RANK
    rank_of: str | None  # CONCATENATION or PAIR for rank order
    start: Chunks  # base-token ids by chunk
    frames: tuple[EncodeFrame, ...]
    itos: dict  # id -> token of the tokenizer (not a copy)
    other_rule: str
    differences: tuple[RuleDifference, ...]
    characters: int
    specials: frozenset[int] = frozenset()  # the special tokens' ids: one segment, never merged

    def mark(self, token_id: int, mark: str | None) -> str | None:
        """A token's mark, "special" for a special token that no other mark claims."""
        return "special" if mark is None and token_id in self.specials else mark

    def chunks_at(self, frame: int) -> Chunks:
        """Token ids by chunk after ``frame`` frames (0: the base tokens)."""
        if not 0 <= frame <= len(self.frames):
            raise BpeError(f"frame={frame} is outside 0..{len(self.frames)} (the film has {len(self.frames)} frames)")
        return self.start if frame == 0 else self.frames[frame - 1].chunks

    def ids_at(self, frame: int) -> list[int]:
        return [i for chunk in self.chunks_at(frame) for i in chunk]


def start_segments(film: EncodeFilm) -> list[Segment]:
    """The film's text before its first frame: base tokens, special tokens marked "special"."""
    return [Segment(film.itos[i], i, film.mark(i, None)) for i in film.ids_at(0)]


def frame_segments(film: EncodeFilm, frame: int) -> tuple[list[Segment], list[Segment]]:
    """(before, after) frame ``frame`` (1-based) as segments: in "before" the halves of each
    merged pair are marked left/right (a looked-up chunk: every token "left"), in "after"
    each token the frame made is marked "merged"."""
    if not 1 <= frame <= len(film.frames):
        raise BpeError(f"frame={frame} is outside 1..{len(film.frames)} (the film has {len(film.frames)} frames)")
    current = film.frames[frame - 1]
    itos = film.itos
    before_chunks, after_chunks = film.chunks_at(frame - 1), current.chunks
    places: dict[int, set[int]] = {}
    for chunk, at in current.places:
        places.setdefault(chunk, set()).add(at)
    before, after = [], []
    for index, (old, new) in enumerate(zip(before_chunks, after_chunks)):
        here = places.get(index, set())
        if current.kind == LOOKUP and 0 in here:
            before += [Segment(itos[i], i, "left") for i in old]
            after += [Segment(itos[i], i, "merged") for i in new]
            continue
        marks = [None] * len(old)
        for at in here:
            marks[at], marks[at + 1] = "left", "right"
        before += [Segment(itos[i], i, film.mark(i, mark)) for i, mark in zip(old, marks)]
        made, position = set(), 0  # where the merged tokens sit in the new chunk
        for at in range(len(old)):
            if marks[at] == "left":
                made.add(position)
            if marks[at] != "right":
                position += 1
        after += [Segment(itos[i], i, film.mark(i, "merged" if j in made else None)) for j, i in enumerate(new)]
    return before, after


def rule_sentence(film: EncodeFilm) -> str:
    """How the film's tokenizer applies its merges, in plain words."""
    if film.rule == REPLAY:
        return (
            "merge replay: the merges in the order training learned them, each one over the whole text, "
            "left to right without overlap"
        )
    if film.rank_of == CONCATENATION:
        return (
            "rank order: in each chunk, the adjacent pair whose joined text has the lowest rank is merged, "
            "leftmost first (tiktoken's rule; a chunk that is a token is looked up whole)"
        )
    return "rank order: in each chunk, the adjacent pair listed earliest in the merge list is merged, leftmost first"


def encode_film(tokenizer, text: str, *, steps: Sequence | None = None) -> EncodeFilm:
    """The film of ``tokenizer`` encoding ``text`` (at most `MAX_FILM_CHARACTERS`).

    ``steps``: the run's `MergeStep` list, for the pair count of each merge at the step
    that learned it (a `BPETokenizer` that is a prefix of that run). Raises `BpeError`
    (`UnknownSymbolsError`) when the tokenizer cannot encode the text.
    """
    if not isinstance(text, str):
        raise BpeError(f"the film takes a str, got {type(text).__name__}")
    if len(text) > MAX_FILM_CHARACTERS:
        raise BpeError(f"the text has {len(text):,} characters; the encode film plays at most {MAX_FILM_CHARACTERS:,}")
    if isinstance(tokenizer, BPETokenizer):
        return _replay_film(tokenizer, text, steps)
    return _rank_film(tokenizer, text)


# ==================== Merge replay (tokenizers trained here)


def _replay_film(tokenizer: BPETokenizer, text: str, steps: Sequence | None) -> EncodeFilm:
    stoi, itos = tokenizer.stoi, tokenizer.itos
    start = tuple(tuple(chunk) for chunk in tokenizer.with_merges(0).encode_with_chunks(text))
    merges = [(number, (stoi[a], stoi[b]), stoi[a + b]) for number, (a, b) in enumerate(tokenizer.merges, start=1)]
    frames = []
    for number, _pair, new, places, chunks in replay(start, merges):
        count = steps[number - 1].frequency if steps is not None and number <= len(steps) else None
        left, right = tokenizer.merges[number - 1]
        frames.append(
            EncodeFrame(len(frames) + 1, MERGE, number, (left, right), left + right, new, places, chunks, count)
        )
    end = frames[-1].chunks if frames else start
    key = _concatenation_key(tokenizer)
    other = [_rank_merge(list(chunk), key, _whole_lookup(tokenizer)) for chunk in start]
    differences = _differences(end, other, itos, tokenizer)
    return EncodeFilm(
        REPLAY,
        None,
        start,
        tuple(frames),
        itos,
        f"{RANK} (tiktoken's rule)",
        differences,
        len(text),
        special_ids(tokenizer),
    )


def replay(start: Chunks, merges: Sequence[tuple[int, tuple[int, int], int]]):
    """Apply ``merges`` ((number, (left id, right id), new id), in order) to the chunks;
    yield (number, pair, new id, places, chunks after) for each merge whose pair occurs.

    Which chunks hold which pairs is kept up to date, so a merge the text lacks costs one
    lookup and a merge that fires touches only the chunks that hold its pair."""
    chunks = list(start)
    holders: dict[tuple[int, int], set[int]] = {}
    for index, chunk in enumerate(chunks):
        for pair in zip(chunk, chunk[1:]):
            holders.setdefault(pair, set()).add(index)
    for number, pair, new in merges:
        if not holders:
            return
        found = holders.get(pair)
        if not found:
            continue
        places = []
        for index in sorted(found):
            chunk = chunks[index]
            places += [(index, at) for at in merge_positions(chunk, pair)]
            merged = tuple(merge_pair(chunk, pair, new))
            for old in set(zip(chunk, chunk[1:])):
                holders[old].discard(index)
                if not holders[old]:
                    del holders[old]
            for fresh in zip(merged, merged[1:]):
                holders.setdefault(fresh, set()).add(index)
            chunks[index] = merged
        yield number, pair, new, tuple(places), tuple(chunks)


# ==================== Rank order (GPT-2, GPT-4, imported tokenizers)


def _rank_film(tokenizer, text: str) -> EncodeFilm:
    itos = tokenizer.itos
    final = [tuple(chunk) for chunk in tokenizer.encode_with_chunks(text)]
    start = tuple(_base_ids(tokenizer, chunk) for chunk in final)
    rank_of = CONCATENATION if _ranks_concatenations(tokenizer) else PAIR
    key = _concatenation_key(tokenizer) if rank_of == CONCATENATION else _pair_key(tokenizer)
    base_count = len(tokenizer.base_tokens)
    chunks = [list(chunk) for chunk in start]
    lowest = [_lowest(chunk, key) for chunk in chunks]  # (rank, index, new id) or None, per chunk
    frames = []
    while True:
        found = [entry[0] for entry in lowest if entry is not None]
        if not found:
            break
        rank = min(found)
        places, new = [], None
        for index, chunk in enumerate(chunks):
            merged_here = 0
            while lowest[index] is not None and lowest[index][0] == rank:
                _rank, at, new = lowest[index]
                # merges of one rank inside one chunk go left to right (a pair of this rank is
                # never formed by this rank's own merge), so `at + merged_here` is the index before the frame
                places.append((index, at + merged_here))
                chunk[at : at + 2] = [new]
                merged_here += 1
                lowest[index] = _lowest(chunk, key)
        left, right = _halves(itos, new, places, frames, start)
        merge = rank - base_count + 1 if rank_of == CONCATENATION else rank + 1
        frames.append(
            EncodeFrame(len(frames) + 1, MERGE, merge, (left, right), itos[new], new, tuple(places), _frozen(chunks))
        )
    looked_up = tuple((index, 0) for index, chunk in enumerate(chunks) if tuple(chunk) != final[index])
    if looked_up:  # tiktoken's whole-chunk lookup (or a rule this film does not model): the library's own cut
        frames.append(EncodeFrame(len(frames) + 1, LOOKUP, None, None, None, None, looked_up, tuple(final)))
    other = _replayed(tokenizer, start)
    return EncodeFilm(
        RANK,
        rank_of,
        start,
        tuple(frames),
        itos,
        REPLAY,
        _differences(tuple(final), other, itos, tokenizer),
        len(text),
        special_ids(tokenizer),
    )


def _halves(itos: dict, new: int, places, frames, start) -> tuple:
    """The two tokens the frame's first merge joined, read from the frame before it."""
    chunk, at = places[0]
    before = frames[-1].chunks[chunk] if frames else start[chunk]
    return itos[before[at]], itos[before[at + 1]]


def _frozen(chunks: list[list[int]]) -> Chunks:
    return tuple(tuple(chunk) for chunk in chunks)


def _lowest(chunk: list[int], key: Callable) -> tuple[int, int, int] | None:
    """(rank, index, new id) of the chunk's lowest-ranked pair, leftmost on ties."""
    best = None
    for index in range(len(chunk) - 1):
        found = key(chunk[index], chunk[index + 1])
        if found is not None and (best is None or found[0] < best[0]):
            best = (found[0], index, found[1])
    return best


def _ranks_concatenations(tokenizer) -> bool:
    """tiktoken's rule (GPT-2, cl100k, tiktoken files) rather than a ranked merge list."""
    return getattr(tokenizer, "source_format", "tiktoken") == "tiktoken"


def _ordinary_stoi(tokenizer) -> dict:
    special = set(getattr(tokenizer, "special_tokens", {}).values())
    return {token: i for i, token in tokenizer.itos.items() if i not in special}


def _concatenation_key(tokenizer) -> Callable:
    """(left id, right id) -> (rank, new id) when the joined text is a token; rank = id."""
    itos, stoi = tokenizer.itos, _ordinary_stoi(tokenizer)

    def key(left: int, right: int):
        token = stoi.get(itos[left] + itos[right])
        return None if token is None else (token, token)

    return key


def _pair_key(tokenizer) -> Callable:
    """(left id, right id) -> (rank, new id) from the merge list; a pair listed twice keeps
    its last rank, as Hugging Face's table does."""
    stoi = _ordinary_stoi(tokenizer)
    table = {}
    for rank, (left, right) in enumerate(tokenizer.merges):
        table[(stoi[left], stoi[right])] = (rank, stoi[left + right])
    return lambda left, right: table.get((left, right))


def _whole_lookup(tokenizer) -> Callable | None:
    """tiktoken's first step as a function of a chunk's ids: the id of the chunk's whole
    text when it is a token (else None)."""
    itos, stoi = tokenizer.itos, _ordinary_stoi(tokenizer)
    empty = b"" if tokenizer.alphabet == BYTES else ""
    return lambda chunk: stoi.get(empty.join(itos[i] for i in chunk))


def _rank_merge(chunk: list[int], key: Callable, lookup: Callable | None) -> tuple[int, ...]:
    """One chunk by rank order (the other rule for a run): whole lookup, then lowest rank first."""
    if lookup is not None and len(chunk) > 1:
        whole = lookup(chunk)
        if whole is not None:
            return (whole,)
    while True:
        found = _lowest(chunk, key)
        if found is None:
            return tuple(chunk)
        _rank, at, new = found
        chunk[at : at + 2] = [new]


def _base_ids(tokenizer, final_chunk: tuple[int, ...]) -> tuple[int, ...]:
    """The chunk's symbols (single bytes or characters) as ids of the tokenizer."""
    itos, stoi = tokenizer.itos, _ordinary_stoi(tokenizer)
    joined = (
        b"".join(itos[i] for i in final_chunk) if tokenizer.alphabet == BYTES else "".join(itos[i] for i in final_chunk)
    )
    symbols = [joined[i : i + 1] for i in range(len(joined))]
    missing = [s for s in symbols if s not in stoi]
    if missing:
        raise BpeError(
            f"{missing[0]!r} is not a token of {getattr(tokenizer, 'name', 'this tokenizer')}: it cannot be filmed"
        )
    return tuple(stoi[s] for s in symbols)


def _replayed(tokenizer, start: Chunks) -> Chunks:
    """Merge replay of a pretrained tokenizer's merge list over the chunks (the other rule)."""
    stoi = _ordinary_stoi(tokenizer)
    merges = [(number, (stoi[a], stoi[b]), stoi[a + b]) for number, (a, b) in enumerate(tokenizer.merges, start=1)]
    end = start
    for *_, chunks in replay(start, merges):
        end = chunks
    return end


def _differences(end: Chunks, other: Sequence[tuple[int, ...]], itos: dict, tokenizer) -> tuple[RuleDifference, ...]:
    found = []
    for index, (ours, theirs) in enumerate(zip(end, other)):
        if tuple(ours) != tuple(theirs):
            tokens = tuple(itos[i] for i in ours)
            found.append(RuleDifference(index, _text(tokens, tokenizer), tokens, tuple(itos[i] for i in theirs)))
    return tuple(found)


def _text(tokens: tuple, tokenizer) -> str:
    if tokenizer.alphabet == BYTES:
        return b"".join(tokens).decode("utf-8", errors="replace")
    return "".join(tokens)
