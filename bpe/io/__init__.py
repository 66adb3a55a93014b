"""The floor under the package: files and bytes from the outside world, handled one way,
and what the process asks of the system.

Every part of `bpe` that writes a file, downloads one, or reads what a stranger sent goes
through these modules, so each door gets the same guarantees and the same one-line errors:

- `bpe.io.files`: write whole or not at all (a temporary name, then `os.replace`), check a
  file by its SHA-256.
- `bpe.io.fetch`: download a file whose SHA-256 is known, from the first mirror that serves it.
- `bpe.io.untrusted`: open and read a stranger's file or upload within a size bound.
- `bpe.io.jsonfile`: parse a stranger's JSON (bad UTF-8, deep nesting, duplicate keys refused).
- `bpe.io.budget`: what building a tokenizer a file describes may cost, checked before the work.
- `bpe.io.locks`: "one at a time" between the processes of one machine.
- `bpe.io.memory`: give the memory the C allocator holds free back to the system.

The floor knows nothing of BPE: it imports only `bpe.errors`, `bpe.paths` and the standard
library. The algorithm at `bpe/`'s root stands on it (`bpe.storage` reads tokenizer files
through it), and the sub-packages stand on both.
"""
