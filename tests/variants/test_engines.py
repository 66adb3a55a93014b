"""The training rules beyond the textbook: each rule's readable engine and its fast one agree
merge for merge (top pairs, count changes and stop reasons included); the textbook loop with
no rule is the reference engine; what each rule changes, on worked examples; and each rule's
tokenizer cuts the training text exactly as training left it."""

from __future__ import annotations

import pytest
from helpers import MAX_EXAMPLES, assert_same_steps
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe.alphabet import default_base_tokens
from bpe.errors import BpeError
from bpe.reference import reference_steps
from bpe.run import train_run
from bpe.steps import StepStream, StopReason
from bpe.training import TrainingSettings, prepare_words
from bpe.variants.incremental import incremental_steps
from bpe.variants.picky import PickyTokenizer
from bpe.variants.rule_runs import train_variant_run
from bpe.variants.rules import Variant
from bpe.variants.superbpe import SuperBPETokenizer, is_superword, segments
from bpe.variants.textbook import textbook_steps

texts = st.text(alphabet=st.sampled_from("ab c\n"), min_size=1, max_size=60)
TIE_RULES = st.sampled_from(["first_occurrence", "lexicographic", "lexicographic_greatest", "huggingface"])


def streamed(engine, words, base, **options) -> tuple[list, StopReason]:
    stream = StepStream(engine(words, base, **options), base_tokens=base, settings=None)
    steps = list(stream)
    return steps, stream.stop_reason


def inputs(text: str, pretokenizer, alphabet="characters"):
    return prepare_words(text, alphabet, pretokenizer), default_base_tokens(text, alphabet)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(text=texts, extra=st.integers(0, 30), floor=st.integers(1, 3), tie_rule=TIE_RULES)
def test_the_textbook_loop_with_no_rule_is_the_reference_engine(text, extra, floor, tie_rule):
    words, base = inputs(text, None)
    options = dict(target_vocab_size=len(base) + extra, minimum_pair_frequency=floor, top_k=4, tie_rule=tie_rule)
    assert streamed(textbook_steps, words, base, **options) == streamed(reference_steps, words, base, **options)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(
    text=texts,
    extra=st.integers(0, 40),
    floor=st.integers(1, 3),
    tie_rule=TIE_RULES,
    pretokenizer=st.sampled_from([None, "whitespace"]),
    rule=st.sampled_from(
        [dict(weighted=True), dict(threshold=0.9), dict(threshold=0.6), dict(weighted=True, threshold=0.75)]
    ),
    top_k=st.integers(0, 5),
)
def test_the_incremental_engine_agrees_with_the_textbook_merge_for_merge(
    text, extra, floor, tie_rule, pretokenizer, rule, top_k
):
    words, base = inputs(text, pretokenizer)
    options = dict(target_vocab_size=len(base) + extra, minimum_pair_frequency=floor, top_k=top_k, tie_rule=tie_rule)
    slow, slow_stop = streamed(textbook_steps, words, base, **options, **rule)
    fast, fast_stop = streamed(incremental_steps, words, base, **options, **rule)
    assert_same_steps(slow, fast)
    assert slow_stop == fast_stop


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(
    text=st.text(min_size=1, max_size=50),
    extra=st.integers(1, 30),
    alphabet=st.sampled_from(["characters", "bytes"]),
    rule=st.sampled_from([Variant("picky", threshold=0.8), Variant("length_weighted")]),
)
def test_the_engines_agree_on_any_unicode(text, extra, alphabet, rule):
    base = 256 if alphabet == "bytes" else len(set(text))
    runs = [
        train_variant_run(
            text,
            TrainingSettings(
                target_vocab_size=base + extra,
                engine=engine,
                alphabet=alphabet,
                pretokenizer="gpt2",
                minimum_pair_frequency=1,
                top_k=3,
            ),
            rule,
        )
        for engine in ("reference", "fast")
    ]
    assert runs[0].steps == runs[1].steps and runs[0].stop_reason == runs[1].stop_reason


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(
    text=st.text(alphabet=st.sampled_from("ab c.\n"), min_size=1, max_size=80),
    extra=st.integers(1, 40),
    transition=st.integers(0, 15),
    tie_rule=st.sampled_from(["first_occurrence", "lexicographic", "lexicographic_greatest"]),
    floor=st.integers(1, 2),
)
def test_superbpe_engines_agree_and_its_tokenizer_cuts_as_training_did(text, extra, transition, tie_rule, floor):
    variant = Variant("superbpe", transition=transition)
    runs = []
    for engine in ("reference", "fast"):
        options = dict(engine=engine, pretokenizer="whitespace", tie_rule=tie_rule, minimum_pair_frequency=floor)
        runs.append(
            train_variant_run(text, TrainingSettings(target_vocab_size=len(set(text)) + extra, **options), variant)
        )
    slow, fast = runs
    assert slow.steps == fast.steps and slow.stop_reason == fast.stop_reason and slow.joined_after == fast.joined_after
    standard = train_run(
        text,
        target_vocab_size=len(set(text)) + extra,
        pretokenizer="whitespace",
        tie_rule=tie_rule,
        minimum_pair_frequency=floor,
    )
    before = len(fast.steps) if fast.joined_after is None else fast.joined_after  # stage 1 may end early
    assert [s.pair for s in fast.steps[:before]] == [s.pair for s in standard.steps[:before]]  # stage 1 is standard
    for merges in {0, before, len(fast.steps)}:
        tokenizer = fast.tokenizer(merges=merges)
        ids = tokenizer.encode(text)
        assert len(ids) == fast.sequence_length(merges) and tokenizer.decode(ids) == text


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(
    text=texts,
    heldout=texts,
    extra=st.integers(1, 30),
    threshold=st.sampled_from([0.5, 0.8, 1.0]),
    pretokenizer=st.sampled_from([None, "whitespace"]),
)
def test_picky_tokenizer_replays_the_removals_as_training_did(text, heldout, extra, threshold, pretokenizer):
    settings_ = TrainingSettings(
        target_vocab_size=len(set(text + heldout)) + extra, pretokenizer=pretokenizer, minimum_pair_frequency=1
    )
    run = train_variant_run(text, settings_, Variant("picky", threshold=threshold), heldout_text=heldout)
    for merges in range(len(run.steps) + 1):
        tokenizer = run.tokenizer(merges=merges)
        ids = tokenizer.encode(text)
        assert len(ids) == run.sequence_length(merges) and tokenizer.decode(ids) == text
        assert len(tokenizer.encode(heldout)) == run.heldout_lengths[merges]
        assert not {tokenizer.itos[i] for i in ids} - tokenizer.live_tokens  # a removed token is never given
    if run.steps:
        assert run.tokenizer(merges=len(run.steps)).live_vocab_size == run.final_vocab_size


# ==================== What each rule changes, worked


def test_picky_removes_a_token_that_lives_only_inside_a_longer_one():
    run = train_variant_run(
        "abcd abcd abcd abc", TrainingSettings(target_vocab_size=9, pretokenizer="whitespace"), Variant("picky")
    )
    merged = [step.pair for step in run.steps]
    assert merged[:3] == [("a", "b"), ("ab", "c"), ("abc", "d")]
    removal = run.steps[1].removed[0]  # 'ab' went into 'abc' 4 times of 4: IoS 1
    assert (removal.token, removal.parts, removal.count, removal.ios) == ("ab", ("a", "b"), 0, 1.0)
    assert run.steps[1].vocab_size == run.steps[0].vocab_size  # 'abc' came, 'ab' went
    assert not run.steps[2].removed  # 'abc' went into 'abcd' 3 times of 4: IoS 0.75, kept
    assert run.removed_at() == {"ab": 2}
    tokenizer = run.tokenizer()
    assert isinstance(tokenizer, PickyTokenizer) and "ab" not in tokenizer.live_tokens
    assert tokenizer.encode_tokens("abcd ab") == ["abcd", " ", "a", "b"]  # 'ab' is no token any more


def test_length_weighted_takes_the_longer_pair_when_count_times_length_is_higher():
    weighted = train_variant_run(
        "ab ab ab cd cd", TrainingSettings(target_vocab_size=10, pretokenizer="whitespace"), Variant("length_weighted")
    )
    standard = train_run("ab ab ab cd cd", target_vocab_size=10, pretokenizer="whitespace")
    assert [s.pair for s in weighted.steps[:2]] == [("a", "b"), (" ", "ab")]  # 2 × 3 = 6 beats (' ', 'c'): 2 × 2
    assert weighted.steps[1].top_pairs[:2] == (((" ", "ab"), 2), ((" ", "c"), 2))
    assert [s.pair for s in standard.steps[:2]] == [("a", "b"), (" ", "ab")]
    long = train_variant_run(
        "xyzw xyzw ab ab ab",
        TrainingSettings(target_vocab_size=20, pretokenizer="whitespace", minimum_pair_frequency=2),
        Variant("length_weighted"),
    )
    assert long.steps[0].pair == (" ", "a")  # 3 × 2 = 6 beats ('x', 'y'): 2 × 2
    assert all(step.frequency >= 2 for step in long.steps)  # a pair seen once never wins, however long


def test_superbpe_learns_superwords_after_the_transition_only():
    text = "of the sea, of the sky, of the land. " * 6
    settings_ = TrainingSettings(target_vocab_size=60, pretokenizer="gpt2")
    run = train_variant_run(text, settings_, Variant("superbpe", transition=10))
    assert run.joined_after == 10
    superwords = [step.token for step in run.steps if run.superword(step)]
    assert superwords and " of the" in {step.token for step in run.steps}
    assert not any(is_superword(step.token, "gpt2") for step in run.steps[:10])
    assert isinstance(run.tokenizer(), SuperBPETokenizer) and not isinstance(run.tokenizer(merges=9), SuperBPETokenizer)
    standard = train_run(text, settings_)
    assert len(run.tokenizer().encode(text)) < len(standard.tokenizer().encode(text))
    assert segments("a b<|endoftext|>c d", ["<|endoftext|>"]) == ["a b", "c d"]


def test_rules_refuse_what_they_cannot_train_in_one_line():
    with pytest.raises(BpeError, match="SuperBPE needs its transition"):
        Variant("superbpe")
    with pytest.raises(BpeError, match="threshold is Picky BPE's setting"):
        Variant("superbpe", transition=3, threshold=0.5)
    with pytest.raises(BpeError, match="must be a number above 0, at most 1"):
        Variant("picky", threshold=1.5)
    with pytest.raises(BpeError, match="unknown training rule 'lengthy'"):
        Variant("lengthy")
    assert Variant("picky").threshold == 0.9
    with pytest.raises(BpeError, match="choose a pre-tokenizer"):
        train_variant_run("a b", TrainingSettings(target_vocab_size=5), Variant("superbpe", transition=1))
    with pytest.raises(BpeError, match="Hugging Face"):
        train_variant_run(
            "a b",
            TrainingSettings(target_vocab_size=5, pretokenizer="gpt2", tie_rule="huggingface"),
            Variant("superbpe", transition=1),
        )
    with pytest.raises(BpeError, match="holds merges only"):
        train_variant_run(
            "abcd abcd abcd abc", TrainingSettings(target_vocab_size=9, pretokenizer="whitespace"), Variant("picky")
        ).tokenizer().save("unused.json")


@pytest.mark.parametrize(  # SuperBPE at transition 0: its first merge is its second stage's, over joined chunks
    "variant", [Variant("superbpe", transition=0), Variant("picky"), Variant("length_weighted")], ids=lambda v: v.name
)
@pytest.mark.parametrize("engine", ["reference", "fast"])
def test_every_rule_breaks_ties_toward_the_greatest_pair_under_cs336s_rule(variant, engine):
    """'ab cd': ('a', 'b'), (' ', 'c') and ('c', 'd') (and ('b', ' ') once joined) each occur once (and score 2 when
    length-weighted). The first occurrence takes 'ab'; the greatest pair by UTF-8 bytes is
    ('c', 'd'), as Stanford CS336's max() over (count, pair) takes it."""
    first = {}
    for tie_rule in ("first_occurrence", "lexicographic_greatest"):
        settings_ = TrainingSettings(
            target_vocab_size=len(set("ab cd")) + 1,
            minimum_pair_frequency=1,
            pretokenizer="whitespace",
            tie_rule=tie_rule,
            engine=engine,
        )
        first[tie_rule] = train_variant_run("ab cd", settings_, variant).steps[0].pair
    assert first == {"first_occurrence": ("a", "b"), "lexicographic_greatest": ("c", "d")}


E = "<|endoftext|>"
# Five documents, each ending in "!" (nowhere else), joined by the marker: a merge that
# learned from the marker holds one of "<|>", one that crossed it holds "!" before a letter.
# Trained as plain text, the marker's pairs win: ('d', 'o'), then '!<', '!<|', ... '!<|endoftext|>the'.
DOCUMENTS = ("the cat!", "the dog!", "the cat!", "a dog!", "the cat!")
MARKED = E.join(DOCUMENTS)
HELDOUT = "the cat" + E + "the dog"


@pytest.mark.parametrize(  # Picky's removals keep its vocabulary small here: it reaches 3 more tokens
    ("variant", "added"),
    [(Variant("superbpe", transition=4), 8), (Variant("picky"), 3), (Variant("length_weighted"), 8)],
    ids=["superbpe", "picky", "length_weighted"],
)
def test_rules_take_special_tokens_as_standard_bpe_does(variant, added):
    """Each rule cuts the text at the special token before pre-tokenization: no merge learns
    from it or crosses it (SuperBPE's joined chunks stop at it as at a document's end); it is
    one token, id 0, counted in the vocab size; both engines agree merge for merge; its
    tokenizer encodes it as its id, nothing joined across it, and decodes it back."""
    runs = {}
    for engine in ("reference", "fast"):
        settings_ = TrainingSettings(
            target_vocab_size=len(set("".join(DOCUMENTS))) + 1 + added,
            minimum_pair_frequency=1,
            pretokenizer="whitespace",
            special_tokens=(E,),
            engine=engine,
            top_k=3,
        )
        runs[engine] = train_variant_run(MARKED, settings_, variant, heldout_text=HELDOUT)
    run = runs["reference"]

    def record(r):
        return [
            (s.pair, s.frequency, s.sequence_length, s.vocab_size, s.top_pairs, getattr(s, "removed", ()))
            for s in r.steps
        ]

    assert record(run) == record(runs["fast"]) and run.heldout_lengths == runs["fast"].heldout_lengths
    assert run.stop_reason == StopReason.TARGET_REACHED and len(run.steps) >= added
    for step in run.steps:
        assert not set("<|>") & set(step.token), f"merge {step.number} {step.pair} learned from the marker"
        assert "!" not in step.token[:-1], f"merge {step.number} {step.pair} crossed a document's end"
    assert not set("<|>") & set(run.base_tokens)  # the marker's characters are no base tokens
    tokenizer = run.tokenizer()
    assert run.initial_tokens[0] == E and tokenizer.stoi[E] == 0 and tokenizer.special_tokens == {E: 0}
    assert run.initial_vocab_size == len(run.base_tokens) + 1
    live = tokenizer.live_tokens if variant.name == "picky" else set(tokenizer.tokens)
    assert E in live and len(live) == run.final_vocab_size == run.settings.target_vocab_size
    ids = tokenizer.encode(MARKED)
    apart = [tokenizer.encode(document) for document in DOCUMENTS]  # nothing joined across the marker
    assert ids == [*apart[0], *(token for later in apart[1:] for token in (0, *later))]
    assert tokenizer.decode(ids) == MARKED and len(ids) == run.steps[-1].sequence_length
    assert tokenizer.decode(tokenizer.encode(HELDOUT)) == HELDOUT
    assert run.heldout_lengths[0] == len("the cat") + 1 + len("the dog")
    assert run.heldout_lengths[-1] == len(tokenizer.encode(HELDOUT))
    with pytest.raises(BpeError, match="which is disallowed"):  # tiktoken's arguments reach the rule's encoding
        tokenizer.encode(MARKED, allowed_special=set())
    if variant.name == "superbpe":
        superwords = [step.token for step in run.steps if run.superword(step)]
        assert run.joined_after == 4 and superwords  # chunks joined, and across whitespace only
        assert not any(E in token or set("<|>") & set(token) for token in superwords)


@pytest.mark.parametrize("variant", [Variant("superbpe", transition=2), Variant("picky"), Variant()], ids=str)
def test_documents_and_special_tokens_train_together(variant):
    """A list of documents beside special tokens (standard BPE's too, through this package):
    each document cut at them, the marker one token of id 0, never a part of a merge."""
    settings_ = TrainingSettings(
        target_vocab_size=40, minimum_pair_frequency=1, pretokenizer="whitespace", special_tokens=(E,)
    )
    run = train_variant_run([MARKED, DOCUMENTS[0]], settings_, variant)
    tokenizer = run.tokenizer()
    assert tokenizer.stoi[E] == 0 and not any(set("<|>") & set(step.token) for step in run.steps)
    assert tokenizer.decode(tokenizer.encode(MARKED)) == MARKED


def test_superbpe_second_stage_may_make_a_string_the_first_made():
    """Joined chunks can make again a token stage 1 made ('\\n' + '\\n' after GPT-2's pattern kept
    '\\n\\n' whole): no new token, and both engines agree (`bpe.fast` lays out base symbols and
    could not count it; the second stage runs on this package's engines)."""
    from bpe.corpora.corpus import PYTHON_REFERENCE, load_corpus, split_train_heldout

    train, heldout = split_train_heldout(load_corpus(PYTHON_REFERENCE)[:12_000], 0.1)
    runs = [
        train_variant_run(
            train,
            TrainingSettings(target_vocab_size=400, pretokenizer="gpt2", engine=engine),
            Variant("superbpe", transition=150),
            heldout_text=heldout,
        )
        for engine in ("fast", "reference")
    ]
    assert runs[0].steps == runs[1].steps and runs[0].heldout_lengths == runs[1].heldout_lengths
    again = [step for step in runs[0].steps if not step.new_token]
    assert again and all(step.number > 150 for step in again)
    assert len(runs[0].tokenizer().encode(heldout)) == runs[0].heldout_lengths[-1]
