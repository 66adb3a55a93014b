"""The Context window page's blocks, one module:

- `window_coverage`: the block size and vocab sizes compared, the coverage of a block of
  T tokens per tokenizer, the highlighted passage and what attention costs.
"""

from pages._shared.views.context_window.window_coverage import (
    draw_attention_cost,
    draw_controls,
    draw_coverage,
    draw_passages,
    measure,
    nothing_to_measure,
)

__all__ = ["draw_attention_cost", "draw_controls", "draw_coverage", "draw_passages", "measure", "nothing_to_measure"]
