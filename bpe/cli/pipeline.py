"""The tutorial's whole pipeline as one function, without the app.

Read the splits, take base characters from all of them and merge statistics from the
training prefix only, train, save through a temp file, reload and check the fingerprint,
round-trip every split, save the ids as torch long tensors, and measure compression.
`bpe.cli` prints what this returns; tests call it directly.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from bpe.alphabet import CHARACTERS, default_base_tokens
from bpe.errors import BpeError
from bpe.analysis.metrics import compression, context_coverage, token_count_reduction, token_lengths
from bpe.steps import MergeStep, log_line, should_log
from bpe.analysis.exports import ids_tensor_bytes
from bpe.files import atomic_write_bytes
from bpe.corpora.textfile import read_text_file
from bpe.tokenizer import BPETokenizer
from bpe.training import train_steps

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


def build(paths: dict, *, tokenizer_output: Path, encoded_output_dir: Path, target_vocab_size: int = 500,
          training_characters: int = 500_000, minimum_pair_frequency: int = 2, engine: str = "fast",
          alphabet: str = CHARACTERS, pretokenizer: str | None = None,
          on_step: Callable[[MergeStep], None] | None = None,
          say: Callable[[str], None] = lambda message: None) -> BuildReport:
    texts = {name: read_text_file(path) for name, path in paths.items()}
    if training_characters < 1:
        raise BpeError(f"training_characters={training_characters} must be at least 1")
    training_text = texts["train"][:training_characters]
    base_tokens = default_base_tokens("".join(texts.values()), alphabet)
    say(f"Training on {len(training_text):,} characters of {paths['train']} "
        f"(base tokens from all splits: {len(base_tokens)})")
    started = time.perf_counter()
    stream = train_steps(training_text, target_vocab_size=target_vocab_size, minimum_pair_frequency=minimum_pair_frequency, base_tokens=base_tokens, engine=engine,
                         top_k=0, alphabet=alphabet, pretokenizer=pretokenizer)
    merges = []
    for step in stream:
        merges.append(step.pair)
        if on_step is not None:
            on_step(step)
    seconds = time.perf_counter() - started
    tokenizer = BPETokenizer(base_tokens, merges, alphabet=alphabet, pretokenizer=pretokenizer)
    say(f"Learned {len(merges)} merges in {seconds:.2f} s; {stream.explain_stop()}")

    tokenizer.save(tokenizer_output)
    reloaded = BPETokenizer.from_file(tokenizer_output)  # the load checks the fingerprint
    if reloaded.fingerprint() != tokenizer.fingerprint() or reloaded != tokenizer:
        raise BpeError(f"{tokenizer_output} does not reload to the tokenizer just saved")
    say(f"Saved {tokenizer_output} (fingerprint {tokenizer.fingerprint()[:16]}...), reloaded and checked")

    reports = []
    encoded = {}
    for name, text in texts.items():
        ids = encoded[name] = reloaded.encode(text)
        if reloaded.decode(ids) != text:
            raise BpeError(f"the {name} split does not survive encode → decode")
        out_of_range = [i for i in ids if not 0 <= i < reloaded.vocab_size]
        if out_of_range:
            raise BpeError(f"the {name} split encodes to ids outside 0..{reloaded.vocab_size - 1}: {out_of_range[:5]}")
        ids_path = Path(encoded_output_dir) / f"{name}_ids.pt"
        save_ids(ids, ids_path)
        reports.append(SplitReport(name, len(text), len(ids), ids_path))
        say(f"{name}: {len(text):,} characters → {len(ids):,} tokens, round trip exact, saved {ids_path}")
    return BuildReport(reloaded, Path(tokenizer_output), reloaded.fingerprint(), len(training_text), seconds,
                       len(merges), stream.explain_stop(), reports, mean_context_characters(reloaded, encoded["val"]))


def save_ids(ids: list[int], path: Path) -> None:
    """Save ids as a torch long tensor (`bpe.analysis.exports.ids_tensor_bytes`), atomically."""
    atomic_write_bytes(path, ids_tensor_bytes(ids))


def mean_context_characters(tokenizer: BPETokenizer, ids: list[int], block: int = CONTEXT_TOKENS) -> float:
    """Mean characters covered by ``block`` consecutive tokens (non-overlapping windows)."""
    itos = tokenizer.itos
    return context_coverage(token_lengths(itos[i] for i in ids), block).mean


def print_progress(step: MergeStep) -> None:
    if should_log(step.number):
        print(log_line(step), file=sys.stderr)
