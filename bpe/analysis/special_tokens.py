"""Special tokens side by side: ``<|endoftext|>`` as plain text and as one reserved id.

GPT-2 reserves id 50256 for ``<|endoftext|>``, the marker between documents. Typed in a
text, the same seven characters are ordinary text and encode to several ordinary tokens;
only a program that allows the special token (tiktoken's ``allowed_special``) turns them
into the one id. Keeping the two apart is what stops a user's text from forging the
document boundary the model was trained on.

    >>> c = special_token_comparison(gpt2, "The end.<|endoftext|>A new start.")
    >>> c.plain_ids, c.special_id
    ((27, 91, 437, 1659, 5239, 91, 29), 50256)
"""

from __future__ import annotations

from dataclasses import dataclass

from bpe.analysis.segments import Segment

ENDOFTEXT = "<|endoftext|>"
SAMPLE = f"The first document ends here.{ENDOFTEXT}A second document starts."


@dataclass(frozen=True)
class SpecialTokenComparison:
    """One text encoded twice: with the special token as plain text, and allowed."""

    text: str
    special: str
    as_text: tuple[Segment, ...]  # allowed_special: none (tiktoken with disallowed_special=())
    as_special: tuple[Segment, ...]  # allowed_special={special}
    plain_ids: tuple[int, ...]  # the special string alone, as plain text
    special_id: int
    occurrences: int

    @property
    def explanation(self) -> str:
        """The difference, spelled out (plain text; the ids and counts are numbers)."""
        if not self.occurrences:
            return (
                f"This text does not contain {self.special}, so both encodings are the same "
                f"{len(self.as_text):,} tokens."
            )
        ids = " ".join(str(i) for i in self.plain_ids)
        times = "once" if self.occurrences == 1 else f"{self.occurrences:,} times"
        return (
            f"{self.special} occurs {times}. As plain text it is {len(self.plain_ids)} ordinary tokens "
            f"(ids {ids}), which any user can type; as the special token it is one id, {self.special_id}, "
            f'which only the program adds (allowed_special), so a model can trust it to mean "a document '
            f'ends here". The whole text: {len(self.as_text):,} tokens as plain text, '
            f"{len(self.as_special):,} with the special token."
        )


def special_token_comparison(tokenizer, text: str, special: str = ENDOFTEXT) -> SpecialTokenComparison:
    """``text`` encoded by a tokenizer with special tokens (`bpe.gpt2.GPT2Tokenizer`) with
    ``special`` as plain text and as its reserved id."""
    plain = tokenizer.encode(text)
    allowed = tokenizer.encode(text, allowed_special={special})
    itos = tokenizer.itos
    return SpecialTokenComparison(
        text=text,
        special=special,
        as_text=tuple(Segment(itos[i], i) for i in plain),
        as_special=tuple(Segment(itos[i], i) for i in allowed),
        plain_ids=tuple(tokenizer.encode(special)),
        special_id=tokenizer.special_tokens[special],
        occurrences=text.count(special),
    )
