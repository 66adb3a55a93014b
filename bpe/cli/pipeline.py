"""The tutorial's whole pipeline as one function, without the app.

Read the splits, take base characters from all of them and merge statistics from the
training prefix only, train, stage the tokenizer under a temporary name, reload it and
check the fingerprint, round-trip every split, stage the ids as torch long tensors, move
all four files into place together (or leave every one as it was), measure compression.
`bpe.cli` prints what this returns; tests call it directly.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bpe.alphabet import CHARACTERS
from bpe.analysis.exports import ids_tensor_bytes
from bpe.analysis.metrics import compression, context_coverage, token_count_reduction, token_lengths
from bpe.cli.arguments import bound_or_none
from bpe.corpora.textfile import read_text_file
from bpe.errors import BpeError
from bpe.io.files import check_writable_target, staged_files
from bpe.specials import base_tokens_of_texts, check_special_tokens
from bpe.steps import DEFAULT_TIE_RULE, MergeStep, StopReason, log_line, should_log
from bpe.storage import to_json_text
from bpe.tokenizer import BPETokenizer
from bpe.training import (
    DEFAULT_ENGINE,
    MAX_VOCAB_CHARACTERS,
    PRESETS,
    apply_preset,
    describe_preset,
    preset_fields,
    train_steps,
)
from bpe.training_memory import check_fits_in_memory

SPLITS = ("train", "val", "test")
CONTEXT_TOKENS = 128


@dataclass(frozen=True)
class SplitReport:
    name: str
    characters: int
    tokens: int
    ids_path: Path

    @property
    def compression(self) -> float:
        return compression(self.characters, self.tokens)

    @property
    def reduction(self) -> float:
        """Fraction of the character-level token count saved: 1 - tokens / characters."""
        return token_count_reduction(self.characters, self.tokens)


@dataclass(frozen=True)
class BuildReport:
    tokenizer: BPETokenizer
    tokenizer_path: Path
    fingerprint: str
    training_characters: int
    training_seconds: float
    merges: int
    stop_explanation: str
    splits: list[SplitReport]
    context_characters: float  # mean characters covered by CONTEXT_TOKENS tokens of validation text


def split_paths(processed_dir: Path | None, train: Path | None, val: Path | None, test: Path | None) -> dict:
    """The three split files: explicit ``--train/--val/--test`` win over ``--processed-dir``."""
    given = {"train": train, "val": val, "test": test}
    paths = {}
    for name in SPLITS:
        if given[name] is not None:
            paths[name] = Path(given[name])
        elif processed_dir is not None:
            paths[name] = Path(processed_dir) / f"wikitext2_{name}_clean.txt"
        else:
            raise BpeError(f"no {name} split: give --processed-dir DIR or --{name} FILE")
    return paths


def require_torch() -> None:
    """Raise a one-line `BpeError` when torch (needed to write the ``*_ids.pt`` tensors) is
    not installed in this Python, saying which Python and how to use the project's venv."""
    if importlib.util.find_spec("torch") is None:
        raise BpeError(
            f"build writes torch tensors (train_ids.pt, ...), but torch is not installed in this "
            f"Python ({sys.executable}). Run it with the project's venv: .venv/bin/python -m bpe build "
            "..., after .venv/bin/pip install -r requirements.txt."
        )


def build(
    paths: dict,
    *,
    tokenizer_output: Path,
    encoded_output_dir: Path,
    target_vocab_size: int = 500,
    training_characters: int = 500_000,
    minimum_pair_frequency: int = 2,
    engine: str = DEFAULT_ENGINE,
    alphabet: str = CHARACTERS,
    pretokenizer: str | None = None,
    tie_rule: str = DEFAULT_TIE_RULE,
    max_vocab_characters: int | None = None,
    special_tokens: Sequence[str] = (),
    on_step: Callable[[MergeStep], None] | None = None,
    say: Callable[[str], None] = lambda message: None,
) -> BuildReport:
    require_torch()  # before any work: finding it missing after training would leave half the output
    texts = {name: read_text_file(path, if_empty=f"the {name} split has no text") for name, path in paths.items()}
    if training_characters < 1:
        raise BpeError(f"training_characters={training_characters} must be at least 1")
    outputs = output_paths(tokenizer_output, encoded_output_dir)
    for path in outputs:  # a device, a folder or a pipe in the way is refused before training, not after
        check_writable_target(path)
    training_text = texts["train"][:training_characters]
    check_fits_in_memory(len(training_text), alphabet, pretokenizer)  # refuse now rather than swap or die
    special_tokens = check_special_tokens(special_tokens)
    base_tokens = base_tokens_of_texts(texts.values(), alphabet, special_tokens)
    say(
        f"Training on {len(training_text):,} characters of {paths['train']} "
        f"(base tokens from all splits: {len(base_tokens)})"
    )
    started = time.perf_counter()
    stream = train_steps(
        training_text,
        target_vocab_size=target_vocab_size,
        minimum_pair_frequency=minimum_pair_frequency,
        base_tokens=base_tokens,
        engine=engine,
        top_k=0,
        alphabet=alphabet,
        pretokenizer=pretokenizer,
        tie_rule=tie_rule,
        max_vocab_characters=max_vocab_characters,
        special_tokens=special_tokens,
    )
    merges = []
    for step in stream:
        merges.append(step.pair)
        if on_step is not None:
            on_step(step)
    seconds = time.perf_counter() - started
    tokenizer = BPETokenizer(
        base_tokens,
        merges,
        alphabet=alphabet,
        pretokenizer=pretokenizer,
        tie_rule=tie_rule,
        special_tokens=special_tokens,
    )
    say(f"Learned {len(merges)} merges in {seconds:.2f} s; {stream.explain_stop()}")
    reloaded, reports, encoded = write_checked(tokenizer, texts, outputs, say)
    return BuildReport(
        reloaded,
        Path(tokenizer_output),
        reloaded.fingerprint(),
        len(training_text),
        seconds,
        len(merges),
        stream.explain_stop() + budget_hint(stream.stop_reason),
        reports,
        mean_context_characters(reloaded, encoded["val"]),
    )


def write_checked(
    tokenizer: BPETokenizer, texts: dict[str, str], outputs: list[Path], say: Callable[[str], None]
) -> tuple[BPETokenizer, list[SplitReport], dict[str, list[int]]]:
    """Stage the tokenizer and each split's ids under temporary names, checking each on the
    way (the tokenizer reloads to itself, fingerprint included; every split survives encode
    then decode, its ids within the vocabulary), then move all of them into place together.
    A failure or Ctrl-C on the way never leaves the new tokenizer beside old ids: every
    output stays as it was, and the message says so. Returns the reloaded tokenizer, each
    split's report and its ids."""
    tokenizer_output = outputs[0]
    try:
        with staged_files() as stage:
            staged = stage.write(tokenizer_output, to_json_text(tokenizer.data()).encode("utf-8"))
            reloaded = BPETokenizer.from_file(staged)  # the load checks the fingerprint
            if reloaded.fingerprint() != tokenizer.fingerprint() or reloaded != tokenizer:
                raise BpeError(f"{tokenizer_output} does not reload to the tokenizer just saved")
            say(f"Staged {tokenizer_output} (fingerprint {tokenizer.fingerprint()[:16]}...), reloaded and checked")
            reports = []
            encoded = {}
            for (name, text), ids_path in zip(texts.items(), outputs[1:]):
                ids = encoded[name] = reloaded.encode(text)
                if reloaded.decode(ids) != text:
                    raise BpeError(f"the {name} split does not survive encode → decode")
                out_of_range = [i for i in ids if not 0 <= i < reloaded.vocab_size]
                if out_of_range:
                    raise BpeError(
                        f"the {name} split encodes to ids outside 0..{reloaded.vocab_size - 1}: {out_of_range[:5]}"
                    )
                stage.write(ids_path, ids_tensor_bytes(ids))
                reports.append(SplitReport(name, len(text), len(ids), ids_path))
                say(f"{name}: {len(text):,} characters → {len(ids):,} tokens, round trip exact")
    except BpeError as error:
        raise BpeError(f"{error}. {unchanged_message(outputs)}") from None
    say(f"Saved {', '.join(str(path) for path in outputs)}")
    return reloaded, reports, encoded


def output_paths(tokenizer_output: Path, encoded_output_dir: Path) -> list[Path]:
    """What `build` writes, together or not at all: the tokenizer, then one ids file per split."""
    return [Path(tokenizer_output), *(Path(encoded_output_dir) / f"{name}_ids.pt" for name in SPLITS)]


def unchanged_message(outputs: list[Path]) -> str:
    """What a build that stopped early kept: every output as it was before."""
    there = [str(path) for path in outputs if path.is_file()]
    if not there:
        return "Nothing was written."
    return f"Nothing was written: {', '.join(there)} {'is' if len(there) == 1 else 'are'} as before."


def mean_context_characters(tokenizer: BPETokenizer, ids: list[int], block: int = CONTEXT_TOKENS) -> float:
    """Mean characters covered by ``block`` consecutive tokens (non-overlapping windows)."""
    itos = tokenizer.itos
    return context_coverage(token_lengths(itos[i] for i in ids), block).mean


def print_progress(step: MergeStep) -> None:
    if should_log(step.number):
        print(log_line(step), file=sys.stderr)


def add_max_vocab_characters_option(parser: argparse.ArgumentParser) -> None:
    """``--max-vocab-characters``: the app's bound by default, so a pipeline never runs out
    of memory on a degenerate setting (pairs seen once on text without a pre-tokenizer grow
    tokens of millions of characters); it stops cleanly and says so, and the user who wants
    more asks for it."""
    parser.add_argument(
        "--max-vocab-characters",
        type=bound_or_none,
        default=MAX_VOCAB_CHARACTERS,
        metavar="N",
        help="stop before the merge that takes all tokens past N characters in all "
        f"(default {MAX_VOCAB_CHARACTERS:,}, far above real settings; 'none': no bound)",
    )


def add_special_token_option(parser) -> None:
    """``--special-token TEXT``, repeatable: a string the text is cut at before anything else,
    one token of its own (`bpe.specials`)."""
    parser.add_argument(
        "--special-token",
        action="append",
        dest="special_tokens",
        metavar="TEXT",
        help="a special token such as <|endoftext|>, repeatable: the text is cut at each (the longest first "
        "where two overlap) before pre-tokenization, so no merge learns from or crosses one; each is one "
        "token, numbered first and counted in the vocab size",
    )


def add_preset_option(parser) -> None:
    """``--preset cs336``: a course's settings at once (`bpe.training.PRESETS`); options given beside it win."""
    shown = "; ".join(f"{name}: {describe_preset(name).split(' set ', 1)[1]}" for name in PRESETS)
    parser.add_argument(
        "--preset",
        choices=sorted(PRESETS),
        help=f"a course's settings at once ({shown}); an option given beside it wins",
    )


def preset_settings(args, defaults: dict, say: Callable[[str], None]) -> dict:
    """The value of each field of ``defaults`` (field -> the option's default): the option's
    when given (not None), else the preset's when ``args.preset`` names one, else the
    default. Says what the preset set, and what was given instead of it."""
    given = {field: getattr(args, field) for field in defaults if getattr(args, field, None) is not None}
    if given.get("special_tokens") is not None:
        given["special_tokens"] = tuple(given["special_tokens"])
    preset = getattr(args, "preset", None)
    if preset is not None:
        fields = preset_fields(preset)
        say(describe_preset(preset, {key: value for key, value in given.items() if key in fields}))
    settled = {**defaults, **apply_preset(preset, given)}
    return {field: settled[field] for field in defaults}


def budget_hint(reason: StopReason) -> str:
    """What to add to the stop explanation on the command line: the option that moves the bound."""
    if reason is not StopReason.VOCAB_CHARACTERS_REACHED:
        return ""
    return " (--max-vocab-characters N raises the bound; none removes it)"
