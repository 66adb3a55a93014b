"""`python -m bpe ...`: the tutorial's pipeline and the tools around it.

main.py      the parser and the small commands (build, encode, decode, inspect)
pipeline.py  build: train, save, reload, round-trip every split, write ids
download.py  download: WikiText-2
gpt2.py      gpt2: OpenAI's tokenizer, download and compare with tiktoken
lm.py        lm train: the tiny GPT on characters vs BPE
errors.py    one policy: a clear line on stderr and exit status 1, never a traceback
"""
