"""AppTest: the seams a teacher touches first (issue 22): plain words and honest numbers,
the tie note only on a tie, the film download following the run, the link dialog in words."""

from __future__ import annotations

import json

from app_helpers import SMALL_CORPUS, metric, new_app, plotly_specs, title_text, unescape_markdown

from bpe.corpora.corpus import PYTHON_REFERENCE, load_corpus

HOME, MERGES, COMPARE, BYTES = (
    "app.py",
    "pages/1_Merge_by_merge.py",
    "pages/8_Compare_runs.py",
    "pages/7_Bytes_and_pretokenizers.py",
)
TINY = "low lower lowest"  # 4 merges
SMALL = dict(settings_corpus=SMALL_CORPUS)  # step 1: e + s and s + t tie at 9; step 2 (es + t) has no tie


def captions(at) -> list[str]:
    return [unescape_markdown(c.value) for c in at.caption]


def buttons(at) -> list[str]:
    return [b.label for b in at.button]


# ==================== Plain words and honest numbers


def test_home_says_the_corpus_size_and_names_the_prefix_trained_on():
    at = new_app(HOME, settings_corpus=PYTHON_REFERENCE, settings_prefix_cap=6_000)
    assert not at.exception
    assert metric(at, "Corpus size (characters)") == f"{len(load_corpus(PYTHON_REFERENCE)):,}"
    trained, held_out = (
        int(metric(at, label).replace(",", "")) for label in ("Trained on (characters)", "Held out (characters)")
    )
    assert trained + held_out == 6_000 and 0 < held_out < trained  # the sidebar's two numbers, the cap's prefix
    assert any(f"Training on {trained:,} characters" in c and f"{held_out:,} held out" in c for c in captions(at))


def test_the_tie_note_and_what_if_appear_only_on_a_step_with_a_tie():
    at = new_app(MERGES, **SMALL)
    assert any("1 pair ties with the winner" in c for c in captions(at))
    assert any(label.startswith("What if") for label in buttons(at))
    at.button(key="merges_forward").click().run()  # step 2: es + t, no tie
    assert at.session_state["merges_step"] == 2
    assert not any("Tie rule" in c or "tie" in c.split(".")[0] for c in captions(at))
    assert not any(label.startswith("What if") for label in buttons(at))


def test_the_pair_chart_title_counts_in_english():
    at = new_app(MERGES, **SMALL)
    title = title_text(plotly_specs(at)[0])
    assert "1 pair ties with the winner" in title and "pair(s)" not in title


def test_the_quiz_shows_no_empty_merge_log():
    at = new_app(MERGES, **SMALL, teach_quiz=True)
    assert not at.exception
    assert all(not frame.value.empty for frame in at.dataframe)
    assert "**Merge log**" not in [m.value for m in at.markdown]


def test_merges_in_the_film_follow_the_run():
    at = new_app(MERGES, settings_corpus=TINY)
    assert at.session_state["teach_film_merges"] == 4
    at.session_state["settings_corpus"] = SMALL_CORPUS
    at.run()
    assert at.session_state["teach_film_merges"] > 4  # the new run's default, not the old run's cap


def test_compare_runs_lists_pre_tokenizers_by_their_names():
    at = new_app(COMPARE, **SMALL)
    assert not at.exception
    box = at.selectbox(key="compare_variant_pre")
    assert "GPT-2" in box.options and "GPT-4" in box.options
    assert "gpt2" not in box.options and "gpt4" not in box.options


def test_the_bytes_page_without_gpt2_files_shows_a_short_note_without_paths(monkeypatch, tmp_path):
    monkeypatch.setattr("bpe.gpt2.files.CACHE_DIR", tmp_path)  # GPT-2's files are nowhere
    monkeypatch.setenv("BPE_SHARED_DATA", str(tmp_path))
    at = new_app(BYTES, **SMALL)
    assert not at.exception
    note = next(unescape_markdown(i.value) for i in at.info if "GPT-2" in i.value)
    assert len(note) < 300
    assert "sha256" not in note and "http" not in note and "openaipublic" not in note
    everything = " ".join(
        unescape_markdown(e.value) for kind in ("info", "markdown", "caption", "code") for e in getattr(at, kind)
    )
    assert str(tmp_path) not in everything and "data/cache" not in everything


def test_opened_from_the_tie_note_compare_runs_shows_the_merges_up_to_the_divergence():
    at = new_app("app.py", **SMALL)  # from the home page, so AppTest knows every page
    at.switch_page(MERGES).run()
    rule_button = next(b for b in at.button if b.label.startswith("What if"))
    rule_button.click().run()
    assert not at.exception
    at.switch_page(COMPARE).run()
    compared = at.slider(key="_w_compare_merges").value
    assert compared >= at.session_state["compare_focus"]
    assert compared >= 2  # step 1 is where the rules part: the comparison includes it and what follows


def test_the_link_dialog_summarises_the_frame_in_words():
    at = new_app(MERGES, **SMALL, teach_algorithm=True)
    at.sidebar.button[0].click().run()
    said = " ".join(captions(at))
    assert "step=" not in said and "tie_rule=" not in said
    assert "Merge by merge, step 1" in said


def test_presenter_mode_enlarges_everything_the_class_reads():
    at = new_app(MERGES, **SMALL, presenter_large=True, teach_algorithm=True)
    css = " ".join(h.value for h in at.html if "<style>" in h.value)
    for selector in (".bpe-algorithm", "stCaptionContainer", "stMetricValue", "stTable", "stMarkdownContainer"):
        assert selector in css, selector
    layout = plotly_specs(at)[0]["layout"]
    assert layout["xaxis"]["title"]["font"]["size"] > 18
    assert json.dumps(layout).count('"size"') >= 4


def test_the_address_bar_follows_every_setting_and_page_control():
    at = new_app(HOME, **SMALL)  # from the home page, so AppTest knows every page
    at.switch_page(MERGES).run()
    at.sidebar.selectbox(key="_w_settings_tie_rule").set_value("lexicographic").run()
    assert at.query_params["tie_rule"] == "lexicographic"
    at.toggle(key="_w_teach_algorithm").set_value(True).run()
    at.button(key="merges_forward").click().run()  # a phase forward, in the player's fragment
    shown = dict(at.query_params)
    assert shown["teach_algorithm"] == "1" and shown["teach_phase"] == "1" and shown["step"] == "1"
    at.switch_page(HOME).run()
    assert "step" not in at.query_params and at.query_params["tie_rule"] == "lexicographic"


def test_a_long_context_window_is_folded_so_its_cut_shows_without_scrolling():
    from pages._shared.render.html import WINDOW_SHOWN_CHARS, context_window_html

    passage = "".join(f"w{i:04d} " for i in range(2_000))  # 12,000 characters, 6 per token
    shown = context_window_html(passage, [6] * 2_000, 1_024)
    assert "overflow" not in shown and "max-height" not in shown  # the box never scrolls
    assert "✂ 1,024" in shown and "w0000" in shown and "w1023" in shown  # its start, its end, the cut
    folded = shown.count('class="win"')
    assert folded * 6 <= WINDOW_SHOWN_CHARS + 12 and "… " in shown and "more tokens" in shown
    assert "w1100" not in shown  # only a few lines of the rest follow the cut
    small = context_window_html("low lower", [3, 1, 5], 128)
    assert "folded" not in small and "end of text" in small


def test_a_late_tick_moves_the_steps_due_so_playing_keeps_its_named_speed():
    import time

    at = new_app(MERGES, settings_corpus=PYTHON_REFERENCE, settings_prefix_cap=20_000, merges_speed=0.25)
    at.button(key="merges_play").click().run()
    for _ in range(3):
        before = at.session_state["merges_step"]
        time.sleep(0.55)  # the browser's tick comes late, as when drawing a frame takes longer than 0.25 s
        at.run()
        assert 2 <= at.session_state["merges_step"] - before <= 4  # the steps due by the clock, no more than 4


def test_the_compression_charts_vocab_label_sits_above_the_curves():
    from bpe.analysis.metrics import compression_curve
    from bpe.run import train_run
    from pages._shared.render.figures import compression_curve_figure

    run = train_run(load_corpus(SMALL_CORPUS), target_vocab_size=20, minimum_pair_frequency=1)
    label = compression_curve_figure(compression_curve(run), shown_vocab=15).layout.annotations[0]
    assert (
        label.text == "vocab 15" and label.yref in ("paper", "y domain") and label.y >= 1 and label.yanchor == "bottom"
    )


def test_the_model_page_says_up_front_whether_the_text_has_a_held_out_part():
    short = new_app("pages/6_Model.py", **SMALL)  # 94 characters: never split
    said = " ".join(captions(short))
    assert "this text has no held-out part" in said and "scored on the end of the training text" in said
    long = new_app("pages/6_Model.py", settings_corpus=PYTHON_REFERENCE, settings_prefix_cap=30_000)
    said = " ".join(captions(long))
    assert "scored on all 3,034 characters of its held-out part" in said and "no held-out part" not in said
    # how much it trains on is the sidebar's own figure for the training part (26,966 of 30,000)
    assert "Text: all 26,966 characters of the sidebar's training text" in said
    assert "Training on 26,966 characters" in said
