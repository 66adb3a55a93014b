"""The Compression page's blocks, one module each:

- `compression_curve`: the curve of characters per token against vocab size (training and
  held-out, other runs overlaid, pretrained tokenizers beside it) and what the vocabulary
  costs at the size shown;
- `size_table`: vocab sizes side by side, each a prefix of the one run;
- `pretrained_table`: GPT-2, GPT-4 and an uploaded tokenizer on the same text;
- `report_card_block`: this run beside them on fixed kinds of text.
"""

from pages._shared.views.compression.compression_curve import draw_cost, draw_curve, shown_point
from pages._shared.views.compression.pretrained_table import draw_pretrained_table
from pages._shared.views.compression.report_card_block import draw_report_card
from pages._shared.views.compression.size_table import draw_size_table

__all__ = ["draw_cost", "draw_curve", "draw_pretrained_table", "draw_report_card", "draw_size_table", "shown_point"]
