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
encode_film.py a trained tokenizer applying its merges to a text, frame by frame
span_diff.py   several tokenizers' cuts of one text, aligned, differing spans found
report_card.py characters and bytes per token on fixed kinds of text, beside GPT-2 and GPT-4
undertrained.py  absorbed, rare, unreachable and partial tokens
"""
