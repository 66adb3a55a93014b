"""Real browser: the training rules beyond the textbook (`bpe.variants`) train from a link,
replay in the film with what makes each different (Picky's removals fading out, SuperBPE's
transition, length-weighted BPE's scores), mark SuperBPE's transition on the compression
curve, and compare with standard BPE on Compare runs."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from e2e.conftest import settle
from playwright.sync_api import expect

from bpe.corpora.corpus import PYTHON_REFERENCE, load_corpus, split_train_heldout
from bpe.variants.rule_runs import train_variant_run
from bpe.variants.rules import Variant
from pages._shared.state.settings import app_training

pytestmark = pytest.mark.e2e
LINK = {"corpus": PYTHON_REFERENCE, "prefix": "12000", "vocab": "400", "train_to": "400", "pretok": "gpt2"}
TRAINING = 90_000  # ms: the first visit trains the run


def expected_run(variant: Variant):
    train, heldout = split_train_heldout(load_corpus(PYTHON_REFERENCE)[:12_000], 0.1)
    return train_variant_run(
        train, app_training(target_vocab_size=400, pretokenizer="gpt2"), variant, heldout_text=heldout
    )


def open_film(page, app_url: str, **params) -> None:
    page.goto(f"{app_url}/Merge_by_merge?{urlencode({**LINK, **params})}")
    expect(page.get_by_role("heading", name="Merge by merge")).to_be_visible()


def test_picky_removals_fade_out_in_the_film(page, app_url, screenshot):
    run = expected_run(Variant("picky"))
    step = next(s for s in run.steps if s.removed)
    open_film(page, app_url, rule="picky", step=str(step.number))
    removals = page.locator(".bpe-removals")
    expect(removals).to_be_visible(timeout=TRAINING)
    expect(removals).to_contain_text("≥ 0.9")
    chip = removals.locator(".bpe-removed").first
    expect(chip).to_have_css("animation-name", "bpe-fade")
    expect(chip).to_have_css("animation-fill-mode", "forwards")  # it stays faded
    # the fade lasts 1.6 s: wait for the chip to have faded (a timeout if it never does)
    page.wait_for_function("e => Number(getComputedStyle(e).opacity) < 0.5", arg=chip.element_handle(), timeout=10_000)
    screenshot(page, "picky_film")
    assert page.off_origin_requests == []


def test_superbpe_transition_in_the_film_and_on_the_curve(page, app_url, screenshot):
    run = expected_run(Variant("superbpe", transition=150))
    open_film(page, app_url, rule="superbpe", transition="150", step=str(run.joined_after + 1))
    badge = page.locator(".bpe-rule-badge").filter(has_text="transition")
    expect(badge).to_be_visible(timeout=TRAINING)
    expect(page.get_by_text("From this merge on the chunks join across whitespace")).to_be_visible()
    page.goto(f"{app_url}/Compression?{urlencode({**LINK, 'rule': 'superbpe', 'transition': '150'})}")
    expect(page.get_by_text("chunks join (SuperBPE)").first).to_be_visible(timeout=TRAINING)  # the curve's mark
    screenshot(page, "superbpe_compression")


def test_length_weighted_chart_and_compare_runs(page, app_url, screenshot):
    open_film(page, app_url, rule="length_weighted", step="5")
    expect(page.get_by_text("not Length-MAX itself")).to_be_visible(timeout=TRAINING)
    expect(page.locator(".js-plotly-plot .ytitle").filter(has_text="count × length").first).to_be_visible()
    page.goto(f"{app_url}/Compare_runs?{urlencode(LINK)}")
    expect(page.get_by_role("heading", name="Compare runs")).to_be_visible()
    # the form's boxes are drawn as skeletons first: wait for the run to end, then open each box itself
    settle(page)
    main = page.get_by_test_id("stMain")  # the sidebar has a "Training rule" too
    main.locator(".st-key-compare_variant_name").get_by_role("combobox").click()
    page.get_by_role("option", name="length-weighted BPE", exact=True).click()
    main.locator(".st-key-compare_variant_rule").get_by_role("combobox").click()
    page.get_by_role("option", name="first occurrence", exact=False).first.click()
    page.get_by_role("button", name="Train and compare as run B").click()
    expect(page.get_by_text("The training rule decided")).to_be_visible(timeout=TRAINING)
    expect(page.get_by_text("count × length").first).to_be_visible()
    screenshot(page, "compare_length_weighted")
    assert page.off_origin_requests == []
