"""The way into Compare runs from Merge by merge: under a step the tie rule decided, one
button per other tie rule opens Compare runs on this run against that rule's, at the step.

Merge by merge's step frame imports it (the one import across pages, named in
tests/app/test_ui_layers.py): the buttons set the two runs of `run_pair` and switch page.
"""

from __future__ import annotations

import streamlit as st
from streamlit.errors import StreamlitAPIException

from bpe.analysis.tie_rules import describe_tie_rule, tie_rule_label
from bpe.steps import TIE_RULES
from pages._shared.state.per_run import keep_with, run_identity
from pages._shared.state.settings import Settings
from pages._shared.views.compare_runs.run_pair import FOCUS, KEPT_WITH_RUN, MERGES, RUN_A, RUN_B, WIDEN

COMPARE_PAGE = "pages/8_Compare_runs.py"


def what_if_buttons(settings: Settings, step: int) -> None:
    """One button per other tie rule: open Compare runs on this run against that rule's,
    at ``step``. The other run trains (once, cached) when the page opens."""
    others = [rule for rule in TIE_RULES if rule != settings.training.tie_rule]
    for column, rule in zip(st.columns(len(others)), others):
        if column.button(
            f"What if {tie_rule_label(rule)}? Compare →",
            key=f"compare_whatif_{rule}",
            help=f"Train the same settings with ties going to {describe_tie_rule(rule)}, "
            f"and see where the two runs part ways.",
        ):
            state = st.session_state
            keep_with(run_identity(settings), KEPT_WITH_RUN)
            state[RUN_A], state[RUN_B] = settings, settings.with_training(tie_rule=rule)
            state[FOCUS] = state[MERGES] = step
            state[WIDEN] = True  # Compare runs then shows the merges up to where the runs part
            try:
                st.switch_page(COMPARE_PAGE)
            except StreamlitAPIException:  # a server started before the page was added has not registered it
                st.warning("Open **Compare runs** in the page list: both runs are ready there.")
