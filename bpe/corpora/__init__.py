"""Texts to train on: built-in samples, files, uploads, and WikiText-2 downloaded.

builtin.py   the small teaching texts (worked examples, multilingual samples, data/lighthouse/)
textfile.py  reading UTF-8 safely: size limit, BOM, the offset of a bad byte
corpus.py    the registry the app and the command line share: name -> text, train/held-out split
wikitext.py  WikiText-2's files: word-level detection, cleaning, where the cache keeps them
download.py  fetching WikiText-2: mirrors, SHA-256, atomic and resumable-safe

A corpus too big to hold in memory (txt, jsonl, parquet, gzip; gigabytes) is read and
counted by the big-corpus pipeline, `bpe.scale`.
"""
