"""What a trained run buys, computed from its record (never by retraining).

metrics.py     compression, context coverage, token lengths, curves against vocab size
segments.py    a text cut into tokens for display; the tokenizer at any step
lineage.py     how a token was built, merge by merge
vocabulary.py  learned tokens and first merges
merge_log.py   the merge log as rows and CSV
compare.py     tokenizers side by side (characters vs bytes, pre-tokenizers, GPT-2)
exports.py     downloads: tokenizer JSON, merges CSV, ids as a torch tensor
lesson.py      lesson files: one frame's settings (and pasted text), checked when opened
quiz.py        predict the next merge: a guess judged, explained and scored
algorithm.py   the training loop as pseudocode in phases; the merge scan occurrence by occurrence
film.py        the first merges as data for a film that plays offline
"""
