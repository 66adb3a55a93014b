"""The proof: export a tokenizer, load the file with the target library, encode the same
texts with both, and compare the ids.

`export_and_prove` is what ``python -m bpe export`` runs: write the files, list what the
format cannot hold (`bpe.formats.merges_vs_ranks`), then load the written file with
Hugging Face ``tokenizers`` or ``tiktoken`` (imported here, lazily; a clear `BpeError`
when missing) and encode held-out text and `HOSTILE_TEXTS` both ways. Its line reads
``identical ids on 1,234,567 characters ...`` or names the first difference with the
text around it. tiktoken gets the ranks from our parser (which reads what its
``load_tiktoken_bpe`` reads): that function would also write a copy into tiktoken's cache
folder, outside the output folder. minbpe is not a package: its file is read back by BPE Lab's reader of the
format (`bpe.formats.minbpe`), which follows minbpe's ``load`` and ``encode``.

`prove_import` is the other direction: a file made by the library, read by BPE Lab's
importer, against the library reading the same file.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bpe.alphabet import CHARACTERS
from bpe.errors import BpeError
from bpe.formats.export import HF, TIKTOKEN, check_format, export_files, file_ids
from bpe.formats.fileio import escape_token, load_json, read_limited
from bpe.formats.merges_vs_ranks import MergesVsRanks, merges_vs_ranks
from bpe.formats.minbpe import load_minbpe_file
from bpe.formats.tiktoken_ranks import MAX_SETTINGS_BYTES, parse_ranks, settings_path
from bpe.io.files import atomic_write_bytes, check_distinct_paths
from bpe.wording import counted

# Strings that trip tokenizers up: empty, whitespace of every kind, control characters,
# long runs, digits, contractions, emoji sequences, combining marks, scripts without
# spaces, right-to-left text, special-token look-alikes.
HOSTILE_TEXTS: tuple[tuple[str, str], ...] = (
    ("empty", ""),
    ("spaces", "   "),
    ("line breaks", "\n\n\r\n\t \x0b\x0c \n"),
    ("control characters", "\x00\x01\x1b[0m\x1f\x7f"),
    ("long run", "a" * 3000),
    ("long whitespace", " " * 2000 + "x" + "\n" * 500),
    ("digits", "1234567890" * 10 + " 3.14159 1,000,000"),
    ("contractions", "it's IT'S we'll They've I'd o'clock ''quoted''"),
    ("emoji", "👩‍👩‍👧‍👦 🏳️‍🌈 👍🏽 🤖🎉"),
    ("combining marks", "e\u0301 n\u0303 a\u0308\u0304 Z\u0335\u0321\u0317"),
    ("right to left", "שלום עולם مرحبا بالعالم"),
    ("no spaces", "中文字符日本語のテキスト한국어ภาษาไทย"),
    ("special look-alikes", "<|endoftext|><s></s>[CLS]<unk>"),
    ("invisible", "a\u200bb\u200dc\ufeffd\u2060e"),
    ("unicode spaces", "a\u00a0b\u2003c\u3000d\u2028e\u2029f\x85g"),
    ("punctuation", "Ça va? 123,456.78 — «quotes» ‘x’ … !!! ??? ---"),
    ("edge code points", "\ufffd\U0010fffd\ue000\U0001d518"),
    # \w and \b differ between regex and Oniguruma here (see bpe.formats.patterns)
    ("word edges", "T² x³ ½ ¼ ¹ می\u200cخواهم खा\u200dना a\u200db_c"),
)


# A character-level export has no unknown token (the lab has none to give it): where the
# lab refuses a character outside the alphabet, Hugging Face leaves it out of the ids.
HF_NO_UNKNOWN_TOKEN = (
    "the file has no unknown token, so Hugging Face drops characters outside the alphabet without "
    "a word ('café 𝔘 ok' decodes as 'caf  ok'), where BPE Lab refuses them"
)


@dataclass(frozen=True)
class Difference:
    """Where two encodings of one text first disagree."""

    label: str  # which text
    token_index: int
    char_offset: int
    context: str  # escaped text around the difference, "▸" where it starts
    ours: tuple
    theirs: tuple
    ours_tokens: tuple  # escaped
    theirs_tokens: tuple  # escaped


@dataclass(frozen=True)
class Proof:
    """Ids of the lab tokenizer against the library's, on every text given."""

    format: str
    library: str
    characters: int
    tokens: int
    texts: int
    left_out_characters: int
    difference: Difference | None
    note: str = ""  # what the file does differently on texts the proof cannot compare

    @property
    def identical(self) -> bool:
        return self.difference is None

    @property
    def line(self) -> str:
        left_out = (
            f"; {self.left_out_characters:,} characters outside the alphabet left out"
            if self.left_out_characters
            else ""
        )
        note = f". Note: {self.note}" if self.note else ""
        if self.difference is None:
            return (
                f"identical ids on {self.characters:,} characters ({self.texts} texts, {self.tokens:,} tokens) "
                f"with {self.library}{left_out}{note}"
            )
        d = self.difference
        ours = " ".join(f"{i}:'{t}'" for i, t in zip(d.ours, d.ours_tokens)) or "(end)"
        theirs = " ".join(f"{i}:'{t}'" for i, t in zip(d.theirs, d.theirs_tokens)) or "(end)"
        return (
            f"first difference in {d.label!r} at character {d.char_offset:,} (token {d.token_index:,}): "
            f"…{d.context}…  BPE Lab: {ours}  {self.library}: {theirs}{left_out}{note}"
        )


# ====================
# Loading the file with the target library


def library_encoder(
    fmt: str, path: str | os.PathLike[str]
) -> tuple[Callable[[str], list[int]], Callable[[int], object], str]:
    """(encode, token of id, "library version") for the file at ``path``, loaded by the
    format's own library. `BpeError` when the library is not installed or refuses the file."""
    check_format(fmt)
    path = str(path)
    if fmt == HF:
        try:
            import tokenizers
        except ImportError:
            raise BpeError(
                "the Hugging Face tokenizers package is not installed (pip install tokenizers): "
                "nothing to check the file with"
            ) from None
        try:
            loaded = tokenizers.Tokenizer.from_file(path)
        except Exception as error:  # the library's own error type (a Rust panic message)
            raise BpeError(f"tokenizers cannot load {path!r}: {str(error).splitlines()[0][:300]}") from None
        return (  # (its added tokens are always cut out of the text: special tokens, allowed)
            (lambda text: loaded.encode(text, add_special_tokens=False).ids),
            loaded.id_to_token,
            f"tokenizers {tokenizers.__version__}",
        )
    if fmt == TIKTOKEN:
        try:
            import tiktoken
        except ImportError:
            raise BpeError("tiktoken is not installed (pip install tiktoken): nothing to check the file with") from None
        settings_file = settings_path(path)
        # The ranks are read by our parser, which reads what `tiktoken.load.load_tiktoken_bpe`
        # reads (the tests compare them) but, unlike it, writes no copy into tiktoken's cache
        # folder; the encoding, the part being proved, is tiktoken's.
        ranks = parse_ranks(read_limited(path, what="tiktoken ranks file"), name=path)
        try:
            raw_settings = read_limited(settings_file, what="tiktoken settings file", max_bytes=MAX_SETTINGS_BYTES)
            settings = load_json(raw_settings, name=str(settings_file))
            encoding = tiktoken.Encoding(
                settings["name"],
                pat_str=settings["pat_str"],
                mergeable_ranks=ranks,
                special_tokens=settings.get("special_tokens", {}),
            )
        except (OSError, ValueError, KeyError) as error:
            raise BpeError(f"tiktoken cannot load {path!r} with {settings_file.name!r}: {error}") from None
        return (
            (lambda text: encoding.encode(text, allowed_special="all")),
            encoding.decode_single_token_bytes,
            f"tiktoken {tiktoken.__version__}",
        )
    reader = load_minbpe_file(path)
    return (
        (lambda text: reader.encode(text, allowed_special="all")),
        reader.itos.__getitem__,
        "minbpe's rules (BPE Lab's reader of the format)",
    )


# ====================
# Comparing


def compare(
    ours: Callable[[str], list[int]],
    theirs: Callable[[str], list[int]],
    texts: Sequence[tuple[str, str]],
    *,
    fmt: str,
    library: str,
    ours_token: Callable[[int], object],
    theirs_token: Callable[[int], object],
    decode_bytes: Callable[[list[int]], bytes],
    left_out: int = 0,
) -> Proof:
    """Encode every (label, text) with both; stop at the first text whose ids differ."""
    characters = tokens = 0
    for count, (label, text) in enumerate(texts, start=1):
        a = ours(text)
        b = theirs(text)
        if a != b:
            index = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            offset = _char_offset(text, decode_bytes(a[:index]))
            context = (
                escape_token(text[max(0, offset - 40) : offset], limit=40)
                + "▸"
                + escape_token(text[offset : offset + 40], limit=40)
            )
            difference = Difference(
                label,
                index,
                offset,
                context,
                tuple(a[index : index + 6]),
                tuple(b[index : index + 6]),
                tuple(_shown(ours_token, i) for i in a[index : index + 6]),
                tuple(_shown(theirs_token, i) for i in b[index : index + 6]),
            )
            return Proof(fmt, library, characters + offset, tokens + index, count, left_out, difference)
        characters += len(text)
        tokens += len(a)
    return Proof(fmt, library, characters, tokens, len(texts), left_out, None)


def proof_texts(
    tokenizer, text: str | None, *, label: str = "held-out text", hostile: bool = True
) -> tuple[list[tuple[str, str]], int]:
    """The texts to check and how many characters were left out of them because a
    character-level tokenizer cannot encode them (they are outside its alphabet)."""
    texts = ([(label, text)] if text else []) + (list(HOSTILE_TEXTS) if hostile else [])
    specials = list(getattr(tokenizer, "special_tokens", {}))
    if specials:  # each special token inside text, and two of them back to back
        texts.append(("special tokens", "a" + " b ".join(specials) + "c" + "".join(specials) + specials[0]))
    if tokenizer.alphabet != CHARACTERS:
        return texts, 0
    known = set(tokenizer.base_tokens)
    kept = []
    left_out = 0
    for name, value in texts:
        covered = "".join(char for char in value if char in known)
        left_out += len(value) - len(covered)
        kept.append((name, covered))
    return kept, left_out


def prove_file(
    tokenizer, fmt: str, path: str | os.PathLike[str], text: str | None = None, *, hostile: bool = True
) -> Proof:
    """Load ``path`` (an export of ``tokenizer``) with ``fmt``'s library and compare ids,
    special tokens allowed on both sides, on a text that holds each of them too; the lab's
    ids as the file numbers them (`bpe.formats.export.file_ids`)."""
    theirs, theirs_token, library = library_encoder(fmt, path)
    texts, left_out = proof_texts(tokenizer, text, hostile=hostile)
    to_file = file_ids(tokenizer, fmt)
    proof = compare(
        lambda value: [to_file(token_id) for token_id in tokenizer.encode(value)],
        theirs,
        texts,
        fmt=fmt,
        library=library,
        ours_token=tokenizer.itos.__getitem__,
        theirs_token=theirs_token,
        decode_bytes=tokenizer.decode_bytes,
        left_out=left_out,
    )
    if fmt == HF and tokenizer.alphabet == CHARACTERS:
        proof = dataclasses.replace(proof, note=HF_NO_UNKNOWN_TOKEN)
    return proof


def prove_import(
    imported, fmt: str, path: str | os.PathLike[str], text: str | None = None, *, hostile: bool = True
) -> Proof:
    """BPE Lab's reading of ``path`` (``imported``) against the library's reading of it.
    Special tokens are allowed on both sides (Hugging Face always cuts its added tokens out
    of the text; tiktoken and minbpe are asked to)."""
    theirs, theirs_token, library = library_encoder(fmt, path)
    texts, left_out = proof_texts(imported, text, hostile=hostile)
    ours = lambda value: imported.encode(value, allowed_special="all")  # noqa: E731
    return compare(
        ours,
        theirs,
        texts,
        fmt=fmt,
        library=library,
        ours_token=imported.itos.__getitem__,
        theirs_token=theirs_token,
        decode_bytes=imported.decode_bytes,
        left_out=left_out,
    )


# ====================
# The command


@dataclass(frozen=True)
class ExportReport:
    format: str
    paths: tuple[Path, ...]
    left_out: tuple[int, ...]
    lesson: MergesVsRanks
    proof: Proof | None
    note: str = ""  # what the file does that the lab does not (the proof's line repeats it)

    def lines(self) -> list[str]:
        out = [f"wrote {path}" for path in self.paths]
        if self.left_out:
            shown = ", ".join(str(n) for n in self.left_out[:10]) + (" ..." if len(self.left_out) > 10 else "")
            out.append(f"left out {counted(len(self.left_out), 'merge')} the format cannot hold: {shown}")
        out.extend(self.lesson.lines())
        if self.proof is not None:
            out.append(self.proof.line)
        elif self.note:
            out.append(f"note: {self.note}")
        return out


def export_and_prove(
    tokenizer,
    fmt: str,
    output: str | os.PathLike[str],
    *,
    check_text: str | None = None,
    prove: bool = True,
    hostile: bool = True,
    inputs: dict[str, str | os.PathLike[str] | None] | None = None,
) -> ExportReport:
    """Write ``tokenizer`` as ``fmt`` to ``output`` (the tiktoken settings go beside it as
    ``<output>.json``), list what the format cannot hold, then prove the file with the
    target library on ``check_text`` and the hostile strings. ``inputs``: the files the
    command read, by option (``{"--tokenizer": "lab.json"}``), which no file it writes may
    be: ``--output lab.json`` is refused before anything is written, and so is
    ``--format tiktoken --output lab``, whose settings file would be ``lab.json``."""
    check_format(fmt)
    target = Path(output)
    exported = export_files(tokenizer, fmt, name=target.name)
    paths = [target.with_name(name) for name in exported.files]
    check_distinct_paths(
        {("--output" if n == 0 else "the settings file beside --output"): path for n, path in enumerate(paths)},
        inputs or {},
    )
    lesson = merges_vs_ranks(tokenizer, fmt, sample_text=check_text)
    for path, data in zip(paths, exported.files.values()):
        atomic_write_bytes(path, data)
    proof = prove_file(tokenizer, fmt, target, check_text, hostile=hostile) if prove else None
    note = HF_NO_UNKNOWN_TOKEN if fmt == HF and tokenizer.alphabet == CHARACTERS else ""
    return ExportReport(fmt, tuple(paths), exported.left_out, lesson, proof, note)


def _char_offset(text: str, prefix: bytes) -> int:
    """How many characters of ``text`` the bytes ``prefix`` cover (a cut inside a character
    counts the characters before it)."""
    return len(text.encode("utf-8")[: len(prefix)].decode("utf-8", errors="ignore"))


def _shown(token_of: Callable[[int], object], token_id: int) -> str:
    try:
        return escape_token(token_of(token_id), limit=20)
    except Exception:  # an id the library does not know: show the id alone
        return "?"
