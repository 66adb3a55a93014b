"""The lenses' cached computations: encode films, report-card measures, token health.

Each is keyed by what it depends on (a tokenizer's cache key, the corpus, the text), never
by the objects themselves, which are passed unhashed (``_tokenizer``). Films and the token
health of a 100,000-token vocabulary are resources (not copied per rerun: they hold the
tokenizer's id table or 100,000 rows); the report card's rows are small data. Each is
shared by every session, or cached for one session when computed on its own text or
tokenizer (`data.owned`): the caller says which with ``own=``.
"""

from __future__ import annotations

from bpe.analysis.encode_film import EncodeFilm, encode_film
from bpe.analysis.report_card import CardRow, report_card
from bpe.analysis.undertrained import tokenizer_token_health, uses
from pages._shared.data.owned import cache_data_by_owner, cache_resource_by_owner


@cache_resource_by_owner(show_spinner=False, max_entries=8)  # a film of GPT-4 over 2,000 characters: a few MB
def film_of(tokenizer_key: tuple, text: str, _tokenizer, _steps) -> EncodeFilm:
    """`bpe.analysis.encode_film.encode_film`; ``_steps`` (a run's steps) give each merge's count."""
    return encode_film(_tokenizer, text, steps=_steps)


@cache_data_by_owner(show_spinner="Measuring the report card…", max_entries=32)
def card_rows_of(tokenizer_key: tuple, corpus_key: tuple, label: str, _tokenizer, _texts) -> list[CardRow]:
    """One tokenizer (``label``) on every report-card text of the corpus."""
    return report_card({label: _tokenizer}, _texts)


@cache_data_by_owner(show_spinner=False, max_entries=16)
def heldout_uses(training_key: tuple, merges: int, _tokenizer, _heldout: str):
    """Token id -> count in the held-out text, for the run's tokenizer after ``merges`` merges."""
    return uses(_tokenizer, _heldout)


@cache_resource_by_owner(show_spinner="Checking every token…", max_entries=4)
def pretrained_health(tokenizer_key: tuple, corpus_key: tuple, _tokenizer, _train: str, _heldout: str):
    """Every token of a pretrained tokenizer checked (GPT-4: 100,000 encodes, about 2 s), once per corpus.
    A part that is not here (nothing held out; a run file's training text) is not measured: None, not 0."""
    return tokenizer_token_health(
        _tokenizer,
        train_usage=uses(_tokenizer, _train) if _train else None,
        heldout_usage=uses(_tokenizer, _heldout) if _heldout else None,
    )
