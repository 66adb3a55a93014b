"""Merges vs ranks: where another library cannot encode exactly as the lab does, and why.

The lab's tokenizer is an ordered list of *merges* (pairs), replayed in order; its
vocabulary is a set. Other formats say less, and so can encode some texts differently:

- **A merge that re-creates a token** the vocabulary already has (``'ab' + 'c'`` learned
  after ``'a' + 'bc'``). The lab merges that pair only after its turn in the list;
  Hugging Face merges any listed pair whenever it is the lowest-ranked one present;
  minbpe cannot hold it at all (every merge makes a new id), so the export leaves it out;
  tiktoken has one rank per token, whichever pair made it.
- **A token reachable by two different splits** (tiktoken only). tiktoken keeps no pairs:
  it joins any two adjacent pieces whose *concatenation* is a token, lowest rank first,
  and a chunk that is a token is that token. When the lab's merges leave ``'ab' 'c'``
  side by side (``'abc'`` was learned as ``'a' + 'bc'``), tiktoken still joins them.

Hugging Face and minbpe give exactly the lab's ids when no merge re-creates a token (then
"lowest rank first" and "in learned order" coincide); `merges_vs_ranks` says so without
searching. For tiktoken it counts the tokens with another split, then looks for texts
that really encode differently: every token's own text and every distinct chunk of a
sample text, each encoded both ways (`bpe.formats.export.as_library_reads`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from bpe.errors import BpeError
from bpe.formats.export import HF, LIBRARY, MINBPE, TIKTOKEN, as_library_reads, check_format, file_ids
from bpe.formats.fileio import quoted
from bpe.pretokenize import split
from bpe.specials import as_token
from bpe.tokenizer import BPETokenizer
from bpe.wording import counted


@dataclass(frozen=True)
class Recreation:
    """Merge ``number`` makes ``token``, which merge ``first_number`` (0: the alphabet) made first."""

    number: int
    pair: tuple
    token: object
    first_number: int
    first_pair: tuple | None


@dataclass(frozen=True)
class OtherSplit:
    """``token`` was learned as ``learned`` but is also ``other``, two tokens side by side."""

    token: object
    token_id: int
    learned: tuple
    other: tuple


@dataclass(frozen=True)
class Example:
    """A text the lab and the library encode differently."""

    text: str
    ours: tuple
    theirs: tuple
    ours_tokens: tuple
    theirs_tokens: tuple
    source: str  # "token" (a token's own text) or "sample" (a chunk of the sample text)
    count: int = 1  # occurrences in the sample text

    def line(self, show=quoted) -> str:
        """``show(token, limit=...)``: how a token is spelled (`quoted`: escaped, in quotes)."""
        ours = " ".join(show(t, limit=20) for t in self.ours_tokens)
        theirs = " ".join(show(t, limit=20) for t in self.theirs_tokens)
        where = f", {self.count:,}x in the sample" if self.source == "sample" else ", a token's own text"
        return f"{show(self.text)}{where}: lab {ours}  vs  library {theirs}"


@dataclass(frozen=True)
class MergesVsRanks:
    format: str
    library: str
    recreations: tuple[Recreation, ...]
    left_out: tuple[int, ...]  # merges the export leaves out
    other_split_count: int  # tokens with another split into two tokens (tiktoken)
    other_splits: tuple[OtherSplit, ...]  # the first few
    examples: tuple[Example, ...]
    tokens_checked: int
    chunks_checked: int
    chunks_differing: int
    occurrences_differing: int
    occurrences_checked: int
    exact: bool  # proven: the library encodes every text as the lab does

    def summary(self) -> str:
        if self.exact:
            return f"{self.library}: exact. No merge re-creates a token, so its rule gives the lab's ids on every text."
        parts = []
        if self.recreations:
            parts.append(
                f"{counted(len(self.recreations), 'merge')} {'re-creates' if len(self.recreations) == 1 else 're-create'} a token the vocabulary already has"
            )
        if self.left_out:
            parts.append(
                f"{counted(len(self.left_out), 'merge')} cannot be written and {'is' if len(self.left_out) == 1 else 'are'} left out"
            )
        if self.other_split_count:
            parts.append(f"{counted(self.other_split_count, 'token')} can also be made from another pair of tokens")
        found = (
            f"{counted(len(self.examples), 'example text')} {'encodes' if len(self.examples) == 1 else 'encode'} differently"
            if self.examples
            else "no text found that encodes differently"
        )
        checked = f"checked {self.tokens_checked:,} token texts"
        if self.chunks_checked:
            checked += (
                f" and {counted(self.chunks_checked, 'distinct chunk')} of the sample "
                f"({self.chunks_differing:,} differ, {self.occurrences_differing:,} of "
                f"{self.occurrences_checked:,} occurrences)"
            )
        return f"{self.library}: {'; '.join(parts) or 'nothing to flag'}; {found} ({checked})."

    def lines(self, limit: int = 10, *, show=quoted) -> list[str]:
        """The summary, then each re-creation, other split and example, every token spelled
        by ``show`` (`quoted`: escaped for a terminal; the app makes whitespace visible)."""
        out = [self.summary()]
        for item in self.recreations[:limit]:
            first = (
                "a base token"
                if item.first_number == 0
                else f"merge {item.first_number} {show(item.first_pair[0])} + {show(item.first_pair[1])}"
            )
            out.append(
                f"  merge {item.number} {show(item.pair[0])} + {show(item.pair[1])} re-creates "
                f"{show(item.token)} (made first by {first})"
            )
        for split_ in self.other_splits[: min(limit, 3)] if not self.examples else ():
            out.append(
                f"  {show(split_.token)} was learned as {show(split_.learned[0])} + "
                f"{show(split_.learned[1])}, and is also {show(split_.other[0])} + {show(split_.other[1])}"
            )
        for example in self.examples[:limit]:
            out.append("  " + example.line(show))
        return out


def recreations(tokenizer) -> list[Recreation]:
    """Merges whose result the vocabulary already holds, in merge order."""
    made: dict = {token: (0, None) for token in tokenizer.base_tokens}
    found = []
    for number, pair in enumerate(tokenizer.merges, start=1):
        token = pair[0] + pair[1]
        if token in made:
            first_number, first_pair = made[token]
            found.append(Recreation(number, tuple(pair), token, first_number, first_pair))
        else:
            made[token] = (number, tuple(pair))
    return found


def other_splits(tokenizer) -> list[OtherSplit]:
    """Tokens that are also two other tokens side by side (``'abc'`` = ``'a' + 'bc'`` =
    ``'ab' + 'c'``): tiktoken would join either pair; the lab only the one it learned."""
    stoi = tokenizer.stoi
    learned: dict = {}
    for pair in tokenizer.merges:
        learned.setdefault(pair[0] + pair[1], set()).add(tuple(pair))
    found = []
    for token, pairs in learned.items():
        for cut in range(1, len(token)):
            pair = (token[:cut], token[cut:])
            if pair not in pairs and pair[0] in stoi and pair[1] in stoi:
                found.append(OtherSplit(token, stoi[token], min(pairs), pair))
                break
    return found


def merges_vs_ranks(
    tokenizer, fmt: str, *, sample_text: str | None = None, limit: int = 20, max_tokens: int = 200_000
) -> MergesVsRanks:
    """What ``fmt`` cannot hold of ``tokenizer``, with example texts that encode differently.

    ``sample_text``: real text whose distinct chunks are checked too (lines, when the
    tokenizer has no pre-tokenizer). Character-level tokenizers only go to ``"hf"``.
    """
    check_format(fmt)
    library = LIBRARY[fmt]
    remade = recreations(tokenizer)
    if fmt == HF:
        seen: set = set()
        left_out = tuple(n for n, pair in enumerate(tokenizer.merges, 1) if pair in seen or seen.add(pair))
    elif fmt == MINBPE:
        left_out = tuple(item.number for item in remade)
    else:
        left_out = ()
    splits = other_splits(tokenizer) if fmt == TIKTOKEN else []
    reader = as_library_reads(tokenizer, fmt)  # raises for character-level tiktoken/minbpe, saying why
    lab_id = _lab_ids(tokenizer, fmt)
    if fmt in (HF, MINBPE) and not remade:
        return MergesVsRanks(fmt, library, (), left_out, 0, (), (), 0, 0, 0, 0, 0, True)

    examples, tokens_checked = _token_examples(tokenizer, reader, lab_id, limit, max_tokens)
    sample = _SampleCheck()
    if sample_text:
        sample.run(tokenizer, reader, lab_id, sample_text, examples, 2 * limit)
    examples.sort(key=lambda e: (e.source != "sample", -e.count, len(e.text)))
    return MergesVsRanks(
        fmt,
        library,
        tuple(remade),
        left_out,
        len(splits),
        tuple(splits[:limit]),
        tuple(examples[:limit]),
        tokens_checked,
        sample.chunks_checked,
        sample.chunks_differing,
        sample.occurrences_differing,
        sample.occurrences_checked,
        False,
    )


def _token_examples(tokenizer, reader, lab_id, limit: int, max_tokens: int) -> tuple[list[Example], int]:
    """Each learned token's own text (up to ``max_tokens`` of them) encoded both ways: the
    first ``limit`` that differ, and how many tokens were checked."""
    examples: list[Example] = []
    tokens_checked = 0
    specials = {as_token(special, tokenizer.alphabet) for special in getattr(tokenizer, "special_tokens", {})}
    for token in tokenizer.tokens:
        if len(token) < 2 or tokens_checked >= max_tokens or token in specials:  # (a special token: no merge)
            continue
        text = _as_text(token)
        if text is None:
            continue
        tokens_checked += 1
        example = _compare(tokenizer, reader, lab_id, text, "token", 1)
        if example is not None and len(examples) < limit:
            examples.append(example)
    return examples, tokens_checked


@dataclass
class _SampleCheck:
    """The distinct chunks of a real text encoded both ways: how many were checked and how
    many differ, each weighted by how often it occurs too."""

    chunks_checked: int = 0
    chunks_differing: int = 0
    occurrences_differing: int = 0
    occurrences_checked: int = 0

    def run(self, tokenizer, reader, lab_id, sample_text: str, examples: list[Example], most: int) -> None:
        """Check every distinct chunk of ``sample_text``, adding those that differ to
        ``examples`` while it holds fewer than ``most``."""
        counts = Counter(_sample_chunks(sample_text, tokenizer.pretokenizer))
        for chunk, count in counts.items():
            self.chunks_checked += 1
            self.occurrences_checked += count
            example = _compare(tokenizer, reader, lab_id, chunk, "sample", count)
            if example is not None:
                self.chunks_differing += 1
                self.occurrences_differing += count
                if len(examples) < most:
                    examples.append(example)


def _compare(tokenizer, reader, lab_id, text: str, source: str, count: int) -> Example | None:
    """``text`` encoded by the lab and by ``reader`` (ordinary text: the merges, not the
    special tokens, are the lesson); ``lab_id``: the file's id of a token -> the lab's."""
    try:
        ours = tokenizer.encode_ordinary(text)
    except BpeError:
        return None  # characters outside the alphabet: nothing to compare
    theirs = reader.encode_ordinary(text)
    if list(map(lab_id, theirs)) == ours:
        return None
    return Example(
        text,
        tuple(ours),
        tuple(theirs),
        tuple(tokenizer.itos[i] for i in ours),
        tuple(reader.itos[i] for i in theirs),
        source,
        count,
    )


def _lab_ids(tokenizer, fmt: str):
    """The file's id of a token -> the lab's (`bpe.formats.export.file_ids`, inverted)."""
    to_file = file_ids(tokenizer, fmt)
    back = {to_file(token_id): token_id for token_id in range(tokenizer.vocab_size)}
    return lambda token_id: back.get(token_id, token_id)


def _sample_chunks(text: str, pretokenizer) -> list[str]:
    if pretokenizer is None:
        return [line for line in text.splitlines(keepends=True) if line.strip()]
    return split(text, pretokenizer)


def _as_text(token) -> str | None:
    if isinstance(token, str):
        return token
    try:
        return token.decode("utf-8")
    except UnicodeDecodeError:
        return None


# ====================
# Two small demonstrations for the lesson


@dataclass(frozen=True)
class Demonstration:
    """A few merges, a text or two, and each library's tokens for them."""

    title: str
    merges: tuple
    texts: tuple[str, ...]
    results: dict  # who -> {text: tokens}
    explanation: tuple[str, ...]

    def token_ids(self) -> dict:
        """Token -> id in the lab's numbering (the 256 bytes, then each new token), which
        every export keeps: the same token has the same id in every library's result."""
        ids = {bytes([value]): value for value in range(256)}
        for left, right in self.merges:
            ids.setdefault(left + right, len(ids))
        return ids

    def lines(self) -> list[str]:
        merges = ", ".join(f"{n}: {quoted(a)} + {quoted(b)}" for n, (a, b) in enumerate(self.merges, 1))
        out = [f"{self.title}: merges {merges}"]
        for text in self.texts:
            for who, found in self.results.items():
                out.append(f"  {quoted(text)} -> {' '.join(quoted(t) for t in found[text])}   {who}")
        out.extend("  " + line for line in self.explanation)
        return out


WHO = {
    "lab": "BPE Lab (merges replayed in learned order)",
    HF: "Hugging Face (the lowest-ranked listed pair present, whenever it formed)",
    TIKTOKEN: "tiktoken (the lowest rank of the concatenation; a chunk that is a token)",
    MINBPE: "minbpe (every merge a new id; merges that re-create a token left out)",
}


def demonstrations() -> list[Demonstration]:
    """The two ways a format can disagree with the lab, each on a tokenizer of a few merges
    (byte alphabet, no pre-tokenizer). Training on real text rarely produces either (none
    was found on WikiText-2, nor in GPT-2's or GPT-4's merges); a merge list in a file can."""
    split_case = _demonstrate(
        "A token reachable by two splits",
        ((b"a", b"n"), (b"n", b"d"), (b"a", b"nd")),
        ("and", "band"),
        (
            "The lab learned 'and' as 'a' + 'nd', but 'a' + 'n' (merge 1) comes first and leaves 'an' 'd', which no "
            "merge joins.",
            "tiktoken keeps no pairs: 'an' + 'd' concatenate to 'and', which has a rank, so it joins them (and a "
            "chunk that is exactly a token is that token).",
        ),
    )
    recreation_case = _demonstrate(
        "A merge that re-creates a token",
        ((b"z", b"z"), (b"z", b"zz"), (b"b", b"zzz"), (b"zz", b"z")),
        ("bzzz", "zzz"),
        (
            "Merge 4 makes 'zzz', which merge 2 made first: the lab's vocabulary is a set, so it adds no token.",
            "The lab: 'z' + 'z' (merge 1) leaves 'b' 'zz' 'z'; merge 4 joins 'zz' 'z', but the turn of 'b' + 'zzz' "
            "(merge 3) has passed, so 'bzzz' stays 'b' 'zzz'.",
            "Hugging Face merges any listed pair whenever it is the lowest present: 'b' + 'zzz' (rank 3) joins.",
            "tiktoken: 'bzzz' has a rank; minbpe cannot hold merge 4 (it would be a second id for 'zzz'), "
            "so 'zz' 'z' stay apart.",
        ),
    )
    return [split_case, recreation_case]


def _demonstrate(title: str, merges: tuple, texts: tuple[str, ...], explanation: tuple[str, ...]) -> Demonstration:
    tokenizer = BPETokenizer([bytes([value]) for value in range(256)], merges, alphabet="bytes")
    readers = {WHO["lab"]: tokenizer}
    for fmt in (HF, TIKTOKEN, MINBPE):
        readers[WHO[fmt]] = as_library_reads(tokenizer, fmt)
    results = {
        who: {text: tuple(reader.itos[i] for i in reader.encode(text)) for text in texts}
        for who, reader in readers.items()
    }
    return Demonstration(title, merges, texts, results, explanation)
