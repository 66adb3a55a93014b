"""The Languages page's blocks, one module:

- `language_costs`: the paragraph's cost in tokens per language and tokenizer, and
  parity-aware BPE beside standard BPE.
"""

from pages._shared.views.languages.language_costs import draw_controls, draw_costs

__all__ = ["draw_controls", "draw_costs"]
