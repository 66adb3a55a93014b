"""A download button fetches its file and nothing else: it does not rerun the page.

Streamlit reruns the script on a download click unless ``on_click="ignore"``. That rerun
is a whole page of work for a file the server already had (a hundred students taking the
film is a hundred page runs), and for a file made on click it races the click: the rerun
registers a new file id and drops the old one, and when the rerun ends first the browser
asks for an id that is gone, and no file comes. It happened on a loaded CI machine.
"""

from __future__ import annotations

import pytest
from app_helpers import new_app

MEDIUM = dict(settings_prefix_cap=20_000, settings_vocab=300, settings_train_up_to=300)  # Tiny Shakespeare, quick
PAGES_WITH_FILES = {
    "pages/1_Merge_by_merge.py": {"merges_csv", "teach_film_download"},
    "pages/3_Compression.py": {"compression_card_csv"},
    "pages/5_Vocabulary.py": {"vocab_download_json", "vocab_download_csv", "vocab_download_pt"},
}


@pytest.mark.parametrize("page", sorted(PAGES_WITH_FILES), ids=lambda page: page.split("/")[-1])
def test_no_download_button_reruns_the_page(page):
    at = new_app(page, **MEDIUM)
    assert not at.exception
    buttons = list(at.download_button)
    assert PAGES_WITH_FILES[page] <= {button.key for button in buttons}
    rerunning = [button.key for button in buttons if not button.proto.ignore_rerun]
    assert rerunning == [], f"{page}: these download buttons rerun the page on click: {rerunning}"
