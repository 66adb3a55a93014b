"""AppTest: teach mode on Merge by merge: predict the next merge, the algorithm in phases,
the slow merge scan, and the film to take away."""

from __future__ import annotations

import html

import pytest
from app_helpers import SMALL_CORPUS, metric, new_app, plotly_specs, unescape_markdown

PAGE = "pages/1_Merge_by_merge.py"
SMALL = dict(settings_corpus=SMALL_CORPUS)  # merge 1: e + s, 9 times, tied with s + t
GREY = "#94a3b8"


def quiz_app(**state):
    return new_app(PAGE, **{**SMALL, "teach_quiz": True, **state})


def choose(at, label: str):
    """Pick a pair from the quiz's list by its label, as a learner does."""
    step = at.session_state["merges_step"]
    box = at.selectbox(key=f"teach_pick_{step}")
    return box.set_value(box.options.index(label)).run()


def bars(at) -> dict[str, int]:
    """The pair chart as the class sees it: label -> count, left to right."""
    spec = plotly_specs(at)[0]
    return dict(zip((html.unescape(t) for t in spec["layout"]["xaxis"]["ticktext"]), spec["data"][0]["y"]))


def tallest(at) -> str:
    shown = bars(at)
    return max(shown, key=shown.get)


def all_html(at) -> str:
    return "\n".join(element.value for element in at.html)


# ==================== Predict the next merge


def test_the_quiz_hides_the_winner_the_new_token_and_the_text_after():
    at = quiz_app()
    assert not at.exception
    bar = plotly_specs(at)[0]["data"][0]
    assert set(bar["marker"]["color"]) == {GREY} and not any(bar.get("text") or [])
    assert list(bars(at)) == sorted(bars(at))  # by label, not by count: the order gives nothing away
    assert bars(at)["e + s"] == bars(at)["s + t"] == 9
    box = at.selectbox(key="teach_pick_1")
    assert box.options == sorted(bars(at))  # the list too
    shown = all_html(at)
    # the headline asks instead of naming the merge (its line stays, so the stage does not move)
    assert "Merge 1: which pair is merged next?" in shown and "bpe-new-token" not in shown and "<code>" not in shown
    assert 'class="tok merged"' not in shown and 'class="tok pair-left"' not in shown  # no after text, no outlines
    assert "Predict merge 1" in " ".join(m.value for m in at.markdown)
    assert metric(at, "Vocab size") == "11"  # before the merge: the 11 characters
    assert not at.dataframe  # nothing is logged before merge 1: no merge log at all, not an empty one


def test_picking_the_winner_reveals_it_explains_it_and_scores():
    at = choose(quiz_app(), "e + s")
    assert not at.exception
    said = unescape_markdown(at.success[0].value)
    assert "Right: e + s occurs 9 times before this merge, and so does s + t" in said
    assert "ties go to the pair whose first occurrence" in said
    assert "bpe-new-token" in at.html[0].value and 'class="tok merged"' in all_html(at)
    assert "Score: 1 of 1 right." in [c.value for c in at.caption]
    assert plotly_specs(at)[0]["data"][0]["marker"]["color"][0] == "#dc2626"


def test_a_pair_tied_with_the_winner_is_right_by_count_with_the_rule():
    at = choose(quiz_app(), "s + t")
    text = unescape_markdown(at.info[0].value)
    assert text.startswith("Right by count: s + t occurs 9 times, as often as e + s, the pair merged.")
    assert "The tie rule decided between them: ties go to the pair whose first occurrence" in text
    assert "Score: 1 of 1 right (1 of them by count, a tie)." in [c.value for c in at.caption]


def test_a_typed_wrong_pair_is_wrong_and_a_typo_is_refused():
    at = quiz_app()
    at.text_input(key="teach_typed_1").input("es").run()
    assert "'es' is not a pair: type two tokens" in unescape_markdown(at.error[0].value)
    assert at.session_state["teach_answers"] == {}
    at.text_input(key="teach_typed_1").input("l + o").run()
    said = unescape_markdown(at.error[0].value)
    assert "Not this one: l + o occurs" in said and "e + s occurs 9 times" in said
    assert "Score: 0 of 1 right." in [c.value for c in at.caption]


def test_next_merge_moves_on_and_the_score_runs_over_the_steps():
    at = choose(quiz_app(), "e + s")
    at.button(key="teach_next_1").click().run()
    assert metric(at, "Step") == "2 of 17" and "Predict merge 2" in " ".join(m.value for m in at.markdown)
    at = choose(at, "es + t")
    assert "Score: 2 of 2 right." in [c.value for c in at.caption]


def test_play_stops_at_each_question_and_goes_on_once_answered():
    at = quiz_app()
    at.button(key="merges_play").click().run()  # one tick: merge 1 waits for its guess
    assert not at.session_state["merges_playing"] and metric(at, "Step") == "1 of 17"
    at = choose(at, "e + s")
    at.button(key="merges_play").click().run()  # answered: the film moves on to merge 2 ...
    at.run()  # ... and stops there, waiting again
    assert metric(at, "Step") == "2 of 17" and not at.session_state["merges_playing"]
    assert "Predict merge 2" in " ".join(m.value for m in at.markdown)


def test_a_class_can_start_the_quiz_at_step_40_from_a_link():
    at = new_app(
        PAGE,
        query={
            "corpus": "Python language reference",
            "prefix": "20000",
            "vocab": "200",
            "step": "40",
            "teach_quiz": "1",
        },
    )
    assert not at.exception
    assert metric(at, "Step").startswith("40 of ")
    assert "Predict merge 40" in " ".join(m.value for m in at.markdown)
    assert set(plotly_specs(at)[0]["data"][0]["marker"]["color"]) == {GREY}


# ==================== The algorithm beside the film


def panel(at) -> str:
    found = [element.value for element in at.html if "bpe-algorithm" in element.value]
    assert found, "no algorithm panel"
    return found[0]


def test_each_merge_plays_in_phases_with_the_running_line_lit():
    at = new_app(PAGE, **SMALL, teach_algorithm=True)
    seen = []
    for _ in range(5):
        drawn = panel(at)
        phase = drawn.split('data-phase="', 1)[1].split('"', 1)[0]
        lit = drawn.split('<div class="line lit"')[1:]
        seen.append(
            (metric(at, "Step"), phase, len(lit), metric(at, "Vocab size"), 'class="tok merged"' in all_html(at))
        )
        at.button(key="merges_forward").click().run()
    assert [s[1] for s in seen] == ["count", "pick", "merge", "record", "count"]
    assert [s[0] for s in seen] == ["1 of 17"] * 4 + ["2 of 17"]
    assert [s[2] for s in seen] == [1, 2, 1, 1, 1]  # pick lights "best ←" and the stop test
    assert [s[3] for s in seen] == ["11", "11", "11", "12", "12"]  # the token is added in "record"
    assert [s[4] for s in seen] == [False, False, True, True, False]  # the merged text appears in "merge"
    assert "e + s ×9" in panel(new_app(PAGE, **SMALL, teach_algorithm=True))


def test_play_walks_the_phases_and_stops_at_the_last():
    at = new_app(PAGE, **SMALL, teach_algorithm=True, merges_step=17, teach_phase=0)
    at.button(key="merges_play").click().run()
    for _ in range(6):
        at.run()
    assert not at.session_state["merges_playing"]
    assert metric(at, "Step") == "17 of 17" and 'data-phase="record"' in panel(at)
    assert "Training stopped after 17 merges" in at.info[0].value


def test_the_slow_merge_shows_aaaaa_becoming_aa_aa_a_occurrence_by_occurrence():
    at = new_app(
        PAGE,
        settings_user_corpora={"pasted text": "aaaaa"},
        settings_corpus="pasted text",
        settings_min_freq=1,
        settings_vocab=10,
        teach_algorithm=True,
        teach_slow=True,
        teach_phase=1,
    )
    assert not at.exception
    frames = []
    for _ in range(4):
        at.button(key="merges_forward").click().run()
        scan = [element.value for element in at.html if "bpe-scan" in element.value]
        said = " ".join(unescape_markdown(c.value) for c in at.caption)
        frames.append(
            (scan[0].count("scan-done"), "scan-here" in scan[0], "Occurrence" in said, "counted too" in said)
            if scan
            else None
        )
    assert frames[:3] == [(0, True, True, True), (1, True, True, True), (2, False, False, False)]
    assert "Scan done: 2 occurrences of a + a merged" in said or frames[3] is None
    assert frames[3] is None  # record: the ordinary before/after again, "aa aa a"
    assert [s for s in at.html if '<div class="bpe-segments' in s.value][-1].value.count('class="tok merged"') == 2
    assert "2 occurrences merged into 'aa' (4 counted: overlapping ones merge once)" in html.unescape(panel(at))


def test_the_teach_switches_are_forgotten_with_the_run_but_not_the_toggles():
    at = choose(quiz_app(), "e + s")
    at.sidebar.selectbox(key="_w_settings_corpus").set_value("low lower lowest").run()
    assert not at.exception and at.session_state["teach_quiz"]
    assert "Score: no merge predicted yet." in [c.value for c in at.caption]


# ==================== A film to take away


def test_the_film_can_be_downloaded_from_the_page():
    at = new_app(PAGE, **SMALL)
    assert "Download this film (HTML)" in [b.proto.label for b in at.get("download_button")]
    assert at.number_input(key="_w_teach_film_merges").value == 17  # all 17 merges (fewer than 50)


@pytest.mark.shared_data
def test_the_quiz_and_the_phases_on_wikitext(monkeypatch):
    from helpers import shared_file

    valid = shared_file("wikitext-2/valid.txt")
    monkeypatch.setenv("BPE_CORPORA", str(valid.parent))
    at = new_app(
        PAGE,
        query={
            "corpus": "valid.txt",
            "prefix": "60000",
            "vocab": "400",
            "step": "40",
            "teach_quiz": "1",
            "teach_algorithm": "1",
        },
    )
    assert not at.exception and metric(at, "Step").startswith("40 of ")
    assert 'data-phase="count"' in panel(at)  # a question waits: the frame stops at counting
    at = choose(at, tallest(at))  # no tie at this step
    assert unescape_markdown(at.success[0].value).startswith("Right: ")
    assert 'data-phase="pick"' in panel(at)  # the answer is the pick: the phases go on from there
    for phase in ("merge", "record"):
        at.button(key="merges_forward").click().run()
        assert f'data-phase="{phase}"' in panel(at)


def test_the_quiz_and_the_phases_on_the_default_corpus():
    at = new_app(PAGE, query={"step": "40", "teach_quiz": "1", "teach_algorithm": "1"})  # Tiny Shakespeare
    assert not at.exception and metric(at, "Step").startswith("40 of ")
    assert 'data-phase="count"' in panel(at)
    shown = bars(at)
    at = choose(at, min(shown, key=shown.get))
    assert at.session_state["teach_answers"][40].kind == "wrong"
    assert 'data-phase="pick"' in panel(at) and "bpe-new-token" in at.html[0].value


def test_low_lower_lowest_a_tie_in_the_quiz_then_the_phases_from_a_link():
    """The textbook example: l + o and o + w both occur 3 times; l + o comes first."""
    at = new_app(PAGE, query={"corpus": "low lower lowest", "teach_quiz": "1", "teach_algorithm": "1"})
    assert bars(at) and bars(at)["l + o"] == bars(at)["o + w"] == 3
    at = choose(at, "o + w")
    assert unescape_markdown(at.info[0].value).startswith("Right by count: o + w occurs 3 times, as often as l + o")
    for phase in ("merge", "record"):
        at.button(key="merges_forward").click().run()
        assert f'data-phase="{phase}"' in panel(at)
    assert metric(at, "Vocab size") == "9" and "Score: 1 of 1 right (1 of them by count, a tie)." in [
        c.value for c in at.caption
    ]
