"""Real browser: the homework check. A merges file trained with the smaller-pair rule (made
here by the test's own code, in CS336's format: merges.txt + vocab.json in GPT-2's byte
spelling) is uploaded on Compare runs under the cs336 settings: the page finds it equal to
the lexicographic run and says where it parts from CS336's rule, a tie broken the other
way, with both pairs and the count. At 1280x800 and 1024x768, presenter mode off and on."""

from __future__ import annotations

import json
from urllib.parse import urlencode

import pytest
from e2e.conftest import settle, sized_page
from playwright.sync_api import expect

from bpe import BPETokenizer
from bpe.alphabet import gpt2_spelling
from bpe.corpora.corpus import load_corpus
from bpe.training import CS336, preset_fields

pytestmark = pytest.mark.e2e
EOT = "<|endoftext|>"
PREFIX = 20_000
ERRORS = '[data-testid="stException"], [data-testid="stAlertContentError"]'
LINK = {
    "corpus": "Tiny Shakespeare",
    "prefix": PREFIX,
    "heldout": 0,
    "alphabet": "bytes",
    "pretok": "gpt2",
    "tie_rule": "lexicographic_greatest",
    "min_freq": 1,
    "specials": json.dumps([EOT]),
}


def student_files(folder):
    """What a student's code saves after training the page's text with ties to the smaller pair."""
    text = load_corpus("Tiny Shakespeare")[:PREFIX]  # the text the page trains on: nothing held out
    student = BPETokenizer.train(text, 257 + 120, **{**preset_fields(CS336), "tie_rule": "lexicographic"})
    merges = folder / "merges.txt"
    merges.write_text("".join(f"{gpt2_spelling(a)} {gpt2_spelling(b)}\n" for a, b in student.merges), encoding="utf-8")
    vocab = folder / "vocab.json"
    specials = set(student.special_tokens.values())
    vocab.write_text(
        json.dumps({(t.decode() if i in specials else gpt2_spelling(t)): i for i, t in enumerate(student.tokens)}),
        encoding="utf-8",
    )
    return [str(merges), str(vocab)], len(student.merges)


@pytest.mark.parametrize("width, height", [(1280, 800), (1024, 768)])
def test_the_homework_check_finds_where_smaller_pair_merges_part(browser, app_url, tmp_path, screenshot, width, height):
    files, count = student_files(tmp_path)
    with sized_page(browser, app_url, width, height) as page:
        page.goto(f"{app_url}/Compare_runs?{urlencode(LINK)}")
        expect(page.get_by_role("heading", name="Check your own BPE")).to_be_visible(timeout=90_000)
        settle(page)
        uploader = page.get_by_test_id("stFileUploader").filter(has_text="Your merges")
        uploader.locator("input[type=file]").set_input_files(files)
        expect(page.get_by_text(f"Your merges are BPE Lab's under lexicographic: all {count} of them")).to_be_visible(
            timeout=120_000
        )
        settle(page)  # the verdict is drawn before the rest of the run: wait for its end
        cs336 = page.get_by_text("Against Stanford CS336 (the preset)").first  # also bold in "Why, for each run"
        expect(cs336).to_be_visible()
        expect(page.get_by_text("A tie broken the other way: both are counted").first).to_be_visible()
        expect(page.get_by_text("yours took the smaller pair").first).to_be_visible()
        expect(page.locator(ERRORS)).to_have_count(0)
        side = page.get_by_test_id("stSidebar")
        for presenter in (False, True):
            if presenter:
                side.get_by_text("Presenter mode: larger type").click()
                settle(page)
                expect(cs336).to_be_visible()
                expect(page.locator(ERRORS)).to_have_count(0)
            page.get_by_role("heading", name="Check your own BPE").scroll_into_view_if_needed()
            mode = "presenter" if presenter else "plain"
            screenshot(page, f"homework_check_{mode}_{width}x{height}", height=max(height, 1600))
        assert page.off_origin_requests == []
