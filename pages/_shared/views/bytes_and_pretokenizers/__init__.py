"""The Bytes and pre-tokenizers page's blocks, one module each:

- `four_ways`: the controls, the corpus trained four ways, their tables, merge lists and
  multi-byte characters;
- `gpt2_section`: GPT-2 checked id for id against tiktoken.
"""

from pages._shared.views.bytes_and_pretokenizers.four_ways import (
    draw_controls,
    draw_merge_lists,
    draw_multibyte,
    draw_run_corpus,
    draw_summary,
    four_ways,
    measured_text,
    train_text_words,
)
from pages._shared.views.bytes_and_pretokenizers.gpt2_section import draw_gpt2_section

__all__ = [
    "draw_controls",
    "draw_gpt2_section",
    "draw_merge_lists",
    "draw_multibyte",
    "draw_run_corpus",
    "draw_summary",
    "four_ways",
    "measured_text",
    "train_text_words",
]
