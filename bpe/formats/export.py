"""Export a lab tokenizer as another library's files (in memory), and read those files back
the way that library would (in pure Python, for the lessons and when the library is absent).

`export_files` gives file name -> bytes for one format; the command line writes them,
the app offers them as downloads. `as_library_reads` is the same tokenizer after a round
trip through the format, encoding by the library's rule (`bpe.formats.rules`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bpe.errors import BpeError
from bpe.formats.huggingface import export_hf, hf_from_bytes
from bpe.formats.minbpe import export_minbpe, minbpe_from_bytes, minbpe_ids
from bpe.formats.pretrained import PretrainedTokenizer
from bpe.formats.tiktoken_ranks import (
    SETTINGS_SUFFIX,
    WHOLE_TEXT_PATTERN,
    export_tiktoken,
    mergeable_ranks,
    tokenizer_from_ranks,
)
from bpe.io.budget import MAX_TOTAL_TOKEN_BYTES, check_token_lengths

HF, TIKTOKEN, MINBPE = "hf", "tiktoken", "minbpe"
FORMATS = (HF, TIKTOKEN, MINBPE)
LIBRARY = {HF: "Hugging Face tokenizers", TIKTOKEN: "tiktoken", MINBPE: "minbpe"}
# The file name each format is usually given (minbpe's load() insists on .model).
FILE_NAMES = {HF: "tokenizer.json", TIKTOKEN: "{stem}.tiktoken", MINBPE: "{stem}.model"}


def check_format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise BpeError(f"unknown export format {fmt!r}: choose one of {', '.join(FORMATS)}")
    return fmt


@dataclass(frozen=True)
class ExportedFiles:
    """What an export writes: the main file first, then any file that goes beside it."""

    format: str
    files: dict = field(default_factory=dict)  # file name -> bytes, main file first
    left_out: tuple[int, ...] = ()  # merge numbers (1-based) the format cannot hold, left out

    @property
    def main_name(self) -> str:
        return next(iter(self.files))

    @property
    def main_bytes(self) -> bytes:
        return self.files[self.main_name]


def export_files(tokenizer, fmt: str, *, name: str | None = None) -> ExportedFiles:
    """The files of ``tokenizer`` in format ``fmt`` ("hf", "tiktoken", "minbpe").

    ``name``: the main file's name (default: tokenizer.json, bpe_lab.tiktoken, bpe_lab.model).
    Character-level tokenizers raise `bpe.formats.tiktoken_ranks.NotByteLevelError` for
    tiktoken and minbpe, saying why.
    """
    check_format(fmt)
    check_exportable(tokenizer)
    main = name or FILE_NAMES[fmt].format(stem="bpe_lab")
    if fmt == HF:
        text, left_out = export_hf(tokenizer)
        return ExportedFiles(fmt, {main: text.encode("utf-8")}, tuple(left_out))
    if fmt == TIKTOKEN:
        exported = export_tiktoken(tokenizer, name=_encoding_name(main))
        check_tiktoken_runs(exported.pat_str)
        return ExportedFiles(
            fmt, {main: exported.ranks, main + SETTINGS_SUFFIX: exported.settings_text(main).encode("utf-8")}
        )
    if not main.endswith(".model"):
        raise BpeError(f"a minbpe model must be named *.model (minbpe's load() checks it), not {main!r}")
    text, left_out = export_minbpe(tokenizer)
    return ExportedFiles(fmt, {main: text.encode("utf-8")}, tuple(left_out))


def check_exportable(tokenizer) -> None:
    """`BpeError` when a file of ``tokenizer`` would break the bounds every reader of such a
    file holds it to (`bpe.io.budget`: BPE Lab's own import among them), so that no export
    is made that could not be read back: training on repetitive text can learn a token of
    8,192 characters, which another library's file may not hold."""
    unit = "bytes" if tokenizer.tokens and isinstance(tokenizer.tokens[0], bytes) else "characters"
    check_token_lengths(
        map(len, tokenizer.tokens),
        name="this tokenizer",
        max_total=MAX_TOTAL_TOKEN_BYTES,
        where=lambda index: f"its token {index:,}",
        unit=unit,
        error=BpeError,
    )


def check_tiktoken_runs(pattern: str) -> None:
    """`BpeError` when tiktoken's regex engine (Rust's fancy-regex, not Python's `regex`)
    cannot compile ``pattern`` (``\\X``, for one): checked before any file is made, so no
    export is written that tiktoken then refuses. Without tiktoken installed there is
    nothing to check with (nor to prove the export with)."""
    try:
        import tiktoken  # heavy and optional: only when a ranks file is exported
    except ImportError:
        return
    single_bytes = {bytes([value]): value for value in range(256)}
    try:
        tiktoken.Encoding("pattern_check", pat_str=pattern, mergeable_ranks=single_bytes, special_tokens={})
    except ValueError as error:
        reason = str(error).splitlines()[0][:200] if str(error) else type(error).__name__
        raise BpeError(
            f"tiktoken cannot run the split pattern {pattern[:60]!r} ({reason}); no tiktoken file is made"
        ) from None


def as_library_reads(tokenizer, fmt: str) -> PretrainedTokenizer:
    """``tokenizer`` exported to ``fmt`` and read back as that library reads it, encoding by
    that library's rule, all in memory. Where it encodes differently from ``tokenizer``
    the format cannot hold the tokenizer exactly (see `bpe.formats.merges_vs_ranks`)."""
    check_format(fmt)
    if fmt == HF:
        text, _ = export_hf(tokenizer)
        return hf_from_bytes(text.encode("utf-8"), name="exported tokenizer.json")
    if fmt == MINBPE:
        text, _ = export_minbpe(tokenizer)
        return minbpe_from_bytes(text.encode("utf-8"), name="exported.model")
    exported = export_tiktoken(tokenizer)
    pattern = None if exported.pat_str == WHOLE_TEXT_PATTERN else exported.pat_str
    return tokenizer_from_ranks(
        mergeable_ranks(tokenizer),
        pattern=pattern,
        special_tokens=exported.special_tokens,
        name="exported.tiktoken",
        fingerprint=tokenizer.fingerprint(),
    )


def file_ids(tokenizer, fmt: str):
    """The lab tokenizer's id -> the id of the same token in its ``fmt`` file: the same,
    but in a minbpe file where there are special tokens (`bpe.formats.minbpe.minbpe_ids`)."""
    check_format(fmt)
    return minbpe_ids(tokenizer) if fmt == MINBPE else (lambda token_id: token_id)


def _encoding_name(file_name: str) -> str:
    stem = file_name.rsplit("/", 1)[-1].split(".", 1)[0]
    return re.sub(r"[^A-Za-z0-9_]+", "_", stem) or "bpe_lab"
