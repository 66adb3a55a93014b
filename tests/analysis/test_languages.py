"""The same content in several languages: tokens per language (bpe.analysis.languages)."""

from __future__ import annotations

import pytest

from bpe.analysis.languages import encoded_costs, language_costs
from bpe.corpora.builtin import LIGHTHOUSE

TEXTS = {name: text for name, text in LIGHTHOUSE.values()}


def test_before_any_merge_a_token_is_a_byte():
    costs = language_costs({"English": "the sea", "Greek": "η θάλασσα"}, merges=0)
    assert [(c.language, c.tokens, c.utf8_bytes) for c in costs] == [("English", 7, 7), ("Greek", 17, 17)]
    assert costs[1].times_baseline == pytest.approx(17 / 7) and costs[0].times_baseline == 1.0


@pytest.mark.parametrize("mode", ["shared", "separate"])
def test_every_language_is_priced_with_the_same_number_of_merges(mode):
    costs = language_costs(TEXTS, merges=100, mode=mode, baseline="English")
    assert [c.language for c in costs] == list(TEXTS)
    for cost in costs:
        text = TEXTS[cost.language]
        assert cost.characters == len(text) and cost.utf8_bytes == len(text.encode("utf-8"))
        assert 0 < cost.tokens < cost.utf8_bytes  # merges shorten every language
        assert cost.vocab_size <= 256 + 100
    english = costs[0].tokens
    assert all(c.baseline_tokens == english for c in costs)


def test_a_shared_tokenizer_trained_on_all_languages_charges_non_latin_scripts_more():
    costs = {c.language: c for c in language_costs(TEXTS, merges=200, mode="shared", baseline="English")}
    assert costs["Hindi"].times_baseline > costs["French"].times_baseline
    assert len({c.vocab_size for c in costs.values()}) == 1  # one tokenizer for all


def test_a_ready_tokenizer_is_priced_the_same_way():
    class Bytes:
        vocab_size = 256

        def encode(self, text):
            return list(text.encode("utf-8"))

    costs = encoded_costs({"English": "sea", "Russian": "море"}, Bytes())
    assert [c.tokens for c in costs] == [3, 8] and costs[1].times_baseline == pytest.approx(8 / 3)


def test_an_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="mode='both'"):
        language_costs(TEXTS, merges=10, mode="both")


def test_a_byte_tokenizer_trains_under_the_apps_bound_on_token_characters(monkeypatch):
    import bpe.analysis.languages as languages

    monkeypatch.setattr(languages, "MAX_VOCAB_CHARACTERS", 3_000)
    text = "".join(chr(0x4E00 + i) for i in range(400)) * 2  # every pair seen twice: one token grows
    merges = languages.train_byte_tokenizer(text, 1_000).merges
    assert 0 < len(merges) < 1_000
    assert sum(len(a + b) for a, b in merges) <= 3_000
