"""Token health, cached: which learned tokens a run's final encoding absorbed, uses rarely
or cannot reach (`bpe.analysis.undertrained`), and the same check of a pretrained
tokenizer's whole vocabulary in this corpus.

Each is keyed by what it depends on (the run's training key or a tokenizer's cache key,
the corpus), never by the objects themselves, which are passed unhashed (``_tokenizer``).
The rows (a run's, or a 100,000-token vocabulary's) are resources: frozen, shared, not
copied per rerun. Each is shared by every session, or cached for one session when
computed on its own text or tokenizer (`data.cache_scopes`): the caller says which with ``own=``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from bpe.analysis.undertrained import (
    UNREACHABLE,
    TokenHealth,
    flag_counts,
    run_token_health,
    tokenizer_token_health,
    uses,
)
from pages._shared.data.cache_scopes import cache_data_by_owner, cache_resource_by_owner
from pages._shared.data.measures import run_usage
from pages._shared.data.runs import corpus_parts
from pages._shared.state.settings import Settings


@cache_data_by_owner(show_spinner=False, max_entries=16)
def heldout_uses(training_key: tuple, merges: int, _tokenizer, _heldout: str):
    """Token id -> count in the held-out text, for the run's tokenizer after ``merges`` merges."""
    return uses(_tokenizer, _heldout)


def learned_health(settings: Settings, run, tokenizer, merges: int, rare_below: int, *, own: bool) -> list[TokenHealth]:
    """`run_token_health` of the run's first ``merges`` merges (``tokenizer``), its uses in
    the training and held-out text, with tokens used fewer than ``rare_below`` times rare.
    ``own``: the run is on this session's own text (`data.cache_scopes`)."""
    return _learned_health(
        settings.training_key(),
        merges,
        rare_below,
        _settings=settings,
        _run=run,
        _tokenizer=tokenizer,
        _own=own,
        own=own,
    )


# A resource: the rows are frozen and shared, not unpickled per visit. Checking that each
# learned token's own text encodes to it is an encode per token (1,000 encodes at 1,000
# merges), once per run, not once per student opening the page.
@cache_resource_by_owner(show_spinner=False, max_entries=16)
def _learned_health(
    training_key: tuple, merges: int, rare_below: int, _settings: Settings, _run, _tokenizer, _own: bool
) -> list[TokenHealth]:
    _train, heldout = corpus_parts(_settings)  # a replayed run: its sample is its held-out text
    held = heldout_uses(training_key, merges, _tokenizer=_tokenizer, _heldout=heldout, own=_own) if heldout else None
    return run_token_health(_run, merges, run_usage(_settings, _run, merges), held, rare_below=rare_below)


@dataclass(frozen=True)
class PretrainedHealth:
    """What the page shows of a pretrained tokenizer's tokens in one corpus, counted once.
    Small on purpose: each student's own text keeps one, so it holds no copy of GPT-2's
    50,000 rows; the rows stay in the process's one check (`pretrained_reach`), and the
    uses are the corpus's counts (ids it uses: few on a student's notes)."""

    total: int  # tokens longer than one symbol, the rows checked
    counts: dict[str, int]  # `flag_counts`
    unused: int  # tokens used in neither the training nor the held-out text
    unreachable: list[TokenHealth]
    train_usage: Counter | None  # id -> uses; None: not measured (a run file's training text)
    heldout_usage: Counter | None  # None: nothing held out

    def uses(self, token_id: int) -> tuple[int | None, int | None]:
        """(uses in the training text, in the held-out text) of one token; None: not measured."""
        return tuple(
            None if usage is None else usage.get(token_id, 0) for usage in (self.train_usage, self.heldout_usage)
        )


@dataclass(frozen=True)
class PretrainedReach:
    """A pretrained tokenizer's tokens checked, and what of that no corpus changes: the
    flags' counts, the unreachable rows and the ids checked (to count a corpus's unused
    tokens from its few used ids, not by a pass over all 50,000 rows per student text)."""

    rows: list[TokenHealth]
    counts: dict[str, int]  # `flag_counts`
    unreachable: list[TokenHealth]
    ids: frozenset[int]


@cache_resource_by_owner(show_spinner="Checking every token…", max_entries=4)
def pretrained_reach(tokenizer_key: tuple, _tokenizer) -> PretrainedReach:
    """Every token of a pretrained tokenizer checked, once per process (an upload: once per
    session): whether its own text encodes to it depends on no corpus (`pretrained_health`
    adds each corpus's uses)."""
    rows = tokenizer_token_health(_tokenizer)
    return PretrainedReach(
        rows, flag_counts(rows), [r for r in rows if UNREACHABLE in r.flags], frozenset(r.id for r in rows)
    )


@cache_resource_by_owner(show_spinner="Counting every token…", max_entries=4)
def pretrained_health(
    tokenizer_key: tuple, corpus_key: tuple, _tokenizer, _train: str, _heldout: str, _uploaded: bool
) -> PretrainedHealth:
    """Every token of a pretrained tokenizer checked (GPT-4: 100,000 encodes, about 2 s, once
    per process: `pretrained_reach`) and counted in this corpus (once per corpus). A part
    that is not here (nothing held out; a run file's training text) is not measured: None, not 0."""
    reach = pretrained_reach(tokenizer_key, _tokenizer=_tokenizer, own=_uploaded)
    train_usage = uses(_tokenizer, _train) if _train else None
    heldout_usage = uses(_tokenizer, _heldout) if _heldout else None
    used = (set(train_usage or ()) | set(heldout_usage or ())) & reach.ids
    return PretrainedHealth(
        len(reach.rows), reach.counts, len(reach.ids) - len(used), reach.unreachable, train_usage, heldout_usage
    )
