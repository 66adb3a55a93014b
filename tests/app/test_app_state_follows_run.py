"""AppTest: what a page shows follows the run it belongs to (issue 11, "state must follow").

Each test sets a page's own state on one corpus, switches the corpus in the sidebar as a
teacher would, and checks that the page shows only the new corpus's numbers.
"""

from __future__ import annotations

import time

from app_helpers import SMALL_CORPUS, metric, new_app

MERGES = "pages/1_Merge_by_merge.py"
TINY = "low lower lowest"  # 16 characters, 4 merges at minimum frequency 2


def switch_corpus(at, name: str):
    at.sidebar.selectbox(key="_w_settings_corpus").set_value(name)
    return at.run()


# ==================== Merge by merge


def test_a_new_corpus_starts_at_step_one():
    at = new_app(MERGES, settings_corpus=SMALL_CORPUS)
    for _ in range(2):
        at.button(key="merges_forward").click().run()
    assert metric(at, "Step") == "3 of 17"
    switch_corpus(at, TINY)
    assert metric(at, "Step").startswith("1 of ")
    assert at.query_params["step"] == "1"


def test_a_link_step_is_kept_on_the_first_visit():
    at = new_app(MERGES, query={"corpus": SMALL_CORPUS, "step": "14"})
    assert metric(at, "Step") == "14 of 17"


def test_step_back_works_while_playing_from_step_one():
    at = new_app(MERGES, settings_corpus=SMALL_CORPUS)
    at.button(key="merges_play").click().run()  # the timer has already moved to step 2
    assert metric(at, "Step") == "2 of 17"
    back = at.button(key="merges_back")
    assert not back.disabled  # in the browser the buttons are not redrawn by the timer's ticks
    back.click().run()
    assert not at.session_state["merges_playing"] and metric(at, "Step") == "1 of 17"


def test_the_player_has_presenter_shortcuts():
    at = new_app(MERGES, settings_corpus=SMALL_CORPUS)
    shortcuts = {key: at.button(key=key).proto.shortcut for key in ("merges_back", "merges_play", "merges_forward")}
    assert shortcuts == {"merges_back": "left", "merges_play": "space", "merges_forward": "right"}


# ==================== Tokenize

TOKENIZE = "pages/2_Tokenize.py"


def test_tokenize_opens_on_a_sentence_of_the_corpus_without_errors():
    at = new_app(TOKENIZE, settings_corpus=TINY)
    assert at.session_state["tokenize_text"] == TINY
    assert not at.error and not at.exception
    assert not any("outside" in caption.value for caption in at.caption)


def test_tokenize_text_typed_for_another_corpus_is_replaced():
    at = new_app(TOKENIZE, settings_corpus=SMALL_CORPUS)
    at.text_area(key="_w_tokenize_text").set_value("newest widest").run()
    switch_corpus(at, TINY)
    assert at.session_state["tokenize_text"] == TINY
    assert at.text_area(key="_w_tokenize_text").value == TINY


# ==================== Context window

CONTEXT = "pages/4_Context_window.py"
SHAKESPEARE = dict(
    settings_corpus="Tiny Shakespeare", settings_prefix_cap=20_000, settings_vocab=600, settings_train_up_to=600
)


def test_context_window_chips_read_like_their_rows_on_a_tiny_corpus():
    at = new_app(CONTEXT, settings_corpus=TINY)  # training stops at vocab 12, far below the sidebar's 1,000
    box = at.multiselect(key="_w_context_sizes")
    assert box.options == ["12"] and box.value == [12]
    assert list(at.table[0].value["tokenizer"])[:2] == ["characters", "BPE 12"]
    passages = "".join(h.value for h in at.html)
    assert "✂" not in passages and "end of text: 6 of 128 tokens used" in passages


def test_context_window_sizes_come_back_after_a_tiny_corpus():
    at = new_app(CONTEXT, **SHAKESPEARE)
    assert at.session_state["context_sizes"] == [500, 600]
    switch_corpus(at, TINY)
    assert at.session_state["context_sizes"] == [12]
    switch_corpus(at, "Tiny Shakespeare")
    assert at.session_state["context_sizes"] == [500, 600]
    assert [row for row in at.table[0].value["tokenizer"]][:3] == ["characters", "BPE 500", "BPE 600"]


# ==================== Vocabulary

VOCABULARY = "pages/5_Vocabulary.py"


def test_vocabulary_length_filter_covers_the_new_corpus():
    at = new_app(VOCABULARY, settings_corpus=SMALL_CORPUS)
    at.slider(key="_w_vocab_lengths").set_value((2, 3)).run()
    assert at.session_state["vocab_lengths"] == (2, 3)
    switch_corpus(at, "Tiny Shakespeare")
    learned = metric(at, "Learned tokens")
    longest = int(metric(at, "Longest token (characters)"))
    assert at.session_state["vocab_lengths"][1] == longest and longest > 3
    assert f"{learned} of {learned} learned tokens shown" in at.caption[0].value


# ==================== Model

MODEL = "pages/6_Model.py"


def test_model_tokenizer_choice_follows_the_offer():
    at = new_app(MODEL, **SHAKESPEARE)
    assert at.multiselect(key="_w_model_tokenizers").value == ["characters", "BPE 600"]
    switch_corpus(at, TINY)  # offers characters and BPE 12 only
    assert at.multiselect(key="_w_model_tokenizers").value == ["characters", "BPE 12"]
    assert not at.button(key="model_start").disabled
    switch_corpus(at, "Tiny Shakespeare")
    assert at.multiselect(key="_w_model_tokenizers").value == ["characters", "BPE 600"]
    assert not at.button(key="model_start").disabled


def test_model_says_why_train_is_disabled():
    at = new_app(MODEL, **SHAKESPEARE)
    at.multiselect(key="_w_model_tokenizers").set_value(["characters"]).run()
    assert at.button(key="model_start").disabled
    assert "Choose at least two tokenizers" in at.info[0].value
    at = new_app(MODEL, settings_corpus=TINY, settings_min_freq=5)  # no pair occurs 5 times: no merge at all
    assert at.button(key="model_start").disabled and "offers only characters" in at.info[0].value


def test_model_results_are_shown_only_for_the_corpus_that_produced_them():
    at = new_app(MODEL, **SHAKESPEARE, model_shape="tiny", model_steps=10)
    at.button(key="model_start").click().run()
    deadline = time.monotonic() + 120
    while at.session_state["model_job"].running:
        assert time.monotonic() < deadline
        time.sleep(0.3)
        at.run()
    at.run()
    assert at.table and at.get("plotly_chart") and any("Trained on 'Tiny Shakespeare'" in c.value for c in at.caption)
    switch_corpus(at, SMALL_CORPUS)
    assert not at.table and not at.get("plotly_chart") and not at.code  # no verdict, curves or samples
    note = at.info[0].value
    assert "The last models were trained on 'Tiny Shakespeare'" in note and "hidden" in note
    assert not any("won** by" in m.value or "No clear winner" in m.value for m in at.markdown)
    switch_corpus(at, "Tiny Shakespeare")
    assert at.table and at.get("plotly_chart")
