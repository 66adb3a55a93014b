"""The film to take away: one self-contained HTML file, escaped, that needs no network."""

from __future__ import annotations

import html
import json
import re

import pytest

from bpe.corpora.corpus import load_corpus
from bpe.run import train_run
from pages._shared.render.film_html import film_html, script_json
from pages._shared.state.settings import DEFAULTS, Settings, Trained, app_training
from pages._shared.views.merge_by_merge.film_download import film_file

EVIL = "</script><script>alert(1)</script> <img src=x onerror=alert(2)> &amp; \u2028 <!-- " * 6


def settings_for(corpus: str, **changes) -> Settings:
    """The settings of a run on ``corpus``; ``changes``: fields of its training settings."""
    training = dict(
        target_vocab_size=400,
        minimum_pair_frequency=1,
        engine="fast",
        alphabet="characters",
        pretokenizer=None,
        tie_rule=DEFAULTS["settings_tie_rule"],
    )
    training.update(changes)
    return Trained(
        corpus=corpus,
        corpus_version="v",
        prefix_cap=500_000,
        heldout_fraction=0.0,
        training=app_training(**training),
        vocab_size=400,
        top_k=10,
    )


def embedded(document: str) -> dict:
    block = re.search(r'<script type="application/json" id="film-data">(.*?)</script>', document, re.S).group(1)
    return json.loads(block)


def film_of(text: str, merges: int, corpus: str = "a corpus", **changes) -> str:
    settings = settings_for(corpus, **changes)
    run = train_run(
        text,
        target_vocab_size=settings.training.target_vocab_size,
        minimum_pair_frequency=settings.training.minimum_pair_frequency,
        top_k=20,
        alphabet=settings.training.alphabet,
        pretokenizer=settings.training.pretokenizer,
    )
    return film_file(settings, run, text[:600], merges)


@pytest.mark.parametrize("corpus", ["low lower lowest", "Tiny Shakespeare"])
def test_the_film_holds_the_first_merges_and_plays_them_offline(corpus):
    text = load_corpus(corpus)[:20_000]
    document = film_of(text, 25)
    data = embedded(document)
    assert 0 < len(data["frames"]) <= 25 and data["frames"][0]["number"] == 1
    assert "Content-Security-Policy" in document and "default-src 'none'" in html.unescape(document)
    assert not re.search(r"\s(src|href)=", document)  # nothing to fetch: no scripts, styles or images from outside
    assert "http" not in document.split("<script>")[0].replace("http-equiv", "")


def test_the_film_of_wikitext_plays_its_merges():
    from helpers import shared_file

    text = shared_file("wikitext-2/valid.txt").read_text(encoding="utf-8")[:30_000]
    data = embedded(film_of(text, 40, minimum_pair_frequency=2))
    assert len(data["frames"]) == 40
    assert data["frames"][0]["count"] >= data["frames"][-1]["count"]


def test_html_in_the_corpus_stays_text():
    document = film_of(EVIL, 20, corpus="<b>my</b><script>alert(3)</script>", pretokenizer="whitespace")
    payload = document.split('<script type="application/json" id="film-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in payload and ">" not in payload and "&" not in payload  # nothing can end the block
    assert "\u2028" not in payload
    assert "<script>alert" not in document and "<img" not in document and "<b>my</b>" not in document
    assert "&lt;b&gt;my&lt;/b&gt;&lt;script&gt;alert(3)" in document  # the corpus's name, as text
    tokens = embedded(document)["tokens"].values()
    assert any("<" in token for token in tokens)  # the tokens themselves are kept, as text


def test_the_scripts_hash_in_the_policy_is_the_script():
    import base64
    import hashlib

    document = film_html({"title": "t", "merges": 0, "frames": [], "tokens": {}}, "about")
    script = document.rsplit("<script>", 1)[1].split("</script>", 1)[0]
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert f"'sha256-{digest}'" in html.unescape(document)


def test_script_json_escapes_what_could_end_a_script():
    assert script_json({"a": "</script><!--&\u2029"}) == '{"a":"\\u003c/script\\u003e\\u003c!--\\u0026\\u2029"}'
    assert json.loads(script_json({"a": "</script>"})) == {"a": "</script>"}
