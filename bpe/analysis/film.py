"""A film to take away: the first merges of a run as plain data, ready to be played offline.

For each merge: the competing pairs and their counts before it, the winner, the new
token, and a passage of the text cut into tokens before the merge, each consumed pair
marked. The passage is re-segmented merge by merge, exactly as the encoder would cut
it (replaying merges in order, left to right without overlap, inside each chunk), so
frame k shows what the app shows at step k. The app turns this into one self-contained
HTML file (``pages/_shared/render/film_html.py``); nothing here knows about HTML.

Token text is spelled with `bpe.text.printable` (· for a space, ↵ for a newline).
"""

from __future__ import annotations

from bpe.pairs import merge_pair, merge_positions
from bpe.run import TrainingRun
from bpe.text import printable

MAX_FRAMES = 500  # a frame is a few KB for a passage of hundreds of characters: a film stays small
# Marks in a frame's ``before`` list: 0 untouched, 1 left half of a merged pair, 2 right half,
# 3 a special token (`bpe.specials`: one token no merge touches).
PLAIN, LEFT, RIGHT, SPECIAL = 0, 1, 2, 3


def film_data(run: TrainingRun, passage: str, merges: int, *, top_k: int, title: str) -> dict:
    """The first ``merges`` merges of ``run`` (at most `MAX_FRAMES`) as JSON-ready data:

    ``{"title", "merges", "tokens": {id: text}, "frames": [{"number", "pair": [a, b],
    "token", "token_id", "count", "new", "top": [[label, count], ...], "before": [[id,
    mark], ...], "breaks": [...], "length", "vocab"}]}``; ``breaks`` are the indices in
    ``before`` where a new chunk starts (merges never cross them).
    """
    merges = max(0, min(merges, len(run.steps), MAX_FRAMES))
    tokenizer = run.tokenizer(merges=merges)
    itos = tokenizer.itos
    chunks = [list(chunk) for chunk in run.tokenizer(merges=0).encode_with_chunks(passage)]
    specials = frozenset(tokenizer.special_tokens.values())  # (each a chunk of its own)
    used: set[int] = {i for chunk in chunks for i in chunk}
    frames = []
    for step in run.steps[:merges]:
        left, right = tokenizer.stoi[step.pair[0]], tokenizer.stoi[step.pair[1]]
        before, breaks = [], []
        for chunk_index, chunk in enumerate(chunks):
            if chunk_index:
                breaks.append(len(before))
            marks = [SPECIAL] if len(chunk) == 1 and chunk[0] in specials else [PLAIN] * len(chunk)
            positions = merge_positions(chunk, (left, right))
            for at in positions:
                marks[at], marks[at + 1] = LEFT, RIGHT
            before.extend([token, mark] for token, mark in zip(chunk, marks))
            chunks[chunk_index] = merge_pair(chunk, (left, right), step.token_id)  # at those positions
        used.add(step.token_id)
        frames.append(
            {
                "number": step.number,
                "pair": [printable(step.pair[0]), printable(step.pair[1])],
                "token": printable(step.token),
                "token_id": step.token_id,
                "count": step.frequency,
                "new": step.new_token,
                "top": [[f"{printable(a)} + {printable(b)}", count] for (a, b), count in step.top_pairs[:top_k]],
                "before": before,
                "breaks": breaks,
                "length": step.sequence_length,
                "vocab": step.vocab_size,
            }
        )
    return {
        "title": title,
        "merges": merges,
        "frames": frames,
        "tokens": {str(i): printable(itos[i]) for i in sorted(used)},
    }
