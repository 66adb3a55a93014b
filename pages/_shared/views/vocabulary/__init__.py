"""The Vocabulary page's blocks, one module each:

- `token_table`: the learned tokens, their summary, the filtered table, the first merges
  beside the longest tokens;
- `undertrained_tokens`: tokens the final encoding absorbed, uses rarely or cannot reach,
  and the same check of GPT-2, GPT-4 and an uploaded tokenizer;
- `vocabulary_files`: the files to take away (the tokenizer, its merges, the encoded text,
  the exports for other libraries) and a tokenizer file to bring;
- `ranks_lesson`: merges against ranks, the formats of other libraries compared.
"""

from pages._shared.views.vocabulary.ranks_lesson import draw_merges_vs_ranks
from pages._shared.views.vocabulary.token_table import (
    draw_filters,
    draw_first_and_longest,
    draw_summary,
    draw_token_table,
    learned_table,
)
from pages._shared.views.vocabulary.undertrained_tokens import draw_undertrained
from pages._shared.views.vocabulary.vocabulary_files import draw_downloads, draw_exports, draw_upload

__all__ = [
    "draw_downloads",
    "draw_exports",
    "draw_filters",
    "draw_first_and_longest",
    "draw_merges_vs_ranks",
    "draw_summary",
    "draw_token_table",
    "draw_undertrained",
    "draw_upload",
    "learned_table",
]
