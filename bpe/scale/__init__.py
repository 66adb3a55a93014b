"""The big-corpus pipeline, whole: a corpus of gigabytes in, a run file the app replays out.

Every serious trainer (Hugging Face, rustbpe, sentencepiece) splits BPE the same way, and
so does BPE Lab beyond what fits a session. One module a step, in the order data flows::

    corpus files ─► corpus_files   what the user named, found and checked
                    safe_cuts      where a named pre-tokenizer certainly cuts a text
                    partitions     the corpus in partitions, each read as documents
                 ─► count_phase    partitions counted on every core or a Dask cluster,
                                   tables summed in input order
                 ─► chunk_counts   the table: distinct chunks and their counts
                 ─► counts_file    the table on disk (Parquet), checked on the way in
                 ─► merge_phase    the fast engine over the table, on one machine:
                                   the same merges as in-memory training of the text
                 ─► run_file       the training recorded: settings, merges, runners-up,
                                   held-out curve, a held-out sample
                 ─► run_listing    the run files the app's corpus picker offers

On the command line: ``python -m bpe count CORPUS --output counts.parquet`` runs the first
half, ``python -m bpe train --counts counts.parquet --vocab-size 50000 --run-output
run.bperun`` the second. Character-level training with no pre-tokenizer cannot be cut
into chunks; it stays in memory, its need said up front (`bpe.training_memory`).
"""
