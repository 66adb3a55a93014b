"""The Tokenize page's blocks, one module each:

- `columns`: the text box and its presets, a column per tokenizer, GPT-2's
  ``<|endoftext|>``, the merge lineage;
- `diff_rows`: the span diff, 2-4 tokenizers' cuts of the text aligned by character;
- `film_player`: the encode film, the text encoded merge by merge, with its player.
"""

from pages._shared.views.tokenize.columns import draw_lineage, draw_special_tokens, draw_tokenizers, text_box
from pages._shared.views.tokenize.diff_rows import draw_span_diff
from pages._shared.views.tokenize.film_player import draw_encode_film

__all__ = ["draw_encode_film", "draw_lineage", "draw_span_diff", "draw_special_tokens", "draw_tokenizers", "text_box"]
