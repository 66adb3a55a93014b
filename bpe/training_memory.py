"""What training a whole text in memory will need, said before it starts.

The root's engines hold the text they train on: the fast engine keeps one position per
symbol, so character-level training with no pre-tokenizer (the tutorial's semantics), which
merges across the whole text and so cannot be counted in chunks, grows with the text. A
caller that is about to train in one process (``python -m bpe build``, the app's own
trainings) asks `check_fits_in_memory` first and refuses, in one line, a text that would
swap or be killed half way; the way out it names is the count phase (`bpe.scale`), which
needs only the distinct chunks.

The estimate is a straight line per alphabet and split: a fixed part, plus bytes per
character of text. 10 million characters, characters, no pre-tokenizer::

    in_memory_bytes(10_000_000) == 40 MiB + 13 * 10,000,000 bytes  # about 164 MiB

The slopes are the peak resident sizes measured by ``python -m bpe.benchmarks.in_memory``
and, for pre-tokenized text, by ``python -m bpe.benchmarks scale --tools app,...`` on text
whose distinct chunks keep growing, rounded up by about a tenth (the measurements are in
docs/speed.md). Trained whole, a text is one position (4 bytes) a symbol and one in its
pair's list (4 more), beside the text itself; pre-tokenized, it is the text, the table of
its distinct chunks, which the text is counted into a piece at a time
(`bpe.pretokenize.ChunkTally`), and their symbols: a text that holds one emoji is 4 bytes
a character as a Python string.

It is a module of its own because it is one idea, the engines' cost stated up front, read
by callers on both sides of the package (the command line and the app), and it is not the
algorithm: `bpe.training` checks settings and runs an engine, and never asks the machine
what memory it has.
"""

from __future__ import annotations

from bpe.alphabet import BYTES, CHARACTERS, check_alphabet
from bpe.errors import BpeError
from bpe.wording import BPE_COMMAND

IN_MEMORY_FIXED_BYTES = 40 << 20
# How a pre-tokenizer cuts, for the estimate: not at all (the whole text is one sequence of
# positions), punctuation apart from words (GPT-2's and GPT-4's patterns: " count", "(",
# "x", "),"), or at whitespace only, where punctuation stays on its word ("self.count(x),")
# and code makes many more distinct chunks: 16 M characters of the scale benchmark's open
# corpus make 306,000 against 79,000, and the engine holds each chunk's symbols. A custom
# pattern counts as the last (it may be ``\S+``).
WHOLE, PUNCTUATION_APART, AT_WHITESPACE = "whole", "punctuation apart", "at whitespace"
IN_MEMORY_BYTES_PER_CHARACTER = {
    (CHARACTERS, WHOLE): 13.0,  # the text's positions, one per character
    (BYTES, WHOLE): 13.0,  # ... one per UTF-8 byte
    (CHARACTERS, PUNCTUATION_APART): 6.0,  # the text and the table of its distinct chunks
    (BYTES, PUNCTUATION_APART): 6.0,
    (CHARACTERS, AT_WHITESPACE): 10.0,  # ... and their symbols, 4 bytes each
    (BYTES, AT_WHITESPACE): 10.0,
}


def in_memory_bytes(characters: int, alphabet: str = CHARACTERS, pretokenizer: str | None = None) -> int:
    """About how many bytes of memory training ``characters`` characters in one process
    takes (the fast engine, peak resident size), so a caller can refuse what will not fit."""
    check_alphabet(alphabet)
    if pretokenizer is None or pretokenizer == "none":
        cut = WHOLE
    else:
        cut = PUNCTUATION_APART if pretokenizer in ("gpt2", "gpt4") else AT_WHITESPACE
    return int(IN_MEMORY_FIXED_BYTES + IN_MEMORY_BYTES_PER_CHARACTER[alphabet, cut] * max(0, characters))


def check_fits_in_memory(characters: int, alphabet: str = CHARACTERS, pretokenizer: str | None = None) -> None:
    """`BpeError` when training ``characters`` characters in memory needs more memory than
    this machine has available now (nothing is refused when that cannot be read)."""
    needed = in_memory_bytes(characters, alphabet, pretokenizer)
    available = available_memory_bytes()
    if available is not None and needed > available:
        advice = (
            "train on fewer characters"
            if pretokenizer is None or pretokenizer == "none"
            else f"count it with {BPE_COMMAND} count and train from the counts, or train on fewer characters"
        )
        raise BpeError(
            f"training {characters:,} characters in memory needs about {_memory(needed)}, and this "
            f"machine has {_memory(available)} available: {advice}"
        )


def _memory(size_bytes: int) -> str:
    """2.0 GiB, or 300 MiB below a GiB (where a tenth of a GiB says too little)."""
    return f"{size_bytes / 2**30:.1f} GiB" if size_bytes >= 2**30 else f"{size_bytes / 2**20:,.0f} MiB"


def available_memory_bytes() -> int | None:
    """The memory this machine can give a new task now (Linux's MemAvailable), or None
    when it cannot be read (then callers do not refuse on memory)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None
