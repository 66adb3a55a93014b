"""The Languages page's parity switch: standard and parity-aware BPE side by side, from one
training each, the bars and totals those trainings give."""

from __future__ import annotations

from app_helpers import metric, new_app, plotly_specs

from bpe.corpora.builtin import LIGHTHOUSE
from bpe.variants.parity import PARITY, STANDARD, train_multilingual

LANGUAGES = "pages/9_Languages.py"


def test_parity_switch_shows_both_rules_with_the_numbers_their_trainings_give():
    at = new_app(LANGUAGES, languages_parity=True, languages_merges=300)
    assert not at.exception and not at.error
    texts = {name: text for name, text in LIGHTHOUSE.values()}
    expected = {rule: train_multilingual(texts, merges=300, rule=rule).tokens_after(300) for rule in (STANDARD, PARITY)}
    assert metric(at, "All languages, standard BPE") == f"{sum(expected[STANDARD]):,} tokens"
    assert metric(at, "All languages, parity-aware BPE") == f"{sum(expected[PARITY]):,} tokens"
    bars, curve = plotly_specs(at)[:2]
    heights = {trace["name"].split(",")[0]: trace["y"] for trace in bars["data"]}
    parity_bars = next(y for name, y in heights.items() if name.startswith("parity"))
    standard_bars = next(y for name, y in heights.items() if name.startswith("standard"))
    assert max(parity_bars) < max(standard_bars)  # the costliest language costs less under parity
    assert parity_bars[0] == standard_bars[0] == 1.0  # English is the baseline
    assert [trace["name"] for trace in curve["data"]] == ["standard BPE", "parity-aware BPE"]
    # one shared tokenizer under both rules: said in words where the radio was, not a radio that does not answer
    assert not [radio for radio in at.radio if radio.key == "_w_languages_mode"]
    assert any("**Train:** one tokenizer for all. Parity-aware BPE" in m.value for m in at.markdown)


def test_switching_parity_off_gives_back_the_earlier_view():
    at = new_app(LANGUAGES, languages_parity=True)
    at.toggle(key="_w_languages_parity").set_value(False).run()
    assert not at.exception and not at.error
    assert not [m for m in at.metric if m.label.startswith("All languages")]
    assert not at.radio(key="_w_languages_mode").disabled
