"""The Tokenize page's blocks, one module each:

- `tokenizer_columns`: the text box and its presets, a column per tokenizer, GPT-2's
  ``<|endoftext|>``, the merge lineage;
- `span_diff_rows`: the span diff, 2-4 tokenizers' cuts of the text aligned by character;
- `encode_film_player`: the encode film, the text encoded merge by merge, with its player.
"""

from pages._shared.views.tokenize.encode_film_player import draw_encode_film
from pages._shared.views.tokenize.span_diff_rows import draw_span_diff
from pages._shared.views.tokenize.tokenizer_columns import draw_lineage, draw_special_tokens, draw_tokenizers, text_box

__all__ = ["draw_encode_film", "draw_lineage", "draw_span_diff", "draw_special_tokens", "draw_tokenizers", "text_box"]
