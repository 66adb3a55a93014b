"""Cached comparisons: the corpus trained four ways (Bytes and pre-tokenizers, with GPT-2's
column, and where each byte-level variant holds a character whole), two runs of this session side by side (Compare runs), and a tokenizer in other
libraries' formats (Vocabulary: the exported files and where each library encodes
differently). Computation stays in `bpe.analysis` and `bpe.formats`; this only caches,
for every session or, on a session's own text or tokenizer, for it alone (`data.cache_scopes`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import streamlit as st

from bpe.analysis.compare import Comparison, compare_tokenizers, gpt2_variant, merge_rows, multibyte_rows
from bpe.analysis.homework import Parting, StudentMerges, first_parting
from bpe.analysis.run_diff import (
    Divergence,
    SampleDiff,
    VocabularyComparison,
    compare_vocabularies,
    differing_samples,
    first_divergence,
    setting_differences,
)
from bpe.analysis.tie_rules import tie_rule_label
from bpe.errors import BpeError
from bpe.formats import FORMATS, ExportedFiles, demonstrations, export_files, merges_vs_ranks
from bpe.formats.merges_vs_ranks import Demonstration
from bpe.formats.provenance import came_from, encoding_difference
from bpe.run import TrainingRun
from bpe.steps import TIE_RULES
from bpe.tokenizer import BPETokenizer
from bpe.training import CS336, preset_fields
from pages._shared.data.cache_scopes import cache_data_by_owner, cache_data_per_session, cache_resource_by_owner
from pages._shared.data.runs import alphabet_size, corpus_texts, prefix_tokenizer, run_for
from pages._shared.data.tokenizers import cached_gpt2, session_owns
from pages._shared.render.merge_lists_html import merge_lists_html
from pages._shared.state.settings import Settings

# ==================== The same corpus trained four ways


@cache_data_by_owner(show_spinner="Training the same text four ways…", max_entries=8)
def four_way_comparison(key: tuple, merges: int, _train: str, _heldout: str) -> Comparison:
    return compare_tokenizers(_train, merges=merges, heldout_text=_heldout)


@cache_data_by_owner(show_spinner="Measuring GPT-2 on the same text…", max_entries=8)
def gpt2_column(key: tuple, merges: int, _train: str, _heldout: str):
    evaluated, gpt2 = _heldout or _train, cached_gpt2()
    full = len(evaluated) / max(len(gpt2.encode(evaluated)), 1)
    return gpt2_variant(gpt2, _train, merges=merges, heldout_text=_heldout), full


# A resource: the rows are shared, not copied per visit. Finding them reads every character
# of the training text, once per corpus and tokenizer.
@cache_resource_by_owner(show_spinner=False, max_entries=16)
def multibyte_table(key: tuple, merges: int, label: str, _train: str, _merges) -> list[dict]:
    """`bpe.analysis.compare.multibyte_rows` of the variant ``label`` of the four-way
    comparison of ``key`` (a corpus key) at ``merges`` merges. ``own=`` at each call (`data.cache_scopes`)."""
    return multibyte_rows(_train, _merges)


# A resource, shared and never changed: the same HTML for every visitor of a setting,
# built once (a styled dataframe would have its cells translated on every visit).
@cache_resource_by_owner(show_spinner=False, max_entries=16)
def merge_lists(key: tuple, merges: int, labels: tuple, gpt2_spelling: bool, _comp: Comparison) -> str:
    """The four-way comparison's merge lists side by side as HTML (``labels``: its
    tokenizers, GPT-2's included when its files are here) of corpus ``key`` at ``merges``
    merges, ▶ at each first divergence, the merges that cross classes shaded."""
    return merge_lists_html(merge_rows(_comp, gpt2_spelling=gpt2_spelling, mark_first_divergence=True), labels)


# ==================== Two runs of this session (the Compare runs page)


@dataclass(frozen=True)
class RunComparison:
    differences: list[tuple[str, str, str]]
    divergence: Divergence | None
    vocabularies: VocabularyComparison
    samples: list[SampleDiff]


def run_comparison(a: tuple[Settings, TrainingRun], b: tuple[Settings, TrainingRun], merges: int) -> RunComparison:
    (settings_a, run_a), (settings_b, run_b) = a, b
    text, _ = corpus_texts(settings_a)
    return _comparison(
        settings_a.training_key(),
        settings_b.training_key(),
        merges,
        _run_a=run_a,
        _run_b=run_b,
        _text=text,
        own=session_owns(settings_a) or session_owns(settings_b),
    )


@cache_data_by_owner(show_spinner=False, max_entries=16)
def _comparison(
    key_a: tuple, key_b: tuple, merges: int, _run_a: TrainingRun, _run_b: TrainingRun, _text: str
) -> RunComparison:
    count_a, count_b = min(merges, len(_run_a.steps)), min(merges, len(_run_b.steps))
    samples = differing_samples(_run_a.tokenizer(merges=count_a), _run_b.tokenizer(merges=count_b), _text)
    return RunComparison(
        setting_differences(_run_a, _run_b),
        first_divergence(_run_a, _run_b),
        compare_vocabularies(_run_a, count_a, _run_b, count_b),
        samples,
    )


# ==================== A student's merges against runs of this text (the homework check)


def homework_runs(settings: Settings, student: StudentMerges) -> dict[str, Settings]:
    """The runs a student's merges are checked against, by label: the current run's settings
    under each tie rule (in the student's alphabet), and the cs336 preset; each trained as
    far as the merges compared."""
    wanted = {tie_rule_label(rule): {"tie_rule": rule, "alphabet": student.alphabet} for rule in TIE_RULES}
    wanted[f"preset {CS336}"] = preset_fields(CS336)
    runs = {}
    for label, training in wanted.items():
        variant = settings.with_training(**training)
        size = alphabet_size(variant) + student.compared
        runs[label] = replace(variant, vocab_size=size).with_training(target_vocab_size=size)
    return runs


def homework_partings(settings: Settings, student: StudentMerges, digest: str) -> list[Parting]:
    """`bpe.analysis.homework.first_parting` of the student's merges (``digest``: their
    files' hash) against each of `homework_runs`, trained here (once, cached)."""
    text, _ = corpus_texts(settings)
    partings = []
    for label, variant in homework_runs(settings, student).items():
        run = run_for(variant)
        partings.append(_parting(digest, variant.training_key(), label, _student=student, _run=run, _text=text))
    return partings


@cache_data_per_session(show_spinner=False, max_entries=16)  # a student's upload is its session's
def _parting(digest: str, training_key: tuple, label: str, _student, _run, _text: str) -> Parting:
    return first_parting(_student, _run, _text, label=label)


# ==================== Other libraries' files


@cache_data_by_owner(show_spinner=False, max_entries=12)
def exported_files(fingerprint: str, fmt: str, name: str, _tokenizer: BPETokenizer) -> ExportedFiles | str:
    """The files, or why this format cannot hold the tokenizer (tiktoken and minbpe work on bytes)."""
    try:
        return export_files(_tokenizer, fmt, name=name)
    except BpeError as error:
        return str(error)


@cache_data_by_owner(show_spinner="Looking for texts that another library encodes differently…", max_entries=8)
def format_findings(fingerprint: str, corpus_key: tuple, _tokenizer: BPETokenizer, _sample: str) -> dict:
    """Per format: `MergesVsRanks`, or why the format cannot hold the tokenizer."""
    found: dict = {}
    for fmt in FORMATS:
        try:
            found[fmt] = merges_vs_ranks(_tokenizer, fmt, sample_text=_sample)
        except BpeError as error:
            found[fmt] = str(error)
    return found


@st.cache_resource(show_spinner=False)
def shared_demonstrations() -> list[Demonstration]:
    """`bpe.formats.demonstrations`: two small tokenizers read as each library reads them,
    the same for every visitor of the Vocabulary page, so made once per process."""
    return demonstrations()


@cache_data_per_session(show_spinner=False, max_entries=8)  # an upload is its session's
def upload_difference(
    fingerprint: str, training_key: tuple, merges: int, corpus_key: tuple, _settings, _run, _loaded, _text: str
) -> str | None:
    """How an uploaded tokenizer's tokens differ from the run's prefix of ``merges`` merges
    on ``_text``, when the upload holds that prefix's tokens (it came from this run); else None."""
    source = prefix_tokenizer(_settings, _run, merges)
    if not came_from(_loaded, source):
        return None
    return encoding_difference(_loaded, source, _text)
