"""The Model page's blocks, one module each:

- `training_job`: the tokenizers on offer and this session's training job;
- `job_owner`: which corpus the results belong to, and why Train is not offered;
- `model_controls`: the tokenizers, the model's shape, the time, Train and Stop;
- `job_progress`: the live progress and curves, then the results.
"""

from pages._shared.views.model.job_progress import draw_job
from pages._shared.views.model.model_controls import draw_controls
from pages._shared.views.model.training_job import tokenizer_choices

__all__ = ["draw_controls", "draw_job", "tokenizer_choices"]
