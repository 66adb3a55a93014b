"""The Model page: the training job (`training_job`), whose results are shown where
(`owner`), the controls (`controls`), and the live progress, curves and results (`live`)."""

from pages._shared.views.model.controls import draw_controls
from pages._shared.views.model.live import draw_job
from pages._shared.views.model.training_job import tokenizer_choices

__all__ = ["draw_controls", "draw_job", "tokenizer_choices"]
