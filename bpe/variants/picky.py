"""Picky BPE (Chizhov et al., 2024): BPE that removes the tokens it made only to merge again.

After each merge of (x₁, x₂), each part xᵢ that is not a base token is checked: its IoS
(intersection over self) is the pair's count ÷ xᵢ's own count just before the merge, the
share of xᵢ's occurrences that the merge took. When it reaches the threshold T (0.9 by
default), xᵢ lives almost only inside the new token: it is removed from the vocabulary,
and its remaining occurrences split back into its parts. Training "ould" on its way to
"would", "could", "should" and removing it frees its place for a token the text uses.

Worked example, "abab ab" in characters, T = 0.9: merge 1 joins a+b (3 times; 'a' and 'b'
are base tokens, never removed); merge 2 joins ab+ab (once): IoS(ab) = 1 ÷ 3, kept.

What this module holds, shared by both engines (`bpe.variants.textbook`,
`bpe.variants.incremental`), the run (`bpe.variants.rule_runs`) and the run file:

- `Removal` and `PickyStep`: a merge step and the tokens removed right after it;
- `live_parts`: what a removed token splits into (its parts when it was last made; a part
  removed earlier splits further), and `split_token` to do it in a sequence;
- `PickyTokenizer`: encoding replays the merges and the removals in the order they
  happened, as the paper's tokenizer does; a removed token keeps its id, unused;
- `PickySteps`: a recorded run's steps (`bpe.recorded.RecordedSteps`) with its removals.

Token ids stay as training numbered them: a removed token keeps its id (and a token made
again gets it back), so the vocabulary of live tokens has gaps in its ids; its size is the
number of live tokens.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from bpe.encoder import RankEncoder
from bpe.errors import BpeError
from bpe.pretokenize import split
from bpe.recorded import RecordedSteps
from bpe.steps import MergeStep
from bpe.tokenizer import BPETokenizer
from bpe.variants.rules import RuleTokenizer


@dataclass(frozen=True)
class Removal:
    """A token removed after a merge: what it split into, how often, and why (its IoS,
    ``pair_count`` ÷ ``own_count``, at least the threshold)."""

    token: object
    token_id: int
    parts: tuple  # the live tokens each of its occurrences became, in order
    count: int  # its occurrences split
    pair_count: int  # the merged pair's count
    own_count: int  # the token's count before the merge

    @property
    def ios(self) -> float:
        return self.pair_count / self.own_count


@dataclass(frozen=True)
class PickyStep(MergeStep):
    """A merge step of Picky BPE: ``sequence_length`` and ``vocab_size`` are after the merge
    *and* its removals (the vocabulary counts live tokens only)."""

    removed: tuple[Removal, ...] = ()


def removes(pair_count: int, own_count: int, threshold: float) -> bool:
    """Whether a part counted ``own_count`` times before a merge of its pair (``pair_count``
    times) goes: its IoS reaches ``threshold``. One expression for both engines, so that
    float rounding cannot part them (0.7 * 10 is 7.000000000000001; 7 / 10 is 0.7)."""
    return pair_count / own_count >= threshold


def live_parts(token, made_from: dict, live: set) -> tuple:
    """The live tokens ``token`` splits into: the pair it was last made from, each part
    that is no longer live split the same way. ``made_from``: token -> its pair."""
    parts: list = []
    pending = list(reversed(made_from[token]))
    while pending:
        part = pending.pop()
        if part in live:
            parts.append(part)
        else:
            pending.extend(reversed(made_from[part]))
    return tuple(parts)


def split_token(tokens: Sequence, token, parts: tuple) -> list:
    """``tokens`` with every ``token`` replaced by ``parts``: ['ab', 'c'], 'ab', ('a', 'b') -> ['a', 'b', 'c']."""
    if token not in tokens:
        return list(tokens)
    out: list = []
    for t in tokens:
        if t == token:
            out.extend(parts)
        else:
            out.append(t)
    return out


def picky_step(step: MergeStep, removed: Sequence[Removal]) -> PickyStep:
    """``step`` as a `PickyStep` with ``removed`` (its other fields as they are)."""
    return PickyStep(**{f: getattr(step, f) for f in MergeStep.__dataclass_fields__}, removed=tuple(removed))


class PickyTokenizer(RuleTokenizer):
    """A Picky BPE tokenizer: merges and, after some of them, removals. Encoding replays them
    in order, chunk by chunk: the merges between two removals at once (`bpe.encoder.RankEncoder`
    merges lowest rank first, which is replaying them in order), then the removed token split.

    ``removals`` are ``(merges made before it, token, parts)`` in order: ``(2, 'ab', ('a', 'b'))``
    removes 'ab' after the second merge. ``vocab_size`` counts every id (a removed token keeps
    its id); ``live_vocab_size`` the tokens the vocabulary holds."""

    UNSAVED = (
        "BPE Lab's tokenizer file holds merges only, and a Picky BPE tokenizer also removes tokens between them: "
        "its run file keeps it (python -m bpe train --run-output), and so does the app"
    )

    def __init__(
        self, base_tokens: Sequence, merges: Iterable, *, removals: Sequence[tuple] = (), threshold: float, **options
    ) -> None:
        super().__init__(base_tokens, merges, **options)
        self.threshold = threshold
        self.removals = tuple((done, token, tuple(parts)) for done, token, parts in removals)
        stoi = self.stoi
        made = [(stoi[a], stoi[b], stoi[a + b]) for a, b in self.merges]
        self._blocks, start = [], 0
        for done, token, parts in self.removals:
            if not start <= done <= len(made):
                raise BpeError(f"a removal after merge {done} is out of order: there are {len(made)} merges")
            self._blocks.append((RankEncoder(made[start:done]), stoi[token], tuple(stoi[p] for p in parts)))
            start = done
        self._last = RankEncoder(made[start:])
        # the same ids before any merge: the special tokens first, then the base tokens
        self._base = BPETokenizer(
            self.base_tokens,
            (),
            alphabet=self.alphabet,
            pretokenizer=self.pretokenizer,
            special_tokens=tuple(self.special_tokens),
        )
        self.live_tokens = live_after(self._base.tokens, self.merges, self.removals)
        self._pieces: dict[tuple, list[int]] = {}  # a chunk's base ids -> its ids (bounded)

    @property
    def live_vocab_size(self) -> int:
        return len(self.live_tokens)

    def _replay(self, ids: list[int]) -> list[int]:
        for encoder, removed, parts in self._blocks:
            ids = split_token(encoder.encode(ids), removed, parts)
        return self._last.encode(ids)

    def encode_ordinary(self, text: str) -> list[int]:
        """Text to ids, no special tokens: each chunk's base ids (checked as `BPETokenizer.encode`
        checks them), then the merges and removals replayed on it."""
        found: list[int] = []
        pieces = self._pieces
        for chunk in split(text, self.pretokenizer):
            key = tuple(self._base.encode_ordinary(chunk))
            done = pieces.get(key)
            if done is None:
                done = self._replay(list(key))
                if len(pieces) < MAX_PIECES:
                    pieces[key] = done
            found += done
        return found

    def with_merges(self, count: int) -> PickyTokenizer:
        """The tokenizer after its first ``count`` merges and the removals among them."""
        if not 0 <= count <= len(self.merges):
            raise BpeError(f"count={count!r} is out of range: there are {len(self.merges)} merges")
        return PickyTokenizer(
            self.base_tokens,
            self.merges[:count],
            removals=[r for r in self.removals if r[0] <= count],
            threshold=self.threshold,
            alphabet=self.alphabet,
            pretokenizer=self.pretokenizer,
            tie_rule=self.tie_rule,
            special_tokens=tuple(self.special_tokens),
        )

    def rule_state(self) -> list:
        """The threshold and the removals: two Picky runs differing only in what they removed stay apart."""
        return [self.threshold, [[done, _spelled(t), [_spelled(p) for p in parts]] for done, t, parts in self.removals]]

    def rule_json(self, spelled) -> dict:
        """What ``inspect --json`` adds: the rule, its threshold, each removal after its merge."""
        return {
            "rule": "picky",
            "threshold": self.threshold,
            "removals": [
                {"after_merge": done, "token": spelled(token), "parts": [spelled(p) for p in parts]}
                for done, token, parts in self.removals
            ],
        }

    def __repr__(self) -> str:
        return f"PickyTokenizer(live vocab {self.live_vocab_size}, merges={len(self.merges)}, removals={len(self.removals)})"


MAX_PIECES = 100_000  # distinct chunks a tokenizer remembers the ids of


def _spelled(token) -> str:
    return token.hex() if isinstance(token, bytes) else token


def live_after(initial: Sequence, merges: Sequence[tuple], removals: Sequence[tuple]) -> frozenset:
    """The live tokens after ``merges`` and ``removals`` (``(merges made before it, token, parts)``),
    from the ``initial`` ones (the special tokens and the base tokens: never removed)."""
    live = set(initial)
    pending = list(removals)
    pending.reverse()
    for done, (a, b) in enumerate(merges, start=1):
        live.add(a + b)
        while pending and pending[-1][0] == done:
            live.discard(pending.pop()[1])
    return frozenset(live)


class PickySteps(RecordedSteps):
    """A recorded Picky BPE run's steps (a run file's): `RecordedSteps`, each step read back as a
    `PickyStep` with its removals, its vocab size the live tokens'. ``removals``: step number ->
    its `Removal` records, in order."""

    def __init__(self, recorded: RecordedSteps, removals: dict[int, tuple[Removal, ...]]) -> None:
        self.__dict__.update(recorded.__dict__)  # the same columns: nothing copied
        self.removals = removals
        self._live_sizes, self._new = array("I"), array("b")  # per step: live tokens after it; its token new
        live = set(self.vocab[: self.base_size])
        for number in range(1, len(self) + 1):
            token = self.vocab[self._token_ids[number - 1]]
            self._new.append(token not in live)
            live.add(token)
            for removal in removals.get(number, ()):
                live.discard(removal.token)
            self._live_sizes.append(len(live))

    def _step(self, i: int) -> PickyStep:
        step = replace(super()._step(i), vocab_size=self._live_sizes[i], new_token=bool(self._new[i]))
        return picky_step(step, self.removals.get(i + 1, ()))

    def vocab_size_after(self, steps: int) -> int:
        return self._live_sizes[steps - 1]

    def vocab_sizes(self) -> list[int]:
        return self._live_sizes.tolist()


def largest_prefix(sizes: Sequence[int], vocab_size: int) -> int:
    """How many steps stay within ``vocab_size`` live tokens all along (sizes fall at removals,
    so the prefix ends before the first step that passes it): [5, 6, 5, 6, 7] at 6 -> 4."""
    highest, running = 0, array("Q")
    for size in sizes:
        highest = max(highest, size)
        running.append(highest)
    return bisect_right(running, vocab_size)
