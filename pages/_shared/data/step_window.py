"""The text window of a merge step, drawn once per step and shared (`step_window`).

A class steps through the same film together: every student at step k of the same
setting is shown the same window of the training text, before and after the merge. Its
tokens (the text encoded with the first k - 1 merges, then the merge applied) and their
coloured spans were a quarter of a step's server time, spent again for each student. The
HTML is a string, so one copy serves every session, as the cached tokenizers do.
"""

from __future__ import annotations

from dataclasses import dataclass

from bpe.analysis.segments import Segment, merged_count, step_segments
from bpe.run import TrainingRun
from bpe.steps import MergeStep
from pages._shared.data.cache_scopes import cache_resource_by_owner
from pages._shared.data.runs import prefix_tokenizer
from pages._shared.render.html import segments_html
from pages._shared.state.settings import Settings
from pages._shared.state.stores import is_own_text


@dataclass(frozen=True)
class StepWindow:
    """A window of the text at one step, as HTML: ``before`` with the pairs the merge
    takes outlined and ``after`` with the tokens it made outlined (``merged`` of them), or,
    for a step whose merge is not shown yet, ``before`` plain and ``after`` empty."""

    before: str
    after: str
    merged: int


def step_window(settings: Settings, run: TrainingRun, step: MergeStep, text: str, start: int, *, outlines: bool):
    """The window ``text`` (which begins at ``start`` in the training text) at ``step``:
    outlined (``outlines``) or plain. Built once per process for each setting, step and
    window; a session's own text keeps its windows to itself (`data.cache_scopes`)."""
    return _step_window(
        settings.training_key(),
        step.number,
        start,
        len(text),
        outlines,
        _settings=settings,
        _run=run,
        _step=step,
        _text=text,
        own=is_own_text(settings),
    )


# Three windows of about 600 characters: some tens of kilobytes of HTML a step.
@cache_resource_by_owner(show_spinner=False, max_entries=64)
def _step_window(
    key: tuple, number: int, start: int, length: int, outlines: bool, _settings, _run, _step, _text
) -> StepWindow:
    before, after = step_segments(prefix_tokenizer(_settings, _run, number - 1), _text, _step)
    if not outlines:
        plain = [Segment(s.token, s.token_id, "special" if s.mark == "special" else None) for s in before]
        return StepWindow(segments_html(plain), "", 0)
    return StepWindow(segments_html(before), segments_html(after), merged_count(after))
