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
  be compared across languages (tokens per sentence, alphabet size). All the texts
  were written for this project and are in Unicode NFC.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BuiltinText:
    """One built-in corpus: its registry name, text, language hint and what it teaches."""

    name: str
    text: str
    language: str | None
    description: str


# One paragraph, by language code; the English one is the original.
LIGHTHOUSE = {
    "en": (
        "English",
        "The old lighthouse keeper climbs the stairs every evening. He lights the lamp, "
        "watches the sea, and writes the weather in his notebook. Ships pass in the night, "
        "and none of them knows his name.",
    ),
    "fr": (
        "French",
        "Le vieux gardien du phare monte l'escalier chaque soir. Il allume la lampe, "
        "regarde la mer et note le temps dans son carnet. Des navires passent dans la nuit, "
        "et aucun d'eux ne connaît son nom.",
    ),
    "de": (
        "German",
        "Der alte Leuchtturmwärter steigt jeden Abend die Treppe hinauf. Er zündet die Lampe "
        "an, beobachtet das Meer und schreibt das Wetter in sein Notizbuch. Schiffe fahren in "
        "der Nacht vorbei, und keines von ihnen kennt seinen Namen.",
    ),
    "es": (
        "Spanish",
        "El viejo farero sube la escalera cada tarde. Enciende la lámpara, mira el mar y anota "
        "el tiempo en su cuaderno. Los barcos pasan en la noche, y ninguno de ellos conoce su "
        "nombre.",
    ),
    "ru": (
        "Russian",
        "Старый смотритель маяка каждый вечер поднимается по лестнице. Он зажигает лампу, "
        "смотрит на море и записывает погоду в свою тетрадь. Корабли проходят в ночи, и ни "
        "один из них не знает его имени.",
    ),
    "el": (
        "Greek",
        "Ο γέρος φαροφύλακας ανεβαίνει τη σκάλα κάθε βράδυ. Ανάβει τη λάμπα, κοιτάζει τη "
        "θάλασσα και γράφει τον καιρό στο σημειωματάριό του. Τα πλοία περνούν μέσα στη νύχτα, "
        "και κανένα δεν ξέρει το όνομά του.",
    ),
    "zh": (
        "Chinese",
        "老灯塔看守人每天傍晚都爬上楼梯。他点亮灯，眺望大海，把天气记在笔记本上。"
        "船只在夜里驶过，没有一艘知道他的名字。",
    ),
    "ja": (
        "Japanese",
        "年老いた灯台守は毎晩、階段を上る。ランプをともし、海を見つめ、天気をノートに書き留める。"
        "船は夜の中を通り過ぎ、誰も彼の名前を知らない。",
    ),
    "ko": (
        "Korean",
        "늙은 등대지기는 매일 저녁 계단을 오른다. 그는 등불을 켜고, 바다를 바라보며, 날씨를 "
        "공책에 적는다. 배들은 밤에 지나가고, 그 누구도 그의 이름을 알지 못한다.",
    ),
    "ar": (
        "Arabic",
        "يصعد حارس المنارة العجوز الدرج كل مساء. يشعل المصباح، ويراقب البحر، ويكتب حالة الطقس "
        "في دفتره. تمر السفن في الليل، ولا تعرف أي منها اسمه.",
    ),
    "hi": (
        "Hindi",
        "बूढ़ा प्रकाशस्तंभ रक्षक हर शाम सीढ़ियाँ चढ़ता है। वह दीपक जलाता है, समुद्र को देखता है "
        "और अपनी नोटबुक में मौसम लिखता है। जहाज़ रात में गुज़रते हैं, और उनमें से कोई भी उसका "
        "नाम नहीं जानता।",
    ),
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
