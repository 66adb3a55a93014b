"""The Merge-by-merge page: the film (`player`, `one_step`), teach mode (`teach_mode`:
the algorithm's phases, the slow scan; `guess`: predict the merge), the pair counts
(`counts`) and the film to take away (`film_file`)."""

from pages._shared.views.merges.film_file import draw_downloads
from pages._shared.views.merges.one_step import Film
from pages._shared.views.merges.player import film_controls, film_state, play
from pages._shared.views.merges.teach_mode import teach_controls

__all__ = ["Film", "draw_downloads", "film_controls", "film_state", "play", "teach_controls"]
