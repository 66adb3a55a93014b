"""bpe.figures: the pair-frequency chart (winner, ties, escaped labels)."""
from pages._shared.figures import OTHER, TIE_RULE, TIED, WINNER, pair_frequency_figure, tied_with_winner
from bpe.run import train_run


def test_winner_is_first_and_red_ties_are_flagged_and_the_rule_stated():
    step = train_run("low lower newest widest", target_vocab_size=50, minimum_pair_frequency=1).steps[0]  # ('l','o') ties with ('o','w') ... at 2
    fig = pair_frequency_figure(step, 6)
    bar = fig.data[0]
    assert list(bar.y) == [count for _, count in step.top_pairs[:6]]
    assert bar.marker.color[0] == WINNER and bar.text[0] == "winner"
    tied = tied_with_winner(step)
    assert tied and all(bar.marker.color[i] == TIED and bar.text[i] == "tie" for i in range(1, len(tied) + 1))
    assert TIE_RULE in fig.layout.title.text
    assert list(fig.layout.xaxis.ticktext[:2]) == ["l + o", "o + w"]


def test_no_tie_no_rule_in_title_and_top_k_limits_bars():
    step = train_run("aaabdaaabac", target_vocab_size=20, minimum_pair_frequency=1).steps[0]  # ('a','a') 4 times, alone at the top
    fig = pair_frequency_figure(step, 2)
    assert len(fig.data[0].y) == 2 and list(fig.data[0].marker.color) == [WINNER, OTHER]
    assert TIE_RULE not in fig.layout.title.text


def test_labels_are_html_escaped():
    step = train_run("<a href=x>" * 3, target_vocab_size=20, minimum_pair_frequency=1).steps[0]
    fig = pair_frequency_figure(step, 10)
    labels = " ".join(fig.layout.xaxis.ticktext) + " ".join(fig.data[0].customdata)
    assert "<" not in labels and "&lt;" in labels
