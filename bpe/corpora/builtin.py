"""Teaching texts that ship with BPE Lab, small enough to follow merge by merge.

Each one shows one idea:
- `low lower lowest`: the textbook example; `lo` and `low` are merged first.
- `low lower newest widest`: Sennrich et al.'s word counts written out as text; `es`
  and then `est` are the first merges, as in the paper.
- `the cat in the hat`: ordinary English, where `th`, `the` and `at` come first.
- `aaabdaaabac`: Wikipedia's worked example (`aa` -> Z, `ab` -> Y, `ZY` -> X).
- `aaaaa`: overlapping pairs; merging `aa` left to right gives `aa aa a`, never three.
- `multilingual sample`: several scripts and an emoji in one text, for byte vs
  character alphabets.
- `lighthouse (<language>)`: one short paragraph, translated, so the same content can
  be compared across languages (tokens per sentence, alphabet size); its eleven texts
  are files in `data/lighthouse/`, read here. All the texts were written for this
  project and are in Unicode NFC.
"""

from __future__ import annotations

from dataclasses import dataclass

from bpe.paths import DATA_DIR


@dataclass(frozen=True)
class BuiltinText:
    """One built-in corpus: its registry name, text, language hint and what it teaches."""

    name: str
    text: str
    language: str | None
    description: str


# The lighthouse paragraph's languages, in the order pages and tables list them; the English
# one is the original. Each text is one file, `data/lighthouse/<code>.txt` (one paragraph, no
# final newline), so that the command line reads the same text the app shows:
# `python -m bpe train data/lighthouse/*.txt --rule parity` names each language by its code.
LIGHTHOUSE_DIR = DATA_DIR / "lighthouse"
LIGHTHOUSE_LANGUAGES = {
    "en": "English",
    "fr": "French",
    "de": "German",
    "es": "Spanish",
    "ru": "Russian",
    "el": "Greek",
    "zh": "Chinese",
    "ja": "Japanese",
    "ko": "Korean",
    "ar": "Arabic",
    "hi": "Hindi",
}
# By language code: (language, paragraph), e.g. LIGHTHOUSE["fr"] == ("French", "Le vieux gardien ...").
LIGHTHOUSE = {
    code: (language, (LIGHTHOUSE_DIR / f"{code}.txt").read_text(encoding="utf-8"))
    for code, language in LIGHTHOUSE_LANGUAGES.items()
}

MULTILINGUAL_SAMPLE = (
    "Hello, world! Tokenizers split text into pieces.\n"
    "Bonjour le monde ! Ça coûte 5 € à Noël.\n"
    "Grüß Gott, schöne Straße.\n"
    "¡Hola, señor! ¿Qué tal?\n"
    "Привет, мир! Ёлка.\n"
    "Γειά σου, κόσμε!\n"
    "你好，世界！\n"
    "こんにちは、世界。カタカナとひらがな。\n"
    "안녕하세요, 세계!\n"
    "مرحبا بالعالم\n"
    "नमस्ते दुनिया\n"
    "Emoji: 🙂👍🏽 🇫🇷 and math: x² ≤ π·r²\n"
)


def lighthouse_name(language: str) -> str:
    """The registry name of the lighthouse paragraph in one language, e.g. 'lighthouse (French)'."""
    return f"lighthouse ({LIGHTHOUSE[language][0]})"


BUILTIN_TEXTS: tuple[BuiltinText, ...] = (
    BuiltinText(
        "low lower lowest",
        "low lower lowest",
        "en",
        "The textbook example: three words sharing a stem; 'lo' then 'low' merge first.",
    ),
    BuiltinText(
        "low lower newest widest",
        " ".join(["low"] * 5 + ["lower"] * 2 + ["newest"] * 6 + ["widest"] * 3),
        "en",
        "Sennrich et al.'s word counts (low 5, lower 2, newest 6, widest 3) as running text.",
    ),
    BuiltinText(
        "the cat in the hat",
        "the cat in the hat",
        "en",
        "A short English phrase: 'th', 'the' and 'at' show up as early merges.",
    ),
    BuiltinText(
        "aaabdaaabac",
        "aaabdaaabac",
        None,
        "Wikipedia's worked example: aa, then ab, then the two merged tokens together.",
    ),
    BuiltinText(
        "aaaaa",
        "aaaaa",
        None,
        "Overlapping pairs: merging 'aa' left to right gives 'aa aa a', not three 'aa'.",
    ),
    BuiltinText(
        "multilingual sample",
        MULTILINGUAL_SAMPLE,
        "mul",
        "Greetings in eleven languages and scripts, with accents, emoji and symbols.",
    ),
    *(
        BuiltinText(
            lighthouse_name(code),
            text,
            code,
            f"One short paragraph in {language}; the same content exists in every lighthouse text.",
        )
        for code, (language, text) in LIGHTHOUSE.items()
    ),
)
