"""Under-trained and unreachable tokens: in the vocabulary, but (almost) never in the data.

Unlike `bpe.analysis.vocabulary` (every learned token with its uses), this flags the
tokens a language model would learn little or nothing about:

- **absorbed**: created by a merge, then used no more in the final encoding of the
  training text, because later merges took every occurrence into longer tokens (training
  on "lowest lowest" makes 'lo', then 'low', ... and ends with only 'lowest');
- **rare**: used, but fewer than ``rare_below`` times in that final encoding;
- **unreachable**: its own text never encodes to it (merges learned earlier cut that
  text otherwise), so it can only ever appear where a longer context builds it, or never;
- **partial**: a byte token that is part of a character; it has no text of its own.

A model's embedding row for a token it never sees keeps its random start. GPT-2's
" SolidGoldMagikarp" is the famous case (Rumbelow and Watkins, 2023): a Reddit user name,
frequent in the text the tokenizer was trained on, absent from the model's training
data; asked to repeat it, GPT-3 said "distribute". `GLITCH_TOKENS` lists such tokens of
GPT-2 that were reported then.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from bpe.analysis.vocabulary import learned_tokens
from bpe.errors import BpeError
from bpe.text import is_complete_utf8

ABSORBED, RARE, UNREACHABLE, PARTIAL = "absorbed", "rare", "unreachable", "partial"
FLAGS = (ABSORBED, RARE, UNREACHABLE, PARTIAL)

# GPT-2 tokens reported as anomalous in "SolidGoldMagikarp (plus, prompt generation)",
# Rumbelow and Watkins, LessWrong, February 2023 (each checked to be one GPT-2 token).
GLITCH_TOKENS = (
    " SolidGoldMagikarp",
    " petertodd",
    " davidjl",
    " RandomRedditorWithNo",
    " TheNitromeFan",
    " Smartstocks",
    " guiActiveUn",
    " externalToEVA",
    "StreamerBot",
    "TPPStreamerBot",
    " attRot",
    " srfN",
    " Adinida",
    "rawdownloadcloneembedreportprint",
    "ForgeModLoader",
    " Skydragon",
    "ÃÂÃÂ",
    " strutConnector",
    " largeDownload",
    "PsyNetMessage",
    " Dragonbound",
    " gmaxwell",
    " DevOnline",
    " Leilan",
)


@dataclass(frozen=True)
class TokenHealth:
    """One token: when it was made and how often, how often the data uses it, what is wrong."""

    id: int
    token: str | bytes
    step: int | None  # the training step that first made it (None: an imported tokenizer)
    created_count: int | None  # its pair's count at that step
    train_uses: int | None  # in the final encoding of the training text (None: not measured)
    heldout_uses: int | None
    encodes_as: tuple | None  # what its own text encodes to, when that is not the token itself
    flags: tuple[str, ...]


def reach(tokenizer, token_id: int) -> tuple[str | None, tuple | None]:
    """(PARTIAL, None), (UNREACHABLE, its own text's tokens) or (None, None) when its text
    encodes to exactly this token."""
    token = tokenizer.itos[token_id]
    if not is_complete_utf8(token):
        return PARTIAL, None
    text = token if isinstance(token, str) else token.decode("utf-8")
    try:
        ids = _encode_ordinary(tokenizer, text)
    except BpeError:
        return UNREACHABLE, ()
    if ids == [token_id]:
        return None, None
    return UNREACHABLE, tuple(tokenizer.itos[i] for i in ids)


def uses(tokenizer, text: str) -> Counter:
    """How often each token id occurs in the encoding of ``text`` (no special tokens)."""
    return Counter(_encode_ordinary(tokenizer, text)) if text else Counter()


def run_token_health(
    run, merges: int, train_usage: Counter, heldout_usage: Counter | None, *, rare_below: int
) -> list[TokenHealth]:
    """Every token the first ``merges`` merges of ``run`` added, in id order.

    ``train_usage``: token -> count in the final training encoding
    (`bpe.analysis.metrics.token_usage`); ``heldout_usage``: id -> count (`uses`) or None.
    """
    tokenizer = run.tokenizer(merges=merges)
    rows = []
    for learned in learned_tokens(run, merges, train_usage):
        problem, encodes_as = reach(tokenizer, learned.id)
        flags = []
        if learned.uses == 0:
            flags.append(ABSORBED)
        elif learned.uses < rare_below:
            flags.append(RARE)
        if problem:
            flags.append(problem)
        held = None if heldout_usage is None else heldout_usage.get(learned.id, 0)
        rows.append(
            TokenHealth(
                learned.id, learned.token, learned.step, learned.frequency, learned.uses, held, encodes_as, tuple(flags)
            )
        )
    return rows


def tokenizer_token_health(
    tokenizer,
    *,
    train_usage: Counter | None = None,
    heldout_usage: Counter | None = None,
    ids: Iterable[int] | None = None,
) -> list[TokenHealth]:
    """The reachability check for any tokenizer (GPT-2, GPT-4, an imported file): every
    token longer than one symbol (or ``ids``). Its training data and creation counts are
    unknown, so nothing is flagged absorbed or rare; ``train_usage`` and ``heldout_usage``
    (id -> count, `uses`) are this corpus's counts, shown beside the flags."""
    special = set(getattr(tokenizer, "special_tokens", {}).values())
    chosen = ids if ids is not None else (i for i, t in sorted(tokenizer.itos.items()) if len(t) > 1)
    rows = []
    for token_id in chosen:
        if token_id in special:
            continue
        problem, encodes_as = reach(tokenizer, token_id)
        flags = (problem,) if problem else ()
        rows.append(TokenHealth(token_id, tokenizer.itos[token_id], None, None, None, None, encodes_as, flags))
    return with_usage(rows, train_usage=train_usage, heldout_usage=heldout_usage)


def with_usage(
    rows: Iterable[TokenHealth], *, train_usage: Counter | None, heldout_usage: Counter | None
) -> list[TokenHealth]:
    """``rows`` of `tokenizer_token_health` with the uses of another text (id -> count,
    None: not measured). What a token's own text encodes to does not depend on any corpus,
    so a tokenizer can be checked once (GPT-2: 50,000 encodes) and each corpus only counted."""
    return [
        TokenHealth(
            r.id,
            r.token,
            r.step,
            r.created_count,
            None if train_usage is None else train_usage.get(r.id, 0),
            None if heldout_usage is None else heldout_usage.get(r.id, 0),
            r.encodes_as,
            r.flags,
        )
        for r in rows
    ]


def glitch_tokens(tokenizer) -> list[tuple[int, str]]:
    """(id, text) of each `GLITCH_TOKENS` entry that is one token of ``tokenizer`` (GPT-2 has them all)."""
    found = []
    for text in GLITCH_TOKENS:
        key = text.encode("utf-8") if tokenizer.alphabet == "bytes" else text
        token_id = tokenizer.stoi.get(key)
        if token_id is not None:
            found.append((token_id, text))
    return found


def flag_counts(rows: Iterable[TokenHealth]) -> dict[str, int]:
    counts = dict.fromkeys(FLAGS, 0)
    for row in rows:
        for flag in row.flags:
            counts[flag] += 1
    return counts


def _encode_ordinary(tokenizer, text: str) -> list[int]:
    encode = getattr(tokenizer, "encode_ordinary", None) or tokenizer.encode
    return encode(text)
