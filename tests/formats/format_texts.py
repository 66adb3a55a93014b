"""Multilingual text written for these tests (no outside source): a training part and a
held-out part over the same scripts, so character-level tokenizers cover most of it."""

MULTILINGUAL_TRAIN = """\
The tokenizer reads text one byte at a time, then learns which pairs appear together most often.
Le tokeniseur lit le texte octet par octet, puis apprend quelles paires reviennent le plus souvent.
Der Tokenisierer liest den Text Byte für Byte und lernt, welche Paare am häufigsten vorkommen.
El tokenizador lee el texto byte a byte y aprende qué pares aparecen juntos con más frecuencia.
O tokenizador lê o texto byte a byte e aprende quais pares aparecem juntos com mais frequência.
Токенизатор читает текст байт за байтом и узнаёт, какие пары встречаются чаще всего.
Ο αναλυτής διαβάζει το κείμενο byte προς byte και μαθαίνει ποια ζεύγη εμφανίζονται συχνότερα.
يقرأ المحلل النص بايتًا بايتًا ثم يتعلم الأزواج التي تظهر معًا في أغلب الأحيان.
המנתח קורא את הטקסט בית אחר בית ולומד אילו זוגות מופיעים יחד לעתים קרובות.
टोकनाइज़र पाठ को एक-एक बाइट पढ़ता है और सीखता है कि कौन से जोड़े सबसे अधिक साथ आते हैं।
分词器逐字节读取文本，然后学习哪些字节对最常一起出现。
トークナイザーはテキストを1バイトずつ読み、どのペアが最もよく一緒に現れるかを学びます。
토크나이저는 텍스트를 한 바이트씩 읽고 어떤 쌍이 가장 자주 함께 나타나는지 배웁니다.
ตัวแบ่งคำอ่านข้อความทีละไบต์ แล้วเรียนรู้ว่าคู่ใดปรากฏร่วมกันบ่อยที่สุด
Ayrıştırıcı metni bayt bayt okur ve hangi çiftlerin en sık birlikte göründüğünü öğrenir.
Bộ tách từ đọc văn bản từng byte một, rồi học xem cặp nào xuất hiện cùng nhau nhiều nhất.
Numbers like 1,234,567.89 and 3.14159, dates like 2024-02-29, prices like €12.50 or ¥300.
Emoji too: 🙂 👍🏽 👩‍💻 🇫🇷 🎉🎉🎉, and marks: café, naïve, coöperate, São Paulo, Zürich.
It's, we're, they've, I'll, she'd — contractions; "quotes", «guillemets», „Anführungszeichen“.
"""

MULTILINGUAL_HELD_OUT = """\
Merges that were learned early become short tokens; later merges build whole words.
Les fusions apprises tôt donnent des jetons courts ; les suivantes construisent des mots entiers.
Früh gelernte Verschmelzungen ergeben kurze Token, spätere bauen ganze Wörter.
Las fusiones aprendidas pronto dan tokens cortos; las posteriores construyen palabras enteras.
Слияния, выученные рано, дают короткие токены; поздние собирают целые слова.
Οι συγχωνεύσεις που μαθαίνονται νωρίς δίνουν σύντομα σύμβολα.
الدمج المبكر يعطي رموزًا قصيرة، والدمج اللاحق يبني كلمات كاملة.
מיזוגים מוקדמים נותנים אסימונים קצרים, ומאוחרים בונים מילים שלמות.
जल्दी सीखे गए विलय छोटे टोकन बनाते हैं, बाद वाले पूरे शब्द बनाते हैं।
早期学到的合并产生短的词元，后来的合并组成完整的词。
早く学んだ結合は短いトークンになり、後の結合は単語全体を作ります。
일찍 배운 병합은 짧은 토큰이 되고, 나중의 병합은 단어 전체를 만듭니다.
การรวมที่เรียนรู้ก่อนจะได้โทเค็นสั้น ส่วนที่เรียนรู้ทีหลังจะสร้างคำทั้งคำ
Erken öğrenilen birleştirmeler kısa belirteçler verir; sonrakiler bütün kelimeler kurar.
Các phép gộp học sớm cho ra token ngắn; các phép gộp sau tạo thành cả từ.
Mixed: naïve café in Zürich costs €4.20 🙂 — it's 2025-12-31, «fin».
"""
