"""Training rules beyond the textbook: BPE that picks its merges another way.

The root's engines (`bpe.reference`, `bpe.fast`) take, at every step, the pair that is most
frequent over the whole training text: the textbook rule, the one every tokenizer file
records. A variant keeps the same primitives (`bpe.pairs`, the tie rules of `bpe.steps`)
and the same shared vocabulary, and changes which pair a step takes:

- `bpe.variants.parity`: parity-aware BPE (Foroutan et al., 2025), over several languages'
  parallel texts; each merge serves the language that now costs the most tokens.

Each variant's tokenizer is a plain `bpe.tokenizer.BPETokenizer`: encoding replays its
merges in order, whichever rule chose them.
"""
