"""Data, evaluation, the training loop, the experiment and the CLI, on tiny corpora."""

from __future__ import annotations

import math
import re

import pytest
import torch

import bpe
import bpe.cli.lm
from bpe.cli.main import main as bpe_main
from bpe.errors import BpeError
from bpe.lm.checkpoint import load_checkpoint, save_checkpoint
from bpe.text import token_characters


def main(argv):
    return bpe_main(["lm", *argv])


from bpe.lm.config import Budget, ModelConfig, TrainSettings
from bpe.lm.data import LN2, TokenData, bits_per_byte, bits_per_char
from bpe.lm.experiment import (
    ExperimentProgress,
    ModelSummary,
    TokenizerSpec,
    split_text,
    train_model_per_tokenizer,
)
from bpe.lm.model import build_model
from bpe.lm.train import evaluate, train_model

torch.set_num_threads(1)  # tiny models: extra threads only add contention

TEXT = "the quick brown fox jumps over the lazy dog. " * 40
CHARS = sorted(set(TEXT))


def char_data(text: str = TEXT, heldout_fraction: float = 0.1) -> TokenData:
    ids = [CHARS.index(c) for c in text]
    return TokenData.split(ids, token_lengths=[1] * len(CHARS), heldout_fraction=heldout_fraction, n_chars=len(text))


def tiny_model(vocab_size: int = len(CHARS), seed: int = 0):
    return build_model(ModelConfig(vocab_size=vocab_size, block_size=16, width=32, depth=1, heads=4), seed=seed)


FAST = TrainSettings(batch_size=8, learning_rate=1e-2, eval_every=10, eval_windows=8)


# ====================
# Bits per character


def test_bits_per_char_by_hand():
    # 2 bits per token (loss 2·ln 2 nats), 10 tokens standing for 40 characters -> 0.5 bits/char.
    assert bits_per_char(2 * LN2, n_tokens=10, n_chars=40) == 0.5
    # ln 4 nats = 2 bits per token; 3 tokens over 4 characters -> 1.5 bits/char.
    assert bits_per_char(math.log(4), n_tokens=3, n_chars=4) == pytest.approx(1.5, rel=1e-12)


def test_bits_per_char_refuses_an_empty_text():
    with pytest.raises(BpeError, match="n_chars=0"):
        bits_per_char(1.0, n_tokens=3, n_chars=0)


def test_evaluate_a_uniform_model_by_hand():
    # A model with all weights zero predicts every one of 4 tokens with probability 1/4:
    # ln 4 nats = 2 bits per token, whatever the input.
    model = build_model(ModelConfig(vocab_size=4, block_size=4, width=32, depth=1, heads=4))
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.zero_()
    data = TokenData([0] * 10, [0, 1, 2, 3, 1, 0, 0, 0, 2], token_lengths=[1, 2, 3, 1])
    windows = data.eval_windows(block_size=4, max_windows=10)
    # (9 - 1) // 4 = 2 windows. Targets [1, 2, 3, 1] and [0, 0, 0, 2]: 8 tokens,
    # (2+3+1+2) + (1+1+1+3) = 14 characters (the inputs would give 12: it is the targets that count).
    assert windows.targets.tolist() == [[1, 2, 3, 1], [0, 0, 0, 2]]
    result = evaluate(model, windows)
    assert (result.tokens, result.chars) == (8, 14)
    assert result.loss_per_token == pytest.approx(math.log(4), rel=1e-6)
    assert result.bits_per_char == pytest.approx(2 * 8 / 14, rel=1e-6)


def test_bits_per_byte_counts_the_utf8_bytes_of_the_scored_tokens():
    assert bits_per_byte(2 * LN2, n_tokens=10, n_bytes=80) == 0.25
    with pytest.raises(BpeError, match="n_bytes=0"):
        bits_per_byte(1.0, n_tokens=3, n_bytes=0)
    model = build_model(ModelConfig(vocab_size=4, block_size=4, width=32, depth=1, heads=4))
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.zero_()
    # token 3 is 'é': one character, two bytes
    data = TokenData([0] * 10, [0, 1, 2, 3, 1, 0, 0, 0, 2], token_lengths=[1, 2, 3, 1], token_bytes=[1, 2, 3, 2])
    result = evaluate(model, data.eval_windows(block_size=4, max_windows=10))
    assert (result.chars, result.bytes) == (14, 15)
    assert result.bits_per_byte == pytest.approx(2 * 8 / 15, rel=1e-6)
    assert (
        evaluate(model, TokenData([0] * 10, [0] * 9, token_lengths=[1] * 4).eval_windows(4, 10)).bits_per_byte is None
    )
    with pytest.raises(BpeError, match="token_bytes must give the UTF-8 bytes of each of the 4 token ids"):
        TokenData([0], [0], token_lengths=[1] * 4, token_bytes=[1])


# ====================
# Data


def test_random_batches_are_windows_with_targets_shifted_by_one():
    data = TokenData(list(range(50)), list(range(20)), token_lengths=[1] * 50)
    inputs, targets = data.random_batch(4, 8, torch.Generator().manual_seed(0))
    assert inputs.shape == targets.shape == (4, 8)
    assert torch.equal(targets, inputs + 1)  # ids are consecutive, so "next token" is +1
    again, _ = data.random_batch(4, 8, torch.Generator().manual_seed(0))
    assert torch.equal(inputs, again)


def test_eval_windows_are_fixed_non_overlapping_and_spread_over_the_heldout_text():
    data = TokenData(list(range(20)), list(range(41)), token_lengths=[1] * 41)
    # (41 - 1) // 4 = 10 windows available; 4 wanted -> windows 0, 3, 6, 9 (starts 0, 12, 24, 36).
    windows = data.eval_windows(block_size=4, max_windows=4)
    assert windows.inputs[:, 0].tolist() == [0, 12, 24, 36]
    assert windows.targets[0].tolist() == [1, 2, 3, 4]
    assert (windows.n_tokens, windows.n_chars) == (16, 16)
    assert torch.equal(data.eval_windows(4, 4).inputs, windows.inputs)


def test_split_checks_token_lengths_against_the_text_length():
    with pytest.raises(BpeError, match=r"ids encode 5 characters but n_chars=6"):
        TokenData.split([0, 1, 1, 0, 0], token_lengths=[1, 1], n_chars=6)
    data = TokenData.split(list(range(10)), token_lengths=[1] * 10, heldout_fraction=0.2)
    assert (data.train_ids.tolist(), data.heldout_ids.tolist()) == (list(range(8)), [8, 9])


def test_ids_outside_the_token_table_are_refused_by_value():
    with pytest.raises(BpeError, match=r"heldout_ids holds id 7, outside the 3 ids"):
        TokenData([0, 1], [2, 7], token_lengths=[1, 1, 1])


def test_a_text_too_short_for_one_window_is_refused_with_the_counts():
    data = TokenData(list(range(40)), [1, 2, 3], token_lengths=[1] * 40)
    with pytest.raises(BpeError, match=r"held-out text has 3 tokens, fewer than block_size \+ 1 = 17"):
        next(train_model(tiny_model(vocab_size=40), data, Budget(steps=1), FAST))


def test_data_with_more_ids_than_the_model_is_refused():
    with pytest.raises(BpeError, match=r"the data has 28 token ids but the model's vocab_size=10"):
        next(train_model(tiny_model(vocab_size=10), char_data(), Budget(steps=1), FAST))


# ====================
# Training


def test_a_few_training_steps_reduce_the_heldout_loss():
    records = list(train_model(tiny_model(), char_data(), Budget(steps=30), FAST))
    first, last = records[0].evaluation, records[-1].evaluation
    assert first.loss_per_token == pytest.approx(math.log(len(CHARS)), abs=0.2)  # untrained: near uniform
    assert last.loss_per_token < 0.5 * first.loss_per_token
    assert last.bits_per_char < 0.5 * first.bits_per_char


def test_progress_records_count_steps_tokens_and_characters():
    data = TokenData(list(range(40)) * 2, list(range(40)), token_lengths=[2] * 40)  # every token is 2 characters
    records = list(train_model(tiny_model(vocab_size=40), data, Budget(steps=25), FAST))
    assert [r.step for r in records] == list(range(26))
    assert [r.step for r in records if r.evaluation] == [0, 10, 20, 25]  # start, every 10, end
    last = records[-1]
    assert (last.stop_reason, last.tokens_seen, last.chars_seen) == ("steps", 25 * 8 * 16, 2 * 25 * 8 * 16)
    assert records[0].train_loss is None and all(r.train_loss > 0 for r in records[1:])
    assert [r.done for r in records].count(True) == 1


@pytest.mark.parametrize(
    ("budget", "reason", "steps"),
    [
        pytest.param(Budget(chars=300), "chars", 3, id="chars"),  # 128 characters a step: 128, 256, 384
        pytest.param(Budget(steps=4, chars=10_000), "steps", 4, id="first-limit-wins"),
    ],
)
def test_training_stops_at_the_budget(budget, reason, steps):
    last = list(train_model(tiny_model(), char_data(), budget, FAST))[-1]
    assert (last.stop_reason, last.step) == (reason, steps)
    assert last.evaluation is not None


def test_a_seconds_budget_counts_training_time():
    last = list(train_model(tiny_model(), char_data(), Budget(seconds=0.05), FAST))[-1]
    assert last.stop_reason == "seconds" and last.seconds >= 0.05


def test_should_stop_ends_the_run_between_steps():
    calls = []
    records = list(
        train_model(
            tiny_model(), char_data(), Budget(steps=100), FAST, should_stop=lambda: calls.append(1) or len(calls) >= 3
        )
    )
    assert (records[-1].stop_reason, records[-1].step) == ("stopped", 3)


def test_training_is_deterministic_under_a_seed():
    def run(seed: int, warm_up: bool = True) -> list[float]:
        settings = TrainSettings(
            batch_size=8, learning_rate=1e-2, eval_every=10, eval_windows=8, seed=seed, warm_up=warm_up
        )
        return [r.train_loss for r in train_model(tiny_model(), char_data(), Budget(steps=8), settings)][1:]

    assert run(0) == run(0)
    assert run(0) != run(1)
    # The warm-up step trains a throwaway copy: the real run is the same with or without it.
    assert run(0, warm_up=False) == run(0)


def test_a_trained_model_survives_a_checkpoint_round_trip(tmp_path):
    model = tiny_model()
    data = char_data()
    last = list(train_model(model, data, Budget(steps=5), FAST))[-1]
    save_checkpoint(tmp_path / "m.pt", model, fingerprint="chars-test")
    loaded = load_checkpoint(tmp_path / "m.pt", fingerprint="chars-test").model
    assert evaluate(loaded, data.eval_windows(16, FAST.eval_windows)) == last.evaluation


# ====================
# Experiment


def pair_tokenizer(text: str) -> TokenizerSpec:
    """A hand-made 'BPE': the characters plus the bigrams 'th', 'he', 'e ', greedily matched."""
    tokens = CHARS + ["th", "he", "e "]

    def encode(s: str) -> list[int]:
        ids, i = [], 0
        while i < len(s):
            pair = s[i : i + 2]
            if pair in tokens[len(CHARS) :]:
                ids.append(tokens.index(pair))
                i += 2
            else:
                ids.append(tokens.index(s[i]))
                i += 1
        return ids

    return TokenizerSpec(
        "pairs", encode, lambda ids: "".join(tokens[i] for i in ids), tuple(len(t) for t in tokens), "pairs-fp"
    )


def char_tokenizer() -> TokenizerSpec:
    return TokenizerSpec(
        "chars",
        lambda s: [CHARS.index(c) for c in s],
        lambda ids: "".join(CHARS[i] for i in ids),
        (1,) * len(CHARS),
        "chars-fp",
    )


def test_split_text_cuts_by_characters():
    assert split_text("abcdefghij", 0.2) == ("abcdefgh", "ij")


def test_one_model_per_tokenizer_labels_progress_and_summarises_each_model():
    config = ModelConfig(vocab_size=1, block_size=16, width=32, depth=1, heads=4)
    records = list(
        train_model_per_tokenizer(
            [char_tokenizer(), pair_tokenizer(TEXT)],
            config,
            Budget(steps=3),
            text=TEXT,
            settings=FAST,
            prompt="the ",
            sample_chars=12,
        )
    )
    summaries = [r for r in records if isinstance(r, ModelSummary)]
    progress = [r for r in records if isinstance(r, ExperimentProgress)]
    assert [s.tokenizer for s in summaries] == ["chars", "pairs"]
    assert [r.tokenizer for r in progress] == ["chars"] * 4 + ["pairs"] * 4  # steps 0..3 each
    chars, pairs = summaries
    assert (chars.config.vocab_size, pairs.config.vocab_size) == (len(CHARS), len(CHARS) + 3)
    assert pairs.parameters.token_embedding - chars.parameters.token_embedding == 3 * 32  # 3 more rows of width 32
    assert chars.parameters.rest == pairs.parameters.rest  # only the embedding depends on the tokenizer
    assert chars.tokens_seen == pairs.tokens_seen == 3 * 8 * 16  # equal steps are equal tokens...
    assert pairs.chars_seen > chars.chars_seen == chars.tokens_seen  # ...but not equal text
    assert chars.sample.startswith("the ") and len(chars.sample) >= 4 + 12
    assert chars.fingerprint == "chars-fp" and chars.tokens_per_second > 0
    assert 0 < chars.bits_per_char < 10


def test_one_model_per_tokenizer_refuses_duplicate_names():
    with pytest.raises(BpeError, match=r"\['chars'\] appear more than once"):
        next(
            train_model_per_tokenizer(
                [char_tokenizer(), char_tokenizer()], ModelConfig(vocab_size=1), Budget(steps=1), text=TEXT
            )
        )


def test_a_text_too_short_for_any_tokenizer_fails_before_the_first_model_trains():
    pairs = pair_tokenizer(TEXT)
    heldout = len(pairs.encode(split_text(TEXT, 0.1)[1]))  # fewer tokens than the characters' 180
    records = train_model_per_tokenizer(
        [char_tokenizer(), pairs],  # the characters have one window of block_size + 1; the pairs have not
        ModelConfig(vocab_size=1, block_size=heldout, width=32, depth=1, heads=4),
        Budget(steps=1),
        text=TEXT,
        settings=FAST,
    )
    with pytest.raises(
        BpeError, match=rf"held-out text has {heldout} tokens, fewer than block_size \+ 1 = {heldout + 1}"
    ):
        next(records)  # the very first record: no model trained, so no comparison is left cut short


# ====================
# Command line


def test_cli_reports_a_missing_text_file_by_path(tmp_path, capsys):
    assert main(["train", "--text", str(tmp_path / "missing.txt"), "--steps", "1"]) == 1
    assert "missing.txt" in capsys.readouterr().err


@pytest.mark.skipif(not hasattr(bpe, "BPETokenizer"), reason="bpe.BPETokenizer is not written yet")
def test_cli_trains_characters_and_bpe_end_to_end(tmp_path, capsys):
    text_file = tmp_path / "corpus.txt"
    text_file.write_text(TEXT, encoding="utf-8")
    code = main(
        [
            "train",
            "--text",
            str(text_file),
            "--vocab-size",
            "40",
            "--steps",
            "3",
            "--block-size",
            "8",
            "--width",
            "32",
            "--depth",
            "1",
            "--batch-size",
            "4",
            "--eval-windows",
            "2",
            "--sample-chars",
            "10",
            "--save-dir",
            str(tmp_path / "models"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "bits/char" in out and "--- sample from chars ---" in out and "--- sample from bpe-40 ---" in out
    assert sorted(p.name for p in (tmp_path / "models").iterdir()) == ["bpe-40.pt", "chars.pt"]


class CharacterTokenizer:
    """Stands in for bpe.BPETokenizer in the CLI test: characters only, whatever the vocab size asked."""

    def __init__(self, text: str) -> None:
        self.itos = dict(enumerate(sorted(set(text))))
        self.vocab_size = len(self.itos)

    @classmethod
    def train(cls, text: str, target_vocab_size: int, minimum_pair_frequency: int = 2) -> CharacterTokenizer:
        return cls(text)

    def encode(self, text: str) -> list[int]:
        stoi = {s: i for i, s in self.itos.items()}
        return [stoi[c] for c in text]

    def decode(self, ids: list[int]) -> str:
        return "".join(self.itos[i] for i in ids)

    def fingerprint(self) -> str:
        return f"chars-{self.vocab_size}"


def test_cli_prints_progress_a_summary_and_samples(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(bpe.cli.lm, "BPETokenizer", CharacterTokenizer)
    text_file = tmp_path / "corpus.txt"
    text_file.write_text(TEXT, encoding="utf-8")
    code = main(
        [
            "train",
            "--text",
            str(text_file),
            "--vocab-size",
            "40",
            "--steps",
            "2",
            "--block-size",
            "8",
            "--width",
            "32",
            "--depth",
            "1",
            "--batch-size",
            "4",
            "--eval-every",
            "1",
            "--eval-windows",
            "2",
            "--prompt",
            "the",
            "--sample-chars",
            "10",
            "--save-dir",
            str(tmp_path / "models"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert out.count(" nats/token ") == 2 * 3  # evaluated at steps 0, 1, 2, for each of the two models
    assert "tokenizer  vocab  embedding       rest   steps  tokens/s   chars seen bits/char bits/byte" in out
    assert len(re.findall(r"\d\.\d{3}  +\d\.\d{3}\n", out)) == 2  # each model's bits per character, then per byte
    assert "--- sample from chars ---\nthe" in out and "--- sample from bpe-40 ---\nthe" in out
    model = load_checkpoint(tmp_path / "models" / "bpe-40.pt", fingerprint=f"chars-{len(CHARS)}").model
    assert model.config.vocab_size == len(CHARS)


@pytest.mark.skipif(not hasattr(bpe, "BPETokenizer"), reason="bpe.BPETokenizer is not written yet")
@pytest.mark.parametrize("alphabet", ["characters", "bytes"])
def test_token_lengths_of_a_real_tokenizer_add_up_to_the_characters_of_the_text(alphabet):
    text = "naïve café, déjà vu — naïve café " * 5  # multi-byte characters that byte merges cut through
    spec = TokenizerSpec.from_tokenizer(
        "t", bpe.BPETokenizer.train(text, target_vocab_size=280 if alphabet == "bytes" else 30, alphabet=alphabet)
    )
    for part in (text, text[3:17], "é"):
        assert sum(spec.token_lengths[i] for i in spec.encode(part)) == len(part)


def test_a_byte_token_counts_the_characters_that_start_in_it():
    assert [token_characters(t) for t in (b"ab", b"\xc3", b"\xa9", b"\xa9 x", "caf\u00e9")] == [2, 1, 0, 2, 4]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        pytest.param({"prompt": "the ☃"}, "'☃' is not in the alphabet", id="prompt-outside-alphabet"),
        pytest.param({"prompt": ""}, r"the prompt '' encodes to no tokens", id="empty-prompt"),
        pytest.param({"top_k": 0}, r"top_k=0 must be a whole number >= 1", id="top-k"),
        pytest.param({"temperature": -0.5}, r"temperature=-0.5 must be >= 0", id="temperature"),
    ],
)
def test_bad_sampling_settings_fail_before_any_training(kwargs, message):
    def encode(text: str) -> list[int]:
        if "☃" in text:
            raise BpeError("'☃' is not in the alphabet")
        return [CHARS.index(c) for c in text]

    spec = TokenizerSpec("chars", encode, lambda ids: "", (1,) * len(CHARS), "fp")
    records = train_model_per_tokenizer(
        [spec],
        ModelConfig(vocab_size=1, block_size=16, width=32, depth=1, heads=4),
        Budget(steps=1),
        text=TEXT,
        settings=FAST,
        **kwargs,
    )
    with pytest.raises(BpeError, match=message):
        next(records)  # the very first record: nothing was trained


def test_cli_uses_the_apps_thread_policy_and_says_so(tmp_path, capsys, monkeypatch):
    text_file = tmp_path / "corpus.txt"
    text_file.write_text(TEXT, encoding="utf-8")
    monkeypatch.setattr(bpe.cli.lm, "training_threads", lambda: 1)  # the policy on a 2-core machine
    before = torch.get_num_threads()
    torch.set_num_threads(3)  # as if torch had started with every core of a bigger machine
    try:
        code = main(
            [
                "train",
                "--text",
                str(text_file),
                "--vocab-size",
                "40",
                "--steps",
                "1",
                "--block-size",
                "8",
                "--width",
                "16",
                "--depth",
                "1",
                "--batch-size",
                "2",
                "--eval-windows",
                "1",
                "--sample-chars",
                "5",
                "--device",
                "cpu",
            ]
        )
        used = torch.get_num_threads()
    finally:
        torch.set_num_threads(before)
    assert code == 0 and used == 1
    assert "Training on cpu, 1 CPU thread of " in capsys.readouterr().out


def test_cli_refuses_zero_threads(tmp_path, capsys):
    text_file = tmp_path / "corpus.txt"
    text_file.write_text(TEXT, encoding="utf-8")
    assert main(["train", "--text", str(text_file), "--steps", "1", "--threads", "0"]) == 1
    assert "--threads 0 must be at least 1" in capsys.readouterr().err
