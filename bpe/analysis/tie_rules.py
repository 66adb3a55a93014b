"""The tie rules in words: what the sidebar, the charts and the run comparison say about them.

The rules themselves live with the engines (`bpe.steps.TIE_RULES`); this only names and
explains them for a reader.
"""

from __future__ import annotations

from bpe.steps import FIRST_OCCURRENCE, HUGGINGFACE, LEXICOGRAPHIC, LEXICOGRAPHIC_GREATEST, check_tie_rule

TIE_RULE_LABELS = {
    FIRST_OCCURRENCE: "first occurrence",
    LEXICOGRAPHIC: "lexicographic",
    LEXICOGRAPHIC_GREATEST: "lexicographically greatest (as Stanford CS336)",
    HUGGINGFACE: "Hugging Face",
}
# Each finishes the sentence "ties go to ...".
TIE_RULE_EXPLANATIONS = {
    FIRST_OCCURRENCE: "the pair whose first occurrence in the text comes earliest",
    LEXICOGRAPHIC: "the alphabetically smallest pair (the smaller left token, then the smaller right token)",
    LEXICOGRAPHIC_GREATEST: "the greatest pair compared as the UTF-8 bytes of its left token, then of its right "
    "token ('st' beats 'es')",
    HUGGINGFACE: "the pair with the smallest token ids, numbered as Hugging Face's BpeTrainer numbers them",
}
# Where each rule comes from, for help texts.
TIE_RULE_ORIGINS = {
    FIRST_OCCURRENCE: "the tutorial's rule; minbpe's max(stats, key=stats.get) picks the same pair",
    LEXICOGRAPHIC: "independent of where pairs occur: any implementation that sorts pairs agrees",
    LEXICOGRAPHIC_GREATEST: "Stanford CS336's assignment, max() over (count, pair of bytes): characters compare "
    "by their UTF-8 bytes, which is the order of their code points",
    HUGGINGFACE: "what Hugging Face tokenizers' BpeTrainer does: its alphabet sorted by character code, then "
    "each new token numbered in the order it was made",
}


def tie_rule_label(name: str) -> str:
    """A rule's short name: 'first occurrence', 'lexicographic', 'lexicographically greatest
    (as Stanford CS336)', 'Hugging Face'."""
    return TIE_RULE_LABELS[check_tie_rule(name)]


def describe_tie_rule(name: str) -> str:
    """The rule in a phrase: ``f"ties go to {describe_tie_rule(name)}"``."""
    return TIE_RULE_EXPLANATIONS[check_tie_rule(name)]


def tie_rule_sentence(name: str) -> str:
    """'ties go to the pair whose first occurrence in the text comes earliest' (and so on)."""
    return f"ties go to {describe_tie_rule(name)}"


def tie_rules_help() -> str:
    """Every rule in one Markdown paragraph each: label, what wins a tie, where it comes from."""
    return "\n\n".join(
        f"**{TIE_RULE_LABELS[name]}**: ties go to {TIE_RULE_EXPLANATIONS[name]} ({TIE_RULE_ORIGINS[name]})."
        for name in TIE_RULE_LABELS
    )
