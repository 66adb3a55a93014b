"""Junk tokens: what training made on the way to longer tokens and left in the vocabulary.

BPE keeps every token it makes, also those made only to be merged again: training on
"Kentucky" makes "entucky" on the way to "Kentucky", and "entucky" then stands in the
vocabulary, almost never used. For each learned token t:

- F₁: how often t is in the final tokenization of the text (it is used);
- F₂: how often t was taken as a part by a later merge (it was absorbed);
- the **residue ratio** F₁ ÷ (F₁ + F₂) (LiteToken's): near 0 for a token that lives only
  inside bigger ones. A token below `RESIDUE_BELOW` is a residue; LiteToken finds 5-10 % of
  the vocabularies of Qwen, Llama-3, Gemma-3 and o200k are;
- **IoS** (Picky BPE's intersection over self): at a merge that takes t as a part, the
  pair's count ÷ t's count just before it, the largest over those merges: 1 when every
  occurrence of t went into the merge. Picky BPE removes t when it reaches a threshold.

Two ways to get them, which agree on a run's own training text (tests/analysis/test_junk.py):

- `run_junk`: from a training run's record, without its text: every step says how many
  times it merged (`bpe.run.TrainingRun.merges_applied`), so each token's count before each
  step follows (created by its merges, taken by later ones); the pair's count is the step's
  recorded frequency. A run that removed tokens while training (Picky BPE) says where its
  tokens went back into their parts (``run.removal_events``).
- `text_junk`: for any tokenizer with merges (GPT-2, GPT-4, a file) on a text. A final
  token's occurrences were built by the same merges in any text, the same as its own text
  alone (merges join neighbours inside its span only), so each token is unfolded once into
  its tree of merges; every tree node is a token made at its merge's rank and taken at its
  parent's. The pair's count is then how many times the merge was made in that text (a pair
  overlapping itself, as in 'aaa', counts once a merge, where training counted it twice).

Worked example, "low lower lowest" trained to 12 tokens (merges l+o, lo+w, ␣+low, ␣low+e):
'lo' is made 3 times and taken 3 times: F₁ 0, F₂ 3, residue ratio 0, IoS 3 ÷ 3 = 1; 'low'
is made 3 times, stays once (the first word) and is taken twice (␣+low, counted 2 times
when 'low' was there 3 times): F₁ 1, F₂ 2, residue ratio 1/3, IoS 2/3.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from bpe.specials import ordinary_pieces

# Below this residue ratio a token is a residue: used at most once for every nine times it
# was absorbed. LiteToken ranks tokens by the ratio; a tenth is where "almost only inside
# bigger tokens" starts, and where the share stays stable on the shipped corpora.
RESIDUE_BELOW = 0.1
BASE = -1  # the "rank" of a base token: made before any merge
NEVER = float("inf")  # the rank at which a final token is taken: never


@dataclass(frozen=True)
class JunkToken:
    """One learned token's flows: used (F₁), absorbed (F₂), and the two ratios (None where
    the token does not occur at all, or is never absorbed)."""

    id: int
    token: str | bytes
    made_at: int  # the step (run) or merge rank + 1 (a tokenizer) that first made it
    final: int  # F₁
    absorbed: int  # F₂
    ios: float | None  # Picky's IoS: the largest pair count ÷ own count at a merge that takes it

    @property
    def residue_ratio(self) -> float | None:
        total = self.final + self.absorbed
        return self.final / total if total else None

    @property
    def residue(self) -> bool:
        ratio = self.residue_ratio
        return ratio is not None and ratio < RESIDUE_BELOW


def run_junk(run, merges: int | None = None) -> list[JunkToken]:
    """Every token learned by the first ``merges`` merges of ``run`` (all by default) and still
    in its vocabulary (a token Picky BPE removed is not), in order of first making, with its
    flows in the run's training text (see the module doc)."""
    steps = run.steps[: len(run.steps) if merges is None else merges]
    removals = getattr(run, "removal_events", dict)()  # step -> [(token, parts, count)] of a run that removes tokens
    base = set(run.base_tokens)
    counts: Counter = Counter()
    made: dict = {}
    absorbed: Counter = Counter()
    ios: dict = {}
    for step in steps:
        events = removals.get(step.number, ())
        applied = run.merges_applied(step.number)  # a Picky run's says how often the merge merged, its removals aside
        left, right = step.pair
        for part in {left, right}:
            if part not in base and counts[part]:
                ios[part] = max(ios.get(part, 0.0), step.frequency / counts[part])
        for part in (left, right):  # a pair of one token twice takes two of it a merge
            counts[part] -= applied
            absorbed[part] += applied
        counts[step.token] += applied
        made.setdefault(step.token, (step.token_id, step.number))
        for token, parts, count in events:
            counts[token] -= count  # its occurrences go back into its parts: they are not absorbed
            for part in parts:
                counts[part] += count
    gone = run.removed_at(len(steps)) if hasattr(run, "removed_at") else {}  # Picky's: out of the vocabulary
    return [
        JunkToken(token_id, token, number, counts[token], absorbed[token], ios.get(token))
        for token, (token_id, number) in made.items()
        if token not in base and token not in gone
    ]


def text_junk(tokenizer, text: str) -> list[JunkToken]:
    """Every merged token of ``tokenizer`` that occurs in the encoding of ``text``, or inside
    one of its tokens, with its flows in that text (see the module doc). Needs the merges in
    rank order (``tokenizer.merges``); `BpeError` when the tokenizer cannot encode the text."""
    merges = list(tokenizer.merges)
    made_by: dict = {}  # token -> (rank, left, right) of the merge that first made it
    for rank, (left, right) in enumerate(merges):
        made_by.setdefault(left + right, (rank, left, right))
    itos = tokenizer.itos
    # (token, rank made, rank taken) -> occurrences: every node of every final token's tree
    nodes: Counter = Counter()
    for token_id, count in Counter(_ordinary_ids(tokenizer, text)).items():
        for node in _tree(itos[token_id], made_by):
            nodes[node] += count
    made_count: Counter = Counter()  # rank -> merges made at it in the text
    lives: defaultdict = defaultdict(list)  # token -> [(rank made, rank taken, occurrences)]
    for (token, made, taken), count in nodes.items():
        if made != BASE:
            made_count[made] += count
            lives[token].append((made, taken, count))
    rows = []
    for token, spans in lives.items():
        final = sum(count for _, taken, count in spans if taken == NEVER)
        best = None
        for rank in {taken for _, taken, _ in spans if taken != NEVER}:
            alive = sum(count for made, taken, count in spans if made < rank <= taken)  # just before that merge
            best = max(best or 0.0, made_count[rank] / alive)
        absorbed = sum(count for _, _, count in spans) - final
        rows.append(JunkToken(tokenizer.stoi[token], token, made_by[token][0] + 1, final, absorbed, best))
    rows.sort(key=lambda row: row.made_at)
    return rows


def _tree(token, made_by: dict, taken: float = NEVER) -> Iterable[tuple]:
    """(token, rank made, rank taken) of ``token`` and of every part its merges took, down
    to the base tokens: ``low`` of (l+o, lo+w) gives ('low', 1, ∞), ('lo', 0, 1), ('w', -1, 1),
    ('l', -1, 0), ('o', -1, 0)."""
    pending = [(token, taken)]
    while pending:
        token, taken = pending.pop()
        found = made_by.get(token)
        if found is None:
            yield token, BASE, taken
            continue
        rank, left, right = found
        yield token, rank, taken
        pending += [(left, rank), (right, rank)]


def _ordinary_ids(tokenizer, text: str) -> list[int]:
    """The ids of the text between the tokenizer's special tokens (no merge makes or takes a
    special token): ``"low<|endoftext|>lower"`` is encoded as ``"low"`` and ``"lower"``, so a
    ``|`` that only the special token holds is never asked of the ordinary encoder."""
    encode = getattr(tokenizer, "encode_ordinary", None) or tokenizer.encode
    specials = tuple(getattr(tokenizer, "special_tokens", None) or ())
    return [token_id for piece in ordinary_pieces(text, specials) for token_id in encode(piece)]


def residue_share(rows: list[JunkToken]) -> float | None:
    """The share of the tokens measured (those that occur) that are residues; None for none."""
    measured = [row for row in rows if row.residue_ratio is not None]
    return sum(row.residue for row in measured) / len(measured) if measured else None
