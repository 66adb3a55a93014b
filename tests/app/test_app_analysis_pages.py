"""AppTest: the analysis pages (Tokenize, Compression, Context window, Vocabulary).

Each test seeds the shared sidebar's state with a small corpus, lets the page train it
(cached per process), and checks the numbers a user reads against `bpe` called directly
on the same settings.
"""

from __future__ import annotations

import pytest
from app_helpers import metric, new_app, plotly_specs, unescape_markdown

from bpe import train_run
from bpe.analysis.exports import tokenizer_json
from bpe.analysis.lineage import lineage_lines, lineage_of
from bpe.analysis.metrics import compression, context_coverage, token_lengths, token_usage
from bpe.analysis.vocab_sizes import spread_sizes
from bpe.analysis.vocabulary import learned_tokens
from bpe.corpora.corpus import PYTHON_REFERENCE, load_corpus, split_train_heldout
from bpe.text import printable
from pages._shared.state.controls import COMPRESSION_SIZES

TOKENIZE, COMPRESSION, CONTEXT, VOCABULARY = (
    "pages/2_Tokenize.py",
    "pages/3_Compression.py",
    "pages/4_Context_window.py",
    "pages/5_Vocabulary.py",
)
SMALL = "low lower newest widest"  # under 2,000 characters: never split; 17 merges at minimum frequency 2
# 6,000 characters of the Python reference: split 5,400 / 600, so there is a held-out curve
PROSE = dict(settings_corpus=PYTHON_REFERENCE, settings_prefix_cap=6_000, settings_vocab=300, settings_train_up_to=300)


def small_run():
    return train_run(load_corpus(SMALL), target_vocab_size=1_000)


def prose_run():
    train, heldout = split_train_heldout(load_corpus(PYTHON_REFERENCE)[:6_000], 0.1)
    return train, heldout, train_run(train, target_vocab_size=300, heldout_text=heldout)


def spans_html(at) -> str:
    return "".join(h.value for h in at.html)


@pytest.mark.parametrize("script", [TOKENIZE, COMPRESSION, CONTEXT, VOCABULARY])
def test_page_runs_with_no_prior_state(script):
    at = new_app(script)
    assert not at.exception and not at.error
    assert at.title[0].value


# ==================== Compression


def test_compression_shows_the_runs_numbers():
    run = small_run()
    at = new_app(COMPRESSION, settings_corpus=SMALL)
    assert not at.exception
    last = len(run.steps)
    vocab = run.final_vocab_size
    assert (
        metric(at, "Characters per token") == f"{compression(len(load_corpus(SMALL)), run.sequence_length(last)):.2f}"
    )
    assert metric(at, "Tokens in the training text") == f"{run.sequence_length(last):,}"
    assert metric(at, "Embedding parameters (vocab × d)") == f"{vocab * 128:,}"
    at.number_input(key="_w_compression_d").set_value(64).run()
    assert metric(at, "Embedding parameters (vocab × d)") == f"{vocab * 64:,}"
    table = at.table[0].value  # sizes the run reaches (it stops at 28), never the same row twice
    sizes = spread_sizes(run)
    assert sizes == [15, 20, 24, vocab] and list(table["vocab size"]) == [f"{s:,}" for s in sizes]
    assert list(table["tokens in the training text"]) == [f"{run.sequence_length(run.merge_count(s)):,}" for s in sizes]
    assert set(table["held-out characters per token"]) == {"—"}  # nothing held out: a dash, never None
    assert "no held-out curve" in at.caption[0].value


def test_compression_curve_has_training_and_heldout_and_marks_the_parting():
    train, heldout, run = prose_run()
    at = new_app(COMPRESSION, **PROSE)
    assert not at.exception
    fig = plotly_specs(at)[0]
    names = [trace["name"] for trace in fig["data"]]
    assert names[:2] == ["training text", "held-out text"]
    heldout_trace = fig["data"][1]
    tok = run.tokenizer(300)
    assert heldout_trace["x"][-1] == tok.vocab_size
    assert heldout_trace["y"][-1] == pytest.approx(len(heldout) / len(tok.encode(heldout)))
    assert metric(at, "Held-out characters per token") == f"{len(heldout) / len(tok.encode(heldout)):.2f}"
    at.slider(key="_w_compression_gap").set_value(1).run()  # a 1 % gap: these curves part somewhere
    assert any(name.startswith("curves part (vocab") for name in (t["name"] for t in plotly_specs(at)[0]["data"]))


def test_compression_overlays_a_run_seen_earlier_in_the_session():
    at = new_app(COMPRESSION, settings_corpus=SMALL)
    at.session_state["settings_min_freq"] = 1
    at.run()
    box = at.multiselect(key="_w_compression_overlays")
    assert box.options == [f"{SMALL} (characters, min freq 2, to 1,000)"]
    box.set_value(box.options).run()
    traces = plotly_specs(at)[0]["data"]
    assert traces[-1]["name"] == f"{SMALL} (characters, min freq 2, to 1,000) (training)"
    assert traces[-1]["line"]["dash"] == "dash"


# ==================== Context window


def test_context_window_coverage_matches_bpe():
    _train, heldout, run = prose_run()
    at = new_app(CONTEXT, **PROSE, context_block=32)
    assert not at.exception
    table = at.table[0].value.set_index("tokenizer")
    tok = run.tokenizer(300)
    expected = context_coverage(token_lengths(tok.encode_tokens(heldout)), 32)
    assert table.loc["characters", "mean characters"] == "32.0"
    assert table.loc[f"BPE {tok.vocab_size}", "mean characters"] == f"{expected.mean:,.1f}"
    assert (
        table.loc[f"BPE {tok.vocab_size}", "10th to 90th percentile"] == f"{expected.p10:,.1f} to {expected.p90:,.1f}"
    )
    assert table.loc[f"BPE {tok.vocab_size}", "windows"] == f"{expected.windows:,}"
    html = spans_html(at)
    assert html.count("✂ 32") == len(table) and 'class="win"' in html
    fixed = heldout[:1_000]
    cost = at.table[1].value.set_index("tokenizer")
    assert cost.loc[f"BPE {tok.vocab_size}", "tokens for the passage"] == f"{len(tok.encode(fixed)):,}"
    assert f"These {len(fixed):,} characters take {len(fixed):,} tokens as characters" in at.info[0].value


def test_context_window_block_size_changes_the_numbers():
    at = new_app(CONTEXT, **PROSE)
    assert at.table[0].value.set_index("tokenizer").loc["characters", "mean characters"] == "128.0"
    at.select_slider(key="_w_context_block").set_value(64).run()
    assert at.table[0].value.set_index("tokenizer").loc["characters", "mean characters"] == "64.0"


# ==================== Tokenize


def test_tokenize_counts_tokens_and_traces_a_lineage():
    run = small_run()
    tok = run.tokenizer()
    at = new_app(TOKENIZE, settings_corpus=SMALL, tokenize_text="lowest newest")
    assert not at.exception
    assert [m.value for m in at.metric if m.label == "Tokens"][:2] == ["13", str(len(tok.encode("lowest newest")))]
    html = spans_html(at)
    assert 'title="id ' in html and "bpe-linked" in html and ":hover" in html
    chosen = at.selectbox(key="_w_tokenize_lineage").value
    assert chosen == max(
        {tok.itos[i] for i in tok.encode("lowest newest") if i >= len(tok.base_tokens)}, key=lambda t: (len(t), t)
    )
    assert at.code[0].value == "\n".join(lineage_lines(lineage_of(run, chosen)))


def test_tokenize_marks_characters_outside_the_alphabet_instead_of_refusing():
    at = new_app(TOKENIZE, settings_corpus=SMALL, tokenize_text="lowest Afc")  # 'A', 'f', 'c' never occur
    assert not at.exception and not at.error
    # the tokens drawn, as the span diff counts them: A, f and c one each (id ?) after 'lowest '
    # as characters (7), or as the run's BPE cuts it
    from bpe.analysis.encodable import segments_marking_unknown

    bpe = len(segments_marking_unknown(small_run().tokenizer(), "lowest Afc"))
    assert bpe < 10 and [m.value for m in at.metric if m.label == "Tokens"][:2] == ["10", f"{bpe}"]
    shown = [m.value for m in at.metric if m.label == "Characters per token"][:2]
    assert shown == ["1.00", f"{10 / bpe:.2f}"]
    html = at.html[1].value  # the trained BPE, beside the characters
    assert html.count('class="tok unknown') == 3 and "is not in this tokenizer&#x27;s alphabet" in html
    note = unescape_markdown(at.caption[0].value)
    assert "3 characters outside this tokenizer's alphabet" in note and "'A', 'f', 'c'" in note
    assert at.code  # the lineage of the learned tokens is still traced


def test_the_tokenize_box_takes_what_a_link_takes_and_says_what_it_cut():
    """Failure 4: the box had no bound (a link's text has 20,000 characters at most): 1 MB
    typed took one rerun 39 s and 3.0 GB. Held longer, the text is cut and the page says so;
    the box itself takes no more."""
    from pages._shared.state.controls import MAX_TEXT_VALUE

    text = "lowest newest " * 5_000  # 70,000 characters
    at = new_app(TOKENIZE, settings_corpus=SMALL, tokenize_text=text)
    assert not at.exception and not at.error
    assert at.session_state["tokenize_text"] == text[:MAX_TEXT_VALUE]
    assert [m.value for m in at.metric if m.label == "Tokens"][0] == f"{MAX_TEXT_VALUE:,}"  # characters, one a token
    assert any("the first 20,000 of the 70,000 given are tokenized" in c.value for c in at.caption)
    assert at.text_area(key="_w_tokenize_text").max_chars == MAX_TEXT_VALUE


def test_tokenize_presets_are_sentences_of_the_corpus():
    train, heldout, _ = prose_run()
    at = new_app(TOKENIZE, **PROSE)
    at.button(key="tokenize_preset_Held-out sentence").click().run()
    assert at.session_state["tokenize_text"] in " ".join(heldout.split())
    at.button(key="tokenize_preset_Training sentence").click().run()
    assert at.session_state["tokenize_text"] in " ".join(train.split())
    assert not at.exception and not at.error


# ==================== Vocabulary


def test_vocabulary_table_matches_the_run():
    run = small_run()
    text = load_corpus(SMALL)
    rows = learned_tokens(run, len(run.steps), token_usage(run, text))
    at = new_app(VOCABULARY, settings_corpus=SMALL)
    assert not at.exception
    assert metric(at, "Learned tokens") == str(len(rows))
    assert metric(at, "Unused in the final encoding") == str(sum(1 for r in rows if r.uses == 0))
    table = at.dataframe[0].value
    assert list(table["id"]) == [r.id for r in rows] and list(table["uses"]) == [r.uses for r in rows]
    assert list(table["step"]) == [r.step for r in rows]
    at.text_input(key="_w_vocab_search").set_value("est").run()
    assert len(at.dataframe[0].value) > 0 and all("est" in t for t in at.dataframe[0].value["token"])
    # all three filters at once keep exactly the rows each keeps
    at.text_input(key="_w_vocab_search").set_value("e").run()
    at.slider(key="_w_vocab_lengths").set_value((2, 3)).run()
    at.checkbox(key="_w_vocab_unused").check().run()
    kept = [r.id for r in rows if "e" in printable(r.token) and 2 <= r.length <= 3 and r.uses == 0]
    assert kept and list(at.dataframe[0].value["id"]) == kept
    assert any(c.value.startswith(f"{len(kept):,} of {len(rows):,} learned tokens shown.") for c in at.caption)
    at.text_input(key="_w_vocab_search").set_value("no token holds this").run()
    assert at.dataframe[0].value.empty and not at.exception


def upload(at, name: str, data: bytes):
    at.file_uploader(key="vocab_upload").set_value((name, data, "application/json"))
    return at.run()


@pytest.mark.parametrize(
    "data, message",
    [
        (b"{not json", "tok.json is not valid JSON"),
        (b'{"type": "character_bpe"}', "tok.json is missing the keys base_tokens, merges, vocab_size, fingerprint"),
        (
            tokenizer_json(train_run(load_corpus(SMALL), target_vocab_size=1_000).tokenizer())
            .replace('"w"', '"x"', 1)
            .encode(),
            "tok.json fails its fingerprint check",
        ),
    ],
    ids=["not-json", "missing-keys", "tampered"],
)
def test_bad_tokenizer_upload_is_refused_with_the_reason(data, message):
    at = upload(new_app(VOCABULARY, settings_corpus=SMALL), "tok.json", data)
    assert not at.exception
    assert message in unescape_markdown(at.error[0].value)
    assert "vocab_uploaded" not in at.session_state


def test_good_tokenizer_upload_is_used_on_the_tokenize_page():
    tok = train_run(load_corpus(SMALL), target_vocab_size=1_000).tokenizer()
    at = new_app("app.py", settings_corpus=SMALL)  # from the home page, so AppTest knows every page
    at.switch_page(VOCABULARY).run()
    upload(at, "mine.json", tokenizer_json(tok).encode())
    assert not at.error and "Loaded mine.json" in unescape_markdown(at.success[0].value)
    at.switch_page(TOKENIZE).run()
    assert not at.exception
    assert any("uploaded: mine.json" in unescape_markdown(m.value) for m in at.markdown)


@pytest.mark.parametrize("uploaded", [False, True])
def test_tokenize_puts_two_tokenizers_a_row_in_presenter_mode(uploaded):
    """Three columns a row leave no room at 1024 px for presenter mode's "Characters per
    token": the browser found it cut in two with three tokenizers (no GPT-2 files here) and
    with five (an upload beside GPT-2 and GPT-4). Whatever is here, with or without an
    upload, a row holds two in presenter mode."""
    upload = {"vocab_uploaded": ("mine.json", small_run().tokenizer())} if uploaded else {}
    at = new_app(TOKENIZE, settings_corpus=SMALL, presenter_large=True, **upload)
    assert not at.exception
    weights = [c.weight for c in at.columns if any("(vocab" in m.value for m in c.markdown)]
    assert len(weights) >= 2 + uploaded and weights == [0.5] * len(weights)


@pytest.mark.parametrize("script", [TOKENIZE, COMPRESSION, CONTEXT, VOCABULARY])
def test_pages_work_on_a_byte_level_pretokenized_run(script):
    at = new_app(
        script,
        settings_corpus=SMALL,
        settings_alphabet="bytes",
        settings_pretokenizer="gpt2",
        tokenize_text="naïve lowest 🙂",
    )
    assert not at.exception and not at.error


def test_context_window_leaves_out_an_uploaded_tokenizer_that_cannot_read_the_text():
    narrow = train_run("low lower", target_vocab_size=10).tokenizer()  # knows only ' ', 'e', 'l', 'o', 'r', 'w'
    at = new_app(CONTEXT, **PROSE, vocab_uploaded=("narrow.json", narrow))
    assert not at.exception
    assert "uploaded: narrow.json is left out" in unescape_markdown(at.warning[0].value)
    assert "uploaded: narrow.json" not in list(at.table[0].value["tokenizer"])


def test_compression_takes_a_vocab_size_typed_into_its_box():
    """A size typed into the box arrives as the text typed; it joins the table as a number,
    and what is not a size is skipped with a note (it broke the page, a str sorted with ints)."""
    at = new_app(COMPRESSION, settings_corpus=SMALL)
    box = at.multiselect(key="_w_compression_sizes")
    box.set_value([15, "22", "1,000", "lots", "999999999"]).run()
    assert not at.exception and not at.error
    assert list(at.table[0].value["vocab size"]) == ["15", "22", "1,000 (training stopped at 28)"]
    warnings = [w.value for w in at.warning]
    assert "'lots' is not a vocab size (a whole number such as 700); skipped." in warnings
    assert f"999,999,999 is above the largest vocab size, {int(COMPRESSION_SIZES.high):,}; skipped." in warnings
    at.run()  # and again: the sizes stay numbers, the page stays whole
    assert not at.exception and list(at.table[0].value["vocab size"]) == ["15", "22", "1,000 (training stopped at 28)"]
