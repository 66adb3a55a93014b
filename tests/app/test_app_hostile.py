"""The app under hostile input and a shared server (issue 15): unsafe tokenizer files are
refused with a reason, what a session holds is bounded, an edited corpus file is re-read,
model jobs wait their turn, and visitors never see a traceback."""

from __future__ import annotations

import json
import time
import tomllib

import pytest
from app_helpers import ROOT, SMALL_CORPUS, new_app, unescape_markdown
from helpers import CAPTURING_PATTERN as CAPTURING
from helpers import EXPANDING_PATTERN as EXPANDING
from helpers import EXPONENTIAL_PATTERN as EXPONENTIAL
from helpers import tokenizer_file_with_pattern as tokenizer_file

VOCABULARY, MODEL = "pages/5_Vocabulary.py", "pages/6_Model.py"


def upload_tokenizer(at, name: str, data: bytes):
    at.file_uploader(key="vocab_upload").set_value((name, data, "application/json"))
    return at.run()


def upload_text(at, name: str, data: bytes):
    at.file_uploader(key="settings_upload").set_value((name, data, "text/plain"))
    return at.run()


# ==================== 1. an uploaded tokenizer never runs an unsafe regex


@pytest.mark.parametrize(
    "pattern, reason",
    [
        (EXPANDING, "repeats too much to compile safely"),
        (EXPONENTIAL, "catastrophic backtracking"),
        (CAPTURING, "capturing group"),
    ],
)
def test_a_tokenizer_upload_with_an_unsafe_pattern_is_refused(pattern, reason):
    at = upload_tokenizer(new_app(VOCABULARY, settings_corpus=SMALL_CORPUS), "hostile.json", tokenizer_file(pattern))
    assert not at.exception
    shown = unescape_markdown(at.error[0].value)
    assert shown.startswith("Refused: hostile.json") and reason in shown
    assert "vocab_uploaded" not in at.session_state


def test_a_deeply_nested_tokenizer_upload_is_refused_not_a_traceback():
    at = upload_tokenizer(new_app(VOCABULARY, settings_corpus=SMALL_CORPUS), "deep.json", b"[" * 100_000)
    assert not at.exception
    assert "deep.json" in unescape_markdown(at.error[0].value) and "too deeply" in at.error[0].value


# ==================== 5. what one session can make the server hold


def test_a_tokenizer_upload_is_bounded_by_its_merge_count():
    many = json.dumps(
        {
            "type": "character_bpe",
            "base_tokens": ["a", "b"],
            "merges": [["a", "b"]] * 60_001,
            "vocab_size": 3,
            "fingerprint": "0" * 64,
        }
    ).encode()  # 660 KB: small in bytes
    at = upload_tokenizer(new_app(VOCABULARY, settings_corpus=SMALL_CORPUS), "many.json", many)
    assert not at.exception
    assert "many.json has 60,001 merges; the most this server accepts is 60,000" in unescape_markdown(at.error[0].value)


def test_a_tokenizer_upload_is_bounded_by_its_size():
    big = b'{"pad": "' + b"x" * 5_000_000 + b'"}'
    at = upload_tokenizer(new_app(VOCABULARY, settings_corpus=SMALL_CORPUS), "big.json", big)
    assert "big.json is 5,000,011 bytes; the most this server accepts is 5,000,000" in unescape_markdown(
        at.error[0].value
    )


def test_a_session_keeps_only_its_last_three_texts_and_says_so():
    at = new_app(settings_corpus=SMALL_CORPUS)
    for number in range(1, 6):
        upload_text(at, f"text{number}.txt", f"text number {number} ".encode() * 50)
    assert not at.exception
    kept = at.session_state["settings_user_corpora"]
    assert list(kept) == ["upload: text3.txt", "upload: text4.txt", "upload: text5.txt"]
    assert at.session_state["settings_corpus"] == "upload: text5.txt"
    note = unescape_markdown(at.sidebar.info[0].value)
    assert "keeps your last 3 texts" in note and "'upload: text2.txt' was let go" in note


# ==================== 6. a listed corpus edited in place is read again


def test_a_listed_corpus_edited_in_place_shows_the_new_text(tmp_path, monkeypatch):
    folder = tmp_path / "corpora"
    folder.mkdir()
    corpus = folder / "mine.txt"
    corpus.write_text("aaaa aaaa aaaa aaaa\n", encoding="utf-8")
    monkeypatch.setenv("BPE_CORPORA", str(folder))
    at = new_app(settings_corpus="mine.txt", settings_vocab=5, settings_train_up_to=5)
    assert not at.exception
    assert at.session_state["settings_run_memo"][1].steps[0].pair == ("a", "a")
    time.sleep(0.05)  # an editor saves a moment later
    corpus.write_text("bbbb bbbb bbbb bbbb\n", encoding="utf-8")  # the same size
    at.run()
    assert not at.exception
    assert at.session_state["settings_run_memo"][1].steps[0].pair == ("b", "b")


# ==================== 4. no tracebacks or server paths for visitors


def test_the_server_shows_visitors_no_error_details():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["client"]["showErrorDetails"] == "none"


def test_a_listed_corpus_that_cannot_be_read_is_named_not_its_path(tmp_path, monkeypatch):
    folder = tmp_path / "corpora"
    folder.mkdir()
    (folder / "latin1.txt").write_bytes("caf\xe9".encode("latin-1") * 10)
    monkeypatch.setenv("BPE_CORPORA", str(folder))
    at = new_app(settings_corpus="latin1.txt")
    assert not at.exception
    shown = unescape_markdown(at.error[0].value)
    assert "latin1.txt is not valid UTF-8" in shown and str(tmp_path) not in shown


# ==================== 2. model jobs wait their turn, and say where they stand


@pytest.fixture
def one_slot(monkeypatch):
    import pages._shared.data.jobs as model

    monkeypatch.setattr(model, "training_slots", lambda: 1)
    model.server_slots.clear()
    yield
    for job in model.server_slots().jobs():
        job.stop()
    model.server_slots().stop_all(timeout=60)
    model.server_slots.clear()


def test_a_second_job_waits_and_is_told_how_many_are_ahead(one_slot):
    import pages._shared.data.jobs as model

    quick = dict(
        settings_prefix_cap=30_000, settings_vocab=300, settings_train_up_to=300, model_shape="tiny", model_steps=5_000
    )

    first, second = new_app(MODEL, **quick), new_app(MODEL, **quick)
    first.button(key="model_start").click().run()
    # Each job joins the line on its own thread: started at once, the second's thread may
    # join first and train, leaving the first to wait. The second starts once the first holds
    # the one slot (listed among the machine's jobs, and waiting nowhere).
    started, slots = first.session_state["model_job"], model.server_slots()
    deadline = time.monotonic() + 60
    while not (started in slots.jobs() and slots.place(started) is None) and time.monotonic() < deadline:
        time.sleep(0.05)
    second.button(key="model_start").click().run()
    job = second.session_state["model_job"]
    assert job.running
    # The second learns its place in the line on its own thread, on a busy machine after
    # the page that started it has been drawn; the page's next run says so.
    deadline = time.monotonic() + 60
    while ((place := job.snapshot().place) is None or place.training < 1) and time.monotonic() < deadline:
        time.sleep(0.05)
    second.run()
    shown = [p.proto.text for p in second.get("progress")]
    assert any("The server is busy: 1 model job training" in text for text in shown), shown
    second.button(key="model_stop").click().run()
    first.button(key="model_stop").click().run()
    assert second.session_state["model_job"].wait(timeout=10)
    assert first.session_state["model_job"].wait(timeout=60)


def test_a_tokenizer_upload_smaller_than_the_runs_alphabet_is_shown_not_a_traceback():
    """Found by probing: a valid file of 3 tokens beside a run of 11 base tokens made the
    page ask the run for its merges at vocab 3, which raised (the app's exception box)."""
    from bpe import BPETokenizer
    from bpe.storage import to_json_text

    small = to_json_text(BPETokenizer.train("abab", 3).data()).encode()
    at = upload_tokenizer(new_app(VOCABULARY, settings_corpus=SMALL_CORPUS), "small.json", small)
    assert not at.exception
    assert "Loaded small.json" in unescape_markdown(at.success[0].value)
