"""The Merge by merge page's blocks, one module each:

- `stage`: the slots of the stage, laid out to fit a projector's first screen;
- `step_frame`: the frame of one step (numbers, headline, pair chart, the text before and
  after, the merge log), as far as the frame's phase reveals;
- `film_player`: the film's state, its switches and the player that draws the stage, a frame a step;
- `teach_mode`: the teaching switches, the algorithm's phases and the slow scan;
- `merge_quiz`: predict the next merge;
- `pair_counts`: the pair count training compared beside the merges that happened;
- `film_download`: the merge log and the film to take away.
"""

from pages._shared.views.merge_by_merge.film_download import draw_downloads
from pages._shared.views.merge_by_merge.film_player import film_state, play
from pages._shared.views.merge_by_merge.step_frame import Film

__all__ = ["Film", "draw_downloads", "film_state", "play"]
