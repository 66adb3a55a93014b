"""Does BPE help the model? A tiny GPT trained on characters vs BPE ids, at equal compute.

This is the only part of `bpe` that uses torch (besides the tensor writer,
`bpe.analysis.exports`). The package imports nothing itself, so `import bpe.lm` (and the
`lm` command in `bpe.cli.lm`) stays cheap until a model is needed; import the modules:

    config.py      ModelConfig, TrainSettings, Budget: validated settings
    model.py       TinyGPT, build_model, count_parameters
    data.py        TokenData: training blocks, fixed held-out windows, bits_per_char
    train.py       train_model: a generator of TrainProgress records; evaluate
    checkpoint.py  save/load with the tokenizer fingerprint (weights_only loading)
    sample.py      generate: temperature and top-k sampling
    experiment.py  train_model_per_tokenizer: one model per tokenizer, same budget
    slots.py, job.py, report.py   the app's background training jobs and their reports
"""
