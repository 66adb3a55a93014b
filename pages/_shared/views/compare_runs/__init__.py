"""The Compare runs page's blocks, one module each:

- `run_pair`: which two runs (pickers, a variant of run A trained on request);
- `run_differences`: the merges compared, what differs, where the runs part, their
  vocabularies and text they cut differently;
- `what_if`: the way in from Merge by merge ("What if another tie rule? Compare →");
- `homework_check`: a student's own merges against this text's runs, where they part and why.
"""

from pages._shared.views.compare_runs.homework_check import draw_homework_check
from pages._shared.views.compare_runs.run_differences import draw_comparison
from pages._shared.views.compare_runs.run_pair import chosen_runs

__all__ = ["chosen_runs", "draw_comparison", "draw_homework_check"]
