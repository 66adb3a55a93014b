"""Two training runs side by side: where they part ways, and what that changes.

Two BPE trainings on the same text can learn different vocabularies: a different tie
rule, pre-tokenizer, alphabet, minimum frequency or corpus prefix. Each run records every
step (`bpe.run.TrainingRun`), so the comparison reads the records and never retrains:

- `first_divergence`: the first step whose merge differs, and what decided it: a tie
  broken by different rules, different counts, or one run having stopped;
- `compare_vocabularies`: every token of either vocabulary with the step that made it in
  each run, so a token learned at step 40 in one run and 43 in the other is one row;
- `differing_samples`: lines of text whose segmentation differs, both ways.

Tokens are compared by their text as UTF-8 bytes (`token_key`), so a character run and a
byte run that learned 'the' learned the same token.
"""

from __future__ import annotations

from dataclasses import dataclass

from bpe.alphabet import Token
from bpe.analysis.lineage import first_creations
from bpe.analysis.segments import Segment, segments_of
from bpe.analysis.tie_rules import tie_rule_label
from bpe.errors import BpeError
from bpe.run import TrainingRun
from bpe.steps import MergeStep
from bpe.text import pair_label, printable
from bpe.tokenizer import BPETokenizer
from bpe.variants.rule_runs import VariantRun
from bpe.variants.rules import LENGTH_WEIGHTED, STANDARD_VARIANT, Variant, pair_score
from bpe.wording import counted, times

TIE, COUNTS, STOPPED, RULE = "tie rule", "counts", "stopped", "training rule"
COMPETITORS_SHOWN = 8  # pairs of each run's top list in the competitor table
SAMPLE_CHARS = 160  # a sample line is cut to about this many characters
SAMPLE_CANDIDATES = 400  # lines looked at for samples: enough, and quick


def token_key(token: Token) -> bytes:
    """A token's text as UTF-8 bytes: 'the' and b'the' are the same token."""
    return token if isinstance(token, bytes) else token.encode("utf-8")


def pair_key(pair: tuple) -> tuple[bytes, bytes]:
    return token_key(pair[0]), token_key(pair[1])


# ==================== What differs in the settings


def setting_differences(run_a: TrainingRun, run_b: TrainingRun) -> list[tuple[str, str, str]]:
    """(setting, value in A, value in B) for each training setting the two runs differ in."""
    a, b = run_a.settings, run_b.settings
    found = [
        ("tie rule", tie_rule_label(a.tie_rule), tie_rule_label(b.tie_rule)),
        ("alphabet", a.alphabet, b.alphabet),
        ("pre-tokenizer", a.pretokenizer or "none", b.pretokenizer or "none"),
        ("minimum pair frequency", f"{a.minimum_pair_frequency:,}", f"{b.minimum_pair_frequency:,}"),
        ("training text", f"{run_a.training_characters:,} characters", f"{run_b.training_characters:,} characters"),
        ("base tokens", f"{len(run_a.base_tokens):,}", f"{len(run_b.base_tokens):,}"),
        ("special tokens", ", ".join(a.special_tokens) or "none", ", ".join(b.special_tokens) or "none"),
        ("target vocab size", f"{a.target_vocab_size:,}", f"{b.target_vocab_size:,}"),
        ("training rule", rule_of(run_a).label(), rule_of(run_b).label()),
    ]
    return [row for row in found if row[1] != row[2]]


def rule_of(run: TrainingRun) -> Variant:
    """The training rule of ``run`` (`bpe.variants.rules.Variant`): standard BPE unless it says otherwise."""
    return run.variant if isinstance(run, VariantRun) else STANDARD_VARIANT


# ==================== The first step where the merges differ


@dataclass(frozen=True)
class Divergence:
    """The first step whose merge differs between runs A and B, and why."""

    step: int  # 1-based
    pair_a: tuple | None  # None: run A had stopped before this step
    pair_b: tuple | None
    decided_by: str  # TIE, COUNTS or STOPPED
    explanation: str  # one or two sentences, plain text (token text printable, not escaped)
    competitors: tuple[dict, ...]  # rows: pair, count in A, count in B, picked by


def first_divergence(run_a: TrainingRun, run_b: TrainingRun) -> Divergence | None:
    """The first step where the runs' merges differ (None: the same merges, step for step)."""
    keys_a = [pair_key(s.pair) for s in run_a.steps]
    keys_b = [pair_key(s.pair) for s in run_b.steps]
    step = next((i for i, (ka, kb) in enumerate(zip(keys_a, keys_b), start=1) if ka != kb), None)
    if step is None:
        if len(keys_a) == len(keys_b):
            return None
        return _stopped(run_a, run_b, min(len(keys_a), len(keys_b)) + 1)
    a, b = run_a.steps[step - 1], run_b.steps[step - 1]
    rows = tuple(competitor_rows(run_a, a, run_b, b))
    counts_a, counts_b = _counts(run_a, a), _counts(run_b, b)
    b_in_a, a_in_b = counts_a(b.pair), counts_b(a.pair)
    if b_in_a == a.frequency and a_in_b == b.frequency:
        return Divergence(step, a.pair, b.pair, TIE, _tie_explanation(run_a, a, run_b, b), rows)
    if rule_of(run_a) != rule_of(run_b) and b_in_a == b.frequency and a_in_b == a.frequency:
        return Divergence(step, a.pair, b.pair, RULE, _rule_explanation(run_a, a, run_b, b), rows)
    return Divergence(step, a.pair, b.pair, COUNTS, _counts_explanation(run_a, a, b_in_a, run_b, b, a_in_b), rows)


def _stopped(run_a: TrainingRun, run_b: TrainingRun, step: int) -> Divergence:
    stopped, going, name, other = (run_a, run_b, "A", "B") if len(run_a.steps) < step else (run_b, run_a, "B", "A")
    went_on = going.steps[step - 1]
    text = (
        f"Run {name} stopped after {step - 1:,} merges ({stopped.stop_explanation}); "
        f"run {other} went on with {_pair(went_on.pair)} ({times(went_on.frequency)})."
    )
    pair_a, pair_b = (None, went_on.pair) if name == "A" else (went_on.pair, None)
    return Divergence(step, pair_a, pair_b, STOPPED, text, ())


def _counts(run: TrainingRun, step: MergeStep):
    """A lookup: a pair's count in ``run`` before ``step``, from the recorded top pairs.

    Returns the count, 0 when the list holds every pair there was and this one is not in
    it, or None when the pair fell below the recorded top list (its count is then at most
    the smallest recorded one)."""
    recorded = {pair_key(pair): count for pair, count in step.top_pairs}
    complete = len(step.top_pairs) < run.settings.top_k

    def count(pair: tuple) -> int | None:
        return recorded.get(pair_key(pair), 0 if complete else None)

    return count


def _tie_explanation(run_a: TrainingRun, a: MergeStep, run_b: TrainingRun, b: MergeStep) -> str:
    rule_a, rule_b = run_a.settings.tie_rule, run_b.settings.tie_rule
    counted = (
        f"both counted {times(a.frequency)}"
        if a.frequency == b.frequency
        else f"counted {times(a.frequency)} each in A and {times(b.frequency)} each in B"
    )
    text = f"A tie: {_pair(a.pair)} and {_pair(b.pair)} are {counted}. "
    if rule_a != rule_b:
        return (
            text + f"Run A's tie rule ({tie_rule_label(rule_a)}) picks {_pair(a.pair)}; "
            f"run B's ({tie_rule_label(rule_b)}) picks {_pair(b.pair)}."
        )
    return (
        text + f"Both runs break ties by the same rule ({tie_rule_label(rule_a)}), but their texts "
        "differ, so the rule meets the pairs in a different order."
    )


def _rule_explanation(run_a: TrainingRun, a: MergeStep, run_b: TrainingRun, b: MergeStep) -> str:
    """Both runs count both pairs alike, and their rules rank them apart."""
    text = (
        f"Both runs count {_pair(a.pair)} {times(a.frequency)} and {_pair(b.pair)} {times(b.frequency)}, "
        f"but rank them by different rules: run A ({rule_of(run_a).label()}) takes {_pair(a.pair)}, "
        f"run B ({rule_of(run_b).label()}) takes {_pair(b.pair)}."
    )
    for name, run, step, other in (("A", run_a, a, b), ("B", run_b, b, a)):
        if rule_of(run).name == LENGTH_WEIGHTED:
            scores = [pair_score(p.pair, p.frequency, True) for p in (step, other)]
            text += f" Run {name} scores count × length: {_pair(step.pair)} {scores[0]:,}, {_pair(other.pair)} {scores[1]:,}."
    return text


def _counts_explanation(
    run_a: TrainingRun, a: MergeStep, b_in_a: int | None, run_b: TrainingRun, b: MergeStep, a_in_b: int | None
) -> str:
    text = (
        f"Different counts: run A counts {_pair(a.pair)} {times(a.frequency)} and {_pair(b.pair)} "
        f"{_count_text(b_in_a, a)}; run B counts {_pair(b.pair)} {times(b.frequency)} and {_pair(a.pair)} "
        f"{_count_text(a_in_b, b)}."
    )
    differing = [
        name
        for name, _, _ in setting_differences(run_a, run_b)
        if name not in ("tie rule", "target vocab size", "base tokens")
    ]
    if differing:
        text += f" The counts differ because the runs differ in: {', '.join(differing)}."
    return text


def _count_text(count: int | None, step: MergeStep) -> str:
    if count is None:
        lowest = step.top_pairs[-1][1] if step.top_pairs else step.frequency
        return f"at most {times(lowest)} (below the {counted(len(step.top_pairs), 'pair')} recorded)"
    return "not at all" if count == 0 else times(count)


def competitor_rows(
    run_a: TrainingRun, a: MergeStep, run_b: TrainingRun, b: MergeStep, limit: int = COMPETITORS_SHOWN
) -> list[dict]:
    """The leading pairs of both runs at one step, each with its count in A and in B:
    the table that shows whether a tie rule or a count decided."""
    counts_a, counts_b = _counts(run_a, a), _counts(run_b, b)
    seen: dict[tuple, tuple] = {}
    for pair, _ in (*a.top_pairs[:limit], *b.top_pairs[:limit]):
        seen.setdefault(pair_key(pair), pair)
    for pair in (a.pair, b.pair):
        seen.setdefault(pair_key(pair), pair)
    rows = []
    for key, pair in seen.items():
        picked = " and ".join(name for name, step in (("A", a), ("B", b)) if pair_key(step.pair) == key)
        rows.append(
            {
                "pair": pair_label(pair),
                "count in A": _cell(counts_a(pair)),
                "count in B": _cell(counts_b(pair)),
                "picked by": picked,
            }
        )
    rows.sort(key=lambda row: (row["picked by"] == "", -_sortable(row["count in A"]), -_sortable(row["count in B"])))
    return rows


def _cell(count: int | None) -> str:
    return "below the list" if count is None else f"{count:,}"


def _sortable(cell: str) -> int:
    return int(cell.replace(",", "")) if cell[:1].isdigit() else -1


def _pair(pair: tuple) -> str:
    return f"'{pair_label(pair)}'"


# ==================== Vocabularies, aligned by token


@dataclass(frozen=True)
class AlignedToken:
    """One token of either vocabulary: the step that made it in each run (0: a base token,
    None: not in that vocabulary) and the pair it was made from there."""

    token: Token  # as run A spells it when A has it, else as B does
    step_a: int | None
    step_b: int | None
    pair_a: tuple | None = None
    pair_b: tuple | None = None

    @property
    def where(self) -> str:
        if self.step_a is None:
            return "only B"
        return "only A" if self.step_b is None else "shared"

    @property
    def first_step(self) -> int:
        return min(s for s in (self.step_a, self.step_b) if s is not None)


@dataclass(frozen=True)
class VocabularyComparison:
    tokens: tuple[AlignedToken, ...]  # every token of either vocabulary, earliest learned first

    def count(self, where: str) -> int:
        """How many tokens are "shared", "only A" or "only B"."""
        return sum(1 for t in self.tokens if t.where == where)

    def learned(self) -> list[AlignedToken]:
        """The tokens some merge made (in either run): what the aligned merge list shows."""
        return [t for t in self.tokens if t.step_a or t.step_b]


def compare_vocabularies(run_a: TrainingRun, merges_a: int, run_b: TrainingRun, merges_b: int) -> VocabularyComparison:
    """Both vocabularies after the first ``merges_a`` / ``merges_b`` merges, token by token."""
    made_a = _made(run_a, merges_a)
    made_b = _made(run_b, merges_b)
    tokens = []
    for key, (token, step_a, pair_a) in made_a.items():
        _, step_b, pair_b = made_b.get(key, (None, None, None))
        tokens.append(AlignedToken(token, step_a, step_b, pair_a, pair_b))
    for key, (token, step_b, pair_b) in made_b.items():
        if key not in made_a:
            tokens.append(AlignedToken(token, None, step_b, None, pair_b))
    tokens.sort(key=lambda t: (t.first_step, t.step_a is None, t.step_a or 0, t.step_b or 0))
    return VocabularyComparison(tuple(tokens))


def _made(run: TrainingRun, merges: int) -> dict[bytes, tuple]:
    """{token key: (token, step that first made it (0: base), pair it was made from)} of the
    vocabulary after ``merges`` merges: a token Picky BPE removed (and did not make again) is
    no longer in it."""
    made = {token_key(t): (t, 0, None) for t in run.base_tokens}
    steps = run.steps[:merges]
    removed = run.removed_at(merges) if isinstance(run, VariantRun) else {}
    for token, index in first_creations([s.pair for s in steps]).items():
        if token not in removed:
            made.setdefault(token_key(token), (token, index + 1, steps[index].pair))
    return made


def aligned_rows(comparison: VocabularyComparison) -> list[dict]:
    """The learned tokens as table rows: token, step in A and B, the shift, the pairs."""
    rows = []
    for t in comparison.learned():
        shift = None if t.step_a is None or t.step_b is None else t.step_b - t.step_a
        built_differently = t.pair_a and t.pair_b and pair_key(t.pair_a) != pair_key(t.pair_b)
        rows.append(
            {
                "token": printable(t.token),
                "step in A": _step_cell(t.step_a),
                "step in B": _step_cell(t.step_b),
                "B − A": shift,
                "where": t.where,
                "pair in A": pair_label(t.pair_a) if t.pair_a else "",
                "pair in B": pair_label(t.pair_b) if t.pair_b else "",
                "note": "built from different pairs" if built_differently else "",
            }
        )
    return rows


def _step_cell(step: int | None) -> str:
    return "—" if step is None else "base" if step == 0 else f"{step:,}"


# ==================== Text whose segmentation changes


@dataclass(frozen=True)
class SampleDiff:
    """A piece of text cut by both tokenizers; tokens whose span the other run does not
    share are marked "differs"."""

    text: str
    segments_a: tuple[Segment, ...]
    segments_b: tuple[Segment, ...]


def differing_samples(
    tokenizer_a: BPETokenizer,
    tokenizer_b: BPETokenizer,
    text: str,
    *,
    count: int = 4,
    max_chars: int = SAMPLE_CHARS,
    candidates: int = SAMPLE_CANDIDATES,
) -> list[SampleDiff]:
    """Up to ``count`` lines of ``text`` (each cut to about ``max_chars``) that the two
    tokenizers cut differently, in text order. A line either tokenizer cannot encode
    (a character outside its alphabet) is skipped."""
    found = []
    for line in sample_lines(text, max_chars)[:candidates]:
        try:
            a, b = _cut(tokenizer_a, line), _cut(tokenizer_b, line)
        except BpeError:
            continue
        spans_a, spans_b = _spans(a), _spans(b)
        if spans_a == spans_b:
            continue
        found.append(SampleDiff(line, _marked(a, spans_a, set(spans_b)), _marked(b, spans_b, set(spans_a))))
        if len(found) == count:
            break
    return found


def sample_lines(text: str, max_chars: int = SAMPLE_CHARS) -> list[str]:
    """The text's distinct non-blank lines, each cut at a space to at most about ``max_chars``,
    in the order they first occur (a play names its speakers on lines of their own, again
    and again: "MENENIUS:" is one sample, not one each time)."""
    lines = []
    for line in text.split("\n"):
        if not line.strip():
            continue
        if len(line) > max_chars:
            cut = line.rfind(" ", max_chars // 2, max_chars)
            line = line[: cut if cut > 0 else max_chars]
        lines.append(line)
    return list(dict.fromkeys(lines))


def _cut(tokenizer: BPETokenizer, text: str) -> list[Segment]:
    return segments_of(tokenizer, tokenizer.encode(text))


def _spans(segments: list[Segment]) -> list[tuple[int, int]]:
    """(start, end) of each token in UTF-8 bytes: comparable across alphabets."""
    spans, at = [], 0
    for segment in segments:
        end = at + len(token_key(segment.token))
        spans.append((at, end))
        at = end
    return spans


def _marked(segments: list[Segment], spans: list[tuple[int, int]], other: set) -> tuple[Segment, ...]:
    return tuple(
        seg if span in other else Segment(seg.token, seg.token_id, "differs") for seg, span in zip(segments, spans)
    )
