"""Special tokens, the cs336 preset and the homework check in the app (AppTest): a
TinyStories-style text with <|endoftext|> trains with no merge touching the marker, the
special token draws as a segment of its own, the preset sets its settings and says so,
links carry the special tokens, and the homework check finds where a merges file trained
with the smaller-pair rule parts from CS336's rule, and why."""

from __future__ import annotations

import json

from app_helpers import new_app, unescape_markdown

from bpe import BPETokenizer
from bpe.alphabet import gpt2_spelling
from bpe.training import CS336, preset_fields
from bpe.wording import counted

EOT = "<|endoftext|>"
STORIES = "".join(
    f"Once upon a time, {name} had a {thing}. {name} liked to play with the {thing} every day.{EOT}"
    for name, thing in [("Tom", "red ball"), ("Lily", "big dog"), ("Sam", "little cat"), ("Mia", "blue kite")] * 40
)
OWN_TEXT = {
    "settings_user_corpora": {"pasted text": STORIES},
    "settings_corpus": "pasted text",
    "settings_heldout": 0.0,
}
CS336_STATE = dict(
    settings_alphabet="bytes",
    settings_pretokenizer="gpt2",
    settings_tie_rule="lexicographic_greatest",
    settings_min_freq=1,
    settings_special_tokens=[EOT],
)
VOCABULARY, MERGES, COMPARE = "pages/5_Vocabulary.py", "pages/1_Merge_by_merge.py", "pages/8_Compare_runs.py"


def test_stories_with_the_marker_train_with_no_merge_touching_it():
    at = new_app(VOCABULARY, **OWN_TEXT, **CS336_STATE, settings_vocab=400, settings_train_up_to=400)
    assert not at.exception
    learned = list(at.dataframe[0].value["token"])
    assert len(learned) > 60
    assert not [token for token in learned if "|" in token or "endoftext" in token or "<" in token]
    # the same text without the special token learns pieces of the marker
    plain = new_app(VOCABULARY, **OWN_TEXT, **{**CS336_STATE, "settings_special_tokens": []})
    assert [token for token in plain.dataframe[0].value["token"] if "|" in token]


def test_a_special_token_is_one_segment_in_a_style_of_its_own():
    at = new_app(MERGES, **OWN_TEXT, **CS336_STATE, settings_vocab=300, settings_train_up_to=300)
    assert not at.exception
    shown = "".join(element.proto.body for element in at.get("html"))
    assert 'class="tok special"' in shown and "&lt;|endoftext|&gt;</span>" in shown
    sidebar = " ".join(caption.value for caption in at.sidebar.caption)
    assert "256 base tokens and 1 special token" in sidebar


def test_the_preset_sets_its_settings_says_so_and_a_setting_changed_after_it_wins():
    at = new_app("app.py", settings_corpus="low lower newest widest")
    at.selectbox(key="_w_settings_preset").set_value(CS336).run()
    assert not at.exception
    state = at.session_state
    assert (state["settings_alphabet"], state["settings_pretokenizer"], state["settings_min_freq"]) == (
        "bytes",
        "gpt2",
        1,
    )
    assert state["settings_tie_rule"] == "lexicographic_greatest" and state["settings_special_tokens"] == [EOT]
    said = unescape_markdown(" ".join(caption.value for caption in at.sidebar.caption))
    assert "Preset cs336 (Stanford CS336 (assignment 1)) set the bytes alphabet" in said
    at.number_input(key="_w_settings_min_freq").set_value(2).run()
    said = unescape_markdown(" ".join(caption.value for caption in at.sidebar.caption))
    assert "given instead: minimum pair frequency 2" in said


def test_a_link_on_a_presets_settings_opens_with_that_preset_named():
    query = {"corpus": "low lower newest widest", "alphabet": "bytes", "pretok": "gpt2"}
    query |= {"tie_rule": "lexicographic_greatest", "min_freq": 1, "specials": json.dumps([EOT])}
    at = new_app(MERGES, query=query)
    assert not at.exception and at.session_state["settings_preset"] == CS336
    assert "Preset cs336" in unescape_markdown(" ".join(caption.value for caption in at.sidebar.caption))
    at = new_app(MERGES, query={**query, "min_freq": 2})  # one setting off: no preset claimed
    assert at.session_state["settings_preset"] == "none"


def test_a_link_carries_the_special_tokens():
    at = new_app(MERGES, query={"corpus": "low lower newest widest", "specials": json.dumps(["<w>", EOT])})
    assert not at.exception
    assert at.session_state["settings_special_tokens"] == ["<w>", EOT]
    assert json.loads(at.query_params["specials"]) == ["<w>", EOT]
    bad = new_app(MERGES, query={"corpus": "low lower newest widest", "specials": '["ok", 3]'})
    assert not bad.exception and bad.session_state["settings_special_tokens"] == []
    notes = unescape_markdown(" ".join(element.value for element in [*bad.info, *bad.warning, *bad.markdown]))
    assert "specials=['ok', 3] is not a list of at most 20 texts" in notes


# ==================== The homework check


def cs336_files(tokenizer: BPETokenizer) -> tuple[bytes, bytes]:
    """A tokenizer written as CS336's merges.txt and vocab.json (GPT-2's byte spelling; the
    special tokens as their own text): what a student's code saves."""
    merges = "".join(f"{gpt2_spelling(left)} {gpt2_spelling(right)}\n" for left, right in tokenizer.merges)
    ids = tokenizer.special_tokens
    vocab = {
        (token.decode() if token_id in ids.values() else gpt2_spelling(token)): token_id
        for token_id, token in enumerate(tokenizer.tokens)
    }
    return merges.encode(), json.dumps(vocab).encode()


def test_the_homework_check_finds_where_smaller_pair_merges_part_from_cs336():
    # a student's code: CS336's settings, but ties to the smaller pair, on the text the app trains on
    student = BPETokenizer.train(STORIES, 257 + 80, **{**preset_fields(CS336), "tie_rule": "lexicographic"})
    reference = BPETokenizer.train(STORIES, 257 + 80, **preset_fields(CS336))
    parted = next(i for i, (a, b) in enumerate(zip(student.merges, reference.merges), start=1) if a != b)
    merges, vocab = cs336_files(student)
    at = new_app(COMPARE, **OWN_TEXT, **CS336_STATE)
    assert not at.exception
    at.file_uploader(key="compare_homework_files").set_value(
        [("merges.txt", merges, "text/plain"), ("vocab.json", vocab, "application/json")]
    ).run()
    assert not at.exception
    assert (
        f"Your merges are BPE Lab's under **lexicographic**: all {len(student.merges)} of them" in at.success[0].value
    )
    cs336 = unescape_markdown(next(m.value for m in at.markdown if m.value.startswith("**Against Stanford CS336")))
    assert (
        f"the same for {counted(parted - 1, 'merge')}. At merge {parted}" in cs336
        and "A tie broken the other way" in cs336
    )
    ours, theirs = reference.merges[parted - 1], student.merges[parted - 1]
    assert "yours took the smaller pair" in cs336 and "both are counted" in cs336
    table = at.dataframe[-1].value.set_index("BPE Lab's run")
    assert table.loc["lexicographic", "why"] == "the same"
    assert table.loc["lexicographically greatest (as Stanford CS336)", "first difference"] == f"merge {parted}"
    assert table.loc["preset cs336", "why"] == "a tie broken the other way"
    assert ours != theirs and table.loc["preset cs336", "same merges"] == parted - 1


def test_a_pickle_or_a_broken_file_is_one_line_and_nothing_else_changes():
    at = new_app(COMPARE, **OWN_TEXT, **CS336_STATE)
    at.file_uploader(key="compare_homework_files").set_value(
        [("merges.pkl", b"\x80\x04junk", "application/octet-stream")]
    ).run()
    assert not at.exception and "is a pickle" in unescape_markdown(at.error[0].value)
    at.file_uploader(key="compare_homework_files").set_value(
        [("merges.txt", b"G t\nbad line here\n", "text/plain")]
    ).run()
    assert not at.exception and "line 2: expected two tokens" in unescape_markdown(at.error[0].value)
