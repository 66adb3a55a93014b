"""The homework check: a student's own merges against BPE Lab's, and why they part.

A student trains BPE with their own code on a text (CS336's assignment, minbpe's exercise,
the tutorial) and wants to know whether it is right. Given their merges (`read_homework`:
CS336's ``merges.txt`` + ``vocab.json``, a minbpe ``.model`` or a Hugging Face
``tokenizer.json``, read by the bounded readers of `bpe.formats`; never a pickle) and BPE
Lab's runs on the same text, `first_parting` finds the first merge where theirs differs
from a run's, and says why, in one of four ways:

- a tie broken the other way (TIE): both pairs counted the same, and the run's tie rule
  picks the other one (the issue CS336 students meet: "es" and "st" tie, take "st");
- a count that differs (COUNTS): the run counts its pair more often than theirs, so their
  counts are not the run's; the usual cause is merging across special tokens or across
  pre-tokenization chunks (the run's cut of the text is said);
- a pair BPE Lab never sees (UNSEEN): at that step their pair does not occur in the run's
  cut of the text at all (it crosses a chunk or a special token, or a token of it does not
  exist yet);
- a stop (STOPPED): the run ends before their list does (its minimum pair frequency, say).

Counts are exact: a pair the run's step does not record among its runners-up is counted
again on the run's chunks with the merges before that step (`pair_count`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePath

from bpe.alphabet import BYTES, CHARACTERS
from bpe.analysis.run_diff import pair_key
from bpe.analysis.tie_rules import tie_rule_label
from bpe.errors import TokenizerFileError
from bpe.formats.cs336 import parse_cs336
from bpe.formats.huggingface import hf_from_bytes
from bpe.formats.minbpe import minbpe_from_bytes, refuse_sentencepiece
from bpe.pretokenize import ChunkTally, pretokenizer_name
from bpe.run import TrainingRun
from bpe.text import pair_label
from bpe.wording import counted, times

TIE, COUNTS, UNSEEN, STOPPED = "tie", "counts", "unseen", "stopped"
# The merges of a student's file compared (the first ones): every run the check trains goes
# this far, one per tie rule and the preset, for every student who uploads a file.
HOMEWORK_MAX_MERGES = 2_000
CS336_FILES, MINBPE_FILE, HF_FILE = "CS336 merges.txt + vocab.json", "minbpe .model", "Hugging Face tokenizer.json"


@dataclass(frozen=True)
class StudentMerges:
    """A student's merges as read from their files: tokens are bytes (byte level) or str."""

    name: str  # the files' names, as uploaded
    source: str  # which kind of file: `CS336_FILES`, `MINBPE_FILE`, `HF_FILE`
    alphabet: str
    merges: tuple[tuple, ...]
    special_tokens: tuple[str, ...] = ()
    pretokenizer: str | None = None  # what the file names, when it names one (minbpe's pattern, HF's)

    @property
    def compared(self) -> int:
        return min(len(self.merges), HOMEWORK_MAX_MERGES)


# ==================== Reading a student's files


def read_homework(files: Mapping[str, bytes], *, max_bytes: int, max_merges: int) -> StudentMerges:
    """A student's merges from the files they upload (name -> bytes): a minbpe ``.model``, a
    Hugging Face ``tokenizer.json``, or CS336's ``merges.txt`` with or without its
    ``vocab.json``. Each file at most ``max_bytes``, at most ``max_merges`` merges, through
    the readers of `bpe.formats`; a fault is one `TokenizerFileError` line naming the file."""
    if not files:
        raise TokenizerFileError(
            "no file given: upload merges.txt (and vocab.json), a minbpe .model or a tokenizer.json"
        )
    for name, raw in files.items():
        if len(raw) > max_bytes:
            raise TokenizerFileError(f"{name} is {len(raw):,} bytes; the most read here is {max_bytes:,}")
        if name.endswith((".pkl", ".pickle")) or raw[:2] in (b"\x80\x03", b"\x80\x04", b"\x80\x05"):
            raise TokenizerFileError(
                f"{name} is a pickle: it can hold a program, so it is never read. Save your merges as text: "
                "merges.txt (one 'left right' pair a line, in GPT-2's byte spelling) and vocab.json"
            )
    shown = ", ".join(files)
    models = [name for name in files if name.endswith(".model")]
    jsons = {name: raw for name, raw in files.items() if name.endswith(".json")}
    texts = [name for name in files if name not in models and name not in jsons]
    if models:
        return _only(files, models[0], _minbpe)
    if not texts and len(jsons) == 1:
        return _only(files, next(iter(jsons)), _huggingface, max_merges)
    if len(texts) == 1 and len(jsons) <= 1:
        merges_name = texts[0]
        vocab_name = next(iter(jsons), None)
        read = parse_cs336(
            files[merges_name],
            None if vocab_name is None else files[vocab_name],
            name=merges_name,
            vocab_name=vocab_name or "vocab.json",
            max_token_bytes=max_bytes,
            max_merges=max_merges,
        )
        return StudentMerges(shown, CS336_FILES, BYTES, read.merges, read.special_tokens)
    raise TokenizerFileError(
        f"{shown}: give one merges file (merges.txt, with or without its vocab.json), one minbpe .model or one "
        "Hugging Face tokenizer.json"
    )


def _only(files: Mapping[str, bytes], name: str, read, *args) -> StudentMerges:
    others = [other for other in files if other != name]
    if others:
        raise TokenizerFileError(f"{name} is the whole model: upload it alone (not with {', '.join(others)})")
    return read(name, files[name], *args)


def _minbpe(name: str, raw: bytes) -> StudentMerges:
    refuse_sentencepiece(raw, name=name)
    read = minbpe_from_bytes(raw, name=name, max_token_bytes=len(raw) * 8 + 4096)
    return StudentMerges(name, MINBPE_FILE, BYTES, tuple(read.merges), tuple(read.special_tokens), read.pretokenizer)


def _huggingface(name: str, raw: bytes, max_merges: int) -> StudentMerges:
    read = hf_from_bytes(raw, name=name, max_token_bytes=len(raw))
    if len(read.merges) > max_merges:
        raise TokenizerFileError(f"{name} has {len(read.merges):,} merges; the most read here is {max_merges:,}")
    return StudentMerges(
        name, HF_FILE, read.alphabet, tuple(read.merges), tuple(read.special_tokens), read.pretokenizer
    )


def uploaded_name(name: str) -> str:
    """A file's name without any folder (a browser may send a path)."""
    return PurePath(name.replace(os.sep, "/")).name


# ==================== Where theirs part from a run's


@dataclass(frozen=True)
class Parting:
    """The first merge where a student's list and one BPE Lab run differ, and why."""

    label: str  # the run: "lexicographically greatest (as Stanford CS336)", "preset cs336"
    compared: int  # merges compared
    step: int | None  # 1-based; None: the same merges, all ``compared`` of them
    theirs: tuple | None  # None: their list had ended
    ours: tuple | None  # None: the run had stopped
    kind: str | None  # TIE, COUNTS, UNSEEN, STOPPED; None when they agree
    ours_count: int | None = None  # how often the run counts its own pair at that step
    theirs_count: int | None = None  # how often the run counts their pair there (0: never)
    explanation: str = ""

    @property
    def agreed(self) -> int:
        """How many merges agree before they part (all compared when they never do)."""
        return self.compared if self.step is None else self.step - 1


def first_parting(student: StudentMerges, run: TrainingRun, text: str, *, label: str) -> Parting:
    """Where ``student``'s first merges (at most `HOMEWORK_MAX_MERGES`) part from ``run``'s,
    a run trained on ``text`` (its training text: what counts are taken from)."""
    compared = student.compared
    ours_pairs = run.merges
    for index in range(compared):
        theirs = student.merges[index]
        if index >= len(ours_pairs):
            return _run_stopped(run, label, compared, index + 1, theirs)
        ours = ours_pairs[index]
        if pair_key(theirs) != pair_key(ours):
            return _parted(run, text, label, compared, index + 1, theirs, ours)
    return Parting(label, compared, None, None, None, None)


def _run_stopped(run: TrainingRun, label: str, compared: int, step: int, theirs: tuple) -> Parting:
    said = (
        f"BPE Lab's run stops after {counted(step - 1, 'merge')}: {run.stop_explanation}. Your merge {step:,} is "
        f"{_pair(theirs)}"
    )
    if run.settings.minimum_pair_frequency > 1:
        said += (
            f"; if yours merges pairs seen fewer than {run.settings.minimum_pair_frequency:,} times, set the minimum "
            "pair frequency to 1 (CS336 trains until the vocabulary is full)"
        )
    return Parting(label, compared, step, theirs, None, STOPPED, None, None, said + ".")


def _parted(run: TrainingRun, text: str, label: str, compared: int, step: int, theirs: tuple, ours: tuple) -> Parting:
    recorded = run.steps[step - 1]
    ours_count = recorded.frequency
    theirs_count = dict((pair_key(p), c) for p, c in recorded.top_pairs).get(pair_key(theirs))
    if theirs_count is None:
        theirs_count = pair_count(run, text, step, theirs)
    said = f"At merge {step:,} yours is {_pair(theirs)}, BPE Lab's is {_pair(ours)}. "
    if theirs_count == 0:
        kind = UNSEEN
        said += (
            f"BPE Lab never sees {_pair(theirs)} at this step: in its cut of the text ({_cut(run)}) the pair does not "
            "occur, so yours joins tokens across a boundary it keeps (a pre-tokenization chunk or a special token), "
            "or one of its tokens was never made here."
        )
    elif theirs_count == ours_count:
        kind = TIE
        rule = tie_rule_label(run.settings.tie_rule)
        greater = pair_key(theirs) > pair_key(ours)
        said += (
            f"A tie broken the other way: both are counted {times(ours_count)}. This run's rule ({rule}) picks "
            f"{_pair(ours)}; yours took the {'greater' if greater else 'smaller'} pair. "
            + (
                "CS336 breaks ties toward the lexicographically greater pair of bytes."
                if greater
                else "Check the direction of your tie-break: CS336's is max() over (count, pair of bytes)."
            )
        )
    else:
        kind = COUNTS
        said += (
            f"A count that differs: BPE Lab counts {_pair(ours)} {times(ours_count)} and {_pair(theirs)} "
            f"{times(theirs_count)}, so in your counts yours came first. The usual cause is merging across special "
            f"tokens or pre-tokenization chunks; BPE Lab's cut of the text: {_cut(run)}."
        )
    return Parting(label, compared, step, theirs, ours, kind, ours_count, theirs_count, said)


def pair_count(run: TrainingRun, text: str, step: int, pair: tuple) -> int:
    """How often ``pair`` occurs in ``run``'s training ``text`` just before merge ``step``:
    each distinct chunk of the run's cut (its pre-tokenizer, its special tokens) encoded
    with the merges before the step, its adjacent pairs counted with the chunk's count.
    0 when a token of the pair does not exist there (in the run's alphabet)."""
    tokenizer = run.tokenizer(merges=step - 1)
    left, right = (_as_alphabet(token, run.alphabet) for token in pair)
    ids = tokenizer.stoi.get(left), tokenizer.stoi.get(right)
    if None in ids:
        return 0
    tally = ChunkTally(run.pretokenizer, special_tokens=run.special_tokens)
    tally.add(text)
    found = 0
    for chunk, count in tally.counts().items():
        if run.alphabet == CHARACTERS and not set(chunk) <= set(tokenizer.base_tokens):
            continue  # (a character the run's alphabet lacks: the run never trained on it)
        encoded = tokenizer.encode_ordinary(chunk)
        found += count * sum(1 for pair_ids in zip(encoded, encoded[1:]) if pair_ids == ids)
    return found


def _as_alphabet(token, alphabet: str):
    if alphabet == BYTES:
        return token if isinstance(token, bytes) else token.encode("utf-8")
    return token if isinstance(token, str) else token.decode("utf-8", errors="replace")


def _cut(run: TrainingRun) -> str:
    specials = ", ".join(run.special_tokens)
    return f"{run.alphabet}, pre-tokenizer {pretokenizer_name(run.pretokenizer)}, " + (
        f"cut at the special tokens {specials}" if specials else "no special tokens"
    )


def _pair(pair: tuple) -> str:
    return f"'{pair_label(pair)}'"


def closest(partings: list[Parting]) -> Parting:
    """The run that agrees longest with the student's list (the first such, on a tie)."""
    return max(partings, key=lambda parting: parting.agreed)
