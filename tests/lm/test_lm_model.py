"""TinyGPT, its config, sampling and checkpoints: shapes, the causal mask, exact counts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from bpe.errors import BpeError
from bpe.lm.checkpoint import load_checkpoint, save_checkpoint
from bpe.lm.config import Budget, ModelConfig, TrainSettings
from bpe.lm.model import ParameterCounts, build_model, count_parameters
from bpe.lm.sample import generate

torch.set_num_threads(1)  # tiny models: extra threads only add contention

TINY = ModelConfig(vocab_size=10, block_size=16, width=32, depth=2, heads=4)


def random_ids(batch: int, time: int, vocab_size: int = 10, seed: int = 0) -> torch.Tensor:
    return torch.randint(0, vocab_size, (batch, time), generator=torch.Generator().manual_seed(seed))


# ====================
# Shapes and the causal mask


@pytest.mark.parametrize("time", [1, 7, 16], ids=["one", "partial", "full-block"])
def test_logits_have_one_row_per_position_and_one_column_per_token(time):
    model = build_model(TINY)
    assert model(random_ids(3, time)).shape == (3, time, TINY.vocab_size)


def test_no_position_sees_the_future():
    model = build_model(TINY, seed=1).eval()
    ids = random_ids(2, 16, seed=2)
    before = model(ids)
    changed = ids.clone()
    changed[:, 9] = (changed[:, 9] + 1) % TINY.vocab_size
    after = model(changed)
    # Positions 0..8 cannot see position 9: bit-for-bit the same logits.
    assert torch.equal(before[:, :9], after[:, :9])
    # ...and the change does reach position 9 and later, so the comparison above is not vacuous.
    assert not torch.allclose(before[:, 9:], after[:, 9:])


def test_a_sequence_longer_than_the_block_is_refused_with_its_length():
    with pytest.raises(BpeError, match=r"sequence of 17 tokens is longer than block_size=16"):
        build_model(TINY)(random_ids(1, 17))


def test_output_head_shares_the_token_embedding():
    model = build_model(TINY)
    assert model.head.weight is model.token_embedding.weight


def test_the_same_seed_gives_the_same_weights_and_another_seed_does_not():
    ids = random_ids(1, 8)
    assert torch.equal(build_model(TINY, seed=3)(ids), build_model(TINY, seed=3)(ids))
    assert not torch.equal(build_model(TINY, seed=3)(ids), build_model(TINY, seed=4)(ids))


def test_building_a_model_leaves_the_global_random_state_alone():
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    build_model(TINY, seed=9)
    assert torch.equal(torch.rand(3), expected)


def test_parameter_counts_by_hand():
    config = ModelConfig(vocab_size=10, block_size=16, width=32, depth=1, heads=4)
    # one block: ln1 64 + qkv (32*96+96) + proj (32*32+32) + ln2 64 + fc (32*128+128) + proj (128*32+32) = 12,768
    # plus the final LayerNorm (64); the tied head adds nothing.
    counts = count_parameters(build_model(config))
    assert counts == ParameterCounts(token_embedding=10 * 32, position_embedding=16 * 32, rest=12_768)
    assert (counts.embedding, counts.total) == (832, 13_600)
    assert counts.total == sum(p.numel() for p in build_model(config).parameters())


# ====================
# Configuration


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        pytest.param({"width": 30}, r"width=30 is not divisible by heads=4", id="width-heads"),
        pytest.param({"depth": 0}, r"depth=0 must be a whole number >= 1", id="depth-zero"),
        pytest.param({"block_size": True}, r"block_size=True must be a whole number", id="bool"),
        pytest.param({"dropout": 1.0}, r"dropout=1.0 must be a number in \[0, 1\)", id="dropout"),
        pytest.param({"vocab_size": 0}, r"vocab_size=0", id="vocab"),
    ],
)
def test_impossible_model_configs_are_refused_by_name(changes, message):
    settings = {"vocab_size": 10, "block_size": 16, "width": 32, "depth": 1, "heads": 4} | changes
    with pytest.raises(BpeError, match=message):
        ModelConfig(**settings)


def test_config_round_trips_through_plain_dicts_and_refuses_unknown_keys():
    assert ModelConfig.from_dict(TINY.to_dict()) == TINY
    with pytest.raises(BpeError, match=r"unknown keys \['colour'\]"):
        ModelConfig.from_dict(TINY.to_dict() | {"colour": 1})


def test_budget_needs_a_limit_and_settings_refuse_bad_values():
    with pytest.raises(BpeError, match="at least one of seconds, chars or steps"):
        Budget()
    with pytest.raises(BpeError, match=r"seconds=-1"):
        Budget(seconds=-1)
    with pytest.raises(BpeError, match=r"learning_rate=0"):
        TrainSettings(learning_rate=0)


# ====================
# Sampling


def test_generate_returns_the_requested_number_of_new_ids_in_the_vocabulary():
    new = generate(build_model(TINY), [1, 2, 3], 20, generator=torch.Generator().manual_seed(0))
    assert len(new) == 20
    assert all(0 <= i < TINY.vocab_size for i in new)


def test_a_seeded_generator_gives_the_same_sample_and_crops_long_prompts():
    model = build_model(TINY)
    prompt = list(random_ids(1, 40)[0].tolist())  # longer than block_size: cropped, not refused
    first = generate(model, prompt, 10, temperature=1.5, generator=torch.Generator().manual_seed(7))
    second = generate(model, prompt, 10, temperature=1.5, generator=torch.Generator().manual_seed(7))
    assert first == second


def test_temperature_zero_and_top_k_one_both_pick_the_most_likely_token():
    model = build_model(TINY, seed=5)
    prompt = [4, 2]
    expected, context = [], list(prompt)
    for _ in range(6):
        with torch.no_grad():
            next_id = int(model(torch.tensor([context]))[0, -1].argmax())
        expected.append(next_id)
        context.append(next_id)
    assert generate(model, prompt, 6, temperature=0) == expected
    assert generate(model, prompt, 6, top_k=1, generator=torch.Generator().manual_seed(1)) == expected


@pytest.mark.parametrize(
    ("prompt", "kwargs", "message"),
    [
        pytest.param([], {}, "the prompt encodes to no tokens", id="empty"),
        pytest.param([3, 10], {}, "prompt id 10 is outside the model's vocabulary of 10 ids", id="bad-id"),
        pytest.param([3], {"top_k": 11}, r"top_k=11 must be between 1 and the vocab size 10", id="top-k"),
        pytest.param([3], {"temperature": -1.0}, r"temperature=-1.0 must be >= 0", id="temperature"),
    ],
)
def test_bad_sampling_requests_are_refused_by_name(prompt, kwargs, message):
    with pytest.raises(BpeError, match=message):
        generate(build_model(TINY), prompt, 5, **kwargs)


def test_checkpoint_round_trip_gives_identical_logits(tmp_path):
    model = build_model(TINY, seed=11).eval()
    path = tmp_path / "model.pt"
    save_checkpoint(path, model, fingerprint="tok-abc")
    loaded = load_checkpoint(path, fingerprint="tok-abc")
    ids = random_ids(2, 16)
    assert loaded.config == TINY and loaded.fingerprint == "tok-abc"
    assert torch.equal(loaded.model(ids), model(ids))
    assert loaded.model.head.weight is loaded.model.token_embedding.weight  # still tied after loading
    assert os.listdir(tmp_path) == ["model.pt"]  # the temporary file was moved, not left behind


def test_a_checkpoint_from_another_tokenizer_is_refused_naming_both_fingerprints(tmp_path):
    path = tmp_path / "model.pt"
    save_checkpoint(path, build_model(TINY), fingerprint="chars-1f2e")
    expected = r"trained with tokenizer 'chars-1f2e', but the current tokenizer is 'bpe-500-9a7c'"
    with pytest.raises(BpeError, match=expected):
        load_checkpoint(path, fingerprint="bpe-500-9a7c")


class Payload:
    """An arbitrary object: weights_only loading must refuse to unpickle it."""


@pytest.mark.parametrize(
    ("content", "message"),
    [
        pytest.param({"format": "something else"}, r"format 'something else'", id="foreign-format"),
        pytest.param(
            {"format": "bpe-lab tinygpt v1", "x": Payload()},
            r"holds the Python object test_lm_model\.Payload, .* refused because loading it could run code",
            id="arbitrary-object",
        ),
        pytest.param(b"not a checkpoint", "is not a readable TinyGPT checkpoint", id="garbage"),
    ],
)
def test_files_that_are_not_safe_checkpoints_are_refused(tmp_path, content, message):
    path = tmp_path / "bad.pt"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        torch.save(content, path)
    with pytest.raises(BpeError, match=message):
        load_checkpoint(path, fingerprint="tok")


def test_a_missing_checkpoint_is_refused_with_its_path(tmp_path):
    with pytest.raises(BpeError, match=r"nope\.pt'.* does not exist"):
        load_checkpoint(tmp_path / "nope.pt", fingerprint="tok")


# ====================
# Boundary


def test_registering_the_cli_does_not_import_torch():
    code = "import sys, bpe.lm, bpe.cli.lm; assert 'torch' not in sys.modules, 'torch was imported'"
    root = Path(__file__).resolve().parents[2]
    subprocess.run([sys.executable, "-c", code], check=True, cwd=root, env=os.environ | {"PYTHONPATH": str(root)})


def test_a_tokens_training_flops_count_every_multiply_add_of_the_model_and_grow_with_the_vocab():
    """Kaplan et al.'s count, checked against the model's own weights: 2 FLOPs a weight a
    token forward (the blocks' matrices and the output head), plus attention over the
    context, three times for forward and backward."""
    for vocab in (65, 1_000):
        config = ModelConfig(vocab_size=vocab, block_size=64, width=128, depth=4, heads=4)
        model = build_model(config)
        matrices = sum(
            module.weight.numel()
            for name, module in model.named_modules()
            if isinstance(module, torch.nn.Linear) and name != "head"
        )
        forward = 2 * (matrices + vocab * config.width + config.depth * config.block_size * config.width)
        assert config.training_flops_per_token() == 3 * forward
    small = {vocab: ModelConfig(vocab_size=vocab).training_flops_per_token() for vocab in (65, 1_000)}
    assert small == {65: 4_965_120, 1_000: 5_683_200}  # what ModelConfig's docstring says
