"""AppTest: the home page and the shared sidebar (corpus choice, uploads, links, errors)."""

from __future__ import annotations

import pytest
from app_helpers import ROOT, SMALL_CORPUS, metric, new_app, unescape_markdown
from streamlit import config

from bpe.corpora.corpus import load_corpus

SMALL_SIZE = len(load_corpus(SMALL_CORPUS))

PAGES = ["app.py"] + sorted(f"pages/{p.name}" for p in (ROOT / "pages").glob("[0-9]*_*.py"))


@pytest.mark.parametrize("script", PAGES)
def test_every_page_runs_with_no_prior_state(script):
    at = new_app(script)  # the default corpus (Tiny Shakespeare), trained once per process
    assert not at.exception
    assert not at.error
    assert at.title and at.sidebar.selectbox  # the shared sidebar is on every page


def test_home_summarises_the_run():
    at = new_app(settings_corpus=SMALL_CORPUS)
    assert at.title[0].value == "BPE Lab"
    assert metric(at, "Corpus size (characters)") == str(SMALL_SIZE)
    assert metric(at, "Merges learned") == "17"
    assert metric(at, "Training time").endswith(" s")
    assert float(metric(at, "Characters per token")) > 1
    assert "Training stopped after 17 merges" in at.info[0].value
    described = next(c.value for c in at.sidebar.caption if c.value.startswith("Training on"))
    assert described.startswith(f"Training on {SMALL_SIZE} characters, nothing held out")
    assert "Merge by merge" in [link.proto.label for link in at.get("page_link")]


def test_sidebar_shows_each_corpus_with_its_size():
    at = new_app(settings_corpus=SMALL_CORPUS)
    box = at.sidebar.selectbox(key="_w_settings_corpus")
    assert SMALL_CORPUS in box.options[0] or any(o.startswith(SMALL_CORPUS + " (") for o in box.options)
    assert any(o.startswith("Python language reference (") and o.endswith("KB)") for o in box.options)


# ==================== Uploads and pasted text


def upload(at, name: str, data: bytes):
    at.file_uploader(key="settings_upload").set_value((name, data, "text/plain"))
    return at.run()


@pytest.mark.parametrize(
    "data, message",
    [
        (b"caf\xe9 au lait", "caf.txt is not valid UTF-8: byte 0xE9 at byte offset 3"),
        (b"", "caf.txt is empty (0 bytes)"),
    ],
    ids=["not-utf8", "empty"],
)
def test_bad_upload_shows_why_and_keeps_the_previous_corpus(data, message):
    at = new_app(settings_corpus=SMALL_CORPUS)
    upload(at, "caf.txt", data)
    assert not at.exception
    shown = unescape_markdown(at.sidebar.error[0].value)
    assert message in shown and f"The previous corpus ('{SMALL_CORPUS}') stays selected." in shown
    assert at.session_state["settings_corpus"] == SMALL_CORPUS
    assert metric(at, "Merges learned") == "17"


def test_upload_over_the_configured_limit_is_refused():
    limit = config.get_option("server.maxUploadSize")
    config.set_option("server.maxUploadSize", 1)  # MB
    try:
        at = new_app(settings_corpus=SMALL_CORPUS)
        upload(at, "big.txt", b"a" * (1024 * 1024 + 1))
    finally:
        config.set_option("server.maxUploadSize", limit)
    assert "big.txt is 1,048,577 bytes (1.0 MB), over the limit of 1,048,576 bytes" in unescape_markdown(
        at.sidebar.error[0].value
    )
    assert at.session_state["settings_corpus"] == SMALL_CORPUS


def test_good_upload_is_selected_and_another_session_never_sees_it():
    at = new_app(settings_corpus=SMALL_CORPUS)
    upload(at, "mine.txt", b"secret secret secret text")
    assert at.session_state["settings_corpus"] == "upload: mine.txt"
    assert not at.sidebar.error
    assert metric(at, "Corpus size (characters)") == "25"
    assert "corpus" not in at.query_params  # uploads never go into links
    other = new_app()
    assert not any("mine.txt" in option for option in other.sidebar.selectbox(key="_w_settings_corpus").options)
    assert other.session_state["settings_user_corpora"] == {}


def test_pasted_text_becomes_the_corpus():
    at = new_app(settings_corpus=SMALL_CORPUS)
    at.text_area(key="settings_paste_box").input("abab abab abab")
    at.button(key="settings_use_paste").click().run()
    assert at.session_state["settings_corpus"] == "pasted text"
    assert metric(at, "Corpus size (characters)") == "14"


def test_empty_paste_is_refused_with_a_message():
    at = new_app(settings_corpus=SMALL_CORPUS)
    at.button(key="settings_use_paste").click().run()
    assert "The paste box is empty: paste some text into it first." in unescape_markdown(at.sidebar.error[0].value)
    assert at.session_state["settings_corpus"] == SMALL_CORPUS


def test_a_paste_over_the_limit_is_refused_in_words_about_pasting():
    at = new_app(settings_corpus=SMALL_CORPUS)
    at.text_area(key="settings_paste_box").input("ab " * (4 << 20))  # 12 MB, over the 10 MB of an upload
    at.button(key="settings_use_paste").click().run()
    shown = unescape_markdown(at.sidebar.error[0].value)
    assert "The pasted text is 12,582,912 bytes, over the limit of 10,485,760 bytes (10 MB" in shown
    assert "Paste a shorter part of it." in shown and "file" not in shown
    assert at.session_state["settings_corpus"] == SMALL_CORPUS


# ==================== Links, engine guard, errors


def test_a_link_reopens_corpus_vocab_and_min_freq():
    at = new_app(query={"corpus": "the cat in the hat", "vocab": "12", "min_freq": "1", "step": "2"})
    assert at.session_state["settings_corpus"] == "the cat in the hat"
    assert at.sidebar.slider(key="_w_settings_vocab").value == 12
    assert at.sidebar.number_input(key="_w_settings_min_freq").value == 1
    assert [m.value for m in at.metric if m.label.startswith("Merges used (of ")] == [
        str(12 - len(set("the cat in the hat")))
    ]
    shown = dict(at.query_params)  # the address bar carries the whole frame, as "Copy link to this frame" does
    assert {"corpus": "the cat in the hat", "vocab": "12", "min_freq": "1"}.items() <= shown.items()
    assert {"tie_rule", "alphabet", "pretok", "prefix", "text_hash"} <= set(shown)
    assert "step" not in shown  # the Merge-by-merge step belongs to that page's frame, not the home page's


def test_a_bad_link_is_skipped_with_a_note():
    at = new_app(query={"corpus": "no such text", "vocab": "lots"})
    notes = " ".join(unescape_markdown(w.value) for w in at.warning)
    assert "The link's corpus 'no such text' is not available here" in notes
    assert "The link's vocab='lots' is not a whole number" in notes
    assert not at.exception


def test_out_of_range_link_values_are_clamped():
    at = new_app(query={"corpus": SMALL_CORPUS, "min_freq": "99999999", "vocab": "3"})
    assert not at.exception
    assert at.sidebar.number_input(key="_w_settings_min_freq").value == 1_000_000
    assert at.sidebar.slider(key="_w_settings_vocab").value == 11  # the alphabet: no vocab can be smaller
    assert metric(at, "Merges learned") == "0"


def test_reference_engine_is_refused_on_large_text():
    at = new_app(settings_engine="reference")  # the default corpus is ~465,000 characters
    assert "too slow for" in at.sidebar.warning[0].value and "Using the fast engine" in at.sidebar.warning[0].value
    assert not at.exception


def test_reference_engine_runs_on_a_teaching_text():
    at = new_app(settings_corpus=SMALL_CORPUS, settings_engine="reference")
    assert not at.sidebar.warning and metric(at, "Merges learned") == "17"


def test_unreadable_corpus_file_is_an_error_message_not_a_traceback(tmp_path, monkeypatch):
    (tmp_path / "latin1.txt").write_bytes(b"caf\xe9\n" * 10)
    monkeypatch.setenv("BPE_CORPORA", str(tmp_path))
    at = new_app(query={"corpus": "latin1.txt"})
    assert not at.exception
    assert "is not valid UTF-8: byte 0xE9 at byte offset 3" in unescape_markdown(at.error[0].value)
    assert not at.metric  # the page stopped at the guard


@pytest.mark.shared_data
def test_wikitext_picked_through_bpe_corpora_trains(monkeypatch):
    """The issue's check: the app trains on WikiText-2's valid.txt found through BPE_CORPORA."""
    from helpers import shared_file

    valid = shared_file("wikitext-2/valid.txt")
    monkeypatch.setenv("BPE_CORPORA", str(valid.parent))
    at = new_app(query={"corpus": "valid.txt", "vocab": "400"}, settings_prefix_cap=60_000)
    assert not at.exception and not at.error
    used = next(m.value for m in at.metric if m.label.startswith("Merges"))  # learned, or used of learned
    assert int(used.replace(",", "")) > 250  # ~100 base characters, vocab 400
    assert at.session_state["settings_corpus"] == "valid.txt"
    assert "<unk>" in valid.read_text(encoding="utf-8")[:60_000]  # the word-level release, as shipped


def test_a_vocab_typed_outside_the_corpus_range_is_answered_in_words():
    """The number box takes any size; one below the alphabet (or above the top) is said in
    the sidebar and the nearest size is used, instead of a red outline and nothing else."""
    at = new_app(settings_corpus=SMALL_CORPUS)
    alphabet = int(at.sidebar.slider(key="_w_settings_vocab").min)
    at.sidebar.number_input(key="_w_settings_vocab_exact").set_value(3).run()
    said = [w.value for w in at.sidebar.warning]
    assert (
        f"Vocab size 3 is smaller than this corpus's alphabet ({alphabet:,} base tokens: a vocab holds every one of them); using {alphabet:,}."
        in said
    )
    assert at.session_state["settings_vocab"] == alphabet and not at.exception
    at.run()  # said once, when it happened
    assert not [w for w in at.sidebar.warning if "Vocab size 3" in w.value]
