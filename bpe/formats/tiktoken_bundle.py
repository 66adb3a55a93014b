"""A tiktoken export in one file: the ``.tiktoken`` ranks and their settings JSON, zipped.

A ranks file holds no split pattern, so a ranks file uploaded alone needs one guessed,
and a wrong guess changes the tokens without a word. The app's download is this zip, and
the upload reads the pattern and the special tokens from it, so the round trip is
lossless. The zip holds exactly the two files `bpe.formats.tiktoken_ranks` writes to disk
(``lab.tiktoken`` and ``lab.tiktoken.json``): unzipped, tiktoken loads them as the module
docstring there shows.

A zip from a stranger is bounded before anything is inflated: a few members, each and all
together no larger than a tokenizer file may be (the sizes its directory declares, then
the bytes actually read).
"""

from __future__ import annotations

import io
import zipfile
import zlib

from bpe.errors import TokenizerFileError
from bpe.formats.fileio import MAX_FILE_BYTES, quoted
from bpe.formats.pretrained import PretrainedTokenizer
from bpe.formats.tiktoken_ranks import (
    MAX_SETTINGS_BYTES,
    SETTINGS_SUFFIX,
    settings_from_bytes,
    settings_pattern,
    tiktoken_from_bytes,
)
from bpe.io.budget import MAX_TOTAL_TOKEN_BYTES

BUNDLE_SUFFIX = ".zip"  # bpe_600.tiktoken -> bpe_600.tiktoken.zip
ZIP_MAGIC = b"PK\x03\x04"
MAX_MEMBERS = 8
RANKS_SUFFIX = ".tiktoken"


def is_zip(raw: bytes) -> bool:
    return bytes(raw[:4]) == ZIP_MAGIC


def tiktoken_bundle(exported) -> bytes:
    """The zip of a tiktoken `bpe.formats.export.ExportedFiles` (ranks, then settings)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in exported.files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def tiktoken_from_zip(
    raw: bytes,
    *,
    name: str = "the zip file",
    max_token_bytes: int = MAX_TOTAL_TOKEN_BYTES,
    max_merges: int | None = None,
) -> PretrainedTokenizer:
    """The tokenizer of a zip holding one ``*.tiktoken`` file and its ``*.tiktoken.json``
    settings: their pattern and special tokens, checked against the ranks' hash. The
    ranks are bounded as a bare ``.tiktoken`` file is (`bpe.io.budget`)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(bytes(raw)))
        members = [info for info in archive.infolist() if not info.is_dir()]
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError):
        raise TokenizerFileError(f"{name} is not a readable zip file (cut short or damaged)") from None
    if len(members) > MAX_MEMBERS:
        raise TokenizerFileError(
            f"{name} holds {len(members):,} files; a tiktoken download holds two (the ranks and their settings)"
        )
    ranks_members = [info for info in members if info.filename.endswith(RANKS_SUFFIX)]
    if len(ranks_members) != 1:
        found = "no .tiktoken ranks file" if not ranks_members else f"{len(ranks_members)} .tiktoken ranks files"
        raise TokenizerFileError(f"{name} holds {found}; a tiktoken download holds one, with its settings")
    ranks_member = ranks_members[0]
    settings_name = ranks_member.filename + SETTINGS_SUFFIX
    settings_member = next((info for info in members if info.filename == settings_name), None)
    if settings_member is None:
        raise TokenizerFileError(
            f"{name} holds no settings beside {quoted(ranks_member.filename)} (expected {quoted(settings_name)}): "
            "upload the ranks file alone and choose its split pattern"
        )
    ranks = _read(archive, ranks_member, MAX_FILE_BYTES, name)
    settings_raw = _read(archive, settings_member, MAX_SETTINGS_BYTES, name)
    where = f"{name}: {settings_name}"
    settings = settings_from_bytes(settings_raw, ranks, name=where)
    return tiktoken_from_bytes(
        ranks,
        pattern=settings_pattern(settings, name=where),
        special_tokens=settings["special_tokens"],
        name=ranks_member.filename.rsplit("/", 1)[-1],
        max_token_bytes=max_token_bytes,
        max_merges=max_merges,
        explicit_n_vocab=settings["explicit_n_vocab"],
    )


def _read(archive: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int, name: str) -> bytes:
    """One member's bytes, refused past ``limit`` whatever its header claims."""
    if info.file_size > limit:
        raise TokenizerFileError(
            f"{name}: {quoted(info.filename)} is {info.file_size:,} bytes unpacked; the most BPE Lab reads is {limit:,}"
        )
    try:
        with archive.open(info) as member:
            data = member.read(limit + 1)
    except (zipfile.BadZipFile, RuntimeError, NotImplementedError, zlib.error, EOFError, OSError) as error:
        reason = "it is encrypted" if "encrypted" in str(error) else "it is damaged or uses an unknown compression"
        raise TokenizerFileError(f"{name}: cannot unpack {quoted(info.filename)}: {reason}") from None
    if len(data) > limit:
        raise TokenizerFileError(f"{name}: {quoted(info.filename)} is over {limit:,} bytes unpacked")
    return data
