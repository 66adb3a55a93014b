"""Languages: the same paragraph in eleven languages, and what each costs in tokens."""

from pages._shared.frame import setup_page
from pages._shared.views.languages import draw_controls, draw_costs

setup_page(
    "Languages",
    "The same short paragraph (a lighthouse keeper's evening) written in eleven languages. A byte-level BPE "
    "is trained on them with the same number of merges; how many tokens does **the same content** cost in "
    "each language? A model pays for every token in context length and compute.",
)  # this page does not use the sidebar's corpus: it compares the built-in paragraphs
draw_costs(*draw_controls())
